// SPDX-License-Identifier: LGPL-2.1-or-later
// The host description format: what good files give, that the writer's
// output reads back the same, and that every error names file and line.
#include "config.h"

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/support/raii.hpp"
#include "tests/simulator/fake-test-util.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

using ibnm::model::IpoibMode;
using ibnm::model::LinkLayer;
using ibnm::platform::formatHostDescription;
using ibnm::platform::parseHostDescription;

TEST(FakeHostFile, ReadsDevicesPortsAndNetdevs)
{
    auto st = parseHostDescription(ibnm::test::kTestHost, "test.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    const auto &h = st->host;
    EXPECT_EQ(h.kernelRelease, "6.1.0-13-amd64");
    EXPECT_EQ(h.childNaming, ibnm::model::ChildNaming::Upstream);
    const auto *mlx4 = h.findDevice("mlx4_0");
    ASSERT_NE(mlx4, nullptr);
    EXPECT_EQ(mlx4->nodeGuid, "0002:c903:0031:7850");
    EXPECT_EQ(mlx4->nodeType, "1: CA");
    EXPECT_TRUE(mlx4->connectedModeSupported);
    ASSERT_EQ(mlx4->ports.size(), 1u);
    const auto &p = mlx4->ports[0];
    EXPECT_EQ(p.linkLayer, LinkLayer::InfiniBand);
    EXPECT_EQ(p.activeMtu, 2048u);
    EXPECT_EQ(p.maxMtu, 4096u);
    EXPECT_EQ(p.lid, 3u);
    EXPECT_EQ(p.pkeys, (std::vector<uint16_t>{0xffff, 0x8002}));
    ASSERT_EQ(p.gids.size(), 1u);
    EXPECT_EQ(p.gids[0].gid, "fe80:0000:0000:0000:0002:c903:0031:7851");
    const auto *mlx5 = h.findDevice("mlx5_0");
    ASSERT_NE(mlx5, nullptr);
    EXPECT_TRUE(mlx5->enhancedIpoib);
    EXPECT_FALSE(mlx5->connectedModeSupported);

    const auto *ib0 = h.findIpoib("ib0");
    ASSERT_NE(ib0, nullptr);
    EXPECT_EQ(ib0->pkey, 0xffff);
    EXPECT_EQ(ib0->mode, IpoibMode::Datagram);
    EXPECT_EQ(ib0->portGuid, "0002:c903:0031:7851") << "the address is derived from the port GUID";
    EXPECT_EQ(ib0->address.substr(0, 11), "80:00:02:08") << "connected mode capable: the RC flag is set";
    const auto *ib1 = h.findIpoib("ib1");
    ASSERT_NE(ib1, nullptr);
    EXPECT_EQ(ib1->address.substr(0, 2), "00") << "Enhanced IPoIB: no RC flag";
    const auto *eth = h.findNetdev("enp1s0");
    ASSERT_NE(eth, nullptr);
    EXPECT_EQ(eth->type, 1u);
    EXPECT_TRUE(eth->up);
    EXPECT_NE(eth->ifindex, h.findNetdev("ib0")->ifindex);
}

TEST(FakeHostFile, WrittenStateReadsBackTheSame)
{
    auto st = parseHostDescription(ibnm::test::kTestHost, "test.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    st->operations = 7;
    st->host.softLinks.push_back({"rxe0", ibnm::model::SoftLinkType::Rxe, "enp1s0"});
    st->host.devices.push_back(
        ibnm::platform::softLinkDevice("rxe0", ibnm::model::SoftLinkType::Rxe, *st->host.findNetdev("enp1s0")));
    st->host.devices.back().ports[0].defaultRoceMode = ibnm::model::RoceMode::V2;
    std::string text = formatHostDescription(*st);
    auto again = parseHostDescription(text, "state");
    ASSERT_TRUE(again.ok()) << again.error().toString() << "\n" << text;
    EXPECT_EQ(formatHostDescription(*again), text);
    EXPECT_EQ(again->operations, 7u);
    ASSERT_EQ(again->host.softLinks.size(), 1u);
    ASSERT_NE(again->host.findDevice("rxe0"), nullptr);
    EXPECT_EQ(again->host.findDevice("rxe0")->ports[0].defaultRoceMode, ibnm::model::RoceMode::V2);
}

// The writer escapes values as g_key_file_set_string() does, and they read
// back unchanged.
TEST(FakeHostFile, WriterEscapesValuesAsGKeyFileDoes)
{
    auto st = parseHostDescription(ibnm::test::kTestHost, "test.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    const std::vector<std::string> values = {
        "plain",         "",          " leading space", "\tleading tab", "  \t mixed", "a\nb\r\nc",
        "back\\slash", "\\ first", "trailing  ",     "inner  \t x",  "\n after",  "; [x] = # y",
        "caf\u00e9",
    };
    // [host] kernel-release is free text, written even when empty.
    for (size_t i = 0; i < values.size(); i++) {
        st->host.kernelRelease = values[i];
        std::string text = formatHostDescription(*st);
        ibnm::GKeyFilePtr reference(g_key_file_new());
        ibnm::GKeyFilePtr written(g_key_file_new());
        ASSERT_TRUE(g_key_file_load_from_data(written.get(), text.data(), text.size(), G_KEY_FILE_NONE, nullptr));
        g_key_file_set_string(reference.get(), "host", "kernel-release", values[i].c_str());
        ibnm::GCharPtr want(g_key_file_get_value(reference.get(), "host", "kernel-release", nullptr));
        ibnm::GCharPtr got(g_key_file_get_value(written.get(), "host", "kernel-release", nullptr));
        ASSERT_TRUE(want && got);
        EXPECT_STREQ(got.get(), want.get()) << "value " << i;
        auto again = parseHostDescription(text, "state");
        ASSERT_TRUE(again.ok()) << again.error().toString();
        EXPECT_EQ(again->host.kernelRelease, values[i]) << "value " << i;
    }
}

// A bond of IPoIB ports has their link type but is no IPoIB interface; the
// IPoIB keys that states written by earlier versions gave it are ignored.
TEST(FakeHostFile, ABondOfIpoibPortsIsNoIpoibInterface)
{
    std::string text = std::string(ibnm::test::kTestHost) + R"(
[netdev bond0]
kind=bond
type=32
pkey=0xffff
mode=datagram
umcast=false

[bond bond0]
mode=active-backup
fail-over-mac=active
)";
    auto st = parseHostDescription(text, "old.state");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    ASSERT_NE(st->host.findNetdev("bond0"), nullptr);
    EXPECT_EQ(st->host.findNetdev("bond0")->type, 32u);
    EXPECT_EQ(st->host.findIpoib("bond0"), nullptr);
    std::string written = formatHostDescription(*st);
    size_t start = written.find("[netdev bond0]\n");
    ASSERT_NE(start, std::string::npos);
    std::string group = written.substr(start, written.find("\n\n", start) - start);
    EXPECT_EQ(group.find("pkey="), std::string::npos) << group;
    EXPECT_EQ(group.find("mode="), std::string::npos) << group;
}

TEST(FakeHostFile, MissingFileNamesIt)
{
    auto st = ibnm::platform::loadHostDescription("/nonexistent/x.host");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_FOUND);
    EXPECT_EQ(st.error().toString().rfind("/nonexistent/x.host: ", 0), 0u) << st.error().toString();
}

namespace {

struct BadFile {
    const char *what;
    const char *text;
    const char *prefix; // the error starts with this
};

void PrintTo(const BadFile &b, std::ostream *os)
{
    *os << b.what;
}

const BadFile kBadFiles[] = {
    {"syntax", "[host]\nkernel-release=6.1\nthis is not a line\n", "h.host:3: "},
    {"unclosed group", "\n[device mlx4_0\n", "h.host:2: "},
    {"key before a group", "driver=mlx4_core\n", "h.host:1: "},
    {"duplicate group", "[device a]\n[device a]\n", "h.host:2: "},
    {"duplicate key", "[device a]\ndriver=x\ndriver=y\n", "h.host:3: "},
    {"unknown group", "[host]\n[gizmo x]\n", "h.host:2: "},
    {"unknown key", "[device a]\ndriver=x\ncolour=red\n", "h.host:3: "},
    {"group without name", "[device]\n", "h.host:1: "},
    {"host with a name", "[host x]\n", "h.host:1: "},
    {"bad child naming", "[host]\nchild-naming=sideways\n", "h.host:2: [host] child-naming: "},
    {"bad boolean", "[device a]\nenhanced-ipoib=maybe\n", "h.host:2: [device a] enhanced-ipoib: "},
    {"bad guid", "[device a]\nnode-guid=12:34\n", "h.host:2: [device a] node-guid: "},
    {"enhanced with connected mode", "[device a]\nenhanced-ipoib=true\nconnected-mode=true\n",
     "h.host:3: [device a] connected-mode: "},
    {"port of unknown device", "[port b/1]\nlink-layer=Ethernet\n", "h.host:1: [port b/1]: "},
    {"port without number", "[device a]\n[port a]\nlink-layer=Ethernet\n", "h.host:2: [port a]: "},
    {"missing link layer", "[device a]\n[port a/1]\nstate=4: ACTIVE\n", "h.host:2: [port a/1] link-layer: "},
    {"bad number", "[device a]\n[port a/1]\nlink-layer=InfiniBand\nactive-mtu=big\n",
     "h.host:4: [port a/1] active-mtu: "},
    {"bad IB MTU", "[device a]\n[port a/1]\nlink-layer=InfiniBand\nmax-mtu=3000\n", "h.host:4: [port a/1] max-mtu: "},
    {"bad pkey table", "[device a]\n[port a/1]\nlink-layer=InfiniBand\npkeys=0xffff;zz\n",
     "h.host:4: [port a/1] pkeys: "},
    {"ports with a gap", "[device a]\n[port a/1]\nlink-layer=Ethernet\n[port a/3]\nlink-layer=Ethernet\n",
     "h.host:1: [device a]: "},
    {"guid on an Ethernet port", "[device a]\n[port a/1]\nlink-layer=Ethernet\nport-guid=0002:c903:0031:7851\n",
     "h.host:4: [port a/1] port-guid: "},
    {"bad roce mode", "[device a]\n[port a/1]\nlink-layer=Ethernet\ndefault-roce-mode=v3\n",
     "h.host:4: [port a/1] default-roce-mode: "},
    {"long netdev name", "[netdev abcdefghijklmnop]\n", "h.host:1: [netdev abcdefghijklmnop]: "},
    {"bad kind", "[netdev x]\nkind=tunnel\n", "h.host:2: [netdev x] kind: "},
    {"bad hw address", "[netdev x]\naddress=00:11\n", "h.host:2: [netdev x] address: "},
    {"bad address list", "[netdev x]\naddresses=192.0.2.1/24;192.0.2.300/24\n", "h.host:2: [netdev x] addresses: "},
    {"IPoIB key on Ethernet", "[netdev x]\npkey=0x8002\n", "h.host:2: [netdev x] pkey: "},
    {"pkey 0x8000", "[netdev ib0]\nkind=ipoib\npkey=0x8000\n", "h.host:3: [netdev ib0] pkey: "},
    {"vlan without link", "[netdev v]\nkind=vlan\n", "h.host:1: [netdev v]: "},
    {"unknown rdma port", "[netdev x]\nrdma-port=mlx9_0/1\n", "h.host:2: [netdev x] rdma-port: "},
    {"unknown master", "[netdev x]\nmaster=bond0\n", "h.host:2: [netdev x] master: "},
    {"unknown vlan link", "[netdev v]\nkind=vlan\nlink=eth9\n", "h.host:3: [netdev v] link: "},
    {"bad bond mode", "[bond b]\nmode=round-robin\n", "h.host:2: [bond b] mode: "},
    {"egress map to PCP 8", "[netdev e]\n[netdev v]\nkind=vlan\nlink=e\negress-qos-map=3:8\n",
     "h.host:5: [netdev v] egress-qos-map: "},
    {"egress map without colon", "[netdev e]\n[netdev v]\nkind=vlan\nlink=e\negress-qos-map=3\n",
     "h.host:5: [netdev v] egress-qos-map: "},
    {"egress map on no VLAN", "[netdev e]\negress-qos-map=3:3\n", "h.host:2: [netdev e] egress-qos-map: "},
    {"pfc priority 8", "[netdev e]\npfc=3;8\n", "h.host:2: [netdev e] pfc: "},
    {"bad rdma-netlink", "[host]\nrdma-netlink=perhaps\n", "h.host:2: [host] rdma-netlink: "},
    {"soft link type", "[netdev e]\n[soft-link r]\ntype=roce\nnetdev=e\n", "h.host:3: [soft-link r] type: "},
    {"soft link netdev", "[soft-link r]\ntype=rxe\nnetdev=e\n", "h.host:3: [soft-link r] netdev: "},
    {"host files are no longer kept in the state", "[file /etc/x]\ncontents=x\n", "h.host:1: "},
    {"connected on enhanced", "[device a]\nenhanced-ipoib=true\n[port a/1]\nlink-layer=InfiniBand\n"
                              "[netdev ib0]\nkind=ipoib\nrdma-port=a/1\nmode=connected\n",
     "h.host:8: [netdev ib0] mode: "},
};

} // namespace

class FakeHostFileErrors : public ::testing::TestWithParam<BadFile> {};

TEST_P(FakeHostFileErrors, NameFileLineGroupAndKey)
{
    const auto &bad = GetParam();
    auto st = parseHostDescription(bad.text, "h.host");
    ASSERT_FALSE(st.ok()) << bad.what;
    EXPECT_EQ(st.error().code(), IBNM_ERROR_PARSE) << bad.what;
    std::string msg = st.error().toString();
    EXPECT_EQ(msg.rfind(bad.prefix, 0), 0u) << bad.what << ": " << msg;
    EXPECT_GT(msg.size(), std::string(bad.prefix).size()) << bad.what << ": the error says what is wrong";
}

INSTANTIATE_TEST_SUITE_P(Table, FakeHostFileErrors, ::testing::ValuesIn(kBadFiles));

TEST(FakeHostFile, RoutesReadAndWriteBack)
{
    const char *text = "[host]\nkernel-release=6.1\n\n[netdev eth0]\nup=true\naddresses=192.0.2.1/24\n"
                       "routes=0.0.0.0/0 via 192.0.2.254;198.51.100.0/24 via 192.0.2.253 metric 10;::/0 via fe80::1\n";
    auto st = parseHostDescription(text, "r.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    const auto *nd = st->host.findNetdev("eth0");
    ASSERT_NE(nd, nullptr);
    EXPECT_EQ(nd->routes, (std::vector<ibnm::model::Route>{{"0.0.0.0/0", "192.0.2.254", 0},
                                                          {"198.51.100.0/24", "192.0.2.253", 10},
                                                          {"::/0", "fe80::1", 0}}));
    auto again = parseHostDescription(formatHostDescription(*st), "r.state");
    ASSERT_TRUE(again.ok()) << again.error().toString();
    EXPECT_EQ(again->host.findNetdev("eth0")->routes, nd->routes);
}

TEST(FakeHostFile, BadRouteNamesFileLineAndKey)
{
    for (const char *bad : {"198.51.100.0/24 via", "198.51.100.0 via 192.0.2.1", "10.0.0.0/8 metric x",
                            "10.0.0.0/8 dev eth0", "0.0.0.0/0 via ::1"}) {
        std::string text = std::string("[host]\nkernel-release=6.1\n\n[netdev eth0]\nroutes=") + bad + "\n";
        auto st = parseHostDescription(text, "r.host");
        ASSERT_FALSE(st.ok()) << bad;
        EXPECT_EQ(st.error().toString().rfind("r.host:5: [netdev eth0] routes: ", 0), 0u) << st.error().toString();
    }
}

// VLAN egress maps, DCB PFC and the absence of RDMA netlink, as a host
// carries them; the state written reads back the same.
TEST(FakeHostFile, PrioritiesAndRdmaNetlinkReadAndWriteBack)
{
    const char *text = "[host]\nkernel-release=6.1\nrdma-netlink=false\n\n[netdev eth0]\npfc=3;4\n\n"
                       "[netdev eth1]\npfc=none\n\n[netdev eth2]\n\n"
                       "[netdev eth0.100]\nkind=vlan\nlink=eth0\negress-qos-map=3:3;5:4\n";
    auto st = parseHostDescription(text, "p.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    EXPECT_EQ(st->host.rdmaNetlink, std::optional<bool>(false));
    EXPECT_EQ(st->host.findNetdev("eth0")->pfcEnabled, std::optional<uint8_t>(0x18));
    EXPECT_EQ(st->host.findNetdev("eth1")->pfcEnabled, std::optional<uint8_t>(0));
    EXPECT_EQ(st->host.findNetdev("eth2")->pfcEnabled, std::nullopt);
    const auto *vlan = st->host.findNetdev("eth0.100");
    EXPECT_EQ(vlan->egressQosMap, (std::map<unsigned, unsigned>{{3, 3}, {5, 4}}));
    auto again = parseHostDescription(formatHostDescription(*st), "p.state");
    ASSERT_TRUE(again.ok()) << again.error().toString();
    EXPECT_EQ(again->host.rdmaNetlink, std::optional<bool>(false));
    EXPECT_EQ(again->host.findNetdev("eth0")->pfcEnabled, std::optional<uint8_t>(0x18));
    EXPECT_EQ(again->host.findNetdev("eth1")->pfcEnabled, std::optional<uint8_t>(0));
    EXPECT_EQ(again->host.findNetdev("eth2")->pfcEnabled, std::nullopt);
    EXPECT_EQ(again->host.findNetdev("eth0.100")->egressQosMap, vlan->egressQosMap);
    auto plain = parseHostDescription("[host]\nkernel-release=6.1\n", "q.host");
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->host.rdmaNetlink, std::optional<bool>(true));
}
