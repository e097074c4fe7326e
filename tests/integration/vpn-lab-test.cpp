// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA secondaries under the real NetworkManager 1.42 of the NM lab
// (../shared/labs/nm), with ibnm's VPN plugin where NetworkManager and its
// clients read VPN plugins: the .name file in the lab's
// /etc/NetworkManager/VPN (the lab's DIR/etc, bound there in its mount
// namespace), naming the built nm-ibnm-service (through a wrapper that
// gives it its test configuration: a simulated host, as the lab has no
// RDMA) and the built editor plugin; nmcli and nm-connection-editor find it
// through NM_VPN_PLUGIN_DIR. Skips when the lab is absent.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"

#include <NetworkManager.h>
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace ibnm;

namespace {

struct Ran {
    int status = -1;
    std::string out, err;
    bool ok() const { return status == 0; }
    int exit() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

Ran spawn(const std::vector<std::string> &args)
{
    std::vector<char *> argv;
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    GCharPtr out, err;
    Ran r;
    GErrorPtr e;
    if (!g_spawn_sync(nullptr, argv.data(), nullptr, G_SPAWN_SEARCH_PATH, nullptr, nullptr, outPtr(out), outPtr(err),
                      &r.status, outPtr(e))) {
        r.err = e->message;
        return r;
    }
    r.out = out ? out.get() : "";
    r.err = err ? err.get() : "";
    return r;
}

std::string readFile(const std::string &path)
{
    GCharPtr s;
    if (!g_file_get_contents(path.c_str(), outPtr(s), nullptr, nullptr))
        return "";
    return s.get();
}

class VpnLab : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        const char *shared = g_getenv("IBNM_SHARED_DIR");
        lab_ = std::string(shared ? shared : std::string(IBNM_TOP_SRCDIR) + "/../shared") + "/labs/nm/nm-lab";
        if (!g_file_test(lab_.c_str(), G_FILE_TEST_IS_EXECUTABLE)) {
            skip_ = "the NM lab is not here (" + lab_ + "); CI runs this test";
            return;
        }
        if (geteuid() != 0) {
            skip_ = "the NM lab needs root";
            return;
        }
        if (!g_file_test((std::string(IBNM_TOP_BUILDDIR) + "/tests/plugin/nm-ibnm-service-test").c_str(), G_FILE_TEST_EXISTS)) {
            skip_ = "nm-ibnm-service is not built (configure --with-vpn-plugin)";
            return;
        }
        dir_ = new test::TempDir();
        const test::TempDir &d = *dir_;
        // The lab has veths and no RDMA: the service works on a simulated
        // host with the lab's veth-a.
        d.write("work/veth.host", "[host]\nkernel-release=6.1.0\nchild-naming=upstream\n\n"
                                  "[netdev veth-a]\naddress=52:54:00:aa:bb:01\nmtu=1500\nup=true\n"
                                  "addresses=198.51.100.1/24\n");
        d.write("work/service.conf", "[test]\nsimulate=" + (d / "work/veth.host") + "\nsimulate-state=" +
                                         (d / "work/state") + "\nlog=" + (d / "work/service.log") + "\n");
        d.write("work/nm-ibnm-service", "#!/bin/sh\nexec " + std::string(IBNM_TOP_BUILDDIR) +
                                            "/tests/plugin/nm-ibnm-service-test --test-config " + (d / "work/service.conf") +
                                            " \"$@\"\n");
        g_chmod((d / "work/nm-ibnm-service").c_str(), 0755);
        // As `make install` writes it, with the build tree's paths; owned by
        // root and not writable by others, as NetworkManager requires.
        d.write("etc/VPN/nm-ibnm-service.name",
                "[VPN Connection]\nname=ibnm\nservice=org.freedesktop.NetworkManager.ibnm\nprogram=" +
                    (d / "work/nm-ibnm-service") + "\nsupports-multiple-connections=true\n\n[libnm]\nplugin=" +
                    std::string(IBNM_TOP_BUILDDIR) + "/plugin/.libs/libnm-vpn-plugin-ibnm.so\n");
        g_chmod((d / "etc/VPN/nm-ibnm-service.name").c_str(), 0644);
        Ran s = spawn({lab_, "start", d.path()});
        if (!s.ok()) {
            skip_ = "the NM lab did not start: " + s.err;
            return;
        }
        started_ = true;
        g_setenv("DBUS_SYSTEM_BUS_ADDRESS", ("unix:path=" + (d / "lab/dbus/system_bus_socket")).c_str(), TRUE);
        g_setenv("NM_VPN_PLUGIN_DIR", (d / "etc/VPN").c_str(), TRUE);
        spawn({lab_, "exec", d.path(), "sh", "-c",
               "ip link add veth-a type veth peer name veth-b && ip link set veth-b up"});
    }

    static void TearDownTestSuite()
    {
        if (started_)
            spawn({lab_, "stop", dir_->path()});
        g_unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        g_unsetenv("NM_VPN_PLUGIN_DIR");
        delete dir_;
        dir_ = nullptr;
        started_ = false;
    }

    void SetUp() override
    {
        if (!skip_.empty())
            IBNM_LAB_SKIP(skip_);
    }

    static Ran nmcli(std::vector<std::string> args)
    {
        args.insert(args.begin(), "nmcli");
        return spawn(args);
    }

    static Ran labExec(std::vector<std::string> args)
    {
        args.insert(args.begin(), {lab_, "exec", dir_->path()});
        return spawn(args);
    }

    // A base profile on veth-a, and an RDMA secondary with `data`
    // (nmcli's vpn.data syntax) listed in its connection.secondaries, all
    // made with nmcli.
    static void addPair(const std::string &base, const std::string &secondary, const std::string &data)
    {
        Ran a = nmcli({"connection", "add", "type", "vpn", "vpn-type", "ibnm", "con-name", secondary, "vpn.data", data});
        ASSERT_TRUE(a.ok()) << a.err;
        Ran b = nmcli({"connection", "add", "type", "ethernet", "con-name", base, "ifname", "veth-a", "autoconnect",
                       "no", "ipv4.method", "manual", "ipv4.addresses", "198.51.100.1/24"});
        ASSERT_TRUE(b.ok()) << b.err;
        Ran m = nmcli({"connection", "modify", base, "+connection.secondaries", secondary});
        ASSERT_TRUE(m.ok()) << m.err;
    }

    static model::Host simulated()
    {
        auto h = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
            (*dir_ / "work/veth.host").c_str(), (*dir_ / "work/state").c_str(), nullptr));
        auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
        EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
        return inventoryHost(inv.get());
    }

    static std::string routes()
    {
        return labExec({"ip", "route", "show", "table", "all"}).out + labExec({"ip", "-6", "route", "show", "table", "all"}).out;
    }

    static inline std::string lab_, skip_;
    static inline test::TempDir *dir_ = nullptr;
    static inline bool started_ = false;
};

} // namespace

// nmcli's own words attach the secondary; `up` of the base provisions it on
// the base's device (nothing else: no route, no address), `down` removes it.
TEST_F(VpnLab, NmcliSecondaryProvisionsWithTheBaseAndGoesWithIt)
{
    addPair("base-a", "rdma-a", "rdma.link-type=rxe, rdma.link-name=rxe0, rdma.roce-tos=106");
    // NetworkManager's keyfile: the secondary's settings are its vpn.data.
    std::string kf = readFile(*dir_ / "etc/system-connections/rdma-a.nmconnection");
    EXPECT_NE(kf.find("[vpn]\nrdma.link-name=rxe0\nrdma.link-type=rxe\nrdma.roce-tos=106\n"
                      "service-type=org.freedesktop.NetworkManager.ibnm\n"),
              std::string::npos)
        << kf;
    // The routes of the base alone, to compare with.
    ASSERT_TRUE(nmcli({"connection", "modify", "base-a", "connection.secondaries", ""}).ok());
    ASSERT_TRUE(nmcli({"connection", "up", "base-a"}).ok());
    std::string baseRoutes = routes();
    ASSERT_TRUE(nmcli({"connection", "down", "base-a"}).ok());
    ASSERT_TRUE(nmcli({"connection", "modify", "base-a", "+connection.secondaries", "rdma-a"}).ok());

    gint64 t0 = g_get_monotonic_time();
    Ran up = nmcli({"connection", "up", "base-a"});
    std::cout << "nmcli connection up with the RDMA secondary: " << (g_get_monotonic_time() - t0) / 1000 << " ms\n";
    ASSERT_TRUE(up.ok()) << up.out << up.err << readFile(*dir_ / "work/service.log");
    Ran state = nmcli({"-g", "GENERAL.STATE,GENERAL.VPN", "connection", "show", "rdma-a"});
    EXPECT_EQ(state.out, "activated\nyes\n");
    model::Host h = simulated();
    ASSERT_EQ(h.softLinks.size(), 1u) << readFile(*dir_ / "work/service.log");
    EXPECT_EQ(h.softLinks[0].name, "rxe0");
    EXPECT_EQ(h.softLinks[0].netdev, "veth-a");
    // The Config carried no route: the base's routes, not one more.
    EXPECT_EQ(routes(), baseRoutes);

    ASSERT_TRUE(nmcli({"connection", "down", "base-a"}).ok());
    for (int i = 0; i < 100 && !simulated().softLinks.empty(); i++)
        g_usleep(20000);
    EXPECT_TRUE(simulated().softLinks.empty()) << readFile(*dir_ / "work/service.log");
    nmcli({"connection", "delete", "base-a", "rdma-a"});
}

// RoCE v1 on rxe: the service's GError is in NetworkManager's log, the base
// activation fails with nmcli's exit 4, and nothing is left.
TEST_F(VpnLab, RefusedSecondaryFailsTheBaseWithNothingLeft)
{
    addPair("base-b", "rdma-b", "rdma.link-type=rxe, rdma.link-name=rxe1, rdma.roce-mode=v1");
    gint64 t0 = g_get_monotonic_time();
    Ran up = nmcli({"connection", "up", "base-b"});
    std::cout << "nmcli connection up failed in " << (g_get_monotonic_time() - t0) / 1000 << " ms: " << up.err;
    EXPECT_EQ(up.exit(), 4) << up.out << up.err;
    EXPECT_NE(up.err.find("A secondary connection of the base connection failed"), std::string::npos) << up.err;
    EXPECT_TRUE(simulated().softLinks.empty());
    std::string log = readFile(*dir_ / "lab/NetworkManager.log");
    EXPECT_NE(log.find("failed to connect interactively: 'GDBus.Error:org.freedesktop.NetworkManager.VPN.Error."
                       "LaunchFailed: rdma-b: rdma.roce-mode: rxe1/1 does not support IB/RoCE v1"),
              std::string::npos)
        << log;
    EXPECT_EQ(nmcli({"-g", "GENERAL.STATE", "connection", "show", "base-b"}).out, "");
    nmcli({"connection", "delete", "base-b", "rdma-b"});
}

// ibnm's own words: `add type rdma ... secondary-of BASE` over D-Bus.
TEST_F(VpnLab, IbnmAddsASecondaryOfABaseProfile)
{
    Ran b = nmcli({"connection", "add", "type", "ethernet", "con-name", "base-c", "ifname", "veth-a", "autoconnect",
                   "no", "ipv4.method", "manual", "ipv4.addresses", "198.51.100.1/24"});
    ASSERT_TRUE(b.ok()) << b.err;
    std::string ibnm = std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm";
    Ran add = spawn({ibnm, "connection", "add", "type", "rdma", "con-name", "rdma-c", "secondary-of", "base-c",
                     "rdma.link-type", "siw", "rdma.link-name", "siw0"});
    ASSERT_TRUE(add.ok()) << add.out << add.err;
    std::string kf = readFile(*dir_ / "etc/system-connections/rdma-c.nmconnection");
    EXPECT_NE(kf.find("rdma.link-type=siw\n"), std::string::npos) << kf;
    std::string uuid = nmcli({"-g", "connection.uuid", "connection", "show", "rdma-c"}).out;
    EXPECT_EQ(nmcli({"-g", "connection.secondaries", "connection", "show", "base-c"}).out, uuid);
    ASSERT_TRUE(nmcli({"connection", "up", "base-c"}).ok()) << readFile(*dir_ / "work/service.log");
    model::Host h = simulated();
    ASSERT_EQ(h.softLinks.size(), 1u);
    EXPECT_EQ(h.softLinks[0].name, "siw0");
    ASSERT_TRUE(nmcli({"connection", "down", "base-c"}).ok());
    nmcli({"connection", "delete", "base-c", "rdma-c"});
}

// NetworkManager stops (a restart): the service leaves the host as
// NetworkManager leaves its devices; the next activation of the base takes
// the link over and its `down` removes it.
TEST_F(VpnLab, NetworkManagerRestartKeepsTheProvisioning)
{
    addPair("base-d", "rdma-d", "rdma.link-type=rxe, rdma.link-name=rxe2");
    ASSERT_TRUE(nmcli({"connection", "up", "base-d"}).ok());
    ASSERT_EQ(simulated().softLinks.size(), 1u);
    ASSERT_TRUE(spawn({lab_, "stop", dir_->path()}).ok());
    EXPECT_EQ(simulated().softLinks.size(), 1u) << "kept over the restart";
    Ran s = spawn({lab_, "start", dir_->path()});
    ASSERT_TRUE(s.ok()) << s.err;
    labExec({"sh", "-c", "ip link add veth-a type veth peer name veth-b; ip link set veth-b up"});
    Ran up = nmcli({"connection", "up", "base-d"});
    ASSERT_TRUE(up.ok()) << up.err << readFile(*dir_ / "work/service.log");
    EXPECT_EQ(simulated().softLinks.size(), 1u);
    ASSERT_TRUE(nmcli({"connection", "down", "base-d"}).ok());
    for (int i = 0; i < 100 && !simulated().softLinks.empty(); i++)
        g_usleep(20000);
    EXPECT_TRUE(simulated().softLinks.empty()) << readFile(*dir_ / "work/service.log");
    nmcli({"connection", "delete", "base-d", "rdma-d"});
}

// nm-connection-editor is a program of the distribution, built without the
// sanitizers: it cannot load a sanitizer build's editor plugin, whose
// AddressSanitizer symbols only an instrumented program provides.
#define IBNM_SKIP_UNLESS_EDITOR_PAGE_LOADS()                                                                           \
    do {                                                                                                               \
        if (!g_file_test((std::string(IBNM_TOP_BUILDDIR) + "/plugin/.libs/libnm-vpn-plugin-ibnm-editor.so").c_str(), \
                         G_FILE_TEST_EXISTS))                                                                          \
            GTEST_SKIP() << "the editor page is not built (GTK 3 missing at configure time)";                         \
        if (IBNM_TEST_ASAN)                                                                                            \
            GTEST_SKIP() << "nm-connection-editor cannot load the editor plugin of a sanitizer build; "                \
                            "the build without sanitizers runs this test";                                           \
    } while (0)

// nm-connection-editor (GTK 3) shows ibnm's page for the secondary (fields
// found by accessibility, under their vpn.data keys), a value typed there
// and saved lands in vpn.data, and the base profile, whose [user] keys the
// page warns about, is not touched. Screenshots in tests/artefacts/.
TEST_F(VpnLab, EditorShowsThePageAndSavesIntoVpnData)
{
    IBNM_SKIP_UNLESS_EDITOR_PAGE_LOADS();
    addPair("base-e", "rdma-e", "rdma.link-type=rxe, rdma.link-name=rxe3, rdma.roce-mode=v2");
    std::string ibnm = std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm";
    ASSERT_TRUE(spawn({ibnm, "connection", "modify", "base-e", "rdma.ttl", "64"}).ok());
    std::string baseFile = *dir_ / "etc/system-connections/base-e.nmconnection";
    std::string baseBefore = readFile(baseFile);
    ASSERT_NE(baseBefore.find("[user]\nrdma.ttl=64\n"), std::string::npos) << baseBefore;
    std::string uuid = nmcli({"-g", "connection.uuid", "connection", "show", "rdma-e"}).out;
    uuid.erase(uuid.find_last_not_of('\n') + 1);

    std::string artefacts = std::string(IBNM_TOP_BUILDDIR) + "/tests/artefacts";
    // In the lab's namespaces: the page checks against the host it runs on,
    // which has veth-a there.
    Ran gui = labExec({"env", "NM_VPN_PLUGIN_DIR=" + (*dir_ / "etc/VPN"),
                       "LD_LIBRARY_PATH=" + std::string(IBNM_TOP_BUILDDIR) + "/libcore/.libs",
                       std::string(IBNM_TOP_SRCDIR) + "/tests/integration/editor-vpn.sh", artefacts, "rdma-e",
                       "--edit=" + uuid, "rdma.roce-tos", "dscp:26"});
    if (gui.exit() == 77)
        GTEST_SKIP() << gui.out;
    std::cout << gui.out;
    ASSERT_TRUE(gui.ok()) << gui.out << gui.err;
    EXPECT_TRUE(g_file_test((artefacts + "/editor-rdma-e.png").c_str(), G_FILE_TEST_EXISTS));
    EXPECT_NE(gui.out.find("editor-vpn: rdma.roce-tos is now: dscp:26"), std::string::npos) << gui.out;
    // The findings of `ibnm check` under the fields, live.
    EXPECT_NE(gui.out.find("finding: \u26a0 connection.secondaries: 'base-e' carries rdma.* keys in [user]"),
              std::string::npos)
        << gui.out;
    EXPECT_EQ(gui.out.find("editor log:"), std::string::npos) << gui.out;

    std::string kf = readFile(*dir_ / "etc/system-connections/rdma-e.nmconnection");
    EXPECT_NE(kf.find("[vpn]\nrdma.link-name=rxe3\nrdma.link-type=rxe\nrdma.roce-mode=v2\nrdma.roce-tos=dscp:26\n"
                      "service-type=org.freedesktop.NetworkManager.ibnm\n"),
              std::string::npos)
        << kf;
    EXPECT_EQ(readFile(baseFile), baseBefore) << "the base profile was rewritten";
    nmcli({"connection", "delete", "base-e", "rdma-e"});
}

// The "+" path: a new RDMA secondary, created in the editor.
TEST_F(VpnLab, EditorCreatesANewSecondary)
{
    IBNM_SKIP_UNLESS_EDITOR_PAGE_LOADS();
    std::string artefacts = std::string(IBNM_TOP_BUILDDIR) + "/tests/artefacts";
    Ran gui = labExec({"env", "NM_VPN_PLUGIN_DIR=" + (*dir_ / "etc/VPN"),
                       "LD_LIBRARY_PATH=" + std::string(IBNM_TOP_BUILDDIR) + "/libcore/.libs",
                       std::string(IBNM_TOP_SRCDIR) + "/tests/integration/editor-vpn.sh", artefacts, "new",
                       "--create --type=ibnm", "rdma.roce-tos", "dscp:46"});
    if (gui.exit() == 77)
        GTEST_SKIP() << gui.out;
    std::cout << gui.out;
    ASSERT_TRUE(gui.ok()) << gui.out << gui.err;
    // Saved as NetworkManager names a new VPN profile, with ibnm's service.
    Ran list = nmcli({"-g", "NAME,TYPE", "connection", "show"});
    std::string created;
    for (const char *name : {"VPN connection 1", "RDMA provisioning (ibnm) connection 1"})
        if (list.out.find(std::string(name) + ":vpn") != std::string::npos)
            created = name;
    ASSERT_FALSE(created.empty()) << list.out;
    Ran vpnType = nmcli({"-g", "vpn.service-type,vpn.data", "connection", "show", created});
    EXPECT_EQ(vpnType.out, "org.freedesktop.NetworkManager.ibnm\nrdma.roce-tos = dscp\\:46\n");
    nmcli({"connection", "delete", created});
}
