// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook under the real NetworkManager 1.42 of the NM lab
// (../shared/labs/nm: NetworkManager with its own D-Bus in a private network
// namespace). A profile made with real nmcli gets ibnm's [user] keys through
// libibnm's NetworkManager backend (nmcli cannot set them), `nmcli connection
// up` on a veth runs the hook, which provisions the soft RDMA link on a
// simulated host; `nmcli connection down` removes it. Skips when the lab is
// absent.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/nmcli-oracle.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace ibnm;

namespace {

constexpr const char *kUuid = "8d0f6f0a-5b7e-4d3c-9a51-2c4e6b7a8d90";

std::string sharedDir()
{
    const char *env = g_getenv("IBNM_SHARED_DIR");
    return env ? env : std::string(IBNM_TOP_SRCDIR) + "/../shared";
}

struct Spawned {
    int status = -1;
    std::string out, err;
    bool ok() const { return status == 0; }
};

Spawned spawn(const std::vector<std::string> &args, const char *const *envp = nullptr)
{
    std::vector<char *> argv;
    for (const auto &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    GCharPtr out, err;
    Spawned r;
    GErrorPtr e;
    if (!g_spawn_sync(nullptr, argv.data(), const_cast<char **>(envp), G_SPAWN_SEARCH_PATH, nullptr, nullptr,
                      outPtr(out), outPtr(err), &r.status, outPtr(e))) {
        r.err = e->message;
        return r;
    }
    r.out = out ? out.get() : "";
    r.err = err ? err.get() : "";
    return r;
}

// One lab instance for the suite; stopped whatever happens.
class NmLab : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        lab_ = sharedDir() + "/labs/nm/nm-lab";
        if (!g_file_test(lab_.c_str(), G_FILE_TEST_IS_EXECUTABLE)) {
            skip_ = "the NM lab is not here (" + lab_ + "); CI runs this test";
            return;
        }
        if (geteuid() != 0) {
            skip_ = "the NM lab needs root";
            return;
        }
        dir_ = new test::TempDir();
        Spawned s = spawn({lab_, "start", dir_->path()});
        if (!s.ok()) {
            skip_ = "the NM lab did not start: " + s.err;
            return;
        }
        // "export DBUS_SYSTEM_BUS_ADDRESS=unix:path=..."
        auto pos = s.out.find("DBUS_SYSTEM_BUS_ADDRESS=");
        if (pos == std::string::npos) {
            skip_ = "unexpected nm-lab output: " + s.out;
            return;
        }
        std::string addr = s.out.substr(pos + 24);
        addr = addr.substr(0, addr.find_first_of("\n"));
        if (!addr.empty() && (addr.front() == '\'' || addr.front() == '"'))
            addr = addr.substr(1, addr.size() - 2);
        g_setenv("DBUS_SYSTEM_BUS_ADDRESS", addr.c_str(), TRUE);
        started_ = true;
    }

    static void TearDownTestSuite()
    {
        if (started_)
            spawn({lab_, "stop", dir_->path()});
        g_unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        delete dir_;
        dir_ = nullptr;
        started_ = false;
    }

    void SetUp() override
    {
        if (!skip_.empty())
            IBNM_LAB_SKIP(skip_);
    }

    Spawned labExec(std::vector<std::string> cmd)
    {
        cmd.insert(cmd.begin(), {lab_, "exec", dir_->path()});
        return spawn(cmd);
    }

    static inline std::string lab_;
    static inline std::string skip_;
    static inline test::TempDir *dir_ = nullptr;
    static inline bool started_ = false;
};

} // namespace

namespace {

// The hook, as `make install` lays it out, pointing at the built binary and
// its test configuration: the simulated host, the log, `extra` (fault
// rules). NetworkManager's dispatcher passes no environment of ours, and
// the hook would ignore it.
void installHook(const test::TempDir &d, const std::string &extra)
{
    d.write("work/hook.conf", "[test]\nsimulate=" + (d / "work/veth.host") + "\nsimulate-state=" +
                                  (d / "work/state") + "\nlog=" + (d / "work/hook.log") + "\n" + extra);
    std::string hook = d / "etc/dispatcher.d/90-ibnm";
    d.write("etc/dispatcher.d/90-ibnm", "#!/bin/sh\nexec " + std::string(IBNM_TOP_BUILDDIR) +
                                            "/tests/plugin/ibnm-dispatcher-test --test-config " + (d / "work/hook.conf") +
                                            " \"$@\"\n");
    g_chmod(hook.c_str(), 0755);
    for (const char *sub : {"pre-up.d", "pre-down.d"}) {
        std::string link = d / (std::string("etc/dispatcher.d/") + sub + "/90-ibnm");
        if (!g_file_test(link.c_str(), G_FILE_TEST_IS_SYMLINK)) {
            EXPECT_EQ(symlink("../90-ibnm", link.c_str()), 0) << link;
        }
    }
}

// Gives the profile `uuid` ibnm's keys through libibnm's NetworkManager
// backend, over D-Bus while NetworkManager runs.
void addUserKeys(const char *uuid, std::vector<std::pair<const char *, const char *>> keys)
{
    GErrorPtr err;
    auto settings = GObjectPtr<IbnmSettings>::adopt(ibnm_settings_new_auto(nullptr, outPtr(err)));
    ASSERT_TRUE(settings) << err->message;
    EXPECT_STREQ(ibnm_settings_get_backend_name(settings.get()), "networkmanager");
    ASSERT_TRUE(ibnm_settings_load(settings.get(), outPtr(err))) << err->message;
    NMConnection *found = ibnm_settings_find(settings.get(), uuid);
    ASSERT_NE(found, nullptr);
    auto edited = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(found));
    NMSetting *user = nm_setting_user_new();
    for (auto [k, v] : keys)
        nm_setting_user_set_data(NM_SETTING_USER(user), k, v, nullptr);
    nm_connection_add_setting(edited.get(), user);
    ASSERT_TRUE(ibnm_settings_update(settings.get(), edited.get(), outPtr(err))) << err->message;
}

model::Host simulatedHost(const test::TempDir &d)
{
    auto h = GObjectPtr<IbnmHost>::adopt(
        ibnm_simulator_new_host((d / "work/veth.host").c_str(), (d / "work/state").c_str(), nullptr));
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
    EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
    return inventoryHost(inv.get());
}

} // namespace

TEST_F(NmLab, DispatcherHookProvisionsOnUpAndRemovesOnDown)
{
    const test::TempDir &d = *dir_;
    // The simulated host the hook works on: the veth the lab has.
    d.write("work/veth.host", "[host]\nkernel-release=6.1.0\nchild-naming=upstream\n\n"
                              "[netdev veth-a]\naddress=52:54:00:aa:bb:01\nmtu=1500\nup=true\n"
                              "addresses=198.51.100.1/24\n");
    // The hook, as `make install` lays it out, pointing at the built binary
    // and the simulated host (NetworkManager's dispatcher passes no
    // environment of ours).
    installHook(d, "");

    ASSERT_TRUE(labExec({"ip", "link", "add", "veth-a", "type", "veth", "peer", "name", "veth-b"}).ok());
    ASSERT_TRUE(labExec({"ip", "link", "set", "veth-b", "up"}).ok());

    // A profile made with real nmcli...
    Spawned add = spawn({"nmcli", "connection", "add", "type", "ethernet", "con-name", "rdma-veth", "ifname",
                         "veth-a", "autoconnect", "no", "connection.uuid", kUuid, "ipv4.method", "manual",
                         "ipv4.addresses", "198.51.100.1/24"});
    ASSERT_TRUE(add.ok()) << add.err;

    // ...gets ibnm's keys through libibnm's NetworkManager backend.
    addUserKeys(kUuid, {{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});

    // NetworkManager owns the keys now: its own keyfile has them.
    GCharPtr keyfile;
    ASSERT_TRUE(g_file_get_contents((d / "etc/system-connections/rdma-veth.nmconnection").c_str(), outPtr(keyfile),
                                    nullptr, nullptr));
    EXPECT_NE(std::string(keyfile.get()).find("[user]\nrdma.link-name=rxe0\nrdma.link-type=rxe\nrdma.roce-tos=106"),
              std::string::npos)
        << keyfile.get();

    Spawned up = spawn({"nmcli", "connection", "up", "rdma-veth"});
    ASSERT_TRUE(up.ok()) << up.out << up.err;

    auto hostModel = [&]() { return simulatedHost(d); };
    model::Host h = hostModel();
    ASSERT_EQ(h.softLinks.size(), 1u) << "the pre-up hook did not provision the link";
    EXPECT_EQ(h.softLinks[0].name, "rxe0");
    EXPECT_EQ(h.softLinks[0].netdev, "veth-a");
    GCharPtr log;
    ASSERT_TRUE(g_file_get_contents((d / "work/hook.log").c_str(), outPtr(log), nullptr, nullptr));
    EXPECT_NE(std::string(log.get()).find(std::string(kUuid) + ": pre-up of rdma-veth"), std::string::npos)
        << log.get();

    Spawned down = spawn({"nmcli", "connection", "down", "rdma-veth"});
    ASSERT_TRUE(down.ok()) << down.err;
    // "down" runs after nmcli returns (no-wait); pre-down ran before.
    EXPECT_TRUE(hostModel().softLinks.empty());
    spawn({"nmcli", "connection", "delete", kUuid});
}

// A provisioning failure in pre-up (the kernel refuses the RoCE ToS) makes
// `nmcli connection up` fail: the hook undoes its link and asks
// NetworkManager to disconnect the device. The reason is in the hook's log
// (syslog on a real host), NetworkManager's log shows the script's failure
// and the disconnect.
TEST_F(NmLab, FailedProvisioningMakesNmcliUpFail)
{
    const char *uuid = "61c2b9f4-0d7a-4a8e-b3c5-7e9f1a2d4c68";
    const test::TempDir &d = *dir_;
    d.write("work/veth.host", "[host]\nkernel-release=6.1.0\nchild-naming=upstream\n\n"
                              "[netdev veth-a]\naddress=52:54:00:aa:bb:01\nmtu=1500\nup=true\n"
                              "addresses=198.51.100.1/24\n");
    installHook(d, "fake-fail=op=setDefaultRoceTos,nth=1,errno=EINVAL\n");
    (void)labExec({"ip", "link", "add", "veth-a", "type", "veth", "peer", "name", "veth-b"});
    ASSERT_TRUE(labExec({"ip", "link", "set", "veth-b", "up"}).ok());
    Spawned add = spawn({"nmcli", "connection", "add", "type", "ethernet", "con-name", "rdma-fail", "ifname",
                         "veth-a", "autoconnect", "no", "connection.uuid", uuid, "ipv4.method", "manual",
                         "ipv4.addresses", "198.51.100.1/24"});
    ASSERT_TRUE(add.ok()) << add.err;
    addUserKeys(uuid, {{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe1"}, {"rdma.roce-tos", "106"}});

    gint64 t0 = g_get_monotonic_time();
    Spawned up = spawn({"nmcli", "connection", "up", "rdma-fail"});
    gint64 ms = (g_get_monotonic_time() - t0) / 1000;
    EXPECT_TRUE(WIFEXITED(up.status) && WEXITSTATUS(up.status) == 4)
        << "status " << up.status << ": " << up.out << up.err;
    std::cout << "nmcli connection up failed in " << ms << " ms: " << up.err;
    EXPECT_TRUE(simulatedHost(d).softLinks.empty()) << "the link was undone";
    GCharPtr log;
    ASSERT_TRUE(g_file_get_contents((d / "work/hook.log").c_str(), outPtr(log), nullptr, nullptr));
    std::string l = log.get();
    EXPECT_NE(l.find(std::string(uuid) + ": pre-up failed: "), std::string::npos) << l;
    EXPECT_NE(l.find("asked NetworkManager to disconnect veth-a"), std::string::npos) << l;
    GCharPtr nmlog;
    ASSERT_TRUE(g_file_get_contents((d / "lab/NetworkManager.log").c_str(), outPtr(nmlog), nullptr, nullptr));
    std::string n = nmlog.get();
    // As logged by 1.42.4: the disconnect the hook asked for, then the
    // script's failure.
    EXPECT_NE(n.find("op=\"device-disconnect\" interface=\"veth-a\""), std::string::npos) << n;
    EXPECT_NE(n.find("pre-up.d/90-ibnm' exited with status 1"), std::string::npos) << n;
    Spawned state = spawn({"nmcli", "-g", "GENERAL.STATE", "connection", "show", "rdma-fail"});
    EXPECT_EQ(state.out, "") << "the profile is not active";

    installHook(d, "");
    spawn({"nmcli", "connection", "delete", uuid});
}

// nm-connection-editor opens an ibnm profile and saves it; NetworkManager
// rewrites the keyfile and the [user] keys survive. The screenshots stay in
// tests/artefacts/ of the build tree.
TEST_F(NmLab, ConnectionEditorSavesAndKeepsUserKeys)
{
    const test::TempDir &d = *dir_;
    const char *uuid = "3b0c1b52-7f2e-4d55-a6a1-5b2f8d1c9e07";
    Spawned add = spawn({"nmcli", "connection", "add", "type", "infiniband", "con-name", "mlx4_ib0", "ifname",
                         "mlx4_ib0", "transport-mode", "Connected", "mtu", "65520", "autoconnect", "no",
                         "connection.uuid", uuid});
    ASSERT_TRUE(add.ok()) << add.err;
    GErrorPtr err;
    auto settings = GObjectPtr<IbnmSettings>::adopt(ibnm_settings_new_networkmanager(outPtr(err)));
    ASSERT_TRUE(settings) << err->message;
    ASSERT_TRUE(ibnm_settings_load(settings.get(), outPtr(err))) << err->message;
    auto edited = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(ibnm_settings_find(settings.get(), uuid)));
    NMSetting *user = nm_setting_user_new();
    nm_setting_user_set_data(NM_SETTING_USER(user), "ipoib.umcast", "yes", nullptr);
    nm_setting_user_set_data(NM_SETTING_USER(user), "rdma.roce-tos", "106", nullptr);
    nm_connection_add_setting(edited.get(), user);
    ASSERT_TRUE(ibnm_settings_update(settings.get(), edited.get(), outPtr(err))) << err->message;

    std::string file = d / "etc/system-connections/mlx4_ib0.nmconnection";
    GCharPtr before;
    ASSERT_TRUE(g_file_get_contents(file.c_str(), outPtr(before), nullptr, nullptr));

    std::string artefacts = std::string(IBNM_TOP_BUILDDIR) + "/tests/artefacts";
    Spawned gui = spawn({std::string(IBNM_TOP_SRCDIR) + "/tests/integration/editor-save.sh", uuid, "mlx4_ib0",
                         artefacts});
    if (WIFEXITED(gui.status) && WEXITSTATUS(gui.status) == 77)
        GTEST_SKIP() << gui.out;
    ASSERT_TRUE(gui.ok()) << gui.out << gui.err;
    EXPECT_TRUE(g_file_test((artefacts + "/editor-mlx4_ib0.png").c_str(), G_FILE_TEST_EXISTS));

    GCharPtr after;
    ASSERT_TRUE(g_file_get_contents(file.c_str(), outPtr(after), nullptr, nullptr));
    std::string a = after.get();
    // The editor's Save went through NetworkManager (it normalizes
    // addr-gen-mode), and [user] survived it.
    EXPECT_NE(a, std::string(before.get())) << "the editor did not save";
    EXPECT_NE(a.find("[user]\nipoib.umcast=yes\nrdma.roce-tos=106\n"), std::string::npos) << a;
    EXPECT_NE(a.find("transport-mode=connected"), std::string::npos) << a;
    spawn({"nmcli", "connection", "delete", uuid});
}

// The ibnm command reads and sets the [user] keys of profiles NetworkManager
// owns, over D-Bus (nmcli 1.42 cannot).
TEST_F(NmLab, CliSetsUserKeysOfNetworkManagerProfiles)
{
    const test::TempDir &d = *dir_;
    const char *uuid = "c4a7d1e2-0b9f-4e53-8f6a-71d2e3b4a5c6";
    Spawned add = spawn({"nmcli", "connection", "add", "type", "infiniband", "con-name", "ib-cli", "ifname", "ib-cli",
                         "autoconnect", "no", "connection.uuid", uuid});
    ASSERT_TRUE(add.ok()) << add.err;
    std::string ibnm = std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm";
    Spawned mod = spawn({ibnm, "connection", "modify", "ib-cli", "ipoib.umcast", "yes", "rdma.roce-tos", "106"});
    ASSERT_TRUE(mod.ok()) << mod.out << mod.err;
    // NetworkManager wrote them into its own keyfile...
    GCharPtr keyfile;
    ASSERT_TRUE(g_file_get_contents((d / "etc/system-connections/ib-cli.nmconnection").c_str(), outPtr(keyfile),
                                    nullptr, nullptr));
    EXPECT_NE(std::string(keyfile.get()).find("[user]\nipoib.umcast=yes\nrdma.roce-tos=106\n"), std::string::npos)
        << keyfile.get();
    // ...and ibnm reads them back from NetworkManager.
    Spawned show = spawn({ibnm, "-t", "connection", "show", "ib-cli"});
    ASSERT_TRUE(show.ok()) << show.err;
    EXPECT_NE(show.out.find("rdma.roce-tos:106"), std::string::npos) << show.out;
    // A bad value is refused naming the key, and nothing changes.
    Spawned bad = spawn({ibnm, "connection", "modify", "ib-cli", "rdma.ttl", "300"});
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("rdma.ttl"), std::string::npos) << bad.err;
    GCharPtr again;
    ASSERT_TRUE(g_file_get_contents((d / "etc/system-connections/ib-cli.nmconnection").c_str(), outPtr(again),
                                    nullptr, nullptr));
    EXPECT_STREQ(again.get(), keyfile.get());
    spawn({"nmcli", "connection", "delete", uuid});
}

// `ibnm connection show` against the real NetworkManager prints what real
// nmcli prints, byte for byte, in every output mode a script uses (issue
// 15): names needing escapes, TYPE as nmcli's short name in tables and the
// type itself in terse output, DEVICE from NetworkManager's active
// connections (lo here; several active profiles in nmcli's order:
// nm-activation-test.cpp).
TEST_F(NmLab, ConnectionShowPrintsWhatNmcliPrints)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcliPath);
    char **envp = g_environ_setenv(g_get_environ(), "LC_ALL", "C", TRUE);
    auto nmcli = [&](std::vector<std::string> args) {
        args.insert(args.begin(), nmcliPath);
        return spawn(args, envp);
    };
    auto ibnm = [&](std::vector<std::string> args) {
        args.insert(args.begin(), std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm");
        return spawn(args, envp);
    };
    for (const auto &add : std::vector<std::vector<std::string>>{
             {"connection", "add", "type", "ethernet", "con-name", "eth:one\\x", "ifname", "veth9", "autoconnect",
              "no", "ipv4.method", "manual", "ipv4.addresses", "192.0.2.1/24"},
             {"connection", "add", "type", "infiniband", "con-name", "ib-x", "ifname", "ib0", "autoconnect", "no"},
             {"connection", "add", "type", "bond", "con-name", "bond-x", "ifname", "bond9", "autoconnect", "no",
              "bond.options", "mode=active-backup"}}) {
        Spawned r = nmcli(add);
        ASSERT_TRUE(r.ok()) << r.err;
    }
    const std::vector<std::vector<std::string>> formats = {
        {},
        {"-t"},
        {"-e", "no", "-t"},
        {"-g", "name,type,device"},
        {"--escape", "no", "-g", "name,device"},
        {"-m", "multiline"},
        {"-t", "-m", "multiline"},
        {"-p"},
        {"-p", "-m", "multiline"},
        {"-f", "name,device"},
        {"-s", "-w", "5", "-t"},
    };
    unsigned compared = 0;
    for (const auto &f : formats) {
        std::vector<std::string> args = f;
        args.insert(args.end(), {"connection", "show"});
        Spawned want = nmcli(args), got = ibnm(args);
        ASSERT_TRUE(want.ok()) << want.err;
        EXPECT_EQ(got.status, 0) << got.err;
        EXPECT_EQ(got.out, want.out) << "options:" << ::testing::PrintToString(f);
        compared++;
    }
    for (const auto &f : std::vector<std::vector<std::string>>{
             {"-g", "connection.id,connection.uuid,connection.type"},
             {"-e", "no", "-g", "connection.id,connection.interface-name"},
             {"-t", "-f", "connection.id,connection.type,ipv4.method,ipv4.addresses"}}) {
        std::vector<std::string> args = f;
        args.insert(args.end(), {"connection", "show", "eth:one\\x"});
        Spawned want = nmcli(args), got = ibnm(args);
        ASSERT_TRUE(want.ok()) << want.err;
        EXPECT_EQ(got.out, want.out) << "options:" << ::testing::PrintToString(f);
        compared++;
    }
    std::cout << "[ nm-lab   ] connection show: " << compared << " output modes compared with nmcli "
              << test::kNmcliGrammarVersion << "\n";
    for (const char *id : {"eth:one\\x", "ib-x", "bond-x"})
        nmcli({"connection", "delete", id});
    g_strfreev(envp);
}

// A bond port whose bond has no profile, with NetworkManager running: nmcli
// warns and NetworkManager stores it (its `up` fails until a bond profile or
// device is there); ibnm does the same, with nmcli's words and exit status, at add and
// at modify (standalone ibnm refuses it: CliConnection.MasterNamingNoProfile*).
TEST_F(NmLab, PortOfABondWithoutProfileIsStoredAsNmcliStoresIt)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcliPath);
    char **envp = g_environ_setenv(g_get_environ(), "LC_ALL", "C", TRUE);
    std::string ibnm = std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm";
    struct Tool {
        std::string program, name, uuid;
    };
    for (const Tool &t : {Tool{nmcliPath, "port-nmcli", "5b1c8e0a-3f2d-4c6b-9e7a-0d1f2a3b4c51"},
                          Tool{ibnm, "port-ibnm", "5b1c8e0a-3f2d-4c6b-9e7a-0d1f2a3b4c52"}}) {
        Spawned add = spawn({t.program, "connection", "add", "type", "infiniband", "con-name", t.name, "ifname",
                             t.name == "port-ibnm" ? "ib8" : "ib9", "master", "bond0", "slave-type", "bond",
                             "autoconnect", "no", "connection.uuid", t.uuid},
                            envp);
        EXPECT_EQ(add.status, 0) << t.program << ": " << add.err;
        EXPECT_EQ(add.out, "Warning: master='bond0' doesn't refer to any existing profile.\nConnection '" + t.name +
                               "' (" + t.uuid + ") successfully added.\n")
            << t.program << ": " << add.err;
        Spawned mod = spawn({t.program, "connection", "modify", t.uuid, "master", "bond7"}, envp);
        EXPECT_EQ(mod.status, 0) << t.program << ": " << mod.err;
        EXPECT_EQ(mod.out, "Warning: master='bond7' doesn't refer to any existing profile.\n") << t.program;
        // NetworkManager holds it, as the tool left it.
        Spawned stored = spawn({nmcliPath, "-g", "connection.master,connection.slave-type", "connection", "show",
                                t.uuid},
                               envp);
        EXPECT_EQ(stored.out, "bond7\nbond\n") << t.program << ": " << stored.err;
        spawn({nmcliPath, "connection", "delete", t.uuid}, envp);
    }
    g_strfreev(envp);
}
