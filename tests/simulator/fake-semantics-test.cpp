// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel's rules as the simulated host applies them (FACTS.md, the
// kernel lab's findings), table-driven where there are many cases.
#include "config.h"

#include "tests/simulator/fake-test-util.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <ostream>
#include <string>

using ibnm::model::GidType;
using ibnm::model::IpoibMode;
using ibnm::model::RoceMode;
using ibnm::model::SoftLinkType;
using ibnm::platform::BondSpec;
using ibnm::platform::IpoibChildSpec;

namespace {

std::string withNaming(const char *naming)
{
    std::string text = ibnm::test::kTestHost;
    size_t at = text.find("child-naming=upstream");
    text.replace(at, std::string("child-naming=upstream").size(), std::string("child-naming=") + naming);
    return text;
}

struct ChildCase {
    const char *naming;
    const char *parent;
    uint16_t pkey;
    const char *name;
};

void PrintTo(const ChildCase &c, std::ostream *os)
{
    *os << c.naming << " " << c.name;
}

const ChildCase kChildren[] = {
    {"upstream", "ib0", 0x0002, "ib0.0002"},
    {"upstream", "ib0", 0x8002, "ib0.8002"},
    {"upstream", "ib0", 0x7ffe, "ib0.7ffe"},
    {"ofed", "ib0", 0x0001, "ib0.8001"},
    {"ofed", "ib0", 0x8001, "ib0.8001"},
    {"ofed", "ib0", 0x0abc, "ib0.8abc"},
};

} // namespace

class FakeChildNaming : public ::testing::TestWithParam<ChildCase> {};

TEST_P(FakeChildNaming, FollowsTheKernelFlavourAndSetsTheFullMembershipBit)
{
    const auto &c = GetParam();
    std::string text = withNaming(c.naming);
    auto fake = ibnm::test::makeTestFake(text.c_str());
    ASSERT_TRUE(fake);
    IpoibChildSpec spec;
    spec.parent = c.parent;
    spec.pkey = c.pkey;
    auto r = fake->createIpoibChild(spec);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r.value(), c.name);
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    const auto *child = h->findIpoib(c.name);
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->pkey, c.pkey | 0x8000);
    EXPECT_EQ(child->portGuid, "0002:c903:0031:7851") << "a child shares the port GUID";
    EXPECT_NE(child->address, h->findIpoib("ib0")->address) << "but has its own QP number";
}

INSTANTIATE_TEST_SUITE_P(Table, FakeChildNaming, ::testing::ValuesIn(kChildren));

TEST(FakeSemantics, ChildNamesAreTruncatedTo15Characters)
{
    // A long-named IPoIB port.
    std::string text = ibnm::test::kTestHost;
    text.replace(text.find("[netdev ib0]"), 12, "[netdev mlx4_ib0port]");
    auto longer = ibnm::test::makeTestFake(text.c_str());
    ASSERT_TRUE(longer);
    IpoibChildSpec spec;
    spec.parent = "mlx4_ib0port";
    spec.pkey = 0x8002;
    auto r = longer->createIpoibChild(spec);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r.value(), "mlx4_ib0port.80");
}

namespace {

struct PkeyCase {
    uint16_t pkey;
    bool ok;
};
void PrintTo(const PkeyCase &c, std::ostream *os)
{
    *os << std::hex << c.pkey;
}
const PkeyCase kPkeys[] = {{0x0000, false}, {0x8000, false}, {0x0001, true},
                           {0x7ffe, true},  {0x8001, true},  {0xfffe, true}};

} // namespace

class FakePkeys : public ::testing::TestWithParam<PkeyCase> {};

TEST_P(FakePkeys, ValidRangeIs0x0001To0xffffExcept0x8000)
{
    auto fake = ibnm::test::makeTestFake();
    IpoibChildSpec spec;
    spec.parent = "ib0";
    spec.pkey = GetParam().pkey;
    auto r = fake->createIpoibChild(spec);
    EXPECT_EQ(r.ok(), GetParam().ok) << std::hex << GetParam().pkey;
    if (!r.ok() && !GetParam().ok) {
        EXPECT_EQ(r.error().errnum(), EINVAL);
    }
}

INSTANTIATE_TEST_SUITE_P(Table, FakePkeys, ::testing::ValuesIn(kPkeys));

TEST(FakeSemantics, TheParentsOwnPkeyIsNotUnique)
{
    auto fake = ibnm::test::makeTestFake();
    IpoibChildSpec spec;
    spec.parent = "ib0";
    spec.pkey = 0x7fff; // 0x7fff | 0x8000 == 0xffff, ib0's own
    auto r = fake->createIpoibChild(spec);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().errnum(), ENOTUNIQ);
    EXPECT_EQ(r.error().code(), IBNM_ERROR_EXISTS);
}

namespace {

// mlx4_0/1: max 4096, active 2048, broadcast group 2048.
struct MtuCase {
    const char *ifname;
    unsigned requested;
    int errnum;         // 0: accepted
    unsigned effective; // the MTU afterwards
};
void PrintTo(const MtuCase &c, std::ostream *os)
{
    *os << c.ifname << " " << c.requested;
}
const MtuCase kMtus[] = {
    {"ib0", 1500, 0, 1500},
    {"ib0", 2044, 0, 2044},
    {"ib0", 4092, 0, 2044},  // accepted, clamped to the broadcast group's 2048 - 4
    {"ib0", 4093, EINVAL, 2044}, // above IPOIB_UD_MTU(max_mtu 4096)
    {"ib0", 67, EINVAL, 2044},
    {"ib1", 4092, 0, 4092},  // mlx5: active 4096, broadcast 4096
    {"ib1", 9000, EINVAL, 4092},
    {"enp1s0", 9000, 0, 9000},
    {"enp1s0", 9001, EINVAL, 1500}, // the NIC's max-mtu
};

} // namespace

class FakeMtu : public ::testing::TestWithParam<MtuCase> {};

TEST_P(FakeMtu, DatagramMtuIsClampedToTheBroadcastGroup)
{
    const auto &c = GetParam();
    auto fake = ibnm::test::makeTestFake();
    auto st = fake->setMtu(c.ifname, c.requested);
    if (c.errnum == 0) {
        EXPECT_TRUE(st.ok()) << st.error().toString();
    } else {
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().errnum(), c.errnum);
        EXPECT_NE(st.error().toString().find(c.ifname), std::string::npos);
    }
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->findNetdev(c.ifname)->mtu, c.effective);
    if (const auto *ib = h->findIpoib(c.ifname)) {
        EXPECT_EQ(ib->mtu, c.effective);
    }
}

INSTANTIATE_TEST_SUITE_P(Table, FakeMtu, ::testing::ValuesIn(kMtus));

TEST(FakeSemantics, ConnectedModeTakes65520AndDatagramClampsBack)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake->setIpoibMode("ib0", IpoibMode::Connected).ok());
    auto h = fake->readHost();
    EXPECT_EQ(h->findNetdev("ib0")->mtu, 65520u);
    EXPECT_FALSE(fake->setMtu("ib0", 65521).ok());
    ASSERT_TRUE(fake->setMtu("ib0", 65520).ok());
    ASSERT_TRUE(fake->setIpoibMode("ib0", IpoibMode::Datagram).ok());
    h = fake->readHost();
    EXPECT_EQ(h->findNetdev("ib0")->mtu, 2044u);
    EXPECT_EQ(h->findIpoib("ib0")->mode, IpoibMode::Datagram);
}

TEST(FakeSemantics, ModeChangeNeedsTheLinkDown)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake->setUp("ib0", true).ok());
    auto st = fake->setIpoibMode("ib0", IpoibMode::Connected);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errnum(), EBUSY);
    EXPECT_TRUE(fake->setIpoibMode("ib0", IpoibMode::Datagram).ok()) << "the mode it has already is fine";
    ASSERT_TRUE(fake->setUp("ib0", false).ok());
    EXPECT_TRUE(fake->setIpoibMode("ib0", IpoibMode::Connected).ok());
}

TEST(FakeSemantics, EnhancedIpoibChildCannotBeConnected)
{
    auto fake = ibnm::test::makeTestFake();
    IpoibChildSpec spec;
    spec.parent = "ib1";
    spec.pkey = 0x0005;
    spec.mode = IpoibMode::Connected;
    auto r = fake->createIpoibChild(spec);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), IBNM_ERROR_NOT_SUPPORTED);
    auto h = fake->readHost();
    EXPECT_EQ(h->ipoib.size(), 2u) << "nothing was created";
}

namespace {

struct BondCase {
    const char *what;
    const char *mode;
    const char *failOverMac;
    std::vector<std::string> ports;
    int errnum; // of the last enslave; 0: all succeed
};
void PrintTo(const BondCase &c, std::ostream *os)
{
    *os << c.what;
}

const BondCase kBonds[] = {
    {"IPoIB in active-backup", "active-backup", "", {"ib0", "ib1"}, 0},
    {"IPoIB in balance-rr", "balance-rr", "", {"ib0"}, EOPNOTSUPP},
    {"IPoIB in 802.3ad", "802.3ad", "", {"ib0"}, EOPNOTSUPP},
    {"IPoIB after Ethernet", "active-backup", "", {"ibnmx0", "ib0"}, EINVAL},
    {"Ethernet after IPoIB", "active-backup", "", {"ib0", "ibnmx0"}, EINVAL},
    {"Ethernet in balance-rr", "balance-rr", "", {"ibnmx0", "ibnmx1"}, 0},
    {"IPoIB with fail_over_mac=follow", "active-backup", "follow", {"ib0"}, 0}, // switched to active
};

} // namespace

class FakeBonding : public ::testing::TestWithParam<BondCase> {};

TEST_P(FakeBonding, IpoibPortsFollowTheBondingRules)
{
    const auto &c = GetParam();
    auto fake = ibnm::test::makeTestFake();
    for (const char *n : {"ibnmx0", "ibnmx1"}) {
        ibnm::model::Netdev nd;
        nd.name = n;
        nd.kind = "dummy";
        ASSERT_TRUE(fake->addNetdev(nd).ok());
    }
    BondSpec spec;
    spec.name = "bond0";
    spec.mode = c.mode;
    spec.failOverMac = c.failOverMac;
    ASSERT_TRUE(fake->createBond(spec).ok());
    ibnm::Status last;
    for (size_t i = 0; i < c.ports.size(); i++) {
        last = fake->enslave(c.ports[i], "bond0");
        if (i + 1 < c.ports.size()) {
            ASSERT_TRUE(last.ok()) << c.what << ": " << last.error().toString();
        }
    }
    if (c.errnum == 0) {
        ASSERT_TRUE(last.ok()) << c.what << ": " << last.error().toString();
    } else {
        ASSERT_FALSE(last.ok()) << c.what;
        EXPECT_EQ(last.error().errnum(), c.errnum) << c.what << ": " << last.error().toString();
    }
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    const auto &bond = h->bonds.front();
    EXPECT_EQ(bond.ports.size(), c.errnum == 0 ? c.ports.size() : c.ports.size() - 1) << c.what;
    if (c.errnum == 0 && h->findNetdev(c.ports[0])->type == 32) {
        EXPECT_EQ(bond.failOverMac, "active") << c.what;
        EXPECT_EQ(h->findNetdev("bond0")->type, 32u) << c.what;
    }
}

INSTANTIATE_TEST_SUITE_P(Table, FakeBonding, ::testing::ValuesIn(kBonds));

TEST(FakeSemantics, IpoibPortRefusedWhenFailOverMacIsNotActiveAnymore)
{
    // A bond with an IPoIB port whose fail_over_mac was changed afterwards:
    // the kernel refuses further IPoIB ports.
    std::string text = std::string(ibnm::test::kTestHost) +
                       "\n[bond bond1]\nmode=active-backup\nfail-over-mac=none\n"
                       "[netdev ibnmport]\nkind=ipoib\nrdma-port=mlx4_0/1\nmaster=bond1\n";
    auto other = ibnm::test::makeTestFake(text.c_str());
    ASSERT_TRUE(other);
    auto st = other->enslave("ib0", "bond1");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errnum(), EOPNOTSUPP);
}

TEST(FakeSemantics, HardwareRoceGidsHaveV1AndV2ForEachAddress)
{
    const char *text = "[device mlx5_0]\ndriver=mlx5_core\n[port mlx5_0/1]\nlink-layer=Ethernet\n"
                       "[netdev p4p1]\nrdma-port=mlx5_0/1\naddress=b8:59:9f:1a:e3:ea\n";
    auto fake = ibnm::test::makeTestFake(text);
    ASSERT_TRUE(fake);
    ASSERT_TRUE(fake->addAddress("p4p1", "10.10.10.1/24").ok());
    auto h = fake->readHost();
    const auto &gids = h->findDevice("mlx5_0")->ports[0].gids;
    ASSERT_EQ(gids.size(), 4u);
    EXPECT_EQ(gids[0].gid, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea");
    EXPECT_EQ(gids[0].type, GidType::IbRoceV1);
    EXPECT_EQ(gids[1].type, GidType::RoceV2);
    EXPECT_EQ(gids[2].gid, "0000:0000:0000:0000:0000:ffff:0a0a:0a01");
    EXPECT_EQ(gids[2].type, GidType::IbRoceV1);
    EXPECT_EQ(gids[3].type, GidType::RoceV2);
    EXPECT_EQ(gids[3].netdev, "p4p1");
    // Default configfs mode where v2 is supported: RoCE v2; v1 accepted too.
    ASSERT_TRUE(fake->setDefaultRoceTos("mlx5_0", 1, 106).ok());
    EXPECT_EQ(fake->readHost()->findDevice("mlx5_0")->ports[0].defaultRoceMode, RoceMode::V2);
    EXPECT_TRUE(fake->setDefaultRoceMode("mlx5_0", 1, RoceMode::V1).ok());
    EXPECT_TRUE(fake->setTrafficClass("mlx5_0", 1, 106).ok());
    EXPECT_TRUE(fake->setTtl("mlx5_0", 1, 64).ok());
    EXPECT_FALSE(fake->setTtl("mlx5_0", 1, 256).ok());
    EXPECT_EQ(fake->setTrafficClass("mlx5_0", 2, 1).error().errnum(), EINVAL);
    h = fake->readHost();
    EXPECT_EQ(h->findDevice("mlx5_0")->ports[0].trafficClass, 106u);
    EXPECT_EQ(h->findDevice("mlx5_0")->ports[0].ttl, 64u);
}

TEST(FakeSemantics, InfinibandPortsTakeOnlyIbRoceV1InConfigfs)
{
    auto fake = ibnm::test::makeTestFake();
    auto v2 = fake->setDefaultRoceMode("mlx4_0", 1, RoceMode::V2);
    ASSERT_FALSE(v2.ok());
    EXPECT_EQ(v2.error().errnum(), EINVAL);
    EXPECT_TRUE(fake->setDefaultRoceMode("mlx4_0", 1, RoceMode::V1).ok());
    EXPECT_EQ(fake->setDefaultRoceMode("mlx4_0", 2, RoceMode::V1).error().errnum(), EINVAL) << "no port 2";
}

TEST(FakeSemantics, TrafficClassOnMlx4IsNotSupported)
{
    auto fake = ibnm::test::makeTestFake();
    auto st = fake->setTrafficClass("mlx4_0", 1, 3);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_SUPPORTED);
}

TEST(FakeSemantics, HardwareInterfacesCannotBeDeleted)
{
    auto fake = ibnm::test::makeTestFake();
    for (const char *n : {"ib0", "enp1s0"}) {
        auto st = fake->deleteLink(n);
        ASSERT_FALSE(st.ok()) << n;
        EXPECT_EQ(st.error().errnum(), EOPNOTSUPP) << n;
    }
}

TEST(FakeSemantics, RxeOnlyOnARealDeviceAndOncePerNetdev)
{
    std::string text = std::string(ibnm::test::kTestHost) + "\n[netdev enp1s0.7]\nkind=vlan\nlink=enp1s0\n";
    auto fake = ibnm::test::makeTestFake(text.c_str());
    ASSERT_TRUE(fake);
    auto vlan = fake->addSoftLink("rxe9", SoftLinkType::Rxe, "enp1s0.7");
    ASSERT_FALSE(vlan.ok());
    EXPECT_EQ(vlan.error().errnum(), EPERM);
    ASSERT_TRUE(fake->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());
    auto twice = fake->addSoftLink("rxe1", SoftLinkType::Rxe, "enp1s0");
    ASSERT_FALSE(twice.ok());
    EXPECT_EQ(twice.error().errnum(), EEXIST);
    auto ib = fake->addSoftLink("rxe2", SoftLinkType::Rxe, "ib0");
    ASSERT_FALSE(ib.ok());
    EXPECT_EQ(ib.error().errnum(), EINVAL);
    auto dup = fake->addSoftLink("mlx4_0", SoftLinkType::Siw, "enp1s0");
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.error().errnum(), EEXIST);
}

TEST(FakeSemantics, SoftDevicePortFollowsItsNetdev)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());
    auto h = fake->readHost();
    const auto &p = h->findDevice("rxe0")->ports[0];
    EXPECT_EQ(p.state, "4: ACTIVE");
    EXPECT_EQ(p.activeMtu, 1024u);
    EXPECT_EQ(h->findDevice("rxe0")->nodeGuid, "5054:00ff:fe12:3456");
    ASSERT_TRUE(fake->setUp("enp1s0", false).ok());
    ASSERT_TRUE(fake->setMtu("enp1s0", 9000).ok());
    h = fake->readHost();
    EXPECT_EQ(h->findDevice("rxe0")->ports[0].state, "1: DOWN");
    EXPECT_EQ(h->findDevice("rxe0")->ports[0].activeMtu, 4096u);
}

// A route's gateway must be on a subnet of the interface (fib_check_nh():
// ENETUNREACH otherwise): the subnet of each address is its prefix, host
// bits aside, at any prefix length, and of the gateway's family only.
TEST(FakeSemantics, AGatewayMustBeOnASubnetOfTheInterface)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake->setUp("enp1s0", true).ok());
    ASSERT_TRUE(fake->addAddress("enp1s0", "192.0.2.10/20").ok());
    ASSERT_TRUE(fake->addAddress("enp1s0", "2001:db8:0:1234::5/62").ok());
    struct Case {
        const char *gateway;
        bool onLink;
    } cases[] = {
        {"192.0.2.254", true},        {"192.0.15.1", true},         {"192.0.16.1", false},
        {"192.0.1.1", true},          {"198.51.100.1", false},      {"2001:db8:0:1237::1", true},
        {"2001:db8:0:1238::1", false}, {"::ffff:192.0.2.1", false}, {"not-an-address", false},
    };
    unsigned metric = 1;
    for (const auto &c : cases) {
        bool v6 = std::string(c.gateway).find(':') != std::string::npos;
        ibnm::model::Route r{v6 ? "2001:db8:ffff::/48" : "203.0.113.0/24", c.gateway, metric++};
        auto st = fake->addRoute("enp1s0", r);
        EXPECT_EQ(st.ok(), c.onLink) << c.gateway << ": " << (st.ok() ? "added" : st.error().toString());
        if (!c.onLink && !st.ok()) {
            EXPECT_EQ(st.error().errnum(), ENETUNREACH) << c.gateway;
        }
    }
    // Any gateway is on the subnet of a /0 address, none past a /32's own.
    ASSERT_TRUE(fake->addAddress("enp1s0", "10.1.2.3/0").ok());
    EXPECT_TRUE(fake->addRoute("enp1s0", {"203.0.113.0/24", "198.51.100.1", 99}).ok());
    auto fresh = ibnm::test::makeTestFake();
    ASSERT_TRUE(fresh->setUp("enp1s0", true).ok());
    ASSERT_TRUE(fresh->addAddress("enp1s0", "192.0.2.10/32").ok());
    EXPECT_TRUE(fresh->addRoute("enp1s0", {"203.0.113.0/24", "192.0.2.10", 1}).ok());
    EXPECT_FALSE(fresh->addRoute("enp1s0", {"203.0.113.0/24", "192.0.2.11", 2}).ok());
}
