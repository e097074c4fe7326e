// SPDX-License-Identifier: LGPL-2.1-or-later
// The facts of libcore/model/, each against its source: NetworkManager
// (libnm itself, where it knows the fact), the kernel's behaviour as
// FACTS.md records it, and the simulated host's independent statement.
#include "config.h"

#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/netdev.hpp"
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

// The two words of the kernel's sysfs `mode` and NetworkManager's
// infiniband.transport-mode, in one place: exactly those, lower case.
TEST(ModeFacts, ModeNamesAreTheKernelsAndNetworkManagersTwoWords)
{
    for (IpoibMode m : {IpoibMode::Datagram, IpoibMode::Connected})
        EXPECT_EQ(modeFromName(modeName(m)), m);
    EXPECT_STREQ(modeName(IpoibMode::Connected), "connected");
    EXPECT_STREQ(modeName(IpoibMode::Datagram), "datagram");
    EXPECT_EQ(modeFromName("Connected"), std::nullopt);
    EXPECT_EQ(modeFromName("connected\n"), std::nullopt);
    EXPECT_EQ(modeFromName(""), std::nullopt);
    EXPECT_EQ(modeFromName(nullptr), std::nullopt);
}

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

// OpenSM's partitions.conf: the default partition is "Default" with the
// key 0xffff; others by their 15-bit partition.
TEST(PkeyFacts, OpensmNamesTheDefaultPartitionDefault)
{
    EXPECT_EQ(partitionOf(0xffff), kDefaultPartition);
    EXPECT_EQ(partitionOf(0x8002), 0x0002);
    EXPECT_EQ(opensmPartitionName(kDefaultPartition), "Default");
    EXPECT_EQ(opensmPartitionKey(kDefaultPartition), 0xffff);
    EXPECT_EQ(opensmPartitionName(0x0002), "ibnm_0002");
    EXPECT_EQ(opensmPartitionKey(0x0002), 0x0002);
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

// The kernel's words, both ways, and nothing else read back.
TEST(RdmaNames, KernelWordsBothWays)
{
    for (SoftLinkType t : {SoftLinkType::Rxe, SoftLinkType::Siw}) {
        EXPECT_EQ(softLinkTypeFromName(softLinkTypeName(t)), t);
        EXPECT_EQ(softLinkTypeOfDriver(softLinkDriver(t)), t);
    }
    EXPECT_STREQ(softLinkDriver(SoftLinkType::Rxe), "rdma_rxe");
    EXPECT_EQ(softLinkTypeFromName("RXE"), std::nullopt); // the profile key lowers case itself
    EXPECT_EQ(softLinkTypeOfDriver("mlx5_core"), std::nullopt);
    EXPECT_EQ(roceModeFromName("IB/RoCE v1"), RoceMode::V1);
    EXPECT_EQ(roceModeFromName("RoCE v2"), RoceMode::V2);
    EXPECT_EQ(roceModeFromName("RoCE v1"), std::nullopt); // not a configfs word
    EXPECT_EQ(gidTypeFromName("IB/RoCE v1"), GidType::IbRoceV1);
    EXPECT_EQ(gidTypeFromName("RoCE v2"), GidType::RoceV2);
    EXPECT_EQ(gidTypeFromName(""), std::nullopt);
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

TEST(RocePriority, VlanEgressMapSendsUnmappedPrioritiesAsPcpZero)
{
    Netdev vlan;
    vlan.kind = "vlan";
    EXPECT_EQ(vlanEgressPcp(vlan, 3), 0u);
    vlan.egressQosMap = {{3, 3}, {5, 4}};
    EXPECT_EQ(vlanEgressPcp(vlan, 3), 3u);
    EXPECT_EQ(vlanEgressPcp(vlan, 5), 4u);
    EXPECT_EQ(vlanEgressPcp(vlan, 6), 0u);
}

TEST(RocePriority, PfcBitmapBitNIsPriorityN)
{
    EXPECT_TRUE(pfcLossless(0x08, 3));
    EXPECT_FALSE(pfcLossless(0x08, 4));
    EXPECT_TRUE(pfcLossless(0x18, 4));
    EXPECT_FALSE(pfcLossless(0xff, 8)); // there is no priority 8
    EXPECT_FALSE(pfcLossless(0x00, 0));
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

// dev_validate_mtu(): ETH_MIN_MTU for NICs and bonds, the device's maximum
// (a bond's ETH_MAX_MTU); the kernel lab saw "mtu less than device minimum".
TEST(LinkFacts, MtuBelow68OrAboveTheMaximumIsRefused)
{
    EXPECT_FALSE(linkMtuAccepted("eth0", 67, std::nullopt).ok());
    EXPECT_EQ(linkMtuAccepted("eth0", 60, std::nullopt).error().errnum(), EINVAL);
    EXPECT_EQ(linkMtuAccepted("eth0", 60, std::nullopt).error().code(), IBNM_ERROR_INVALID_PROPERTY);
    EXPECT_TRUE(linkMtuAccepted("eth0", 68, std::nullopt).ok());
    EXPECT_TRUE(linkMtuAccepted("bond0", kBondMaxMtu, kBondMaxMtu).ok());
    EXPECT_FALSE(linkMtuAccepted("bond0", kBondMaxMtu + 1, kBondMaxMtu).ok());
    EXPECT_FALSE(linkMtuAccepted("eth0", 9001, 9000u).ok());
}

// fib_check_nh() / ip6_validate_gw(): a gateway is on link on the subnet of
// an address or of a route without gateway; IPv6 link-local always.
TEST(RouteFacts, GatewayOnLinkOnASubnetOrDirectRoute)
{
    std::vector<std::string> addresses = {"192.0.2.10/24", "2001:db8::10/64"};
    EXPECT_TRUE(gatewayOnLink("192.0.2.1", addresses, {}));
    EXPECT_FALSE(gatewayOnLink("198.51.100.1", addresses, {}));
    EXPECT_TRUE(gatewayOnLink("198.51.100.1", addresses, {{"198.51.100.0/30", "", 0}}));
    EXPECT_FALSE(gatewayOnLink("198.51.100.1", addresses, {{"198.51.100.0/30", "192.0.2.1", 0}}));
    EXPECT_TRUE(gatewayOnLink("2001:db8::1", addresses, {}));
    EXPECT_FALSE(gatewayOnLink("2001:db8:1::1", addresses, {}));
    EXPECT_TRUE(gatewayOnLink("fe80::1", {}, {}));
    EXPECT_FALSE(gatewayOnLink("192.0.2.1", {"192.0.2.10/32"}, {}));
    EXPECT_TRUE(gatewayOnLink("192.0.2.129", {"192.0.2.130/25"}, {}));
    EXPECT_FALSE(gatewayOnLink("192.0.2.1", {"192.0.2.130/25"}, {}));
}

// nm_l3_config_data_add_dependent_onlink_routes(): a copy of the route to
// its gateway alone (/32, /128, no gateway, same metric) before it, once.
TEST(RouteFacts, NetworkManagerAddsAHostRouteToAnOffLinkGateway)
{
    std::vector<Route> routes = {{"0.0.0.0/0", "198.51.100.1", 0},
                                 {"203.0.113.0/24", "198.51.100.1", 0},
                                 {"::/0", "2001:db8:1::1", 10},
                                 {"198.18.0.0/15", "192.0.2.1", 0}};
    auto out = withOnlinkRoutes({"192.0.2.10/24", "2001:db8::10/64"}, routes);
    std::vector<std::string> shown;
    for (const auto &r : out)
        shown.push_back(formatRoute(r));
    EXPECT_EQ(shown, (std::vector<std::string>{"198.51.100.1/32", "0.0.0.0/0 via 198.51.100.1",
                                               "203.0.113.0/24 via 198.51.100.1", "2001:db8:1::1/128 metric 10",
                                               "::/0 via 2001:db8:1::1 metric 10", "198.18.0.0/15 via 192.0.2.1"}));
    // On-link gateways need nothing.
    EXPECT_EQ(withOnlinkRoutes({"198.51.100.10/24", "2001:db8:1::10/64", "192.0.2.10/24"}, routes).size(),
              routes.size());
}

namespace {

Host pathHost()
{
    Host h;
    Device rxe;
    rxe.name = "rxe0";
    rxe.nodeType = "1: CA";
    Port p;
    p.number = 1;
    p.linkLayer = LinkLayer::Ethernet;
    p.gids = {{0, "fe80:0000:0000:0000:0000:00ff:fe00:0001", GidType::RoceV2, "ra"},
              {1, "0000:0000:0000:0000:0000:ffff:c633:6401", GidType::RoceV2, "ra"},
              {2, "0000:0000:0000:0000:0000:ffff:c633:6401", GidType::IbRoceV1, "ra"}};
    rxe.ports = {p};
    Device siw;
    siw.name = "siw0";
    siw.nodeType = "4: RNIC";
    Port s;
    s.number = 1;
    s.linkLayer = LinkLayer::Ethernet;
    s.gids = {{0, "4294:baff:fecf:8521:0000:0000:0000:0000", GidType::IbRoceV1, ""}};
    siw.ports = {s};
    Device ib;
    ib.name = "mlx5_0";
    ib.nodeType = "1: CA";
    Port i;
    i.number = 1;
    i.linkLayer = LinkLayer::InfiniBand;
    i.gids = {{0, "fe80:0000:0000:0000:0002:c903:0031:7851", GidType::IbRoceV1, ""}};
    ib.ports = {i};
    h.devices = {rxe, siw, ib};
    Netdev ra;
    ra.name = "ra";
    ra.addresses = {"198.51.100.1/24"};
    Netdev sa;
    sa.name = "sa";
    sa.addresses = {"192.0.2.1/24"};
    Netdev ib0;
    ib0.name = "ib0";
    ib0.rdmaDevice = "mlx5_0";
    ib0.rdmaPort = 1;
    h.netdevs = {ra, sa, ib0};
    return h;
}

} // namespace

TEST(RdmaPathFacts, ProtocolFollowsTheNodeTypeLinkLayerAndGidType)
{
    Host h = pathHost();
    EXPECT_EQ(rdmaProtocolOf(h.devices[0], h.devices[0].ports[0], GidType::RoceV2), RdmaProtocol::RoceV2);
    EXPECT_EQ(rdmaProtocolOf(h.devices[0], h.devices[0].ports[0], GidType::IbRoceV1), RdmaProtocol::RoceV1);
    EXPECT_EQ(rdmaProtocolOf(h.devices[0], h.devices[0].ports[0], std::nullopt), RdmaProtocol::Unknown);
    // siw's GID type reads "IB/RoCE v1", yet it is iWARP.
    EXPECT_EQ(rdmaProtocolOf(h.devices[1], h.devices[1].ports[0], GidType::IbRoceV1), RdmaProtocol::Iwarp);
    EXPECT_EQ(rdmaProtocolOf(h.devices[2], h.devices[2].ports[0], GidType::IbRoceV1), RdmaProtocol::InfiniBand);
    EXPECT_STREQ(rdmaProtocolName(RdmaProtocol::RoceV2), "RoCE v2");
    EXPECT_STREQ(rdmaProtocolName(RdmaProtocol::Iwarp), "iWARP");
    EXPECT_STREQ(rdmaProtocolName(RdmaProtocol::Unknown), "");
}

TEST(RdmaPathFacts, DescribedThroughTheGidTable)
{
    Host h = pathHost();
    RdmaPath v2 = describeRdmaPath(h, "rxe0", 1, "198.51.100.1", 1u);
    EXPECT_EQ(v2.protocol, RdmaProtocol::RoceV2);
    EXPECT_EQ(v2.netdev, "ra");
    EXPECT_EQ(v2.gid, "0000:0000:0000:0000:0000:ffff:c633:6401");
    EXPECT_EQ(v2.gidIndex, 1u);
    EXPECT_EQ(describeRdmaPath(h, "rxe0", 1, "198.51.100.1", 2u).protocol, RdmaProtocol::RoceV1);
    // iWARP: no GID; the netdev is the one holding the address.
    RdmaPath iw = describeRdmaPath(h, "siw0", 1, "192.0.2.1", 0u);
    EXPECT_EQ(iw.protocol, RdmaProtocol::Iwarp);
    EXPECT_EQ(iw.netdev, "sa");
    EXPECT_FALSE(iw.gidIndex);
    EXPECT_EQ(iw.gid, "");
    // InfiniBand: the port's netdev.
    RdmaPath ib = describeRdmaPath(h, "mlx5_0", 1, "10.0.0.1", 0u);
    EXPECT_EQ(ib.protocol, RdmaProtocol::InfiniBand);
    EXPECT_EQ(ib.netdev, "ib0");
    // A device the host does not have: only what was given.
    RdmaPath none = describeRdmaPath(h, "mlx4_9", 2, "10.0.0.1", 3u);
    EXPECT_EQ(none.device, "mlx4_9");
    EXPECT_EQ(none.port, 2u);
    EXPECT_EQ(none.protocol, RdmaProtocol::Unknown);
    EXPECT_EQ(none.netdev, "");
}
