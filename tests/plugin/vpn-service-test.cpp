// SPDX-License-Identifier: LGPL-2.1-or-later
// nm-ibnm-service's work for one activation of an RDMA secondary
// (plugin/vpn-service.cpp), on a simulated host: Connect provisions the
// vpn.data settings on the base device through libibnm's apply path or
// refuses with nothing left; Disconnect undoes exactly what Connect did;
// after NetworkManager went away the next activation takes over.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"
#include "plugin/vpn-service.hpp"

#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <string>
#include <vector>

using namespace ibnm;

namespace {

constexpr const char *kUuid = "7a1c2e3d-4b5f-4a6b-9c8d-0e1f2a3b4c5d";

std::vector<std::string> gLog;

void logTo(int, const std::string &line)
{
    gLog.push_back(line);
}

GObjectPtr<NMConnection> secondary(std::vector<std::pair<const char *, const char *>> items)
{
    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    NMSetting *s = nm_setting_connection_new();
    g_object_set(s, NM_SETTING_CONNECTION_ID, "rdma-enp1s0", NM_SETTING_CONNECTION_UUID, kUuid,
                 NM_SETTING_CONNECTION_TYPE, NM_SETTING_VPN_SETTING_NAME, nullptr);
    nm_connection_add_setting(c.get(), s);
    NMSetting *vpn = nm_setting_vpn_new();
    g_object_set(vpn, NM_SETTING_VPN_SERVICE_TYPE, IBNM_SECONDARY_SERVICE_TYPE, nullptr);
    for (auto [k, v] : items)
        nm_setting_vpn_add_data_item(NM_SETTING_VPN(vpn), k, v);
    nm_connection_add_setting(c.get(), vpn);
    return c;
}

class VpnService : public ::testing::Test {
protected:
    void SetUp() override
    {
        gLog.clear();
        host_ = newHost("");
    }

    GObjectPtr<IbnmHost> newHost(const char *faults)
    {
        GErrorPtr err;
        auto h = GObjectPtr<IbnmHost>::adopt(
            ibnm_simulator_new_host(test::srcPath("examples/hosts/ethernet-only.host").c_str(),
                                    (dir_ / "state").c_str(), outPtr(err)));
        EXPECT_TRUE(h) << err->message;
        if (*faults) {
            EXPECT_TRUE(ibnm_simulator_add_faults(h.get(), faults, outPtr(err)));
        }
        return h;
    }

    model::Host read()
    {
        auto h = newHost("");
        auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
        EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
        return inventoryHost(inv.get());
    }

    const model::Port *port(const model::Host &h, const char *device)
    {
        const model::Device *d = h.findDevice(device);
        return d && !d->ports.empty() ? &d->ports[0] : nullptr;
    }

    test::TempDir dir_;
    GObjectPtr<IbnmHost> host_;
};

} // namespace

TEST_F(VpnService, ConnectProvisionsOnTheBaseDeviceAndDisconnectRemovesIt)
{
    auto s = secondary({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-mode", "v2"},
                        {"rdma.roce-tos", "dscp:26"}});
    vpn::Activation a(host_.get(), 5000, logTo);
    GErrorPtr err;
    ASSERT_TRUE(a.connect(s.get(), "enp1s0", outPtr(err))) << err->message;
    model::Host h = read();
    ASSERT_EQ(h.softLinks.size(), 1u);
    EXPECT_EQ(h.softLinks[0].name, "rxe0");
    EXPECT_EQ(h.softLinks[0].netdev, "enp1s0");
    ASSERT_NE(port(h, "rxe0"), nullptr);
    EXPECT_EQ(port(h, "rxe0")->defaultRoceTos, std::optional<unsigned>(104));
    EXPECT_EQ(port(h, "rxe0")->defaultRoceMode, model::RoceMode::V2);
    // The record the next activation would take over after a restart.
    EXPECT_TRUE(g_file_test((dir_ / (std::string("state/secondaries/") + kUuid)).c_str(), G_FILE_TEST_EXISTS));

    ASSERT_TRUE(a.disconnect(false, outPtr(err))) << err->message;
    EXPECT_TRUE(read().softLinks.empty());
    EXPECT_FALSE(g_file_test((dir_ / (std::string("state/secondaries/") + kUuid)).c_str(), G_FILE_TEST_EXISTS));
}

// RoCE v1 on rxe: the planner refuses before anything changes; the error
// names the setting, for NetworkManager's log.
TEST_F(VpnService, RefusalIsAGErrorNamingTheSettingWithNothingLeft)
{
    auto s = secondary({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-mode", "v1"}});
    vpn::Activation a(host_.get(), 5000, logTo);
    GErrorPtr err;
    EXPECT_FALSE(a.connect(s.get(), "enp1s0", outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_LAUNCH_FAILED)) << err->message;
    EXPECT_NE(std::string(err->message).find("rdma.roce-mode"), std::string::npos) << err->message;
    EXPECT_EQ(std::string(err->message).rfind("rdma-enp1s0: ", 0), 0u) << err->message;
    EXPECT_TRUE(read().softLinks.empty());
    EXPECT_FALSE(a.connected());
}

// A kernel refusal halfway (the ToS after the link): the link goes again.
TEST_F(VpnService, FailureHalfwayIsRolledBack)
{
    host_ = newHost("op=setDefaultRoceTos,nth=1,errno=EINVAL");
    auto s = secondary({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    vpn::Activation a(host_.get(), 5000, logTo);
    GErrorPtr err;
    EXPECT_FALSE(a.connect(s.get(), "enp1s0", outPtr(err)));
    EXPECT_TRUE(read().softLinks.empty());
    EXPECT_FALSE(g_file_test((dir_ / (std::string("state/secondaries/") + kUuid)).c_str(), G_FILE_TEST_EXISTS));
}

TEST_F(VpnService, SettingsThatDoNotParseAreBadArguments)
{
    auto s = secondary({{"rdma.link-type", "rxe"}, {"rdma.ttl", "300"}});
    vpn::Activation a(host_.get(), 5000, logTo);
    GErrorPtr err;
    EXPECT_FALSE(a.connect(s.get(), "enp1s0", outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_VPN_PLUGIN_ERROR, NM_VPN_PLUGIN_ERROR_BAD_ARGUMENTS));
    EXPECT_NE(std::string(err->message).find("rdma.ttl"), std::string::npos) << err->message;
}

// A link the admin made stays; only the ToS Connect set is put back.
TEST_F(VpnService, DisconnectUndoesOnlyWhatConnectDid)
{
    GErrorPtr err;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_rdma_link_add(host_.get(), "rxe0", IBNM_SOFT_LINK_TYPE_RXE, "enp1s0",
                                         IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)))
        << err->message;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_roce_mode(host_.get(), "rxe0", 1, IBNM_ROCE_MODE_V2, IBNM_APPLY_FLAGS_NONE), nullptr,
                                     outPtr(err)))
        << err->message;
    std::optional<unsigned> tosBefore = port(read(), "rxe0")->defaultRoceTos;
    ASSERT_NE(tosBefore, std::optional<unsigned>(106));
    auto s = secondary({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    vpn::Activation a(host_.get(), 5000, logTo);
    ASSERT_TRUE(a.connect(s.get(), "enp1s0", outPtr(err))) << err->message;
    EXPECT_EQ(port(read(), "rxe0")->defaultRoceTos, std::optional<unsigned>(106));
    ASSERT_TRUE(a.disconnect(false, outPtr(err))) << err->message;
    model::Host h = read();
    ASSERT_EQ(h.softLinks.size(), 1u) << "the admin's link stays";
    EXPECT_EQ(port(h, "rxe0")->defaultRoceTos.value_or(0), tosBefore.value_or(0));
    EXPECT_EQ(port(h, "rxe0")->defaultRoceMode, model::RoceMode::V2);
}

// NetworkManager restarted (its bus name went away): the host stays as
// NetworkManager leaves its devices; the next activation of the profile
// takes over the link, and its Disconnect removes it.
TEST_F(VpnService, AfterNetworkManagerWentAwayTheNextActivationTakesOver)
{
    auto s = secondary({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    GErrorPtr err;
    {
        vpn::Activation first(host_.get(), 5000, logTo);
        ASSERT_TRUE(first.connect(s.get(), "enp1s0", outPtr(err))) << err->message;
        ASSERT_TRUE(first.disconnect(true, outPtr(err)));
    }
    EXPECT_EQ(read().softLinks.size(), 1u) << "kept";
    vpn::Activation second(host_.get(), 5000, logTo);
    ASSERT_TRUE(second.connect(s.get(), "enp1s0", outPtr(err))) << err->message;
    EXPECT_EQ(read().softLinks.size(), 1u);
    ASSERT_TRUE(second.disconnect(false, outPtr(err))) << err->message;
    EXPECT_TRUE(read().softLinks.empty());
}

// What NetworkManager 1.42 needs of a VPN without tunnel or IP
// (nm-vpn-connection.c): a gateway, as IPv6 ff02::1 (never routed through
// the device), no IPv4 one, no tundev, no IP configs awaited.
TEST(VpnServiceConfig, MinimalConfigHasTheGatewayNetworkManagerInsistsOn)
{
    GVariant *c = vpn::minimalConfig();
    gboolean b = TRUE;
    EXPECT_TRUE(g_variant_lookup(c, NM_VPN_PLUGIN_CONFIG_HAS_IP4, "b", &b));
    EXPECT_FALSE(b);
    EXPECT_TRUE(g_variant_lookup(c, NM_VPN_PLUGIN_CONFIG_HAS_IP6, "b", &b));
    EXPECT_FALSE(b);
    guint32 u = 0;
    EXPECT_FALSE(g_variant_lookup(c, NM_VPN_PLUGIN_CONFIG_EXT_GATEWAY, "u", &u));
    EXPECT_FALSE(g_variant_lookup_value(c, NM_VPN_PLUGIN_CONFIG_TUNDEV, nullptr));
    GVariant *gw = g_variant_lookup_value(c, NM_VPN_PLUGIN_CONFIG_EXT_GATEWAY, G_VARIANT_TYPE_BYTESTRING);
    ASSERT_NE(gw, nullptr);
    gsize n = 0;
    auto *bytes = static_cast<const guint8 *>(g_variant_get_fixed_array(gw, &n, 1));
    ASSERT_EQ(n, 16u);
    char text[64];
    EXPECT_STREQ(inet_ntop(AF_INET6, bytes, text, sizeof text), "ff02::1");
    g_variant_unref(gw);
    g_variant_unref(c);
}

TEST(VpnServiceConfig, ActiveConnectionFromTheBusNameNetworkManagerGives)
{
    EXPECT_EQ(vpn::activePathOfBusName("org.freedesktop.NetworkManager.ibnm.Connection_12"),
              "/org/freedesktop/NetworkManager/ActiveConnection/12");
    EXPECT_EQ(vpn::activePathOfBusName("org.freedesktop.NetworkManager.ibnm"), "");
    EXPECT_EQ(vpn::activePathOfBusName("org.freedesktop.NetworkManager.ibnm.Connection_1x"), "");
    EXPECT_EQ(vpn::activePathOfBusName("org.freedesktop.NetworkManager.openvpn.Connection_3"), "");
}
