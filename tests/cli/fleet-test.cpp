// SPDX-License-Identifier: LGPL-2.1-or-later
// Many profiles at once: `connection up|down ID...` and `--all` (one plan,
// one rollback, one report), and `apply`/`show-state` with nmstate's schema.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>

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
    EXPECT_EQ(r.status, 4) << r.out << r.err; // nmcli's "activation failed"
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

std::string keyfileOf(const Cli &cli, const std::string &name)
{
    char *c = nullptr;
    g_file_get_contents((cli.keyfileDir() + "/" + name + ".nmconnection").c_str(), &c, nullptr, nullptr);
    std::string s = c ? c : "";
    g_free(c);
    return s;
}

// RHEL's nmstatectl IPoIB example, as published: its default routes go to
// the P_Key child's profile (ipv4.routes, ipv6.routes, as nmstate writes
// them), a second apply changes nothing; `dns-resolver` (RHEL 9's version of
// the example adds it) goes to the profile with the default route, and a
// route `state: absent` removes the stored route it matches, only that one.
TEST(CliApply, RhelsNmstatectlIpoibExampleAppliesWithItsRoutesAndDns)
{
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    std::string doc = fixture("rhel-ipoib-nmstatectl.yml");
    ASSERT_FALSE(doc.empty());
    Result r = cli.run({"apply", "-"}, doc);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(has(devices(cli), "mlx5_ib0.8002"));
    std::string kf = keyfileOf(cli, "mlx5_ib0.8002");
    EXPECT_NE(kf.find("route1=0.0.0.0/0,192.0.2.254\n"), std::string::npos) << kf;
    EXPECT_NE(kf.find("route1=::/0,2001:db8:1::fffe\n"), std::string::npos) << kf;
    Result again = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(again.status, 0) << again.out << again.err;
    EXPECT_FALSE(parseJson(again.out).get("changed")->b) << again.out;

    std::string dns = doc + "dns-resolver:\n  config:\n    search:\n    - example.com\n    server:\n"
                            "    - 192.0.2.200\n    - 2001:db8:1::ffbb\n";
    Result withDns = cli.run({"apply", "-"}, dns);
    ASSERT_EQ(withDns.status, 0) << withDns.out << withDns.err;
    kf = keyfileOf(cli, "mlx5_ib0.8002");
    EXPECT_NE(kf.find("dns=192.0.2.200;\ndns-search=example.com;\n"), std::string::npos) << kf;
    EXPECT_NE(kf.find("dns=2001:db8:1::ffbb;\n"), std::string::npos) << kf;

    Result gone = cli.run({"apply", "-"}, "routes:\n  config:\n  - destination: 0.0.0.0/0\n"
                                          "    next-hop-interface: mlx5_ib0.8002\n    state: absent\n");
    ASSERT_EQ(gone.status, 0) << gone.out << gone.err;
    kf = keyfileOf(cli, "mlx5_ib0.8002");
    EXPECT_EQ(kf.find("route1=0.0.0.0/0"), std::string::npos) << kf;
    EXPECT_NE(kf.find("route1=::/0,2001:db8:1::fffe\n"), std::string::npos) << kf;
}

// nmstate.io's "Bond Over Infiniband", as published: `bond:` (nmstate's
// alias of link-aggregation) is read; its first port's name does not match
// its P_Key, which NetworkManager refuses, and so does ibnm, naming the
// name it must have; with that name the example applies, both ports in the
// bond.
TEST(CliApply, NmstateIoBondOverInfinibandExample)
{
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    std::string doc = fixture("nmstate-io-bond-over-ib.yml");
    ASSERT_FALSE(doc.empty());
    Result asWritten = cli.run({"apply", "-"}, doc);
    EXPECT_NE(asWritten.status, 0) << asWritten.out;
    EXPECT_NE(asWritten.err.find("mlx5_ib0.80ff"), std::string::npos) << asWritten.err;
    EXPECT_EQ(asWritten.err.find("not a key"), std::string::npos) << asWritten.err;
    EXPECT_TRUE(cli.keyfiles().empty());

    std::string fixed = doc;
    for (size_t at; (at = fixed.find("mlx5_ib0.80fe")) != std::string::npos;)
        fixed.replace(at, 13, "mlx5_ib0.80ff");
    Result r = cli.run({"apply", "-"}, fixed);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    for (const char *port : {"mlx5_ib0.80ff", "mlx5_ib1.80fe"})
        EXPECT_NE(keyfileOf(cli, port).find("master=bond0"), std::string::npos) << port;
    EXPECT_NE(keyfileOf(cli, "bond0").find("mode=active-backup"), std::string::npos);
    Result show = cli.run({"show-state"});
    EXPECT_NE(show.out.find("- name: 'bond0'\n  type: 'bond'\n  state: 'up'"), std::string::npos) << show.out;
    EXPECT_TRUE(has(devices(cli), "mlx5_ib1.80fe"));
}

// pkey '0xffff' is nmstate's marker of a base interface: no P_Key child.
TEST(CliApply, PkeyFfffMarksTheBaseInterface)
{
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    Result r = cli.run({"apply", "-"}, "interfaces:\n- name: mlx5_ib0\n  type: infiniband\n  state: up\n"
                                       "  infiniband:\n    mode: datagram\n    pkey: '0xffff'\n");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    std::string kf = keyfileOf(cli, "mlx5_ib0");
    EXPECT_NE(kf.find("[infiniband]\ntransport-mode=datagram\n"), std::string::npos) << kf;
    EXPECT_EQ(kf.find("p-key"), std::string::npos) << kf;
    EXPECT_EQ(kf.find("parent"), std::string::npos) << kf;
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
    // Each step as every report prints it (docs/json-schema.md): what a
    // step has not is null, never "" (a done step has no error).
    for (const auto &step : v.get("steps")->items) {
        ASSERT_EQ(step.members.size(), 6u) << r.out;
        EXPECT_EQ(step.get("error")->kind, JsonValue::Null) << r.out;
        const JsonValue *profile = step.get("profile");
        EXPECT_TRUE(profile->kind == JsonValue::Null || (profile->kind == JsonValue::String && !profile->s.empty()))
            << r.out;
    }
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
        // nmstate's mode is lower case (its enum refuses `Connected`).
        BadDoc{"ModeInCapitals",
               "interfaces:\n- {name: mlx4_ib0, type: infiniband, infiniband: {mode: Connected}}\n", 2,
               "interfaces[0] 'mlx4_ib0'.infiniband.mode: 'Connected' is not a mode"},
        BadDoc{"BondAndItsAlias",
               "interfaces:\n- {name: bond0, type: bond, bond: {mode: active-backup}, link-aggregation: {mode: "
               "active-backup}}\n",
               2, "interfaces[0] 'bond0'.bond"},
        // nmstate 2.x refuses it in Routes::validate() (it does not guess the
        // interface by the next hop's subnet), in these words.
        BadDoc{"RouteWithoutItsInterface",
               "interfaces:\n- {name: mlx4_ib0, type: infiniband}\nroutes:\n  config:\n  - {destination: "
               "0.0.0.0/0, next-hop-address: 192.0.2.1}\n",
               2,
               "routes.config[0].next-hop-interface: Route with empty next hop interface is not supported: "
               "destination: 0.0.0.0/0 next-hop-address: 192.0.2.1"},
        BadDoc{"RouteOfAnUnknownInterface",
               "routes:\n  config:\n  - {destination: 10.0.0.0/8, next-hop-interface: ib7}\n", 2,
               "routes.config[0].next-hop-interface: 'ib7' is neither listed"},
        BadDoc{"DnsWithoutADefaultRoute",
               "interfaces:\n- {name: mlx4_ib0, type: infiniband, ipv4: {enabled: true, address: [{ip: 192.0.2.1, "
               "prefix-length: 24}]}}\ndns-resolver:\n  config:\n    server: [192.0.2.200]\n",
               2, "dns-resolver.config"},
        BadDoc{"DatagramMtuAboveTheLink",
               "interfaces:\n- {name: mlx4_ib0.8002, type: infiniband, mtu: 9000, infiniband: {base-iface: "
               "mlx4_ib0, pkey: '0x8002', mode: datagram}}\n",
               1, "mtu"}),
    [](const ::testing::TestParamInfo<BadDoc> &i) { return std::string(i.param.name); });

// --- the verified no-op record (cli/apply-record.hpp) ---

// What the record said on this run (IBNM_DEBUG=apply-record): "answered: ..."
// or "declined: <why>".
std::string recordSaid(const Result &r)
{
    const std::string tag = "ibnm: apply-record: ";
    auto at = r.err.find(tag);
    if (at == std::string::npos)
        return "(nothing)";
    auto end = r.err.find('\n', at);
    return r.err.substr(at + tag.size(), end == std::string::npos ? std::string::npos : end - at - tag.size());
}

Result applyJson(const Cli &cli, const std::string &doc, std::vector<std::string> extra = {})
{
    std::vector<std::string> args = {"-j"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"apply", "-"});
    return cli.run(args, doc, {{"IBNM_DEBUG", "apply-record"}});
}

bool answered(const Result &r)
{
    return recordSaid(r).rfind("answered", 0) == 0;
}

// The keyfiles a second old (past the racy window: their stat vouches
// for them), then a no-op apply, which writes the record after a change
// (the full path) and returns its output.
Result settle(const Cli &cli, const std::string &doc)
{
    g_usleep(1100 * 1000);
    Result full = applyJson(cli, doc);
    EXPECT_EQ(full.status, 0) << full.out << full.err;
    EXPECT_FALSE(parseJson(full.out).get("changed")->b) << full.out;
    return full;
}

void expectChanged(const Result &r, const char *why)
{
    EXPECT_EQ(r.status, 0) << why << r.out << r.err;
    EXPECT_FALSE(answered(r)) << why << ": " << r.err;
    EXPECT_TRUE(parseJson(r.out).get("changed")->b) << why << ": " << r.out;
}

std::string readAll(const std::string &path)
{
    char *c = nullptr;
    gsize n = 0;
    if (!g_file_get_contents(path.c_str(), &c, &n, nullptr))
        return {};
    std::string s(c, n);
    g_free(c);
    return s;
}

TEST(CliApplyRecord, ASecondNoOpApplyAnswersFromTheRecordWithTheFullPathsOutput)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    Result full = settle(cli, kTwoChildren);
    EXPECT_EQ(recordSaid(full), "declined: no record");
    Result fast = applyJson(cli, kTwoChildren);
    ASSERT_EQ(fast.status, 0) << fast.err;
    EXPECT_TRUE(answered(fast)) << fast.err;
    EXPECT_EQ(fast.out, full.out);
    // The plain output too: the full path's (the record removed), then the
    // record's.
    ASSERT_EQ(g_unlink((cli.stateDir() + "/apply-noop-record").c_str()), 0);
    Result plainFull = cli.run({"apply", "-"}, kTwoChildren, {{"IBNM_DEBUG", "apply-record"}});
    Result plainFast = cli.run({"apply", "-"}, kTwoChildren, {{"IBNM_DEBUG", "apply-record"}});
    EXPECT_EQ(recordSaid(plainFull), "declined: no record");
    EXPECT_TRUE(answered(plainFast)) << plainFast.err;
    EXPECT_EQ(plainFast.out, plainFull.out);
    EXPECT_EQ(plainFast.status, plainFull.status);
    EXPECT_NE(plainFast.out.find("Nothing to do"), std::string::npos) << plainFast.out;
    // A dry run never answers from it (nor removes it).
    Result dry = applyJson(cli, kTwoChildren, {"--dry-run"});
    EXPECT_EQ(recordSaid(dry), "(nothing)");
    EXPECT_TRUE(parseJson(dry.out).get("dry-run")->b);
    EXPECT_TRUE(answered(applyJson(cli, kTwoChildren)));
    // Messages in another language (the notes are translated).
    Result fr = cli.run({"-j", "apply", "-"}, kTwoChildren, {{"IBNM_DEBUG", "apply-record"}, {"LANGUAGE", "fr"}});
    EXPECT_EQ(recordSaid(fr), "declined: another language");
    EXPECT_FALSE(parseJson(fr.out).get("changed")->b) << fr.out;
}

TEST(CliApplyRecord, AnEditedAddedOrRemovedKeyfileDeclines)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    std::string keyfile = cli.keyfileDir() + "/mlx4_ib0.8002.nmconnection";
    // The same size, the same mtime put back: only the ctime tells.
    struct stat before {};
    ASSERT_EQ(stat(keyfile.c_str(), &before), 0);
    editFile(keyfile, "mtu=2044", "mtu=4092");
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(utimensat(AT_FDCWD, keyfile.c_str(), times, 0), 0);
    struct stat after {};
    ASSERT_EQ(stat(keyfile.c_str(), &after), 0);
    ASSERT_EQ(after.st_size, before.st_size);
    Result r = applyJson(cli, kTwoChildren);
    expectChanged(r, "edited keyfile");
    EXPECT_EQ(recordSaid(r), "declined: the keyfile store changed");
    EXPECT_NE(readAll(keyfile).find("mtu=2044"), std::string::npos);
    // Rewritten within the second of the record the next no-op writes
    // (racily clean, git's term): its stat cannot vouch for it, its bytes
    // are compared, and they answer; edited again (same size, mtime put
    // back) within that second, it declines and the full path acts.
    Result noop = applyJson(cli, kTwoChildren);
    EXPECT_FALSE(answered(noop)) << noop.err;
    Result racy = applyJson(cli, kTwoChildren);
    EXPECT_TRUE(answered(racy)) << racy.err;
    EXPECT_EQ(racy.out, noop.out);
    std::string record = readAll(cli.stateDir() + "/apply-noop-record");
    EXPECT_NE(record.find("mlx4_ib0.8002.nmconnection"), std::string::npos) << record;
    ASSERT_EQ(stat(keyfile.c_str(), &before), 0);
    editFile(keyfile, "mtu=2044", "mtu=4092");
    struct timespec again[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(utimensat(AT_FDCWD, keyfile.c_str(), again, 0), 0);
    r = applyJson(cli, kTwoChildren);
    expectChanged(r, "edited racy keyfile");
    EXPECT_NE(readAll(keyfile).find("mtu=2044"), std::string::npos);

    // A new file in the store: another profile, which the document does
    // not name (it stays), but the record cannot vouch for it.
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    ASSERT_EQ(cli.run(addChild("8004", false)).status, 0);
    r = applyJson(cli, kTwoChildren);
    EXPECT_EQ(recordSaid(r), "declined: the keyfile store changed");
    EXPECT_EQ(r.status, 0) << r.err;
    // A removed keyfile: the document's profile comes back.
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    ASSERT_EQ(g_unlink(keyfile.c_str()), 0);
    r = applyJson(cli, kTwoChildren);
    expectChanged(r, "removed keyfile");
    EXPECT_EQ(recordSaid(r), "declined: the keyfile store changed");
    EXPECT_TRUE(g_file_test(keyfile.c_str(), G_FILE_TEST_EXISTS));
}

TEST(CliApplyRecord, AChangedDocumentOrADriftedHostDeclines)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    // The host changed by another process: a record in its journal.
    {
        FILE *j = fopen((cli.stateDir() + "/journal").c_str(), "a");
        ASSERT_NE(j, nullptr);
        fputs("ok\tsetMtu\tmlx4_ib0.8002\t1500\n", j);
        fclose(j);
    }
    Result r = applyJson(cli, kTwoChildren);
    expectChanged(r, "journal");
    EXPECT_EQ(recordSaid(r), "declined: the host changed");
    EXPECT_NE(r.out.find("set-mtu"), std::string::npos) << r.out;
    // (The apply changed the host: it left no record.)
    EXPECT_FALSE(g_file_test((cli.stateDir() + "/apply-noop-record").c_str(), G_FILE_TEST_EXISTS));
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    // An interface taken down (and the active-profile record with it).
    ASSERT_EQ(cli.run({"connection", "down", "mlx4_ib0.8003"}).status, 0);
    r = applyJson(cli, kTwoChildren);
    expectChanged(r, "interface down");
    EXPECT_TRUE(has(devices(cli), "mlx4_ib0.8003"));
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    // Only the host's link state: down by another process.
    {
        FILE *j = fopen((cli.stateDir() + "/journal").c_str(), "a");
        ASSERT_NE(j, nullptr);
        fputs("ok\tsetUp\tmlx4_ib0.8003\t0\n", j);
        fclose(j);
    }
    r = applyJson(cli, kTwoChildren);
    expectChanged(r, "link down");
    EXPECT_EQ(recordSaid(r), "declined: the host changed");
    settle(cli, kTwoChildren);
    ASSERT_TRUE(answered(applyJson(cli, kTwoChildren)));
    // Another document: one byte more.
    std::string other = std::string(kTwoChildren) + "\n";
    r = applyJson(cli, other);
    EXPECT_EQ(recordSaid(r), "declined: another document");
    EXPECT_FALSE(parseJson(r.out).get("changed")->b) << r.out;
    // A document that changes a profile.
    std::string mtu = kTwoChildren;
    mtu.replace(mtu.find("mtu: 2044"), 9, "mtu: 1500");
    r = applyJson(cli, mtu);
    expectChanged(r, "changed document");
    EXPECT_EQ(recordSaid(r), "declined: another document");
    EXPECT_NE(readAll(cli.keyfileDir() + "/mlx4_ib0.8002.nmconnection").find("mtu=1500"), std::string::npos);
}

// Reseals `text` (the record's last line is the SHA-256 of what precedes
// "\n[seal]").
std::string reseal(std::string text)
{
    auto at = text.rfind("\n[seal]\ndigest=");
    EXPECT_NE(at, std::string::npos);
    std::string body = text.substr(0, at);
    char *d = g_compute_checksum_for_string(G_CHECKSUM_SHA256, body.c_str(), gssize(body.size()));
    std::string out = body + "\n[seal]\ndigest=" + d + "\n";
    g_free(d);
    return out;
}

TEST(CliApplyRecord, AnotherVersionsACorruptOrATruncatedRecordDeclines)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    Result full = settle(cli, kTwoChildren);
    EXPECT_EQ(recordSaid(full), "declined: no record");
    std::string path = cli.stateDir() + "/apply-noop-record";
    std::string good = readAll(path);
    ASSERT_FALSE(good.empty());
    auto put = [&](const std::string &text) { ASSERT_TRUE(g_file_set_contents(path.c_str(), text.c_str(), gssize(text.size()), nullptr)); };
    // Another version wrote it (sealed as that version would).
    std::string other = good;
    auto v = other.find("version=" PACKAGE_VERSION "\n");
    ASSERT_NE(v, std::string::npos) << other;
    other.replace(v, strlen("version=" PACKAGE_VERSION), "version=0.0.0-other");
    put(reseal(other));
    Result r = applyJson(cli, kTwoChildren);
    EXPECT_EQ(recordSaid(r), "declined: another version of ibnm wrote the record");
    EXPECT_EQ(r.out, full.out);
    // (The full path wrote its own.)
    r = applyJson(cli, kTwoChildren);
    EXPECT_TRUE(answered(r)) << r.err;
    // Truncated, corrupt, empty.
    for (const std::string &bad : {good.substr(0, good.size() / 2), good.substr(0, good.size() - 2),
                                   std::string("[record]\nversion=x\n"), std::string()}) {
        put(bad);
        r = applyJson(cli, kTwoChildren);
        EXPECT_EQ(recordSaid(r), "declined: the record is corrupt");
        EXPECT_EQ(r.out, full.out);
        EXPECT_TRUE(answered(applyJson(cli, kTwoChildren)));
    }
    // A byte changed under an intact seal: the outcome it would print.
    std::string forged = good;
    forged.replace(forged.find("mlx4_ib0.8003"), 13, "mlx4_ib0.8009");
    put(forged);
    r = applyJson(cli, kTwoChildren);
    EXPECT_EQ(recordSaid(r), "declined: the record is corrupt");
    EXPECT_EQ(r.out, full.out);
}

TEST(CliApplyRecord, AFailedApplyRemovesTheRecord)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"apply", "-"}, kTwoChildren).status, 0);
    settle(cli, kTwoChildren);
    std::string path = cli.stateDir() + "/apply-noop-record";
    ASSERT_TRUE(g_file_test(path.c_str(), G_FILE_TEST_EXISTS));
    std::string more = std::string(kTwoChildren) +
                       "  - name: mlx4_ib0.8005\n    type: infiniband\n"
                       "    infiniband: {base-iface: mlx4_ib0, pkey: 0x8005}\n";
    Result r = cli.run({"-j", "apply", "-"}, more, {{"IBNM_FAKE_FAIL", "op=createIpoibChild,nth=1,errno=EIO"}});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_FALSE(g_file_test(path.c_str(), G_FILE_TEST_EXISTS));
    // The next apply of the first document takes the full path, and
    // finds it still in place.
    r = applyJson(cli, kTwoChildren);
    EXPECT_EQ(recordSaid(r), "declined: no record");
    EXPECT_FALSE(parseJson(r.out).get("changed")->b) << r.out;
}

// Bond ports that say `ipv4: {enabled: false}` (as nmstate writes a port)
// apply once, and again as a no-op: a port's profile has no IP settings,
// and the second apply refused (exit 2) to set them (issue 28).
TEST(CliApply, PortsWithIpDisabledApplyAgainAsANoOp)
{
    Cli cli(IBNM_TOP_SRCDIR "/tests/cli/state/mlx5-ib0.host");
    const char *doc = R"(interfaces:
  - name: bond0
    type: bond
    link-aggregation: {mode: active-backup, options: {fail_over_mac: active}, port: [mlx5_ib0, mlx5_ib1]}
    ipv4: {enabled: true, address: [{ip: 192.0.2.1, prefix-length: 24}]}
  - {name: mlx5_ib0, type: infiniband, ipv4: {enabled: false}, ipv6: {enabled: false}}
  - {name: mlx5_ib1, type: infiniband, ipv4: {enabled: false}}
)";
    Result first = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(first.status, 0) << first.out << first.err;
    EXPECT_TRUE(parseJson(first.out).get("changed")->b) << first.out;
    std::string stored = cli.snapshot();
    Result again = cli.run({"-j", "apply", "-"}, doc);
    ASSERT_EQ(again.status, 0) << again.out << again.err;
    EXPECT_FALSE(parseJson(again.out).get("changed")->b) << again.out;
    EXPECT_EQ(cli.snapshot(), stored);
}

} // namespace

// apply prints one line per profile it changes and its verdict; the keyfile
// diff and the host's steps come with --diff or -v (as a dry run shows them).
TEST(CliApply, SummaryByDefaultDiffAndStepsWithDiffOrVerbose)
{
    std::string doc = fixture("pkey-create.yml");
    ASSERT_FALSE(doc.empty());
    Cli plain("mlx4-dual-port.host");
    Result r = plain.run({"apply", "-"}, doc);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("mlx4_ib0.80ff: "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("+[infiniband] p-key="), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("STATE"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("The desired state was applied."), std::string::npos) << r.out;
    for (const char *flag : {"--diff", "-v"}) {
        Cli cli("mlx4-dual-port.host");
        Result v = cli.run({"apply", flag, "-"}, doc);
        ASSERT_EQ(v.status, 0) << flag << v.out << v.err;
        EXPECT_NE(v.out.find("+[infiniband] p-key=33023"), std::string::npos) << flag << v.out;
        EXPECT_NE(v.out.find("STATE"), std::string::npos) << flag << v.out;
        EXPECT_NE(v.out.find("done"), std::string::npos) << flag << v.out;
    }
}
