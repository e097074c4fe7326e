// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated host's lookups by name stay right while operations add and
// remove objects (which moves the others in the host's vectors): every
// answer here is the one a scan of the host gives.
#include "config.h"

#include "tests/simulator/fake-test-util.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

using ibnm::platform::BondSpec;
using ibnm::platform::IpoibChildSpec;

namespace {

const ibnm::model::Netdev *netdevOf(const ibnm::model::Host &h, const std::string &name)
{
    for (const auto &n : h.netdevs)
        if (n.name == name)
            return &n;
    return nullptr;
}

unsigned largestIfindex(const ibnm::model::Host &h)
{
    unsigned max = 0;
    for (const auto &n : h.netdevs)
        max = std::max(max, n.ifindex);
    return max;
}

} // namespace

TEST(FakeIndex, LookupsFollowDeletionsThatMoveTheOthers)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake);
    for (uint16_t pkey : {0x0002, 0x0003, 0x0004})
        ASSERT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", pkey, std::nullopt, std::nullopt}).ok());
    // The first child goes: the others move up in the host's vectors.
    ASSERT_TRUE(fake->deleteIpoibChild("ib0", 0x0002).ok());
    ASSERT_TRUE(fake->setMtu("ib0.0004", 1500).ok());
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    ASSERT_EQ(netdevOf(*h, "ib0.0002"), nullptr);
    EXPECT_EQ(netdevOf(*h, "ib0.0004")->mtu, 1500u);
    EXPECT_EQ(netdevOf(*h, "ib0.0003")->mtu, 2044u);
    // The remaining child's P_Key is still known, the deleted one's is free.
    auto again = fake->createIpoibChild(IpoibChildSpec{"ib0", 0x0003, std::nullopt, std::nullopt});
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().errnum(), ENOTUNIQ);
    EXPECT_NE(again.error().toString().find("ib0.0003 has P_Key 0x8003"), std::string::npos) << again.error().toString();
    EXPECT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", 0x0002, std::nullopt, std::nullopt}).ok());
    // A deleted netdev is not found.
    ASSERT_TRUE(fake->deleteLink("ib0.0003").ok());
    auto up = fake->setUp("ib0.0003", true);
    ASSERT_FALSE(up.ok());
    EXPECT_EQ(up.error().errnum(), ENODEV);
}

TEST(FakeIndex, ANewNetdevTakesTheIfindexAfterTheLargestLeft)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake);
    auto before = fake->readHost();
    ASSERT_TRUE(before.ok());
    unsigned next = largestIfindex(*before) + 1;
    ASSERT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", 0x0002, std::nullopt, std::nullopt}).ok());
    ASSERT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", 0x0003, std::nullopt, std::nullopt}).ok());
    ASSERT_TRUE(fake->deleteIpoibChild("ib0", 0x0003).ok());
    ASSERT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", 0x0004, std::nullopt, std::nullopt}).ok());
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(netdevOf(*h, "ib0.0002")->ifindex, next);
    // As a scan of the host gives it: the deleted child's ifindex again.
    EXPECT_EQ(netdevOf(*h, "ib0.0004")->ifindex, next + 1);
}

TEST(FakeIndex, BondPortsFollowEnslaveReleaseAndDelete)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake);
    ASSERT_TRUE(fake->createBond(BondSpec{"bond0", "active-backup", std::nullopt, "", ""}).ok());
    for (uint16_t pkey : {0x0002, 0x0003, 0x0004})
        ASSERT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", pkey, std::nullopt, std::nullopt}).ok());
    ASSERT_TRUE(fake->enslave("ib0.0002", "bond0").ok());
    ASSERT_TRUE(fake->enslave("ib0.0003", "bond0").ok());
    // The bond's MTU goes to its ports, and only to them.
    ASSERT_TRUE(fake->setMtu("bond0", 2000).ok());
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(netdevOf(*h, "ib0.0002")->mtu, 2000u);
    EXPECT_EQ(netdevOf(*h, "ib0.0003")->mtu, 2000u);
    EXPECT_EQ(netdevOf(*h, "ib0.0004")->mtu, 2044u);
    // The active port leaves: the other port takes over; the released port
    // no longer follows the bond.
    ASSERT_TRUE(fake->release("ib0.0002").ok());
    ASSERT_TRUE(fake->setMtu("bond0", 1800).ok());
    h = fake->readHost();
    ASSERT_TRUE(h.ok());
    ASSERT_EQ(h->bonds.size(), 1u);
    EXPECT_EQ(h->bonds[0].activePort, "ib0.0003");
    EXPECT_EQ(h->bonds[0].ports, std::vector<std::string>{"ib0.0003"});
    EXPECT_EQ(netdevOf(*h, "ib0.0003")->mtu, 1800u);
    EXPECT_EQ(netdevOf(*h, "ib0.0002")->mtu, 2044u); // its MTU before the enslave
    // A port again, after the netdevs moved (a deletion before it).
    ASSERT_TRUE(fake->deleteIpoibChild("ib0", 0x0004).ok());
    ASSERT_TRUE(fake->enslave("ib0.0002", "bond0").ok());
    h = fake->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->bonds[0].ports, (std::vector<std::string>{"ib0.0002", "ib0.0003"}));
    // Deleting the bond releases both.
    ASSERT_TRUE(fake->deleteLink("bond0").ok());
    h = fake->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_TRUE(h->bonds.empty());
    EXPECT_EQ(netdevOf(*h, "ib0.0002")->master, "");
    EXPECT_EQ(netdevOf(*h, "ib0.0003")->master, "");
    EXPECT_TRUE(fake->createBond(BondSpec{"bond0", "active-backup", std::nullopt, "", ""}).ok());
    EXPECT_TRUE(fake->enslave("ib0.0003", "bond0").ok());
}

TEST(FakeIndex, ARefusedOperationLeavesLookupsRight)
{
    auto fake = ibnm::test::makeTestFake();
    ASSERT_TRUE(fake);
    ASSERT_TRUE(fake->createIpoibChild(IpoibChildSpec{"ib0", 0x0002, std::nullopt, std::nullopt}).ok());
    // Refused inside the operation: the state is rebuilt (restore()).
    ASSERT_FALSE(fake->createIpoibChild(IpoibChildSpec{"ib0", 0, std::nullopt, std::nullopt}).ok());
    ASSERT_FALSE(fake->setMtu("ib0.0002", 70000).ok());
    EXPECT_TRUE(fake->setMtu("ib0.0002", 1500).ok());
    EXPECT_TRUE(fake->addSoftLink("rxe0", ibnm::model::SoftLinkType::Rxe, "enp1s0").ok());
    auto twice = fake->addSoftLink("rxe1", ibnm::model::SoftLinkType::Rxe, "enp1s0");
    ASSERT_FALSE(twice.ok());
    EXPECT_EQ(twice.error().errnum(), EEXIST);
    ASSERT_TRUE(fake->deleteSoftLink("rxe0").ok());
    EXPECT_TRUE(fake->addSoftLink("rxe1", ibnm::model::SoftLinkType::Rxe, "enp1s0").ok());
    auto h = fake->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(netdevOf(*h, "ib0.0002")->mtu, 1500u);
    ASSERT_EQ(h->softLinks.size(), 1u);
    EXPECT_EQ(h->softLinks[0].name, "rxe1");
}
