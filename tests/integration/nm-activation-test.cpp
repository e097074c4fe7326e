// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection up|down` with NetworkManager running (issue 27 item 2):
// NetworkManager activates, as for nmcli, so the profile is active on its
// device (not "connected (externally)"), `ibnm connection show` lists the
// device, and messages and exit statuses are nmcli's, compared with nmcli
// 1.42 itself in the same lab run. On veth devices (IPoIB cannot exist in
// the lab) with Ethernet profiles; the dispatcher hook works on a simulated
// host its test configuration names. Skips when the lab is absent.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"

#include <NetworkManager.h>
#include "libcore/ibnm-inventory-private.hpp"
#include "tests/integration/nm-lab.hpp"
#include "tests/nmcli-oracle.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

using namespace ibnm;
using test::Spawned;

namespace {

class NmActivation : public test::NmLabSuite {
protected:
    void SetUp() override
    {
        NmLabSuite::SetUp();
        if (IsSkipped())
            return;
        // Messages and exit statuses are compared with nmcli's own.
        std::string why;
        if (test::nmcliOracle(&why).empty())
            GTEST_SKIP() << why;
        envp_ = g_environ_setenv(g_get_environ(), "LC_ALL", "C", TRUE);
        // The command runs as on a host with NetworkManager: this machine.
        for (const char *v : {"IBNM_SIMULATE", "IBNM_SIMULATE_STATE", "IBNM_SYSFS_ROOT"})
            envp_ = g_environ_unsetenv(envp_, v);
    }
    void TearDown() override
    {
        for (const auto &id : cleanup_)
            nmcli({"connection", "delete", id});
        g_strfreev(envp_);
    }

    Spawned nmcli(std::vector<std::string> args)
    {
        args.insert(args.begin(), "nmcli");
        return test::spawn(args, envp_);
    }
    Spawned ibnm(std::vector<std::string> args)
    {
        args.insert(args.begin(), std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm");
        return test::spawn(args, envp_);
    }
    // A veth pair in the lab (its peer up), once per suite.
    void veth(const std::string &a, const std::string &b)
    {
        if (labExec({"ip", "link", "show", a}).ok())
            return;
        ASSERT_TRUE(labExec({"ip", "link", "add", a, "type", "veth", "peer", "name", b}).ok());
        ASSERT_TRUE(labExec({"ip", "link", "set", b, "up"}).ok());
    }
    // An Ethernet profile made with nmcli, deleted after the test.
    void ethernet(const std::string &name, const std::string &ifname, std::vector<std::string> extra = {})
    {
        std::vector<std::string> args = {"connection", "add", "type", "ethernet", "con-name", name, "ifname", ifname,
                                         "autoconnect", "no"};
        if (extra.empty())
            extra = {"ipv4.method", "manual", "ipv4.addresses", "198.51.100.1/24", "ipv6.method", "disabled"};
        args.insert(args.end(), extra.begin(), extra.end());
        Spawned r = nmcli(args);
        ASSERT_TRUE(r.ok()) << r.err;
        cleanup_.push_back(name);
    }
    // NetworkManager's own view: `nmcli -t -f NAME,DEVICE,STATE connection show --active`.
    std::string nmActive() { return nmcli({"-t", "-f", "NAME,DEVICE,STATE", "connection", "show", "--active"}).out; }

    char **envp_ = nullptr;
    std::vector<std::string> cleanup_;
};

// D-Bus paths differ from one activation to the next: compare without them.
std::string withoutPathNumbers(const std::string &s)
{
    return std::regex_replace(s, std::regex("ActiveConnection/[0-9]+"), "ActiveConnection/N");
}

bool hasLine(const std::string &text, const std::string &line)
{
    return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

} // namespace

// The split brain of issue 27: `ibnm connection up` did the kernel work
// itself, NetworkManager showed the device "connected (externally)" and the
// profile inactive. Now NetworkManager activates it on its device; ibnm's
// `connection show` shows what nmcli shows, and down deactivates it.
TEST_F(NmActivation, UpAndDownGoThroughNetworkManager)
{
    veth("veth-a", "veth-b");
    ethernet("act-a", "veth-a");

    Spawned up = ibnm({"connection", "up", "act-a"});
    EXPECT_EQ(up.exitStatus(), 0) << up.out << up.err;
    EXPECT_TRUE(std::regex_match(
        up.out, std::regex("Connection successfully activated \\(D-Bus active path: "
                           "/org/freedesktop/NetworkManager/ActiveConnection/[0-9]+\\)\n")))
        << up.out;
    EXPECT_TRUE(hasLine(nmActive(), "act-a:veth-a:activated")) << nmActive();
    Spawned dev = nmcli({"-t", "-f", "DEVICE,STATE,CONNECTION", "device"});
    EXPECT_TRUE(hasLine(dev.out, "veth-a:connected:act-a")) << dev.out; // not "connected (externally)"

    // ibnm's list is NetworkManager's: DEVICE right after up, and STATE,
    // ACTIVE and ACTIVE-PATH as nmcli prints them.
    for (const std::vector<std::string> &f : std::vector<std::vector<std::string>>{
             {"-t", "connection", "show"},
             {"-t", "-f", "NAME,DEVICE,STATE", "connection", "show", "--active"},
             {"-t", "-f", "NAME,ACTIVE,DEVICE,STATE,ACTIVE-PATH", "connection", "show"},
             {"connection", "show", "--active"}}) {
        Spawned want = nmcli(f), got = ibnm(f);
        EXPECT_EQ(got.exitStatus(), 0) << got.err;
        EXPECT_EQ(got.out, want.out) << ::testing::PrintToString(f);
    }

    Spawned down = ibnm({"connection", "down", "act-a"});
    EXPECT_EQ(down.exitStatus(), 0) << down.err;
    EXPECT_TRUE(std::regex_match(down.out, std::regex("Connection 'act-a' successfully deactivated \\(D-Bus active "
                                                      "path: /org/freedesktop/NetworkManager/ActiveConnection/"
                                                      "[0-9]+\\)\n")))
        << down.out;
    EXPECT_FALSE(hasLine(nmActive(), "act-a:veth-a:activated")) << nmActive();
    EXPECT_TRUE(hasLine(ibnm({"-t", "-f", "NAME,ACTIVE,DEVICE", "connection", "show"}).out, "act-a:no:"));

    // nmcli's own messages for the same, in this run.
    Spawned nmUp = nmcli({"connection", "up", "act-a"});
    Spawned nmDown = nmcli({"connection", "down", "act-a"});
    EXPECT_EQ(withoutPathNumbers(up.out), withoutPathNumbers(nmUp.out));
    EXPECT_EQ(withoutPathNumbers(down.out), withoutPathNumbers(nmDown.out));

    // nmcli's selector words: `up path N` (the profile's D-Bus path or its
    // number), `down apath N` (the active connection's); `id` names by id
    // only.
    Spawned paths = nmcli({"-g", "NAME,DBUS-PATH", "connection", "show"});
    size_t at = paths.out.find("act-a:/");
    ASSERT_NE(at, std::string::npos) << paths.out;
    std::string settingsNumber = paths.out.substr(at, paths.out.find('\n', at) - at);
    settingsNumber = settingsNumber.substr(settingsNumber.rfind('/') + 1);
    up = ibnm({"connection", "up", "path", settingsNumber});
    EXPECT_EQ(up.exitStatus(), 0) << up.err;
    EXPECT_TRUE(hasLine(nmActive(), "act-a:veth-a:activated")) << nmActive();
    std::string apath = up.out.substr(up.out.rfind(' ') + 1);
    apath = apath.substr(0, apath.find(')'));
    Spawned wrongWord = ibnm({"connection", "down", "id", apath});
    EXPECT_EQ(wrongWord.exitStatus(), 10) << wrongWord.out << wrongWord.err;
    EXPECT_TRUE(hasLine(nmActive(), "act-a:veth-a:activated")) << nmActive();
    down = ibnm({"connection", "down", "apath", apath.substr(apath.rfind('/') + 1)});
    EXPECT_EQ(down.exitStatus(), 0) << down.out << down.err;
    EXPECT_FALSE(hasLine(nmActive(), "act-a:veth-a:activated")) << nmActive();
}

// -j: the report shape of docs/json-schema.md, one step per request.
TEST_F(NmActivation, JsonReportHasOneStepPerRequest)
{
    veth("veth-a", "veth-b");
    ethernet("act-j", "veth-a");
    Spawned up = ibnm({"-j", "connection", "up", "act-j"});
    EXPECT_EQ(up.exitStatus(), 0) << up.err;
    EXPECT_NE(up.out.find("\"success\" : true"), std::string::npos) << up.out;
    EXPECT_NE(up.out.find("\"action\" : \"networkmanager-activate\""), std::string::npos) << up.out;
    EXPECT_NE(up.out.find("\"object\" : \"veth-a\""), std::string::npos) << up.out;
    Spawned down = ibnm({"-j", "connection", "down", "act-j"});
    EXPECT_EQ(down.exitStatus(), 0) << down.err;
    EXPECT_NE(down.out.find("\"action\" : \"networkmanager-deactivate\""), std::string::npos) << down.out;
}

// down of a profile that is not active: nmcli's errors and exit 10, and
// nothing is touched (another active profile stays, the addresses too).
TEST_F(NmActivation, DownOfInactiveProfileExits10AndTouchesNothing)
{
    veth("veth-a", "veth-b");
    veth("veth-c", "veth-d");
    ethernet("act-on", "veth-a");
    ethernet("act-off", "veth-c", {"ipv4.method", "manual", "ipv4.addresses", "192.0.2.1/24"});
    ASSERT_TRUE(nmcli({"connection", "up", "act-on"}).ok());
    std::string addrBefore = labExec({"ip", "-br", "addr"}).out;

    for (const std::vector<std::string> &ids :
         std::vector<std::vector<std::string>>{{"act-off"}, {"no-such-profile"}, {"id", "act-off"}}) {
        std::vector<std::string> args = {"connection", "down"};
        args.insert(args.end(), ids.begin(), ids.end());
        Spawned want = nmcli(args), got = ibnm(args);
        EXPECT_EQ(want.exitStatus(), 10) << want.err;
        EXPECT_EQ(got.exitStatus(), 10) << got.err;
        EXPECT_EQ(got.err, want.err);
        EXPECT_EQ(got.out, "");
    }
    EXPECT_EQ(labExec({"ip", "-br", "addr"}).out, addrBefore);
    EXPECT_TRUE(hasLine(nmActive(), "act-on:veth-a:activated")) << nmActive();

    // One active and one not: the active one goes down, the other is named,
    // exit 10, as nmcli.
    Spawned mixed = ibnm({"connection", "down", "act-off", "act-on"});
    EXPECT_EQ(mixed.exitStatus(), 10);
    EXPECT_EQ(mixed.err, "Error: 'act-off' is not an active connection.\nError: not all active connections found.\n");
    EXPECT_FALSE(hasLine(nmActive(), "act-on:veth-a:activated")) << nmActive();
    ASSERT_TRUE(nmcli({"connection", "up", "act-on"}).ok());
    Spawned nmMixed = nmcli({"connection", "down", "act-off", "act-on"});
    EXPECT_EQ(nmMixed.exitStatus(), 10);
    EXPECT_EQ(nmMixed.err, mixed.err);
    EXPECT_EQ(withoutPathNumbers(nmMixed.out), withoutPathNumbers(mixed.out));
}

// Activations NetworkManager refuses or fails: exit 4 with NetworkManager's
// reason, byte for byte what nmcli prints (its journal hint included).
TEST_F(NmActivation, FailedActivationExits4WithNetworkManagersReason)
{
    veth("veth-a", "veth-b");
    // A device that does not exist: NetworkManager refuses the request.
    ethernet("act-nodev", "veth-none");
    // DHCP that gets no answer within 2 s: NetworkManager takes the request,
    // then the activation fails (the device's reason).
    ethernet("act-dhcp", "veth-a", {"ipv4.method", "auto", "ipv4.dhcp-timeout", "2", "ipv6.method", "disabled"});
    ethernet("act-named", "veth-a");
    for (const std::vector<std::string> &args : std::vector<std::vector<std::string>>{
             {"connection", "up", "act-nodev"},
             {"connection", "up", "act-dhcp"},
             {"connection", "up", "act-named", "ifname", "veth-zz"},
             {"connection", "up", "act-named", "ifname", "veth-b"}}) {
        Spawned want = nmcli(args), got = ibnm(args);
        EXPECT_EQ(want.exitStatus(), 4) << want.err;
        EXPECT_EQ(got.exitStatus(), 4) << ::testing::PrintToString(args) << got.out << got.err;
        EXPECT_EQ(got.err, want.err) << ::testing::PrintToString(args);
        EXPECT_EQ(got.out, want.out);
    }
    Spawned dhcp = ibnm({"connection", "up", "act-dhcp"});
    EXPECT_NE(dhcp.err.find("Error: Connection activation failed: IP configuration could not be reserved"),
              std::string::npos)
        << dhcp.err;
    EXPECT_FALSE(hasLine(nmActive(), "act-dhcp:veth-a:activated"));

    // An unknown profile: 10, as nmcli.
    Spawned want = nmcli({"connection", "up", "no-such-profile"}), got = ibnm({"connection", "up", "no-such-profile"});
    EXPECT_EQ(got.exitStatus(), 10);
    EXPECT_EQ(want.exitStatus(), 10);
    EXPECT_EQ(got.err, want.err);
}

// --wait bounds the wait as nmcli's: exit 3 and its message; NetworkManager
// goes on with the activation.
TEST_F(NmActivation, TimeoutExits3)
{
    veth("veth-a", "veth-b");
    ethernet("act-slow", "veth-a", {"ipv4.method", "auto", "ipv4.dhcp-timeout", "30", "ipv6.method", "disabled"});
    Spawned got = ibnm({"-w", "1", "connection", "up", "act-slow"});
    EXPECT_EQ(got.exitStatus(), 3) << got.err;
    EXPECT_EQ(got.err, "Error: Timeout expired (1 seconds)\n");
    EXPECT_TRUE(hasLine(nmActive(), "act-slow:veth-a:activating")) << nmActive();
    // An activating profile among activated ones, in nmcli's order.
    std::vector<std::string> list = {"-t", "-f", "NAME,STATE", "connection", "show", "--active"};
    EXPECT_EQ(ibnm(list).out, nmcli(list).out);
    Spawned want = nmcli({"-w", "1", "connection", "up", "act-slow"});
    EXPECT_EQ(want.exitStatus(), 3);
    EXPECT_EQ(want.err, got.err);
    // -w 0: NetworkManager took the request; nothing printed, as nmcli.
    Spawned quick = ibnm({"-w", "0", "connection", "down", "act-slow"});
    EXPECT_EQ(quick.exitStatus(), 0) << quick.err;
    EXPECT_EQ(quick.out, "");
}

// --dry-run with NetworkManager: says what NetworkManager would be asked
// and changes nothing.
TEST_F(NmActivation, DryRunAsksNothing)
{
    veth("veth-a", "veth-b");
    ethernet("act-dry", "veth-a");
    Spawned up = ibnm({"--dry-run", "connection", "up", "act-dry"});
    EXPECT_EQ(up.exitStatus(), 0) << up.err;
    EXPECT_TRUE(std::regex_search(
        up.out,
        std::regex("^Dry run: NetworkManager would be asked to activate 'act-dry' \\([0-9a-f-]+\\) on veth-a\\.\n")))
        << up.out;
    EXPECT_NE(up.out.find("ibnm's dispatcher hook would do nothing: the profile has no rdma.* or ipoib.* keys."),
              std::string::npos)
        << up.out;
    EXPECT_FALSE(hasLine(nmActive(), "act-dry:veth-a:activated")) << nmActive();

    Spawned down = ibnm({"--dry-run", "connection", "down", "act-dry"});
    EXPECT_EQ(down.exitStatus(), 10);
    EXPECT_EQ(down.err, "Error: 'act-dry' is not an active connection.\nError: no active connection provided.\n");
    ASSERT_TRUE(nmcli({"connection", "up", "act-dry"}).ok());
    down = ibnm({"--dry-run", "connection", "down", "act-dry"});
    EXPECT_EQ(down.exitStatus(), 0) << down.err;
    EXPECT_NE(down.out.find("Dry run: NetworkManager would be asked to deactivate 'act-dry'"), std::string::npos)
        << down.out;
    EXPECT_TRUE(hasLine(nmActive(), "act-dry:veth-a:activated")) << nmActive();
}

// --dry-run of a profile ibnm's hook acts on: the hook's plan on this
// machine (ibnm runs in the lab's namespaces, where veth-a is), the plan
// the hook would make in pre-up: its RDMA part only. A plan that fails
// (the kernel's rxe has RoCE v2 only) is exit 4, as the activation the
// hook would stop.
TEST_F(NmActivation, DryRunShowsTheHooksPlan)
{
    veth("veth-a", "veth-b");
    ethernet("act-plan", "veth-a");
    ASSERT_TRUE(ibnm({"connection", "modify", "act-plan", "rdma.link-type", "rxe", "rdma.link-name", "rxe5"}).ok());
    auto inLab = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"env", "LC_ALL=C", std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm"});
        return labExec(args);
    };
    Spawned up = inLab({"--dry-run", "connection", "up", "act-plan"});
    EXPECT_EQ(up.exitStatus(), 0) << up.out << up.err;
    EXPECT_NE(up.out.find("ibnm's dispatcher hook would then provision the RDMA part (pre-up):\n"
                          "STATE    ACTION         OBJECT  DETAIL                            \n"
                          "planned  add-rdma-link  rxe5    add the rxe link rxe5 over veth-a \n"
                          "Dry run: nothing was changed.\n"),
              std::string::npos)
        << up.out;
    Spawned json = inLab({"-j", "--dry-run", "connection", "up", "act-plan"});
    EXPECT_NE(json.out.find("\"action\" : \"add-rdma-link\""), std::string::npos) << json.out;
    EXPECT_FALSE(hasLine(nmActive(), "act-plan:veth-a:activated")) << nmActive();

    // RoCE v1 on rxe, written into a keyfile past ibnm's check: the hook's
    // plan fails, and so would the activation.
    const test::TempDir &d = *dir_;
    d.write("etc/system-connections/act-v1.nmconnection",
            "[connection]\nid=act-v1\nuuid=0b6f3a52-9d1e-4c7a-8f25-6e4d3c2b1a09\ntype=ethernet\n"
            "interface-name=veth-a\nautoconnect=false\n\n[ipv4]\nmethod=disabled\n\n[ipv6]\nmethod=disabled\n\n"
            "[user]\nrdma.link-name=rxe6\nrdma.link-type=rxe\nrdma.roce-mode=v1\n");
    g_chmod((d / "etc/system-connections/act-v1.nmconnection").c_str(), 0600);
    ASSERT_TRUE(nmcli({"connection", "load", d / "etc/system-connections/act-v1.nmconnection"}).ok());
    cleanup_.push_back("act-v1");
    Spawned bad = inLab({"--dry-run", "connection", "up", "act-v1"});
    EXPECT_EQ(bad.exitStatus(), 4) << bad.out << bad.err;
    EXPECT_NE(bad.out.find("The hook's failure would make NetworkManager's activation fail.\n"), std::string::npos)
        << bad.out;
    EXPECT_NE(bad.err.find("rdma.roce-mode"), std::string::npos) << bad.err;
    EXPECT_FALSE(hasLine(nmActive(), "act-v1:veth-a:activated")) << nmActive();
}

namespace {

// ibnm's hook as `make install` lays it out in the lab's dispatcher.d,
// working on the simulated host `d`/work/veth.host (NetworkManager's
// dispatcher passes no environment of ours): `extra` adds to its test
// configuration (fault rules).
void installHook(const test::TempDir &d, const std::string &extra)
{
    d.write("work/veth.host", "[host]\nkernel-release=6.1.0\nchild-naming=upstream\n\n"
                              "[netdev veth-a]\naddress=52:54:00:aa:bb:01\nmtu=1500\nup=true\n");
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

void removeHook(const test::TempDir &d)
{
    for (const char *f : {"etc/dispatcher.d/pre-up.d/90-ibnm", "etc/dispatcher.d/pre-down.d/90-ibnm",
                          "etc/dispatcher.d/90-ibnm"})
        g_unlink((d / f).c_str());
}

// The soft RDMA links of the hook's simulated host.
std::vector<std::string> softLinks(const test::TempDir &d)
{
    auto h = GObjectPtr<IbnmHost>::adopt(
        ibnm_simulator_new_host((d / "work/veth.host").c_str(), (d / "work/state").c_str(), nullptr));
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
    EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
    std::vector<std::string> out;
    for (const auto &l : inventoryHost(inv.get()).softLinks)
        out.push_back(l.name + " over " + l.netdev);
    return out;
}

std::string readFile(const std::string &path)
{
    GCharPtr text;
    if (!g_file_get_contents(path.c_str(), outPtr(text), nullptr, nullptr))
        return "";
    return text.get();
}

} // namespace

// NetworkManager runs ibnm's hook when ibnm asks it to activate: the hook
// provisions the soft RDMA link in pre-up and removes it in pre-down, and
// the profile is active on its device.
TEST_F(NmActivation, HookDoesTheRdmaPartWhenIbnmActivates)
{
    const test::TempDir &d = *dir_;
    veth("veth-a", "veth-b");
    installHook(d, "");
    ethernet("act-rxe", "veth-a");
    Spawned mod = ibnm({"connection", "modify", "act-rxe", "rdma.link-type", "rxe", "rdma.link-name", "rxe7"});
    ASSERT_TRUE(mod.ok()) << mod.err;

    Spawned up = ibnm({"connection", "up", "act-rxe"});
    EXPECT_EQ(up.exitStatus(), 0) << up.out << up.err;
    // nmcli's line, then (last) the command that verifies the RDMA part (issue 31 item 2).
    EXPECT_TRUE(std::regex_match(
        up.out, std::regex("Connection successfully activated \\(D-Bus active path: [^)]*\\)\n"
                           "To verify the RDMA path: ibnm rdma test --profile act-rxe PEER \\(.*\\); not run\\.\n")))
        << up.out;
    EXPECT_EQ(softLinks(d), std::vector<std::string>{"rxe7 over veth-a"}) << "the pre-up hook did not provision";
    EXPECT_TRUE(hasLine(nmActive(), "act-rxe:veth-a:activated")) << nmActive();
    std::string uuid = nmcli({"-g", "connection.uuid", "connection", "show", "act-rxe"}).out;
    uuid = uuid.substr(0, uuid.find('\n'));
    EXPECT_NE(readFile(d / "work/hook.log").find(uuid + ": pre-up of act-rxe"), std::string::npos)
        << readFile(d / "work/hook.log");

    // `nmcli device reapply` after a change of the keys: NetworkManager
    // applies the new settings in place (no pre-down, no pre-up: its
    // "reapply" event), and the hook replaces its part to match.
    ASSERT_TRUE(ibnm({"connection", "modify", "act-rxe", "rdma.link-name", "rxe8"}).ok());
    EXPECT_EQ(softLinks(d), std::vector<std::string>{"rxe7 over veth-a"}) << "modify alone changes no activation";
    Spawned reapply = nmcli({"device", "reapply", "veth-a"});
    EXPECT_TRUE(reapply.ok()) << reapply.err;
    // The dispatcher runs "reapply" after nmcli has returned.
    for (int i = 0; i < 100 && softLinks(d) != std::vector<std::string>{"rxe8 over veth-a"}; i++)
        g_usleep(50000);
    EXPECT_EQ(softLinks(d), std::vector<std::string>{"rxe8 over veth-a"}) << readFile(d / "work/hook.log");

    // The profile loses its keys while active: NetworkManager deactivates
    // the connection it applied, and so does the hook (its record).
    Spawned strip = ibnm({"connection", "modify", "act-rxe", "rdma.link-type", "", "rdma.link-name", ""});
    ASSERT_TRUE(strip.ok()) << strip.err;

    Spawned down = ibnm({"connection", "down", "act-rxe"});
    EXPECT_EQ(down.exitStatus(), 0) << down.err;
    EXPECT_TRUE(softLinks(d).empty()) << "the pre-down hook did not remove the link";
    removeHook(d);
}

// A failure in the hook cannot veto NetworkManager's activation (FACTS.md),
// but it is visible: the hook undoes its part and has NetworkManager stop
// the activation, so `ibnm connection up` exits 4 with NetworkManager's
// reason, as nmcli, and says where the hook's reason is.
TEST_F(NmActivation, HookFailureMakesIbnmUpFail)
{
    const test::TempDir &d = *dir_;
    veth("veth-a", "veth-b");
    installHook(d, "fake-fail=op=setDefaultRoceTos,nth=1,errno=EINVAL\n");
    ethernet("act-bad", "veth-a");
    ASSERT_TRUE(ibnm({"connection", "modify", "act-bad", "rdma.link-type", "rxe", "rdma.link-name", "rxe8",
                      "rdma.roce-tos", "106"})
                    .ok());

    Spawned up = ibnm({"connection", "up", "act-bad"});
    EXPECT_EQ(up.exitStatus(), 4) << up.out << up.err;
    EXPECT_EQ(up.out, "");
    EXPECT_NE(up.err.find("Error: Connection activation failed: "), std::string::npos) << up.err;
    EXPECT_NE(up.err.find("Hint: ibnm's dispatcher hook stops the activation"), std::string::npos) << up.err;
    EXPECT_TRUE(softLinks(d).empty()) << "the hook undid its link";
    EXPECT_NE(readFile(d / "work/hook.log").find("pre-up failed: "), std::string::npos);
    EXPECT_FALSE(hasLine(nmActive(), "act-bad:veth-a:activated")) << nmActive();

    // nmcli: the same failure, the same exit status and reason.
    Spawned want = nmcli({"connection", "up", "act-bad"});
    EXPECT_EQ(want.exitStatus(), 4);
    EXPECT_EQ(up.err.substr(0, up.err.find('\n')), want.err.substr(0, want.err.find('\n')));
    std::cout << "[ nm-lab   ] the hook's failure as ibnm reports it:\n" << up.err;
    removeHook(d);
}

// NetworkManager stops while ibnm waits for the activation: nmcli's exit
// status 8 and its message (nmcli 1.42 itself exits 1 without a word:
// docs/differences-from-nmcli.md). A lab instance of its own, stopped here.
TEST_F(NmActivation, NetworkManagerGoneExits8)
{
    test::TempDir own;
    Spawned start = test::spawn({lab_, "start", own.path()});
    ASSERT_TRUE(start.ok()) << start.err;
    std::string bus = "unix:path=" + own.path() + "/lab/dbus/system_bus_socket";
    char **envp = g_environ_setenv(g_strdupv(envp_), "DBUS_SYSTEM_BUS_ADDRESS", bus.c_str(), TRUE);
    auto run = [&](std::vector<std::string> args) { return test::spawn(args, envp); };
    auto exec = [&](std::vector<std::string> cmd) {
        cmd.insert(cmd.begin(), {lab_, "exec", own.path()});
        return test::spawn(cmd);
    };
    ASSERT_TRUE(exec({"ip", "link", "add", "veth-a", "type", "veth", "peer", "name", "veth-b"}).ok());
    ASSERT_TRUE(exec({"ip", "link", "set", "veth-b", "up"}).ok());
    ASSERT_TRUE(run({"nmcli", "connection", "add", "type", "ethernet", "con-name", "act-gone", "ifname", "veth-a",
                     "autoconnect", "no", "ipv4.method", "auto", "ipv4.dhcp-timeout", "30", "ipv6.method", "disabled"})
                    .ok());

    // ibnm waits for the DHCP that never answers; NetworkManager stops.
    std::string ibnm = std::string(IBNM_TOP_BUILDDIR) + "/cli/ibnm";
    const char *argv[] = {ibnm.c_str(), "connection", "up", "act-gone", nullptr};
    GPid pid = 0;
    int errFd = -1;
    ASSERT_TRUE(g_spawn_async_with_pipes(nullptr, const_cast<char **>(argv), envp, G_SPAWN_DO_NOT_REAP_CHILD, nullptr,
                                         nullptr, &pid, nullptr, nullptr, &errFd, nullptr));
    bool activating = false;
    for (int i = 0; i < 50 && !activating; i++) {
        g_usleep(100000);
        activating = run({"nmcli", "-t", "-f", "NAME,STATE", "connection", "show", "--active"}).out.find(
                         "act-gone:activating") != std::string::npos;
    }
    EXPECT_TRUE(activating);
    GCharPtr nmPid;
    ASSERT_TRUE(g_file_get_contents((own.path() + "/lab/nm.pid").c_str(), outPtr(nmPid), nullptr, nullptr));
    kill(pid_t(g_ascii_strtoll(nmPid.get(), nullptr, 10)), SIGTERM);
    int status = -1;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = read(errFd, buf, sizeof buf)) > 0;)
        err.append(buf, size_t(n));
    close(errFd);
    g_spawn_close_pid(pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 8) << "status " << status << ": " << err;
    EXPECT_EQ(err, "Error: NetworkManager is not running.\n");
    test::spawn({lab_, "stop", own.path()});
    g_strfreev(envp);
}
