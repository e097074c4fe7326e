// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection up|down|delete|modify`, `show-state` and `apply` over a
// profile's life in standalone mode, with nmcli 1.42's exit statuses and
// messages (checked in the NM lab on veth devices; docs/active-connections.md):
// each command, then the simulated host read back and the records.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include "libcore/activation/active.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "tests/simulator/fake-test-util.hpp"

#include <gtest/gtest.h>

#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

using ibnm::test::Cli;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

// The simulated host of `cli` as its state holds it now.
std::string hostNow(const Cli &cli)
{
    auto fake = ibnm::platform::FakePlatform::open(ibnm::test::hostFile(cli.host()), cli.stateDir());
    EXPECT_TRUE(fake.ok()) << fake.error().toString();
    return fake.ok() ? ibnm::test::snapshot(**fake, true) : std::string();
}

// The active connections' record files of `cli`'s host.
std::vector<std::string> recordFiles(const Cli &cli)
{
    std::vector<std::string> names;
    if (GDir *d = g_dir_open((cli.stateDir() + "/active").c_str(), 0, nullptr)) {
        while (const char *n = g_dir_read_name(d))
            names.emplace_back(n);
        g_dir_close(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string uuidOf(const Cli &cli, const std::string &id)
{
    return cli.run({"-g", "connection.uuid", "connection", "show", id}).out.substr(0, 36);
}

const std::vector<std::string> kAddChild = {"connection", "add", "type", "infiniband", "con-name", "child",
                                            "parent", "mlx4_ib0", "p-key", "0x8002", "ipv4.method", "manual",
                                            "ipv4.addresses", "192.0.2.1/24", "ipv6.method", "disabled"};
const std::vector<std::string> kAddBase = {"connection", "add", "type", "infiniband", "con-name", "base", "ifname",
                                           "mlx4_ib0", "transport-mode", "connected", "mtu", "65520",
                                           "ipv4.method", "disabled"};

} // namespace

// nmcli's `connection down` (NetworkManager 1.42.4 in the NM lab): a
// profile that is not active, or no profile at all, is "not an active
// connection" (exit 10, nothing touched); of several IDs the active ones go
// down and the exit status is still 10.
TEST(CliLifecycle, DownOfProfilesThatAreNotActiveAsNmcli)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddChild).status, 0);
    ASSERT_EQ(cli.run(kAddBase).status, 0);
    std::string before = hostNow(cli);

    Result one = cli.run({"connection", "down", "child"});
    EXPECT_EQ(one.status, 10);
    EXPECT_EQ(one.err, "Error: 'child' is not an active connection.\nError: no active connection provided.\n");
    EXPECT_EQ(one.out, "");
    Result unknown = cli.run({"connection", "down", "id", "nosuch"});
    EXPECT_EQ(unknown.status, 10);
    EXPECT_EQ(unknown.err, "Error: 'nosuch' is not an active connection.\nError: no active connection provided.\n");
    Result two = cli.run({"connection", "down", "child", "base"});
    EXPECT_EQ(two.status, 10);
    EXPECT_EQ(two.err, "Error: 'child' is not an active connection.\nError: 'base' is not an active connection.\n"
                       "Error: no active connection provided.\n");
    EXPECT_EQ(hostNow(cli), before);

    ASSERT_EQ(cli.run({"connection", "up", "base"}).status, 0);
    Result mixed = cli.run({"connection", "down", "child", "base"});
    EXPECT_EQ(mixed.status, 10) << mixed.out << mixed.err;
    EXPECT_NE(mixed.out.find("Connection 'base' successfully deactivated."), std::string::npos) << mixed.out;
    EXPECT_EQ(mixed.err, "Error: 'child' is not an active connection.\nError: not all active connections found.\n");
    EXPECT_EQ(hostNow(cli), before);
    EXPECT_TRUE(recordFiles(cli).empty());
}

// nmcli's `connection delete` of a profile that is not active never
// touches its device (checked in the NM lab); of an active one it takes
// the activation down first and says what it removed.
TEST(CliLifecycle, DeleteTouchesTheDeviceOnlyOfAnActiveProfile)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddBase).status, 0);
    ASSERT_EQ(cli.run(kAddChild).status, 0);
    std::string before = hostNow(cli);
    Result del = cli.run({"connection", "delete", "base"});
    ASSERT_EQ(del.status, 0) << del.out << del.err;
    EXPECT_EQ(del.out.find("set-"), std::string::npos) << del.out;
    EXPECT_EQ(hostNow(cli), before) << "deleting an inactive profile changed its device";

    ASSERT_EQ(cli.run({"connection", "up", "child"}).status, 0);
    del = cli.run({"connection", "delete", "child"});
    ASSERT_EQ(del.status, 0) << del.out << del.err;
    EXPECT_NE(del.out.find("delete-ipoib-child"), std::string::npos) << del.out;
    EXPECT_NE(del.out.find("mlx4_ib0.8002"), std::string::npos) << del.out;
    EXPECT_NE(del.out.find("successfully deleted"), std::string::npos) << del.out;
    EXPECT_EQ(hostNow(cli), before);
    EXPECT_TRUE(recordFiles(cli).empty());
}

// `modify` of an active profile changes the profile only (nmcli: the
// change applies at the next `up`); `check`, `up --dry-run` and `up` then
// agree: the dry run lists the teardown of the old activation, `up` does
// it, and the next `up` has nothing to do.
TEST(CliLifecycle, ModifyOfAnActiveProfileAppliesAtTheNextUp)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddChild).status, 0);
    ASSERT_EQ(cli.run({"connection", "up", "child"}).status, 0);
    std::string active = hostNow(cli);
    ASSERT_EQ(cli.run({"connection", "modify", "child", "infiniband.p-key", "0x8003"}).status, 0);
    EXPECT_EQ(hostNow(cli), active);
    EXPECT_EQ(cli.run({"-t", "-f", "name,device", "connection", "show"}).out, "child:mlx4_ib0.8002\n")
        << "the old activation is still the active one";
    EXPECT_EQ(cli.run({"check"}).status, 0);
    Result dry = cli.run({"--dry-run", "connection", "up", "child"});
    ASSERT_EQ(dry.status, 0) << dry.err;
    EXPECT_NE(dry.out.find("delete-ipoib-child"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("create-ipoib-child"), std::string::npos) << dry.out;
    EXPECT_EQ(hostNow(cli), active);
    Result up = cli.run({"connection", "up", "child"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_EQ(cli.run({"-t", "-f", "name,device", "connection", "show", "--active"}).out, "child:mlx4_ib0.8003\n");
    Result again = cli.run({"connection", "up", "child"});
    EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
}

// A bond its activation created, whose mode changed: the bonding driver
// does not change a mode under a bond, but `up` takes the old activation
// (the bond) down first; `check` asks the same planner on the host as `up`
// would find it, so check, the dry run and up agree.
TEST(CliLifecycle, CheckDryRunAndUpAgreeOnAChangedActiveBond)
{
    Cli cli("ethernet-only.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                       "mode=active-backup", "ipv4.method", "manual", "ipv4.addresses", "198.51.100.1/24",
                       "ipv6.method", "disabled"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "up", "bond0"}).status, 0);
    ASSERT_EQ(cli.run({"connection", "modify", "bond0", "bond.options", "mode=802.3ad"}).status, 0);
    Result check = cli.run({"check"});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    Result dry = cli.run({"--dry-run", "connection", "up", "bond0"});
    EXPECT_EQ(dry.status, 0) << dry.out << dry.err;
    EXPECT_NE(dry.out.find("delete-bond"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("create-bond"), std::string::npos) << dry.out;
    Result up = cli.run({"connection", "up", "bond0"});
    EXPECT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_NE(hostNow(cli).find("[bond bond0]\nmode=802.3ad\n"), std::string::npos) << hostNow(cli);
}

// Two stored profiles for one P_Key child (the second written as nmcli
// would, with `--offline connection add`: nothing checks it): check calls
// one of them an error, and the dry run and up of that one refuse it, of the
// other succeed (sequence rule K1a; up checked its profiles against
// themselves only and brought either up).
TEST(CliLifecycle, CheckDryRunAndUpAgreeOnTwoProfilesForOneChild)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddChild).status, 0);
    Result offline = cli.run({"--offline", "connection", "add", "type", "infiniband", "con-name", "other", "parent",
                              "mlx4_ib0", "p-key", "0x0002", "ipv4.method", "manual", "ipv4.addresses",
                              "192.0.2.2/24", "ipv6.method", "disabled"});
    ASSERT_EQ(offline.status, 0) << offline.err;
    std::string path = cli.keyfileDir() + "/other.nmconnection";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), offline.out.c_str(), -1, nullptr));
    ASSERT_EQ(g_chmod(path.c_str(), 0600), 0);
    int errors = 0;
    for (const char *id : {"child", "other"}) {
        Result check = cli.run({"check", id});
        Result dry = cli.run({"--dry-run", "connection", "up", id});
        EXPECT_EQ(dry.status != 0, check.status != 0) << id << ": " << check.out << dry.out << dry.err;
        Result up = cli.run({"connection", "up", id});
        EXPECT_EQ(up.status != 0, check.status != 0) << id << ": " << check.out << up.out << up.err;
        if (check.status != 0) {
            errors++;
            EXPECT_NE(up.err.find("already defines the child of mlx4_ib0"), std::string::npos) << up.err;
        }
    }
    EXPECT_EQ(errors, 1);
}

// A document whose P_Key child a stored profile without interface name
// already defines (NetworkManager's name of the child, mlx4_ib0.8002): apply
// refuses the second profile, as `connection add` does, and the store and
// the host stay as they were (sequence rule K6a; apply stored it and
// brought it up).
TEST(CliLifecycle, ApplyRefusesASecondProfileForAStoredChild)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddChild).status, 0);
    std::string store = cli.snapshot(), host = hostNow(cli);
    const std::string doc = R"({"interfaces":[{"name":"mlx4_ib0.8002","type":"infiniband","state":"up",)"
                            R"("infiniband":{"base-iface":"mlx4_ib0","pkey":"0x8002","mode":"datagram"},)"
                            R"("ipv4":{"enabled":true,"dhcp":false,"address":[{"ip":"192.0.2.3","prefix-length":24}]},)"
                            R"("ipv6":{"enabled":false}}]})";
    Result dry = cli.run({"--dry-run", "apply", "-"}, doc);
    EXPECT_NE(dry.status, 0) << dry.out << dry.err;
    Result r = cli.run({"apply", "-"}, doc);
    EXPECT_NE(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.err.find("already defines the child of mlx4_ib0"), std::string::npos) << r.err;
    EXPECT_EQ(cli.snapshot(), store);
    EXPECT_EQ(hostNow(cli), host);
}

// ibnm killed between two steps of an activation: the record it wrote
// before the first step names what is on the host ("activating", the child
// it created); the profile is not shown active, `down` takes away exactly
// what was done, and the host is as before.
TEST(CliLifecycle, AnActivationKilledBetweenStepsLeavesARecordConsistentWithTheHost)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddChild).status, 0);
    std::string before = hostNow(cli);
    std::string uuid = uuidOf(cli, "child");
    // The child is created, then addAddress waits 20 s: killed there.
    std::vector<std::string> argv = {ibnm::test::cliPath(), "--keyfile-dir", cli.keyfileDir(), "--simulate",
                                     ibnm::test::hostFile(cli.host()), "connection", "up", "child"};
    std::vector<char *> a;
    for (auto &s : argv)
        a.push_back(s.data());
    a.push_back(nullptr);
    char **envp = g_get_environ();
    envp = g_environ_setenv(envp, "IBNM_SIMULATE_STATE", cli.stateDir().c_str(), TRUE);
    envp = g_environ_setenv(envp, "IBNM_FAKE_FAIL", "op=addAddress,nth=1,delay=20000", TRUE);
    GPid pid = 0;
    ASSERT_TRUE(g_spawn_async(nullptr, a.data(), envp,
                              GSpawnFlags(G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                          G_SPAWN_STDERR_TO_DEV_NULL),
                              nullptr, nullptr, &pid, nullptr));
    g_strfreev(envp);
    // Until the child is up (the simulated host's journal says so; reading
    // the host would wait for the operation that waits).
    auto childUp = [&]() {
        char *journal = nullptr;
        if (!g_file_get_contents((cli.stateDir() + "/journal").c_str(), &journal, nullptr, nullptr))
            return false;
        bool up = std::string(journal).find("setUp\tmlx4_ib0.8002\t1") != std::string::npos;
        g_free(journal);
        return up;
    };
    for (int i = 0; i < 400 && !childUp(); i++)
        g_usleep(25000);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    g_spawn_close_pid(pid);
    ASSERT_NE(hostNow(cli).find("[netdev mlx4_ib0.8002]"), std::string::npos) << "the child was never created";

    ASSERT_EQ(recordFiles(cli), std::vector<std::string>{uuid});
    char *text = nullptr;
    ASSERT_TRUE(g_file_get_contents((cli.stateDir() + "/active/" + uuid).c_str(), &text, nullptr, nullptr));
    auto record = ibnm::activation::parseRecord(text, uuid);
    g_free(text);
    ASSERT_TRUE(record.ok()) << record.error().toString();
    EXPECT_EQ(record->state, ibnm::activation::ActiveRecord::State::Activating);
    ASSERT_EQ(record->created.size(), 1u);
    EXPECT_EQ(record->created[0].parent, "mlx4_ib0");
    EXPECT_EQ(record->created[0].pkey, 0x8002);
    EXPECT_EQ(cli.run({"-t", "-f", "name,device", "connection", "show"}).out, "child:\n");

    Result down = cli.run({"connection", "down", "child"});
    ASSERT_EQ(down.status, 0) << down.out << down.err;
    EXPECT_NE(down.out.find("delete-ipoib-child"), std::string::npos) << down.out;
    EXPECT_EQ(hostNow(cli), before);
    EXPECT_TRUE(recordFiles(cli).empty());
}

namespace {

struct RoundTrip {
    const char *host;
    std::vector<std::vector<std::string>> adds; // profile arguments after `connection add`
    std::vector<std::string> up;                // the ones brought up
};

void PrintTo(const RoundTrip &r, std::ostream *os)
{
    *os << r.host;
}

std::vector<RoundTrip> roundTrips()
{
    return {
        {"mlx4-dual-port.host",
         {{"type", "infiniband", "con-name", "child", "parent", "mlx4_ib0", "p-key", "0x8002", "ipv4.method",
           "manual", "ipv4.addresses", "192.0.2.1/24", "ipv6.method", "disabled"},
          {"type", "infiniband", "con-name", "bymac", "mac",
           "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2", "transport-mode", "connected", "mtu",
           "65520", "ipv4.method", "disabled", "ipv6.method", "disabled"},
          {"type", "infiniband", "con-name", "idle", "parent", "mlx4_ib0", "p-key", "0x8003", "ipv4.method",
           "disabled", "ipv6.method", "disabled"}},
         {"child", "bymac"}},
        {"cx6-mlx5-ib.host",
         {{"type", "infiniband", "con-name", "child", "parent", "ib0", "p-key", "0x00ff", "ipv4.method",
           "disabled", "ipv6.method", "disabled"}},
         {"child"}},
        {"ethernet-only.host",
         {{"type", "ethernet", "con-name", "rxe", "ifname", "enp1s0", "ipv4.method", "manual", "ipv4.addresses",
           "192.0.2.10/24", "ipv6.method", "disabled", "rdma.link-type", "rxe"}},
         {"rxe"}},
        {"mlx5-roce.host",
         {{"type", "ethernet", "con-name", "roce", "ifname", "p4p2", "ipv4.method", "manual", "ipv4.addresses",
           "10.10.20.1/24", "ipv6.method", "disabled", "rdma.roce-mode", "v2", "rdma.roce-tos", "106"}},
         {"roce"}},
        {"mlx5-roce-lag.host",
         {{"type", "ethernet", "con-name", "e", "ifname", "enp5s0", "ipv4.method", "manual", "ipv4.addresses",
           "192.0.2.5/24", "ipv6.method", "disabled"}},
         {"e"}},
    };
}

class CliShowStateApply : public ::testing::TestWithParam<RoundTrip> {};

} // namespace

// `show-state` then `apply` of its output changes nothing, on every example
// host, for the stored and the active profiles: a P_Key child without an
// interface name and a port named only by its MAC are `state: up` when
// active (they came out down, and applying the document took them down).
TEST_P(CliShowStateApply, AppliedOutputChangesNothing)
{
    const RoundTrip &rt = GetParam();
    Cli cli(rt.host);
    for (auto args : rt.adds) {
        args.insert(args.begin(), {"connection", "add"});
        Result add = cli.run(args);
        ASSERT_EQ(add.status, 0) << add.err;
    }
    std::vector<std::string> up = {"connection", "up"};
    up.insert(up.end(), rt.up.begin(), rt.up.end());
    Result r = cli.run(up);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    std::string host = hostNow(cli), active = cli.run({"-t", "connection", "show", "--active"}).out;
    auto records = recordFiles(cli);
    Result shown = cli.run({"show-state"});
    ASSERT_EQ(shown.status, 0) << shown.err;
    size_t ups = 0;
    for (size_t at = shown.out.find("state: 'up'"); at != std::string::npos; at = shown.out.find("state: 'up'", at + 1))
        ups++;
    EXPECT_EQ(ups, rt.up.size()) << shown.out;
    Result applied = cli.run({"-j", "apply", "-"}, shown.out);
    ASSERT_EQ(applied.status, 0) << applied.out << applied.err << "\n" << shown.out;
    auto json = parseJson(applied.out);
    EXPECT_FALSE(json.get("changed")->b) << applied.out;
    EXPECT_TRUE(json.get("steps")->items.empty()) << applied.out;
    EXPECT_EQ(hostNow(cli), host);
    EXPECT_EQ(cli.run({"-t", "connection", "show", "--active"}).out, active);
    EXPECT_EQ(recordFiles(cli), records);
    // Its own output again: the same document.
    EXPECT_EQ(cli.run({"show-state"}).out, shown.out);
}

INSTANTIATE_TEST_SUITE_P(ExampleHosts, CliShowStateApply, ::testing::ValuesIn(roundTrips()),
                         [](const ::testing::TestParamInfo<RoundTrip> &i) {
                             std::string n;
                             for (const char *c = i.param.host; *c && *c != '.'; c++)
                                 n += g_ascii_isalnum(*c) ? *c : '_';
                             return n;
                         });
