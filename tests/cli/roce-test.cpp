// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm rdma traffic-class`, `roce-enable`, `roce-mode` and the DSCP fields
// of `device show` on the simulated mlx5 RoCE host; standalone DHCP over
// IPoIB refused by `connection up` and `check` (issue 19).
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::Result;

namespace {

// The value of FIELD in `ibnm -t device show DEV` (terse "FIELD:value").
std::string field(const Cli &cli, const std::string &dev, const std::string &name)
{
    Result r = cli.run({"-t", "device", "show", dev});
    EXPECT_EQ(r.status, 0) << r.err;
    std::string key = name + ":";
    for (const auto &l : ibnm::test::lines(r.out))
        if (l.compare(0, key.size(), key) == 0)
            return l.substr(key.size());
    ADD_FAILURE() << "no " << name << " in\n" << r.out;
    return {};
}

} // namespace

TEST(CliRoce, RoceModeShowsTheKernelDefaultBeforeConfigfs)
{
    Cli cli("mlx5-roce.host");
    Result r = cli.run({"-t", "rdma", "roce-mode", "mlx5_0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "mlx5_0:1:RoCE v2:0:0:0:0:kernel-default\n");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.ROCE-MODE"), "RoCE v2");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.DEFAULT-ROCE-MODE"), "");
    // Set through configfs, it is configfs that answers.
    ASSERT_EQ(cli.run({"rdma", "roce-mode", "mlx5_0", "v1"}).status, 0);
    r = cli.run({"-t", "rdma", "roce-mode", "mlx5_0"});
    EXPECT_EQ(r.out, "mlx5_0:1:IB/RoCE v1:0:0:0:0:configfs\n");
}

TEST(CliRoce, TrafficClassRulesSetShownAndRemoved)
{
    Cli cli("mlx5-roce.host");
    Result set = cli.run({"rdma", "traffic-class", "mlx5_0/1", "dscp:26", "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24",
                          "24,dst_ip=10.0.0.0/8"});
    ASSERT_EQ(set.status, 0) << set.out << set.err;
    Result show = cli.run({"-t", "rdma", "traffic-class", "mlx5_0"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_EQ(show.out, "mlx5_0:1:104:26:tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24; tclass=24,dst_ip=10.0.0.0/8\n");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.TRAFFIC-CLASS"), "104");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.TRAFFIC-CLASS-DSCP"), "26");
    ASSERT_EQ(cli.run({"rdma", "traffic-class", "mlx5_0", "tclass=-1,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"}).status, 0);
    show = cli.run({"-t", "rdma", "traffic-class", "mlx5_0"});
    EXPECT_EQ(show.out, "mlx5_0:1:104:26:tclass=24,dst_ip=10.0.0.0/8\n");
}

TEST(CliRoce, TrafficClassRefusedWhereThereIsNoTcDirectory)
{
    Cli cli("mlx4-dual-port.host");
    std::string before = cli.run({"-t", "device", "show", "mlx4_0"}).out;
    Result r = cli.run({"rdma", "traffic-class", "mlx4_0/2", "16,dst_ip=1.1.1.0/24"});
    EXPECT_EQ(r.status, 1) << r.out;
    // The error names the command's argument, not a profile key.
    EXPECT_EQ(r.err.find("Error: rules: mlx4_0 has no traffic class file for rules"), 0u) << r.err;
    EXPECT_EQ(cli.run({"-t", "device", "show", "mlx4_0"}).out, before);
    Result bad = cli.run({"rdma", "traffic-class", "mlx4_0", "tclass=300,dst_ip=1.1.1.1"});
    EXPECT_EQ(bad.status, 2) << bad.err;
    EXPECT_EQ(bad.err.find("Error: rules: "), 0u) << bad.err;
    EXPECT_EQ(cli.run({"rdma", "traffic-class", "mlx4_0", "dscp:64"}).status, 2);
}

TEST(CliRoce, TrafficClassMinusOneDisablesTheGlobalClassAndKeepsTheRules)
{
    // NVIDIA's RoCE page: "Negative values indicate that the feature is disabled".
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"rdma", "traffic-class", "mlx5_0", "96", "24,dst_ip=10.0.0.0/8"}).status, 0);
    Result off = cli.run({"-t", "rdma", "traffic-class", "mlx5_0", "-1"});
    ASSERT_EQ(off.status, 0) << off.err;
    EXPECT_EQ(off.out, "done:clear-traffic-class:mlx5_0/1:disable the global traffic class\n");
    Result show = cli.run({"-t", "rdma", "traffic-class", "mlx5_0"});
    EXPECT_EQ(show.out, "mlx5_0:1:::tclass=24,dst_ip=10.0.0.0/8\n");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.TRAFFIC-CLASS"), "");
    // Disabled already: nothing to do.
    Result again = cli.run({"-t", "rdma", "traffic-class", "mlx5_0", "-1"});
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(again.out, "");
    // With rules in the same command it is a usage error, nothing changed.
    Result mixed = cli.run({"rdma", "traffic-class", "mlx5_0", "-1", "24,dst_ip=10.0.0.0/8"});
    EXPECT_EQ(mixed.status, 2) << mixed.err;
    // A device without tc/ refuses it as it refuses a value.
    Cli mlx4("mlx4-dual-port.host");
    Result r = mlx4.run({"rdma", "traffic-class", "mlx4_0", "-1"});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("no traffic class or TTL files"), std::string::npos) << r.err;
}

TEST(CliRoce, TtlIsSetAndShownInOneCommand)
{
    Cli cli("mlx5-roce.host");
    Result r = cli.run({"-t", "rdma", "ttl", "mlx5_0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "mlx5_0:1:\n");
    r = cli.run({"-t", "rdma", "ttl", "mlx5_0/1", "64"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "done:set-ttl:mlx5_0/1:set the TTL to 64\n");
    EXPECT_EQ(cli.run({"-t", "rdma", "ttl", "mlx5_0"}).out, "mlx5_0:1:64\n");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.TTL"), "64");
    // Out of range or a port the device lacks: refused, naming it.
    EXPECT_EQ(cli.run({"rdma", "ttl", "mlx5_0", "256"}).status, 2);
    Result port = cli.run({"rdma", "ttl", "mlx5_0/7", "64"});
    EXPECT_EQ(port.status, 10) << port.err;
    EXPECT_EQ(port.err.find("Error: port: mlx5_0 has no port 7"), 0u) << port.err;
    // mlx4 has no ttl file.
    Cli mlx4("mlx4-dual-port.host");
    Result none = mlx4.run({"rdma", "ttl", "mlx4_0", "64"});
    EXPECT_EQ(none.status, 1) << none.err;
}

TEST(CliRoce, RoceEnableWarnsAndTheGidTableFollows)
{
    Cli cli("mlx5-roce.host");
    EXPECT_EQ(field(cli, "mlx5_1", "GENERAL.ROCE-ENABLE"), "yes");
    ASSERT_NE(field(cli, "mlx5_1", "PORT1.GIDS"), "0");
    Result off = cli.run({"rdma", "roce-enable", "mlx5_1", "no"});
    ASSERT_EQ(off.status, 0) << off.err;
    EXPECT_NE(off.err.find("drops the RoCE GIDs"), std::string::npos) << off.err;
    EXPECT_EQ(field(cli, "mlx5_1", "GENERAL.ROCE-ENABLE"), "no");
    EXPECT_EQ(field(cli, "mlx5_1", "PORT1.GIDS"), "0");
    Result gid = cli.run({"-t", "rdma", "gid", "show", "mlx5_1"});
    EXPECT_EQ(gid.out, "");
    // GID-index advice names the reason.
    Result advice = cli.run({"rdma", "gid", "show", "mlx5_1", "--for", "rocev2-ipv4"});
    EXPECT_EQ(advice.status, 1);
    EXPECT_NE(advice.err.find("RoCE is disabled on mlx5_1"), std::string::npos) << advice.err;
    ASSERT_EQ(cli.run({"rdma", "roce-enable", "mlx5_1", "yes"}).status, 0);
    EXPECT_NE(field(cli, "mlx5_1", "PORT1.GIDS"), "0");
    EXPECT_EQ(cli.run({"rdma", "roce-enable", "mlx5_1", "maybe"}).status, 2);
}

TEST(CliRoce, DscpShownNextToTheTos)
{
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "p4p1", "ifname", "p4p1", "ipv4.method",
                       "disabled", "ipv6.method", "disabled", "rdma.roce-tos", "dscp:46"})
                  .status,
              0);
    Result up = cli.run({"connection", "up", "p4p1"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.DEFAULT-ROCE-TOS"), "184");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.DEFAULT-ROCE-DSCP"), "46");
    Result bad = cli.run({"connection", "modify", "p4p1", "rdma.roce-tos", "dscp:64"});
    EXPECT_EQ(bad.status, 2) << bad.err;
    EXPECT_NE(bad.err.find("rdma.roce-tos"), std::string::npos) << bad.err;
}

TEST(CliRoce, StandaloneDhcpOnIpoibIsRefusedNeverActivated)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "ib", "ifname", "mlx4_ib0"}).status, 0);
    Result check = cli.run({"check"});
    EXPECT_EQ(check.status, 1) << check.out;
    EXPECT_NE(check.out.find("ipv4.method"), std::string::npos) << check.out;
    Result up = cli.run({"connection", "up", "ib"});
    EXPECT_EQ(up.status, 4); // refused: nmcli's status of a failed activation
    EXPECT_EQ(up.out.find("activated"), std::string::npos) << up.out;
    EXPECT_NE(up.err.find("NetworkManager"), std::string::npos) << up.err;
    // A static address works.
    ASSERT_EQ(cli.run({"connection", "modify", "ib", "ipv4.method", "manual", "ipv4.addresses", "192.0.2.5/24"}).status,
              0);
    EXPECT_EQ(cli.run({"check"}).status, 0);
    Result ok = cli.run({"connection", "up", "ib"});
    EXPECT_EQ(ok.status, 0) << ok.err;
}

TEST(CliRoce, RoceLagShownInStatusAndShow)
{
    Cli cli("mlx5-roce-lag.host");
    Result st = cli.run({"-t", "-f", "DEVICE,TYPE,LINK", "device", "status"});
    ASSERT_EQ(st.status, 0) << st.err;
    EXPECT_NE(st.out.find("mlx5_bond_0/1:rdma-lag:bond0"), std::string::npos) << st.out;
    EXPECT_EQ(field(cli, "mlx5_bond_0", "GENERAL.ROCE-LAG"), "bond0 (p4p1, p4p2)");
}

// rdma.* keys on the bond profile go to mlx5_bond_0. The bond was there
// before the activation: taking the profile down puts back what it changed
// (the traffic class) and leaves the bond, as NetworkManager deletes only
// the software devices its activation created.
TEST(CliRoce, RoceLagBondProfileUpAndDown)
{
    Cli cli("mlx5-roce-lag.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                       "mode=802.3ad,miimon=100", "ipv4.method", "manual", "ipv4.addresses", "10.10.10.1/24",
                       "rdma.traffic-class", "dscp:26"})
                  .status,
              0);
    for (const char *p : {"p4p1", "p4p2"})
        ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", p, "ifname", p, "master", "bond0",
                           "slave-type", "bond"})
                      .status,
                  0);
    EXPECT_EQ(cli.run({"check"}).status, 0);
    Result up = cli.run({"connection", "up", "bond0"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_NE(up.out.find("mlx5_bond_0/1"), std::string::npos) << up.out;
    EXPECT_EQ(field(cli, "mlx5_bond_0", "PORT1.TRAFFIC-CLASS"), "104");
    Result down = cli.run({"connection", "down", "bond0"});
    ASSERT_EQ(down.status, 0) << down.out << down.err;
    EXPECT_EQ(down.out.find("delete-bond"), std::string::npos) << down.out;
    Result st = cli.run({"-t", "-f", "DEVICE,TYPE,LINK", "device", "status"});
    EXPECT_NE(st.out.find("mlx5_bond_0/1:rdma-lag:bond0"), std::string::npos) << st.out;
    EXPECT_NE(field(cli, "mlx5_bond_0", "PORT1.TRAFFIC-CLASS"), "104");
    // The ports were brought up with their bond, and went down with it.
    EXPECT_EQ(cli.run({"-t", "connection", "show", "--active"}).out, "");
}

// The RoCE priority chain of NVIDIA's RoCE page: ToS 184 (DSCP 46) is SL
// 184 >> 5 = 5, PCP 5 & 7 = 5, next to the ToS and DSCP in `rdma roce-mode`
// (terse and JSON) and `device show`.
TEST(CliRoce, RoceModeAndDeviceShowGiveServiceLevelAndPcp)
{
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "p4p1", "ifname", "p4p1", "ipv4.method",
                       "disabled", "ipv6.method", "disabled", "rdma.roce-tos", "dscp:46"})
                  .status,
              0);
    Result up = cli.run({"connection", "up", "p4p1"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    Result r = cli.run({"-t", "rdma", "roce-mode", "mlx5_0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "mlx5_0:1:RoCE v2:184:46:5:5:configfs\n");
    Result human = cli.run({"rdma", "roce-mode", "mlx5_0"});
    EXPECT_NE(human.out.find("SL"), std::string::npos) << human.out;
    EXPECT_NE(human.out.find("PCP"), std::string::npos) << human.out;
    Result j = cli.run({"-j", "rdma", "roce-mode", "mlx5_0"});
    ASSERT_EQ(j.status, 0) << j.err;
    // Strings, as every table value in -j (docs/json-schema.md).
    ibnm::test::JsonValue json = ibnm::test::parseJson(j.out);
    const ibnm::test::JsonValue *rows = json.get("roce-modes");
    ASSERT_TRUE(rows && rows->items.size() == 1) << j.out;
    const ibnm::test::JsonValue *sl = rows->items[0].get("sl"), *pcp = rows->items[0].get("pcp");
    ASSERT_TRUE(sl && pcp) << j.out;
    EXPECT_EQ(sl->s, "5") << j.out;
    EXPECT_EQ(pcp->s, "5") << j.out;
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.DEFAULT-ROCE-SL"), "5");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.DEFAULT-ROCE-PCP"), "5");
    // ToS 106 (DSCP 26 with ECN bits): priority 3.
    ASSERT_EQ(cli.run({"connection", "modify", "p4p1", "rdma.roce-tos", "106"}).status, 0);
    ASSERT_EQ(cli.run({"connection", "up", "p4p1"}).status, 0);
    EXPECT_EQ(cli.run({"-t", "rdma", "roce-mode", "mlx5_0"}).out, "mlx5_0:1:RoCE v2:106:26:3:3:configfs\n");
}

// mlx5-roce.host has PFC on priority 3 of p4p1 and maps priority 3 to PCP 3
// on its VLAN p4p1.100: ToS 106 (priority 3) is clean; ToS 184 (priority 5)
// is neither mapped by the VLAN nor lossless, and check says both.
TEST(CliRoce, CheckWarnsWhenTheRocePriorityIsNotMappedOrNotLossless)
{
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "p4p1", "ifname", "p4p1", "ipv4.method",
                       "disabled", "ipv6.method", "disabled", "rdma.roce-tos", "106"})
                  .status,
              0);
    Result good = cli.run({"-t", "-f", "SEVERITY,PROPERTY,MESSAGE", "check", "p4p1"});
    EXPECT_EQ(good.out.find("rdma.roce-tos"), std::string::npos) << good.out;
    ASSERT_EQ(cli.run({"connection", "modify", "p4p1", "rdma.roce-tos", "dscp:46"}).status, 0);
    Result bad = cli.run({"-t", "-f", "SEVERITY,PROPERTY,MESSAGE", "check", "p4p1"});
    EXPECT_NE(bad.out.find("warning:rdma.roce-tos:"), std::string::npos) << bad.out;
    // -t escapes the ':' of a value as nmcli does.
    EXPECT_NE(bad.out.find("egress-qos-map of the VLAN p4p1.100 sends priority 5 as PCP 0"), std::string::npos)
        << bad.out;
    EXPECT_NE(bad.out.find("priority 5, which is not lossless on p4p1\\: DCB reports PFC on priorities 3"),
              std::string::npos)
        << bad.out;
    // A warning: the profile still activates.
    EXPECT_EQ(cli.run({"connection", "up", "p4p1"}).status, 0);
}

// A host without DCB (no pfc key) and without egress maps: nothing is
// known to be lossy, and check does not guess.
TEST(CliRoce, CheckSaysNothingOfPfcWhereDcbDoesNotAnswer)
{
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "p4p2", "ifname", "p4p2", "ipv4.method",
                       "disabled", "ipv6.method", "disabled", "rdma.roce-tos", "dscp:46"})
                  .status,
              0);
    Result r = cli.run({"-t", "-f", "PROPERTY,MESSAGE", "check", "p4p2"});
    EXPECT_EQ(r.out.find("lossless"), std::string::npos) << r.out;
}

// `rdma link show` where the kernel has no RDMA netlink: iproute2's rdma
// fails (exit 1); so does ibnm, saying why, instead of an empty table.
TEST(CliRoce, LinkShowFailsWithoutRdmaNetlink)
{
    ibnm::test::TempDir tmp;
    tmp.write("no-nldev.host", "[host]\nkernel-release=4.9.0\nrdma-netlink=false\n\n"
                               "[netdev eth0]\naddress=52:54:00:12:34:56\nup=true\n");
    Cli cli(tmp / "no-nldev.host");
    Result r = cli.run({"rdma", "link", "show"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("no RDMA netlink"), std::string::npos) << r.err;
    Result j = cli.run({"-j", "rdma", "link", "show"});
    EXPECT_EQ(j.status, 1);
    // With RDMA netlink and no device: an empty table, exit 0, as rdma.
    Cli plain("ethernet-only.host");
    EXPECT_EQ(plain.run({"rdma", "link", "show"}).status, 0);
}

// `device show` lists the rest of the RoCE priority chain of each port's
// netdevs as iproute2 shows it: the priorities PFC makes lossless (`dcb pfc
// show` prio-pfc, DCB netlink's pfc_en) and VLAN egress maps (`ip -d link`
// egress-qos-map), in human, -t and -j output; nothing where DCB does not
// answer and no VLAN maps a priority (mlx5_1's p4p2).
TEST(CliRoce, DeviceShowListsPfcAndEgressQosMaps)
{
    Cli cli("mlx5-roce.host");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.PFC"), "p4p1: 3");
    EXPECT_EQ(field(cli, "mlx5_0", "PORT1.EGRESS-QOS-MAP"), "p4p1.100: 3:3");
    EXPECT_EQ(field(cli, "mlx5_1", "PORT1.PFC"), "");
    EXPECT_EQ(field(cli, "mlx5_1", "PORT1.EGRESS-QOS-MAP"), "");
    Result human = cli.run({"device", "show", "mlx5_0"});
    ASSERT_EQ(human.status, 0) << human.err;
    EXPECT_NE(human.out.find("\nPORT1.PFC:                              p4p1: 3\n"), std::string::npos) << human.out;
    Result j = cli.run({"-j", "device", "show", "mlx5_0"});
    ASSERT_EQ(j.status, 0) << j.err;
    EXPECT_NE(j.out.find("\"PORT1.EGRESS-QOS-MAP\" : \"p4p1.100: 3:3\""), std::string::npos) << j.out;
}
