// SPDX-License-Identifier: LGPL-2.1-or-later
// The built nm-ibnm-service over D-Bus, as NetworkManager 1.42 drives it
// (nm-vpn-connection.c): started with `--bus-name <service>.Connection_<N>`
// on a private system bus, where this test plays NetworkManager (its name,
// the active connection N whose Devices name the base device), calls
// Connect with the profile and waits for the Config signal, then
// Disconnect. The host is simulated (the service's --test-config).
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"

#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <string>

using namespace ibnm;

namespace {

constexpr const char *kActive = "/org/freedesktop/NetworkManager/ActiveConnection/7";
constexpr const char *kDevice = "/org/freedesktop/NetworkManager/Devices/3";
constexpr const char *kBusName = "org.freedesktop.NetworkManager.ibnm.Connection_7";
constexpr const char *kUuid = "2b9d4e6f-1a3c-4d5e-8f70-a1b2c3d4e5f6";

constexpr const char *kIntrospection =
    "<node>"
    "<interface name='org.freedesktop.NetworkManager.Connection.Active'>"
    "<property name='Devices' type='ao' access='read'/>"
    "<property name='Uuid' type='s' access='read'/>"
    "<property name='Vpn' type='b' access='read'/>"
    "</interface>"
    "<interface name='org.freedesktop.NetworkManager.Device'>"
    "<property name='Interface' type='s' access='read'/>"
    "</interface>"
    "</node>";

GVariant *getProperty(GDBusConnection *, const char *, const char *, const char *, const char *name, GError **,
                      gpointer)
{
    if (g_strcmp0(name, "Devices") == 0) {
        const char *devices[] = {kDevice, nullptr};
        return g_variant_new_objv(devices, 1);
    }
    if (g_strcmp0(name, "Uuid") == 0)
        return g_variant_new_string(kUuid);
    if (g_strcmp0(name, "Vpn") == 0)
        return g_variant_new_boolean(TRUE);
    return g_variant_new_string("enp1s0"); // Interface
}

class VpnDbus : public ::testing::Test {
protected:
    void SetUp() override
    {
        service_ = std::string(IBNM_TOP_BUILDDIR) + "/tests/plugin/nm-ibnm-service-test";
        if (!g_file_test(service_.c_str(), G_FILE_TEST_IS_EXECUTABLE))
            GTEST_SKIP() << "nm-ibnm-service is not built (configure --with-vpn-plugin)";
        if (ibnm::test::findProgram("dbus-daemon").empty())
            GTEST_SKIP() << "no dbus-daemon";
        dir_.write("bus.conf", "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\" "
                               "\"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\"><busconfig>"
                               "<type>system</type><listen>unix:path=" + (dir_ / "bus") + "</listen>"
                               "<auth>EXTERNAL</auth><policy context='default'><allow user='*'/><allow own='*'/>"
                               "<allow send_destination='*'/><allow receive_sender='*'/></policy></busconfig>");
        std::string conf = "--config-file=" + (dir_ / "bus.conf");
        const char *argv[] = {"dbus-daemon", "--nofork", conf.c_str(), nullptr};
        GErrorPtr err;
        ASSERT_TRUE(g_spawn_async(nullptr, const_cast<char **>(argv), nullptr,
                                  GSpawnFlags(G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD), nullptr, nullptr,
                                  &busPid_, outPtr(err)))
            << err->message;
        address_ = "unix:path=" + (dir_ / "bus");
        // The socket file appears at bind(), a moment before dbus-daemon
        // listens on it: connect until it answers (at most 5 s).
        for (int i = 0; i < 500 && bus_ == nullptr; i++) {
            if (g_file_test((dir_ / "bus").c_str(), G_FILE_TEST_EXISTS)) {
                err.reset();
                bus_ = g_dbus_connection_new_for_address_sync(
                    address_.c_str(),
                    GDBusConnectionFlags(G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                         G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION),
                    nullptr, nullptr, outPtr(err));
            }
            if (bus_ == nullptr)
                g_usleep(10000);
        }
        ASSERT_NE(bus_, nullptr) << (err ? err->message : "no bus socket");
        // This test is NetworkManager.
        GVariant *r = g_dbus_connection_call_sync(bus_, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "RequestName",
                                                  g_variant_new("(su)", "org.freedesktop.NetworkManager", 0u),
                                                  nullptr, G_DBUS_CALL_FLAGS_NONE, -1, nullptr, outPtr(err));
        ASSERT_NE(r, nullptr) << err->message;
        g_variant_unref(r);
        node_ = g_dbus_node_info_new_for_xml(kIntrospection, outPtr(err));
        static const GDBusInterfaceVTable vtable = {nullptr, getProperty, nullptr, {}};
        ASSERT_TRUE(g_dbus_connection_register_object(bus_, kActive, node_->interfaces[0], &vtable, nullptr, nullptr,
                                                      outPtr(err)));
        ASSERT_TRUE(g_dbus_connection_register_object(bus_, kDevice, node_->interfaces[1], &vtable, nullptr, nullptr,
                                                      outPtr(err)));
        g_dbus_connection_signal_subscribe(bus_, nullptr, "org.freedesktop.NetworkManager.VPN.Plugin", "Config",
                                           "/org/freedesktop/NetworkManager/VPN/Plugin", nullptr,
                                           G_DBUS_SIGNAL_FLAGS_NONE, onConfig, this, nullptr);
    }

    void TearDown() override
    {
        if (servicePid_ > 0) {
            kill(servicePid_, SIGKILL);
            waitpid(servicePid_, nullptr, 0);
        }
        g_clear_object(&bus_);
        if (node_)
            g_dbus_node_info_unref(node_);
        if (busPid_ > 0) {
            kill(busPid_, SIGTERM);
            waitpid(busPid_, nullptr, 0);
        }
    }

    static void onConfig(GDBusConnection *, const char *, const char *, const char *, const char *,
                         GVariant *parameters, gpointer data)
    {
        auto *self = static_cast<VpnDbus *>(data);
        g_variant_get(parameters, "(@a{sv})", &self->config_);
    }

    // Starts the service as NetworkManager does, and waits for its name.
    void startService()
    {
        dir_.write("service.conf", "[test]\nsimulate=" + test::srcPath("examples/hosts/ethernet-only.host") +
                                       "\nsimulate-state=" + (dir_ / "state") + "\nlog=" + (dir_ / "log") + "\n");
        std::string conf = dir_ / "service.conf";
        std::string env = "DBUS_SYSTEM_BUS_ADDRESS=" + address_;
        const char *argv[] = {service_.c_str(), "--test-config", conf.c_str(), "--bus-name", kBusName, nullptr};
        const char *envp[] = {env.c_str(), "PATH=/usr/bin:/bin", nullptr};
        GErrorPtr err;
        ASSERT_TRUE(g_spawn_async(nullptr, const_cast<char **>(argv), const_cast<char **>(envp),
                                  G_SPAWN_DO_NOT_REAP_CHILD, nullptr, nullptr, &servicePid_, outPtr(err)))
            << err->message;
        for (int i = 0; i < 1000; i++) {
            GVariant *r = g_dbus_connection_call_sync(bus_, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                      "org.freedesktop.DBus", "NameHasOwner",
                                                      g_variant_new("(s)", kBusName), G_VARIANT_TYPE("(b)"),
                                                      G_DBUS_CALL_FLAGS_NONE, -1, nullptr, nullptr);
            gboolean has = FALSE;
            if (r) {
                g_variant_get(r, "(b)", &has);
                g_variant_unref(r);
            }
            if (has)
                return;
            g_usleep(10000);
        }
        FAIL() << "the service did not take its bus name: " << log();
    }

    // A call to the service, answering its calls to "NetworkManager" (this
    // process) meanwhile, as NetworkManager does.
    GVariant *call(const char *method, GVariant *args, GError **error)
    {
        struct Done {
            bool done = false;
            GVariant *reply = nullptr;
            GError *error = nullptr;
        } d;
        g_dbus_connection_call(
            bus_, kBusName, "/org/freedesktop/NetworkManager/VPN/Plugin", "org.freedesktop.NetworkManager.VPN.Plugin",
            method, args, nullptr, G_DBUS_CALL_FLAGS_NONE, 25000, nullptr,
            [](GObject *source, GAsyncResult *result, gpointer data) {
                auto *done = static_cast<Done *>(data);
                done->reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &done->error);
                done->done = true;
            },
            &d);
        while (!d.done)
            g_main_context_iteration(nullptr, TRUE);
        if (d.error)
            g_propagate_error(error, d.error);
        return d.reply;
    }

    GVariant *profile(const char *roceMode)
    {
        auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
        NMSetting *s = nm_setting_connection_new();
        g_object_set(s, NM_SETTING_CONNECTION_ID, "rdma-enp1s0", NM_SETTING_CONNECTION_UUID, kUuid,
                     NM_SETTING_CONNECTION_TYPE, NM_SETTING_VPN_SETTING_NAME, nullptr);
        nm_connection_add_setting(c.get(), s);
        NMSetting *vpn = nm_setting_vpn_new();
        g_object_set(vpn, NM_SETTING_VPN_SERVICE_TYPE, IBNM_SECONDARY_SERVICE_TYPE, nullptr);
        nm_setting_vpn_add_data_item(NM_SETTING_VPN(vpn), "rdma.link-type", "rxe");
        nm_setting_vpn_add_data_item(NM_SETTING_VPN(vpn), "rdma.link-name", "rxe0");
        nm_setting_vpn_add_data_item(NM_SETTING_VPN(vpn), "rdma.roce-mode", roceMode);
        nm_connection_add_setting(c.get(), vpn);
        return g_variant_new("(@a{sa{sv}})", nm_connection_to_dbus(c.get(), NM_CONNECTION_SERIALIZE_ALL));
    }

    // Whether the service exited within 10 s (it quits once stopped).
    bool serviceExits()
    {
        for (int i = 0; i < 1000; i++) {
            g_main_context_iteration(nullptr, FALSE);
            if (waitpid(servicePid_, nullptr, WNOHANG) == servicePid_) {
                servicePid_ = -1;
                return true;
            }
            g_usleep(10000);
        }
        return false;
    }

    size_t softLinks()
    {
        auto h = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
            test::srcPath("examples/hosts/ethernet-only.host").c_str(), (dir_ / "state").c_str(), nullptr));
        auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
        EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
        return inventoryHost(inv.get()).softLinks.size();
    }

    std::string log()
    {
        GCharPtr s;
        if (!g_file_get_contents((dir_ / "log").c_str(), outPtr(s), nullptr, nullptr))
            return "";
        return s.get();
    }

    test::TempDir dir_;
    std::string service_, address_;
    GPid busPid_ = -1, servicePid_ = -1;
    GDBusConnection *bus_ = nullptr;
    GDBusNodeInfo *node_ = nullptr;
    GVariant *config_ = nullptr;
};

} // namespace

TEST_F(VpnDbus, ConnectSendsTheConfigAndDisconnectUndoes)
{
    startService();
    GErrorPtr err;
    GVariant *r = call("Connect", profile("v2"), outPtr(err));
    ASSERT_NE(r, nullptr) << err->message << "\n" << log();
    g_variant_unref(r);
    for (int i = 0; i < 1000 && config_ == nullptr; i++) {
        g_main_context_iteration(nullptr, FALSE);
        g_usleep(10000);
    }
    ASSERT_NE(config_, nullptr) << "no Config signal";
    gboolean hasIp4 = TRUE;
    EXPECT_TRUE(g_variant_lookup(config_, "has-ip4", "b", &hasIp4));
    EXPECT_FALSE(hasIp4);
    GVariant *gw = g_variant_lookup_value(config_, "gateway", G_VARIANT_TYPE_BYTESTRING);
    ASSERT_NE(gw, nullptr);
    EXPECT_EQ(g_variant_get_size(gw), 16u);
    g_variant_unref(gw);
    g_variant_unref(config_);
    EXPECT_EQ(softLinks(), 1u) << log();
    EXPECT_NE(log().find("provisioning rdma-enp1s0 (" + std::string(kUuid) + ") on enp1s0"), std::string::npos)
        << log();

    r = call("Disconnect", nullptr, outPtr(err));
    ASSERT_NE(r, nullptr) << err->message;
    g_variant_unref(r);
    EXPECT_EQ(softLinks(), 0u) << log();
    EXPECT_TRUE(serviceExits());
}

// NetworkManager logs the error's text ("failed to connect: '...'") and
// fails the base activation.
TEST_F(VpnDbus, RefusedConnectReturnsTheErrorAndLeavesNothing)
{
    startService();
    GErrorPtr err;
    GVariant *r = call("Connect", profile("v1"), outPtr(err));
    ASSERT_EQ(r, nullptr);
    ASSERT_TRUE(err);
    GCharPtr name(g_dbus_error_get_remote_error(err.get()));
    EXPECT_STREQ(name.get(), "org.freedesktop.NetworkManager.VPN.Error.LaunchFailed") << err->message;
    EXPECT_NE(std::string(err->message).find("rdma.roce-mode"), std::string::npos) << err->message;
    EXPECT_EQ(softLinks(), 0u);
    EXPECT_TRUE(serviceExits());
}
