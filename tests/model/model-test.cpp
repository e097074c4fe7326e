// SPDX-License-Identifier: LGPL-2.1-or-later
// The facts of libcore/model/, each against its source: NetworkManager
// (libnm itself, where it knows the fact), the kernel's behaviour as
// FACTS.md records it, and the simulated host's independent statement.
#include "config.h"

#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <gtest/gtest.h>

using namespace ibnm;
using namespace ibnm::model;

namespace {

Port ibPort(unsigned active, unsigned max, std::optional<unsigned> broadcast)
{
    Port p;
    p.number = 1;
    p.linkLayer = LinkLayer::InfiniBand;
    p.activeMtu = active;
    p.maxMtu = max;
    p.broadcastMtu = broadcast;
    return p;
}

} // namespace

TEST(PkeyFacts, ZeroAnd0x8000AreRefusedAsNetworkManagerDoes)
{
    EXPECT_FALSE(validatePkey(0).ok());
    EXPECT_FALSE(validatePkey(0x8000).ok());
    EXPECT_EQ(validatePkey(0x8000).error().code(), IBNM_ERROR_INVALID_PROPERTY);
    EXPECT_EQ(validatePkey(0).error().message(), "the values 0 and 0x8000 are not allowed");
    EXPECT_FALSE(validatePkey(0x10000).ok());
    EXPECT_FALSE(validatePkey(-1).ok());
    for (long v : {0x0001L, 0x7fffL, 0x8001L, 0xffffL})
        EXPECT_TRUE(validatePkey(v).ok()) << v;
}

TEST(PkeyFacts, FullMembershipBitDefinesThePartition)
{
    EXPECT_EQ(fullMembership(2), 0x8002);
    EXPECT_TRUE(samePartition(0x0002, 0x8002));
    EXPECT_TRUE(samePartition(0x7fff, 0xffff));
    EXPECT_FALSE(samePartition(0x0002, 0x0003));
}

// NetworkManager's names for P_Key children, asked of libnm itself, and the
// kernel's in both styles: upstream's equals NetworkManager's.
TEST(PkeyFacts, ChildNamesFollowLibnmAndTheKernel)
{
    struct Row {
        const char *parent;
        uint16_t pkey;
        const char *name;
    } rows[] = {
        {"foo", 15, "foo.000f"},
        {"x23456789012345", 15, "x23456789012345"},
        {"x2345678901234", 15, "x2345678901234."},
        {"x234567890123", 15, "x234567890123.0"},
        {"x234567890", 15, "x234567890.000f"},
        {"ib0", 0x8002, "ib0.8002"},
        {"ib0", 2, "ib0.0002"},
    };
    for (const auto &r : rows) {
        EXPECT_EQ(nmChildName(r.parent, r.pkey), r.name) << r.parent << " " << r.pkey;
        EXPECT_EQ(childName(r.parent, r.pkey, ChildNaming::Upstream), r.name) << r.parent << " " << r.pkey;
    }
    EXPECT_EQ(childName("ib0", 2, ChildNaming::FullMembershipBit), "ib0.8002");
    EXPECT_EQ(childName("x2345678901234", 2, ChildNaming::FullMembershipBit), "x2345678901234.");
}

// Where the Linux platform looks a child up by name: both namings, with and
// without the bit given, upstream's first, each once.
TEST(PkeyFacts, ChildNamesListBothNamingsOnce)
{
    std::vector<std::string> both{"ib0.0002", "ib0.8002"};
    EXPECT_EQ(childNames("ib0", 0x0002), both);
    EXPECT_EQ(childNames("ib0", 0x8002), both);
    EXPECT_EQ(childNames("ib0", 0xffff), (std::vector<std::string>{"ib0.7fff", "ib0.ffff"}));
    // Cut to 15 characters, the two namings can be one name.
    EXPECT_EQ(childNames("x2345678901234", 0x0002), std::vector<std::string>{"x2345678901234."});
}

TEST(PkeyFacts, ChildCreatableRefusesWhatTheKernelRefuses)
{
    Host h;
    h.childNaming = ChildNaming::Upstream;
    h.netdevs.push_back({"x2345678901234", 5, 32});
    h.ipoib.push_back({"x2345678901234", "", 0xffff});
    h.netdevs.push_back({"x2345678901234.", 6, 32});
    h.ipoib.push_back({"x2345678901234.", "x2345678901234", 0x8002});
    h.netdevs.push_back({"eth0", 7, 1});
    // The parent's own partition: ENOTUNIQ.
    auto own = childCreatable(h, "x2345678901234", 0x7fff);
    ASSERT_FALSE(own.ok());
    EXPECT_EQ(own.error().errnum(), ENOTUNIQ);
    // Another P_Key whose cut name is taken: EEXIST.
    auto cut = childCreatable(h, "x2345678901234", 0x0003);
    ASSERT_FALSE(cut.ok());
    EXPECT_EQ(cut.error().errnum(), EEXIST);
    // The existing child itself: nothing to create.
    EXPECT_TRUE(childCreatable(h, "x2345678901234", 0x0002).ok());
    EXPECT_EQ(childCreatable(h, "eth0", 2).error().code(), IBNM_ERROR_NOT_FOUND);
    EXPECT_EQ(childCreatable(h, "nope", 2).error().errnum(), ENODEV);
}

// ipoib_change_mtu(): above the port's datagram maximum is EINVAL, below it
// the MTU is clamped silently to the broadcast group's.
TEST(MtuFacts, DatagramRefusesAboveTheMaximumAndClampsBelow)
{
    Port p = ibPort(2048, 4096, 2048);
    EXPECT_EQ(datagramMax(&p), 4092u);
    EXPECT_EQ(datagramCeiling(&p), 2044u);
    auto refused = effectiveMtu(65520, IpoibMode::Datagram, &p);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().errnum(), EINVAL);
    EXPECT_EQ(*effectiveMtu(4092, IpoibMode::Datagram, &p), 2044u);
    EXPECT_EQ(*effectiveMtu(1500, IpoibMode::Datagram, &p), 1500u);
    EXPECT_FALSE(effectiveMtu(60, IpoibMode::Datagram, &p).ok());
    EXPECT_EQ(*effectiveMtu(65520, IpoibMode::Connected, &p), 65520u);
    EXPECT_FALSE(effectiveMtu(65521, IpoibMode::Connected, &p).ok());
    // Unknown port: no limit known but the minimum.
    EXPECT_EQ(*effectiveMtu(9000, IpoibMode::Datagram, nullptr), 9000u);
}

TEST(MtuFacts, ModeChangeSetsTheMtu)
{
    Port p = ibPort(4096, 4096, 2048);
    EXPECT_EQ(mtuAfterModeChange(2044, IpoibMode::Connected, &p), kConnectedMtuMax);
    EXPECT_EQ(mtuAfterModeChange(65520, IpoibMode::Datagram, &p), 2044u);
    EXPECT_EQ(mtuAfterModeChange(1500, IpoibMode::Datagram, &p), 1500u);
}

TEST(ModeFacts, EnhancedIpoibIsDatagramOnly)
{
    Device d;
    d.name = "mlx5_0";
    d.enhancedIpoib = true;
    d.connectedModeSupported = false;
    EXPECT_FALSE(connectedModeAvailable(d));
    EXPECT_NE(connectedModeRefusal(d).find("Enhanced IPoIB"), std::string::npos);
    d.enhancedIpoib = false;
    EXPECT_FALSE(connectedModeAvailable(d));
    d.connectedModeSupported = true;
    EXPECT_TRUE(connectedModeAvailable(d));
    EXPECT_EQ(connectedModeRefusal(d), "");
    EXPECT_TRUE(enhancedIpoibDriver("mlx5_core"));
    EXPECT_FALSE(enhancedIpoibDriver("mlx4_core"));
}

// libnm's nm_utils_hwaddr_matches(): only the last 8 of 20 bytes count.
TEST(GuidFacts, OnlyThePortGuidMatches)
{
    const char *a = "80:00:02:08:FE:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51";
    const char *b = "00:00:00:48:fe:80:00:00:00:00:00:01:00:02:C9:03:00:31:78:51";
    const char *c = "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:52";
    EXPECT_TRUE(sameIpoibPort(a, b));
    EXPECT_FALSE(sameIpoibPort(a, c));
    EXPECT_FALSE(sameIpoibPort(a, "00:11:22:33:44:55"));
    EXPECT_EQ(portGuidBytes(a), "00:02:c9:03:00:31:78:51");
    EXPECT_EQ(portGuidBytes("junk"), "");
}

TEST(BondFacts, NamesComeFromLibnm)
{
    EXPECT_EQ(bondModeName("1"), "active-backup");
    EXPECT_EQ(bondModeName("active-backup"), "active-backup");
    EXPECT_EQ(bondModeName("4"), "802.3ad");
    EXPECT_EQ(bondModeName(""), "balance-rr");
    EXPECT_EQ(bondModeName("nonsense"), "");
    EXPECT_EQ(failOverMacName("0"), "none");
    EXPECT_EQ(failOverMacName("active"), "active");
    EXPECT_EQ(failOverMacName("2"), "follow");
    EXPECT_EQ(failOverMacName("x"), "");
}

// bond_enslave(): the first IPoIB port switches fail_over_mac to active;
// later ones need it; every port takes the bond's MTU.
TEST(BondFacts, IpoibPortsAsTheKernelEnslavesThem)
{
    EXPECT_TRUE(ipoibBondModeSupported("active-backup"));
    EXPECT_FALSE(ipoibBondModeSupported("802.3ad"));
    EXPECT_EQ(failOverMacAfterIpoibEnslave("0", false), "active");
    EXPECT_EQ(failOverMacAfterIpoibEnslave("none", true), "none");
    Port p = ibPort(2048, 2048, 2048);
    EXPECT_EQ(*portMtuAtEnslave(1500, IpoibMode::Datagram, &p), 1500u);
    EXPECT_FALSE(portMtuAtEnslave(65520, IpoibMode::Datagram, &p).ok());
    EXPECT_EQ(*portMtuAtEnslave(65520, IpoibMode::Connected, &p), 65520u);
}

TEST(BondFacts, AReleasedPortIsSeenDownFlushedIfItWasUpWithAnUnknownMtu)
{
    Netdev port;
    port.name = "ib0";
    port.master = "bond0";
    port.up = true;
    PortAfterRelease seen = portAfterRelease(port);
    EXPECT_FALSE(seen.up);
    EXPECT_TRUE(seen.flushed);
    EXPECT_FALSE(seen.mtuKnown);
    port.up = false; // a port that was down loses nothing more
    EXPECT_FALSE(portAfterRelease(port).flushed);
}

TEST(RdmaFacts, RoceModesPerDeviceKind)
{
    EXPECT_TRUE(roceModeSupported(SoftLinkType::Rxe, LinkLayer::Ethernet, RoceMode::V2));
    EXPECT_FALSE(roceModeSupported(SoftLinkType::Rxe, LinkLayer::Ethernet, RoceMode::V1));
    EXPECT_TRUE(roceModeSupported(SoftLinkType::Siw, LinkLayer::Ethernet, RoceMode::V1));
    EXPECT_FALSE(roceModeSupported(SoftLinkType::Siw, LinkLayer::Ethernet, RoceMode::V2));
    EXPECT_TRUE(roceModeSupported(std::nullopt, LinkLayer::Ethernet, RoceMode::V1));
    EXPECT_TRUE(roceModeSupported(std::nullopt, LinkLayer::Ethernet, RoceMode::V2));
    EXPECT_FALSE(roceModeSupported(std::nullopt, LinkLayer::InfiniBand, RoceMode::V2));
    Device mlx5, mlx4;
    mlx5.driver = "mlx5_core";
    mlx4.driver = "mlx4_core";
    EXPECT_TRUE(hasTrafficClassFiles(mlx5));
    EXPECT_FALSE(hasTrafficClassFiles(mlx4));
    EXPECT_EQ(defaultSoftLinkName(SoftLinkType::Rxe, "enp1s0"), "rxe_enp1s0");
    EXPECT_EQ(defaultSoftLinkName(SoftLinkType::Siw, std::string(80, 'a')).size(), 63u);
}

// NVIDIA's IPoIB page: clients send ff:00:00:00:00:00:02:00:00:02:c9:00 and
// the port GUID as their DHCP client identifier.
TEST(DhcpFacts, ClientIdIsNvidiasFormOfThePortGuid)
{
    EXPECT_EQ(dhcpClientId("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:10:39"),
              "ff:00:00:00:00:00:02:00:00:02:c9:00:00:02:c9:03:00:00:10:39");
    EXPECT_EQ(dhcpClientId("52:54:00:6b:2e:11"), "");
}

// The inventory reads the kernel's addresses without libnm (issue 17): the
// GUID it takes is the one libnm's parser takes (portGuidBytes), in any case,
// and what is not 20 colon-separated bytes has none.
TEST(DhcpFacts, ClientIdReadsTheKernelsAddressAsLibnmDoes)
{
    for (const char *a : {"80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:10:39",
                          "00:00:10:87:FE:80:00:00:00:00:00:00:98:03:9B:FF:FE:A1:B2:C3"})
        EXPECT_EQ(dhcpClientId(a), "ff:00:00:00:00:00:02:00:00:02:c9:00:" + portGuidBytes(a)) << a;
    EXPECT_EQ(dhcpClientId("00:00:10:87:FE:80:00:00:00:00:00:00:98:03:9B:FF:FE:A1:B2:C3"),
              "ff:00:00:00:00:00:02:00:00:02:c9:00:98:03:9b:ff:fe:a1:b2:c3");
    EXPECT_EQ(dhcpClientId("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:10"), "");
    EXPECT_EQ(dhcpClientId("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:10:3g"), "");
    EXPECT_EQ(dhcpClientId("80-00-02-08-fe-80-00-00-00-00-00-00-00-02-c9-03-00-00-10-39"), "");
}

// OpenSM partitions.conf: mtu=4 is 2048, mtu=5 is 4096 (the seed's
// "Default=0xffff, ipoib, mtu=5 : ALL=full;").
TEST(OpensmFacts, MtuCodesAndTheIbMtuADatagramMtuNeeds)
{
    EXPECT_EQ(opensmMtuCode(2048), 4u);
    EXPECT_EQ(opensmMtuCode(4096), 5u);
    EXPECT_EQ(opensmMtuCode(256), 1u);
    EXPECT_FALSE(opensmMtuCode(1500));
    EXPECT_EQ(ibMtuForIpoib(2044), 2048u);
    EXPECT_EQ(ibMtuForIpoib(2045), 4096u);
    EXPECT_EQ(ibMtuForIpoib(4092), 4096u);
    EXPECT_FALSE(ibMtuForIpoib(4093));
}

// The GID index NCCL_IB_GID_INDEX wants: the RoCE v2 entry of the port's own
// netdev's IPv4 address (GID 0 is that netdev's link-local address), a
// VLAN's when asked, IPv6 never the link-local one.
TEST(GidFacts, IndexForRoceTrafficOverAnAddress)
{
    Port p;
    auto gid = [&](unsigned i, const char *g, GidType t, const char *nd) { p.gids.push_back({i, g, t, nd}); };
    gid(0, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", GidType::IbRoceV1, "p4p1");
    gid(1, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", GidType::RoceV2, "p4p1");
    gid(2, "0000:0000:0000:0000:0000:ffff:0a0a:0a01", GidType::IbRoceV1, "p4p1");
    gid(3, "0000:0000:0000:0000:0000:ffff:0a0a:0a01", GidType::RoceV2, "p4p1");
    gid(4, "0000:0000:0000:0000:0000:ffff:c1a8:0146", GidType::RoceV2, "p4p1.100");
    gid(5, "2001:0db8:0010:0000:0000:0000:0000:0001", GidType::RoceV2, "p4p1");
    EXPECT_EQ(gidIndexFor(p, GidType::RoceV2, false, ""), 3u);
    EXPECT_EQ(gidIndexFor(p, GidType::IbRoceV1, false, ""), 2u);
    EXPECT_EQ(gidIndexFor(p, GidType::RoceV2, false, "p4p1.100"), 4u);
    EXPECT_EQ(gidIndexFor(p, GidType::RoceV2, true, ""), 5u);
    EXPECT_FALSE(gidIndexFor(p, GidType::IbRoceV1, true, ""));
    EXPECT_FALSE(gidIndexFor(p, GidType::RoceV2, false, "nosuch"));
    EXPECT_TRUE(isIpv4MappedGid("0000:0000:0000:0000:0000:ffff:0a0a:0a01"));
    EXPECT_FALSE(isIpv4MappedGid("fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea"));
}

// NVIDIA's RoCE page: "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24", the
// prefix optional, -1 removes; a mask on dst_ip only.
TEST(TrafficClassRule, ParsesThePagesFormsAndRefusesOthers)
{
    auto r = parseTcRule("tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->tclass, 16);
    EXPECT_EQ(r->srcIp, "1.1.1.2");
    EXPECT_EQ(r->dstIp, "1.1.1.0/24");
    EXPECT_EQ(formatTcRule(*r), "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24");
    auto bare = parseTcRule("16,dst_ip=2001:DB8::/32");
    ASSERT_TRUE(bare.ok());
    EXPECT_EQ(formatTcRule(*bare), "tclass=16,dst_ip=2001:db8::/32");
    auto rm = parseTcRule("tclass=-1,src_ip=1.1.1.2");
    ASSERT_TRUE(rm.ok());
    EXPECT_EQ(rm->tclass, -1);
    EXPECT_EQ(formatTcRule(tcRuleRemoval(*r)), "tclass=-1,src_ip=1.1.1.2,dst_ip=1.1.1.0/24");
    for (const char *bad : {"", "16", "tclass=16", "tclass=256,dst_ip=1.1.1.1", "tclass=-2,dst_ip=1.1.1.1",
                            "16,src_ip=1.1.1.0/24", "16,dst_ip=1.1.1.0/33", "16,dst_ip=1.1.1", "16,tos=3,dst_ip=1.1.1.1",
                            "16,dst_ip=1.1.1.1,dst_ip=1.1.1.2", "16,17,dst_ip=1.1.1.1", "src_ip=1.1.1.1"})
        EXPECT_FALSE(parseTcRule(bad).ok()) << bad;
}

TEST(TrafficClassRule, FileWithTheGlobalValueAndRules)
{
    auto f = parseTrafficClassFile("Global tclass=106\ntclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24\n"
                                   "tclass=24,dst_ip=10.0.0.0/8\n");
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->global, std::optional<unsigned>(106));
    ASSERT_EQ(f->rules.size(), 2u);
    EXPECT_EQ(f->rules[1].dstIp, "10.0.0.0/8");
    auto plain = parseTrafficClassFile("96\n");
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(plain->global, std::optional<unsigned>(96));
    auto off = parseTrafficClassFile("-1\n");
    ASSERT_TRUE(off.ok());
    EXPECT_FALSE(off->global.has_value());
    EXPECT_FALSE(parseTrafficClassFile("Global tclass=x\n").ok());
}

// cma_add_one(): RoCE v2 where the port supports it, else IB/RoCE v1 (the
// kernel lab shows rxe and siw: KernelDefaultRoceModeIsWhatConfigfsShows).
TEST(RoceMode, KernelDefaultBeforeConfigfs)
{
    EXPECT_EQ(kernelDefaultRoceMode(SoftLinkType::Rxe, LinkLayer::Ethernet), RoceMode::V2);
    EXPECT_EQ(kernelDefaultRoceMode(SoftLinkType::Siw, LinkLayer::Ethernet), RoceMode::V1);
    EXPECT_EQ(kernelDefaultRoceMode(std::nullopt, LinkLayer::Ethernet), RoceMode::V2);
    EXPECT_EQ(kernelDefaultRoceMode(std::nullopt, LinkLayer::InfiniBand), RoceMode::V1);
}

TEST(Dscp, IsTheTosShiftedByTwo)
{
    EXPECT_EQ(tosOfDscp(24), 96u); // the page's example
    EXPECT_EQ(tosOfDscp(26), 104u);
    EXPECT_EQ(dscpOfTos(106), 26u); // ECN bits dropped
    EXPECT_EQ(tosOfDscp(kMaxDscp), 252u);
}

TEST(RocePriority, ServiceLevelIsTheTopThreeBitsOfTheTosAndPcpItsLowThree)
{
    // NVIDIA's RoCE page: SL = TOS >> 5, PCP = SL & 7.
    EXPECT_EQ(roceServiceLevel(0), 0u);
    EXPECT_EQ(roceServiceLevel(31), 0u);
    EXPECT_EQ(roceServiceLevel(32), 1u);
    EXPECT_EQ(roceServiceLevel(96), 3u);  // DSCP 24, the page's DSCP example
    EXPECT_EQ(roceServiceLevel(106), 3u); // DSCP 26 (AF31) with ECN bits: priority 3
    EXPECT_EQ(roceServiceLevel(255), 7u);
    EXPECT_EQ(roceServiceLevel(0x1e0), 7u); // only the ToS byte counts
    EXPECT_EQ(rocePcp(3), 3u);
    EXPECT_EQ(rocePcp(11), 3u);
    RocePriority p = rocePriorityOfTos(tosOfDscp(26));
    EXPECT_EQ(p.sl, 3u);
    EXPECT_EQ(p.pcp, 3u);
    EXPECT_EQ(rocePriorityOfTos(160).pcp, 5u); // ToS 160 (DSCP 40): priority 5
}

TEST(RoceLag, ModesAndPortsThatKeepIt)
{
    EXPECT_TRUE(roceLagBondMode("active-backup"));
    EXPECT_TRUE(roceLagBondMode("balance-xor"));
    EXPECT_TRUE(roceLagBondMode("802.3ad"));
    EXPECT_FALSE(roceLagBondMode("balance-rr"));
    EXPECT_FALSE(roceLagBondMode("balance-alb"));
    EXPECT_TRUE(isRoceLagDevice("mlx5_bond_0"));
    EXPECT_FALSE(isRoceLagDevice("mlx5_0"));
    RoceLag lag{"mlx5_bond_0", "bond0", {"p4p1", "p4p2"}};
    EXPECT_EQ(roceLagBreak(lag, "802.3ad", {"p4p2", "p4p1"}), "");
    EXPECT_NE(roceLagBreak(lag, "balance-rr", {"p4p1", "p4p2"}), "");
    EXPECT_NE(roceLagBreak(lag, "802.3ad", {"p4p1", "p4p2", "eth9"}), "");
    EXPECT_NE(roceLagBreak(lag, "802.3ad", {"p4p1"}), "");
}
