// SPDX-License-Identifier: LGPL-2.1-or-later
// What admins look up by hand (NVIDIA's IPoIB page): the OpenSM partition
// lines for the profiles' P_Keys, and DHCP reservations by client identifier.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

TEST(CliSubnet, OpensmLinesForTheProfilesPartitions)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "a", "ifname", "mlx4_ib0"}).status, 0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "c", "parent", "mlx4_ib0", "p-key",
                       "0x8002", "mtu", "2044"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "d", "parent", "mlx4_ib0", "p-key",
                       "0x0003", "mtu", "1000"})
                  .status,
              0);
    Result r = cli.run({"check", "--opensm"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> config;
    for (const auto &l : lines(r.out))
        if (l.rfind("#", 0) != 0)
            config.push_back(l);
    // The limited-membership 0x0003 is defined without the bit, with full
    // membership: the kernel's child uses 0x8003. 1000 + 4 needs IB MTU 1024.
    EXPECT_EQ(config, (std::vector<std::string>{"ibnm_0002=0x0002, ipoib, mtu=4 : ALL=full;",
                                                "ibnm_0003=0x0003, ipoib, mtu=3 : ALL=full;",
                                                "Default=0xffff, ipoib, mtu=4 : ALL=full;"}))
        << r.out;
    // The findings that need the subnet manager point to it.
    Result check = cli.run({"check", "d"});
    EXPECT_NE(check.out.find("ibnm check --opensm"), std::string::npos) << check.out;
}

TEST(CliSubnet, DhcpReservationsByClientIdentifier)
{
    Cli cli("mlx4-dual-port.host");
    const char *id = "ff:00:00:00:00:00:02:00:00:02:c9:00:00:02:c9:03:00:31:78:f2";
    Result show = cli.run({"device", "show", "mlx4_ib0"});
    ASSERT_EQ(show.status, 0) << show.err;
    bool found = false;
    for (const auto &l : lines(show.out))
        found = found || (l.rfind("IPOIB.DHCP-CLIENT-ID:", 0) == 0 && l.find(id) != std::string::npos);
    EXPECT_TRUE(found) << show.out;
    Result none = cli.run({"device", "dhcp-reservations"});
    ASSERT_EQ(none.status, 0) << none.err;
    EXPECT_NE(none.out.find(std::string("option dhcp-client-identifier ") + id + ";"), std::string::npos)
        << none.out;
    EXPECT_EQ(none.out.find("  fixed-address"), std::string::npos) << none.out;
    EXPECT_NE(none.out.find("add fixed-address here"), std::string::npos) << none.out;
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "a", "ifname", "mlx4_ib0",
                       "ipv4.method", "manual", "ipv4.addresses", "192.0.2.9/24"})
                  .status,
              0);
    Result dhcpd = cli.run({"device", "dhcp-reservations", "dhcpd"});
    EXPECT_NE(dhcpd.out.find("host mlx4_ib0 {"), std::string::npos) << dhcpd.out;
    EXPECT_NE(dhcpd.out.find("  fixed-address 192.0.2.9;"), std::string::npos) << dhcpd.out;
    Result kea = cli.run({"device", "dhcp-reservations", "kea"});
    ASSERT_EQ(kea.status, 0) << kea.err;
    auto v = parseJson(kea.out);
    ASSERT_TRUE(v.get("reservations"));
    ASSERT_EQ(v.get("reservations")->items.size(), 1u);
    const auto &res = v.get("reservations")->items[0];
    EXPECT_EQ(res.get("client-id")->s, id);
    EXPECT_EQ(res.get("ip-address")->s, "192.0.2.9");
    EXPECT_EQ(cli.run({"device", "dhcp-reservations", "isc"}).status, 2);
}

// NVIDIA's RoCE page: which GID index NCCL and UCX should use.
TEST(CliSubnet, GidIndexAdviceForNcclAndUcx)
{
    Cli cli("mlx5-roce.host");
    Result r = cli.run({"-t", "-f", "DEV,INDEX,NETDEV,ENV", "rdma", "gid", "show", "--for", "rocev2-ipv4"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "mlx5_0:3:p4p1:NCCL_IB_GID_INDEX=3 UCX_IB_GID_INDEX=3\n");
    // mlx5_1's netdev has no IPv4 address: said, not guessed.
    EXPECT_NE(r.err.find("mlx5_1/1 has no RoCE v2 GID for an IPv4 address"), std::string::npos) << r.err;
    Result vlan = cli.run({"-t", "-f", "INDEX,NETDEV", "rdma", "gid", "show", "mlx5_0", "--for", "rocev2-ipv4",
                           "--netdev", "p4p1.100"});
    EXPECT_EQ(vlan.out, "5:p4p1.100\n") << vlan.err;
    Result none = cli.run({"rdma", "gid", "show", "mlx5_1", "--for", "rocev2-ipv4"});
    EXPECT_EQ(none.status, 1);
    EXPECT_EQ(cli.run({"rdma", "gid", "show", "--for", "roce"}).status, 2);
}

// A sosreport's root is read as a sysfs dump; a directory holding neither
// kind of tree is an error that says what was expected.
TEST(CliSubnet, SysfsRootTakesASosreportOrSaysWhatIsMissing)
{
    Cli cli;
    std::string sos = cli.keyfileDir() + "/../sosreport-node1";
    ASSERT_EQ(g_mkdir_with_parents((sos + "/sys/class/net/ib0").c_str(), 0755), 0);
    for (const auto &[file, text] : std::vector<std::pair<std::string, std::string>>{
             {"type", "32\n"}, {"mtu", "2044\n"}, {"address", "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2\n"},
             {"mode", "datagram\n"}, {"pkey", "0xffff\n"}, {"umcast", "0\n"}, {"operstate", "up\n"}, {"flags", "0x1003\n"},
             {"ifindex", "4\n"}})
        ASSERT_TRUE(g_file_set_contents((sos + "/sys/class/net/ib0/" + file).c_str(), text.c_str(), -1, nullptr));
    Result r = cli.run({"--sysfs-root", sos, "-t", "-f", "DEVICE,MTU", "device", "status"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("ib0:2044"), std::string::npos) << r.out << r.err;
    std::string empty = cli.keyfileDir() + "/../empty";
    ASSERT_EQ(g_mkdir_with_parents(empty.c_str(), 0755), 0);
    Result bad = cli.run({"--sysfs-root", empty, "device", "status"});
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("neither a sysfs tree"), std::string::npos) << bad.err;
}

} // namespace
