// SPDX-License-Identifier: LGPL-2.1-or-later
// Many profiles at once: `connection up|down ID...` and `--all` (one plan,
// one rollback, one report), and `apply`/`show-state` with nmstate's schema.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using ibnm::test::Cli;
using ibnm::test::JsonValue;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

std::vector<std::string> addChild(const std::string &pkey, bool autoconnect = true)
{
    std::string name = "mlx4_ib0." + pkey;
    return {"connection", "add", "type", "infiniband", "con-name", name, "ifname", name, "parent", "mlx4_ib0",
            "p-key", "0x" + pkey, "connection.autoconnect", autoconnect ? "yes" : "no",
            // Standalone ibnm does no DHCP (it refuses ipv4.method auto on IPoIB).
            "ipv4.method", "disabled"};
}

// The netdevs of the simulated host (device status, terse).
std::vector<std::string> devices(const Cli &cli)
{
    Result r = cli.run({"-t", "-f", "DEVICE", "device", "status"});
    EXPECT_EQ(r.status, 0) << r.err;
    return lines(r.out);
}

bool has(const std::vector<std::string> &v, const std::string &s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CliFleet, UpManyIdsIsOneTransactionAndOneReport)
{
    Cli cli("mlx4-dual-port.host");
    for (const char *k : {"8002", "8003", "8004"})
        ASSERT_EQ(cli.run(addChild(k)).status, 0);
    Result r = cli.run({"-j", "connection", "up", "mlx4_ib0.8002", "id", "mlx4_ib0.8003", "mlx4_ib0.8004"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    const JsonValue *report = v.get("report");
    ASSERT_NE(report, nullptr) << r.out;
    EXPECT_TRUE(report->get("success")->b);
    auto dev = devices(cli);
    for (const char *k : {"mlx4_ib0.8002", "mlx4_ib0.8003", "mlx4_ib0.8004"})
        EXPECT_TRUE(has(dev, k)) << k;

    Result down = cli.run({"connection", "down", "mlx4_ib0.8002", "mlx4_ib0.8003"});
    ASSERT_EQ(down.status, 0) << down.out << down.err;
    EXPECT_NE(down.out.find("2 connections successfully deactivated."), std::string::npos) << down.out;
    dev = devices(cli);
    EXPECT_FALSE(has(dev, "mlx4_ib0.8002"));
    EXPECT_FALSE(has(dev, "mlx4_ib0.8003"));
    EXPECT_TRUE(has(dev, "mlx4_ib0.8004"));
}

TEST(CliFleet, UpAllTakesEveryAutoconnectProfileAndDownAllUndoesIt)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(addChild("8002")).status, 0);
    ASSERT_EQ(cli.run(addChild("8003")).status, 0);
    ASSERT_EQ(cli.run(addChild("8005", false)).status, 0);
    Result r = cli.run({"connection", "up", "--all"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("2 connections successfully activated."), std::string::npos) << r.out;
    auto dev = devices(cli);
    EXPECT_TRUE(has(dev, "mlx4_ib0.8002"));
    EXPECT_TRUE(has(dev, "mlx4_ib0.8003"));
    EXPECT_FALSE(has(dev, "mlx4_ib0.8005")) << "autoconnect=no must not come up with --all";

    ASSERT_EQ(cli.run({"connection", "down", "--all"}).status, 0);
    dev = devices(cli);
    EXPECT_FALSE(has(dev, "mlx4_ib0.8002"));
    EXPECT_FALSE(has(dev, "mlx4_ib0.8003"));
}

TEST(CliFleet, AFailureInOneProfileRollsBackAllOfThem)
{
    Cli cli("mlx4-dual-port.host");
    for (const char *k : {"8002", "8003", "8004"})
        ASSERT_EQ(cli.run(addChild(k)).status, 0);
    auto before = devices(cli);
    // The third child's creation fails: the first two are undone.
    Result r = cli.run({"-j", "connection", "up", "--all"}, {},
                       {{"IBNM_FAKE_FAIL", "op=createIpoibChild,nth=3,errno=EIO"}});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    ASSERT_NE(v.get("report"), nullptr) << r.out;
    EXPECT_FALSE(v.get("report")->get("success")->b);
    EXPECT_TRUE(v.get("report")->get("rolled-back")->b);
    EXPECT_EQ(devices(cli), before);
}

TEST(CliFleet, UnknownIdChangesNothingAndAllWithIdsIsAUsageError)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(addChild("8002")).status, 0);
    auto before = devices(cli);
    Result r = cli.run({"connection", "up", "mlx4_ib0.8002", "nosuch"});
    EXPECT_EQ(r.status, 10);
    EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
    EXPECT_EQ(devices(cli), before);
    Result mixed = cli.run({"connection", "up", "--all", "mlx4_ib0.8002"});
    EXPECT_EQ(mixed.status, 2);
    EXPECT_NE(mixed.err.find("--all"), std::string::npos) << mixed.err;
    EXPECT_EQ(devices(cli), before);
}

} // namespace

namespace {

std::string fixture(const std::string &name)
{
    char *c = nullptr;
    g_file_get_contents((IBNM_TOP_SRCDIR "/tests/cli/state/" + name).c_str(), &c, nullptr, nullptr);
    std::string s = c ? c : "";
    g_free(c);
    return s;
}

const char *kTwoChildren = R"(interfaces:
  - name: mlx4_ib0.8002
    type: infiniband
    mtu: 2044
    infiniband: {base-iface: mlx4_ib0, pkey: '0x8002', mode: datagram}
    ipv4:
      enabled: true
      address:
        - {ip: 192.0.2.10, prefix-length: 24}
    ibnm-rdma: {umcast: true}
  - name: mlx4_ib0.8003
    type: infiniband
    infiniband: {base-iface: mlx4_ib0, pkey: 0x8003}
)";

TEST(CliApply, NmstateFileAppliesDryRunChangesNothingAndSecondApplyIsANoOp)
{
    Cli cli("mlx4-dual-port.host");
    std::string doc = fixture("pkey-create.yml");
    ASSERT_FALSE(doc.empty());
    auto before = devices(cli);
    Result dry = cli.run({"--dry-run", "apply", "-"}, doc);
    ASSERT_EQ(dry.status, 0) << dry.out << dry.err;
    EXPECT_NE(dry.out.find("+[infiniband] p-key=33023"), std::string::npos) << dry.out;
    EXPECT_NE(dry.out.find("planned"), std::string::npos) << dry.out;
    EXPECT_TRUE(cli.keyfiles().empty());
    EXPECT_EQ(devices(cli), before);

    Result r = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    EXPECT_TRUE(v.get("success")->b);
    EXPECT_TRUE(v.get("changed")->b);
    EXPECT_TRUE(has(devices(cli), "mlx4_ib0.80ff"));
    ASSERT_EQ(cli.keyfiles().size(), 1u);
    std::string store = cli.snapshot();

    Result again = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(again.status, 0) << again.out << again.err;
    JsonValue w = parseJson(again.out);
    EXPECT_FALSE(w.get("changed")->b) << again.out;
    EXPECT_EQ(w.get("steps")->items.size(), 0u);
    EXPECT_EQ(cli.snapshot(), store);

    Result gone = cli.run({"apply", "-"}, fixture("pkey-delete.yml"));
    ASSERT_EQ(gone.status, 0) << gone.out << gone.err;
    EXPECT_FALSE(has(devices(cli), "mlx4_ib0.80ff"));
    EXPECT_TRUE(cli.keyfiles().empty());
}

TEST(CliApply, TheSharedNmstateConformanceFileAppliesUnchanged)
{
    const char *env = g_getenv("IBNM_SHARED_DIR");
    std::string shared = env ? env : IBNM_SHARED_DIR_DEFAULT;
    std::string path = shared + "/conformance/nmstate/infiniband_pkey_ipoib_create.yml";
    if (!g_file_test(path.c_str(), G_FILE_TEST_EXISTS))
        GTEST_SKIP() << path << " is absent";
    // Its base interface is mlx5_ib0: a ConnectX-6 host that names it so.
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    Result r = cli.run({"apply", path});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(has(devices(cli), "mlx5_ib0.80ff")) << r.out;
    Result again = cli.run({"-j", "apply", path});
    EXPECT_FALSE(parseJson(again.out).get("changed")->b) << again.out;
}

TEST(CliApply, ShowStateRoundTripsAndJsonInputWorks)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    EXPECT_TRUE(has(devices(cli), "mlx4_ib0.8002"));
    EXPECT_TRUE(has(devices(cli), "mlx4_ib0.8003"));
    Result yaml = cli.run({"show-state"});
    ASSERT_EQ(yaml.status, 0) << yaml.err;
    EXPECT_NE(yaml.out.find("ibnm-rdma:"), std::string::npos) << yaml.out;
    EXPECT_NE(yaml.out.find("192.0.2.10"), std::string::npos) << yaml.out;
    // What show-state prints, applied, changes nothing (YAML and JSON).
    Result noop = cli.run({"-j", "apply", "-"}, yaml.out);
    ASSERT_EQ(noop.status, 0) << noop.out << noop.err;
    EXPECT_FALSE(parseJson(noop.out).get("changed")->b) << noop.out;
    Result json = cli.run({"-j", "show-state"});
    ASSERT_EQ(json.status, 0);
    EXPECT_EQ(json.out.find('{'), 0u) << json.out;
    Result noopJson = cli.run({"-j", "apply", "-"}, json.out);
    ASSERT_EQ(noopJson.status, 0) << noopJson.out << noopJson.err;
    EXPECT_FALSE(parseJson(noopJson.out).get("changed")->b) << noopJson.out;
}

// Replaces `from` by `to` in the file at `path`, in place (its mode stays).
void editFile(const std::string &path, const std::string &from, const std::string &to)
{
    char *c = nullptr;
    ASSERT_TRUE(g_file_get_contents(path.c_str(), &c, nullptr, nullptr)) << path;
    std::string text = c;
    g_free(c);
    auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from << " not in " << path << ":\n" << text;
    text.replace(at, from.size(), to);
    FILE *f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    fputs(text.c_str(), f);
    fclose(f);
}

// The no-op second apply decides "profile unchanged" without copying each
// profile and reads the host afresh: an edited keyfile, a host changed by
// another process (a record in the simulated host's journal, as its own
// operations write them) and an interface taken down are each noticed, put
// right, and the apply after that is a no-op again.
TEST(CliApply, ASecondApplyNoticesAnEditedKeyfileAndADriftedHost)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    auto noop = [&]() {
        Result r = cli.run({"-j", "apply", "-"}, kTwoChildren);
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        JsonValue v = parseJson(r.out);
        EXPECT_FALSE(v.get("changed")->b) << r.out;
        EXPECT_EQ(v.get("steps")->items.size(), 0u) << r.out;
    };
    noop();
    std::string keyfile = cli.keyfileDir() + "/mlx4_ib0.8002.nmconnection";
    // Edited keyfiles: the MTU, then the address.
    for (const auto &edit : {std::pair<std::string, std::string>{"mtu=2044", "mtu=4092"},
                             std::pair<std::string, std::string>{"192.0.2.10/24", "192.0.2.11/24"}}) {
        editFile(keyfile, edit.first, edit.second);
        Result r = cli.run({"-j", "apply", "-"}, kTwoChildren);
        ASSERT_EQ(r.status, 0) << r.out << r.err;
        JsonValue v = parseJson(r.out);
        EXPECT_TRUE(v.get("changed")->b) << r.out;
        bool modified = false;
        for (const auto &c : v.get("changes")->items)
            if (c.get("interface")->s == "mlx4_ib0.8002")
                modified = c.get("action")->s == "modify";
        EXPECT_TRUE(modified) << r.out;
        std::string store = cli.snapshot();
        EXPECT_NE(store.find(edit.first), std::string::npos) << store;
        EXPECT_EQ(store.find(edit.second), std::string::npos) << store;
        noop();
    }
    // The host changed by another process: the child's MTU.
    {
        FILE *j = fopen((cli.stateDir() + "/journal").c_str(), "a");
        ASSERT_NE(j, nullptr);
        fputs("ok\tsetMtu\tmlx4_ib0.8002\t1500\n", j);
        fclose(j);
    }
    Result mtu = cli.run({"-t", "-f", "DEVICE,MTU", "device", "status"});
    EXPECT_TRUE(has(lines(mtu.out), "mlx4_ib0.8002:1500")) << mtu.out;
    Result r = cli.run({"-j", "apply", "-"}, kTwoChildren);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(parseJson(r.out).get("changed")->b) << r.out;
    EXPECT_NE(r.out.find("set-mtu"), std::string::npos) << r.out;
    mtu = cli.run({"-t", "-f", "DEVICE,MTU", "device", "status"});
    EXPECT_TRUE(has(lines(mtu.out), "mlx4_ib0.8002:2044")) << mtu.out;
    noop();
    // An interface taken down.
    ASSERT_EQ(cli.run({"connection", "down", "mlx4_ib0.8003"}).status, 0);
    EXPECT_FALSE(has(devices(cli), "mlx4_ib0.8003"));
    r = cli.run({"-j", "apply", "-"}, kTwoChildren);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(parseJson(r.out).get("changed")->b) << r.out;
    EXPECT_TRUE(has(devices(cli), "mlx4_ib0.8003"));
    noop();
}

TEST(CliApply, AKernelFailureLeavesProfilesAndHostAsBefore)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, fixture("pkey-create.yml")).status, 0);
    std::string store = cli.snapshot();
    auto before = devices(cli);
    Result r = cli.run({"-j", "apply", "-"}, kTwoChildren, {{"IBNM_FAKE_FAIL", "op=createIpoibChild,nth=2,errno=EIO"}});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    EXPECT_FALSE(v.get("success")->b);
    EXPECT_TRUE(v.get("rolled-back")->b) << r.out;
    EXPECT_EQ(cli.snapshot(), store);
    EXPECT_EQ(devices(cli), before);
}

TEST(CliApply, BondWithIpoibPortsAppliesOnceAndShowsItsPorts)
{
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    const char *doc = R"(interfaces:
  - name: bond0
    type: bond
    link-aggregation:
      mode: active-backup
      options: {miimon: 100, fail_over_mac: active}
      port: [mlx5_ib0, mlx5_ib1]
    ipv4: {enabled: true, address: [{ip: 192.0.2.1, prefix-length: 24}]}
  - {name: mlx5_ib0, type: infiniband, infiniband: {mode: datagram}}
  - {name: mlx5_ib1, type: infiniband}
)";
    Result r = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(parseJson(r.out).get("changed")->b);
    Result again = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(again.status, 0) << again.out << again.err;
    EXPECT_FALSE(parseJson(again.out).get("changed")->b) << again.out;
    Result show = cli.run({"show-state"});
    EXPECT_NE(show.out.find("port:\n    - 'mlx5_ib0'\n    - 'mlx5_ib1'"), std::string::npos) << show.out;
    // The host has the bond up (show-state reads the state from the host).
    EXPECT_NE(show.out.find("- name: 'bond0'\n  type: 'bond'\n  state: 'up'"), std::string::npos) << show.out;
    // A port that is neither listed nor stored is refused by name.
    Cli fresh(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    Result bad = fresh.run({"apply", "-"}, "interfaces:\n- {name: bond1, type: bond, link-aggregation: {mode: "
                                           "active-backup, port: [nosuch]}}\n");
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("'nosuch'"), std::string::npos) << bad.err;
    EXPECT_TRUE(fresh.keyfiles().empty());
}

TEST(CliApply, APortLeftOutOfTheBondsListIsDetachedFromProfileAndHost)
{
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    const char *both = R"(interfaces:
  - name: bond0
    type: bond
    mtu: 2000
    link-aggregation: {mode: active-backup, options: {fail_over_mac: active}, port: [mlx5_ib0, mlx5_ib1]}
  - {name: mlx5_ib0, type: infiniband}
  - {name: mlx5_ib1, type: infiniband}
)";
    Result first = cli.run({"apply", "-"}, both);
    ASSERT_EQ(first.status, 0) << first.out << first.err;
    // The bond now lists one port: the other leaves it, in its profile and
    // on the host, in one apply. It asks for the MTU it had in the bond:
    // the kernel's release gave it its own back and closed it, so the MTU
    // is set again and the link brought up (a plan that kept the bond's
    // values would leave it down at its old MTU and fail verification).
    const char *one = "interfaces:\n- {name: bond0, type: bond, link-aggregation: {port: [mlx5_ib0]}}\n"
                      "- {name: mlx5_ib1, mtu: 2000}\n";
    Result r = cli.run({"-j", "apply", "-"}, one);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    EXPECT_TRUE(v.get("changed")->b) << r.out;
    bool released = false;
    for (const auto &step : v.get("steps")->items)
        released = released || (step.get("action")->s == "release" && step.get("object")->s == "mlx5_ib1" &&
                                step.get("state")->s == "done");
    EXPECT_TRUE(released) << r.out;
    bool mtuSet = false, upSet = false;
    for (const auto &step : v.get("steps")->items) {
        bool ours = step.get("object")->s == "mlx5_ib1" && step.get("state")->s == "done";
        mtuSet = mtuSet || (ours && step.get("action")->s == "set-mtu");
        upSet = upSet || (ours && step.get("action")->s == "set-up");
    }
    EXPECT_TRUE(mtuSet) << r.out;
    EXPECT_TRUE(upSet) << r.out;
    char *kf = nullptr;
    ASSERT_TRUE(g_file_get_contents((cli.keyfileDir() + "/mlx5_ib1.nmconnection").c_str(), &kf, nullptr, nullptr));
    std::string keyfile = kf;
    g_free(kf);
    EXPECT_EQ(keyfile.find("master="), std::string::npos) << keyfile;
    EXPECT_NE(keyfile.find("[ipv4]\nmethod=disabled"), std::string::npos) << keyfile;
    // Converged: the same document again changes nothing, on the host either
    // (a port still enslaved would be released again).
    Result again = cli.run({"-j", "apply", "-"}, one);
    ASSERT_EQ(again.status, 0) << again.out << again.err;
    EXPECT_FALSE(parseJson(again.out).get("changed")->b) << again.out;
    Result show = cli.run({"show-state"});
    EXPECT_NE(show.out.find("port:\n    - 'mlx5_ib0'\n  ipv4"), std::string::npos) << show.out;
}

struct BadDoc {
    const char *name;
    const char *doc;
    int status;
    const char *message;
};

class CliApplyErrors : public ::testing::TestWithParam<BadDoc> {};

TEST_P(CliApplyErrors, NameThePropertyAndChangeNothing)
{
    const BadDoc &c = GetParam();
    Cli cli("mlx4-dual-port.host");
    auto before = devices(cli);
    Result r = cli.run({"apply", "-"}, c.doc);
    EXPECT_EQ(r.status, c.status) << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_TRUE(cli.keyfiles().empty());
    EXPECT_EQ(devices(cli), before);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliApplyErrors,
    ::testing::Values(
        BadDoc{"BadPkey",
               "interfaces:\n- {name: mlx4_ib0.8000, type: infiniband, infiniband: {base-iface: mlx4_ib0, pkey: "
               "'0x8000'}}\n",
               1, "interfaces[0] 'mlx4_ib0.8000': infiniband.p-key"},
        BadDoc{"UnknownKey", "interfaces:\n- {name: ib1, type: infiniband, lldp: {enabled: true}}\n", 2,
               "interfaces[0] 'ib1'.lldp: not a key ibnm handles"},
        BadDoc{"UnknownType", "interfaces:\n- {name: br0, type: linux-bridge}\n", 1,
               "interfaces[0] 'br0'.type"},
        BadDoc{"BadRdmaKey", "interfaces:\n- {name: mlx4_ib0, type: infiniband, ibnm-rdma: {link-type: foo}}\n", 2,
               "rdma.link-type"},
        BadDoc{"Syntax", "interfaces: [\n", 2, "stdin:"},
        BadDoc{"DatagramMtuAboveTheLink",
               "interfaces:\n- {name: mlx4_ib0.8002, type: infiniband, mtu: 9000, infiniband: {base-iface: "
               "mlx4_ib0, pkey: '0x8002', mode: datagram}}\n",
               1, "mtu"}),
    [](const ::testing::TestParamInfo<BadDoc> &i) { return std::string(i.param.name); });

} // namespace
