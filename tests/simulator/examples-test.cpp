// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated hosts in examples/hosts/ load and hold the seeds' values.
#include "config.h"

#include "libcore/simulator/fake-platform.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <string>

using ibnm::model::GidType;
using ibnm::model::LinkLayer;
using ibnm::model::SoftLinkType;
using ibnm::platform::FakePlatform;

namespace {

ibnm::model::Host load(const char *name, std::unique_ptr<FakePlatform> *keep = nullptr)
{
    auto p = FakePlatform::open(ibnm::test::srcPath(std::string("examples/hosts/") + name), "");
    EXPECT_TRUE(p.ok()) << p.error().toString();
    if (!p.ok())
        return {};
    auto h = p.value()->readHost();
    EXPECT_TRUE(h.ok()) << h.error().toString();
    if (keep)
        *keep = std::move(p).value();
    return h.ok() ? h.value() : ibnm::model::Host{};
}

} // namespace

class ExampleHosts : public ::testing::TestWithParam<const char *> {};

TEST_P(ExampleHosts, Load)
{
    auto h = load(GetParam());
    EXPECT_FALSE(h.netdevs.empty()) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(All, ExampleHosts,
                         ::testing::Values("mlx4-dual-port.host", "cx6-mlx5-ib.host", "mlx5-roce.host",
                                           "ethernet-only.host"));

TEST(ExampleHostsSeeds, Mlx4DualPortAsIbvDevinfo)
{
    auto h = load("mlx4-dual-port.host");
    const auto *d = h.findDevice("mlx4_0");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->fwVersion, "2.30.8000");
    EXPECT_EQ(d->hcaType, "MT4099");
    EXPECT_EQ(d->boardId, "MT_1090120019");
    ASSERT_EQ(d->ports.size(), 2u);
    EXPECT_EQ(d->ports[0].linkLayer, LinkLayer::InfiniBand);
    EXPECT_EQ(d->ports[0].activeMtu, 2048u);
    EXPECT_EQ(d->ports[0].maxMtu, 4096u);
    EXPECT_EQ(d->ports[0].lid, 2u);
    EXPECT_EQ(d->ports[0].smLid, 2u);
    EXPECT_EQ(d->ports[1].linkLayer, LinkLayer::Ethernet);
    EXPECT_EQ(d->ports[1].activeMtu, 4096u);
    const auto *ib = h.findIpoib("mlx4_ib0");
    ASSERT_NE(ib, nullptr);
    // The udev rule of the seed matches it by its last 8 bytes.
    EXPECT_EQ(ib->address.substr(ib->address.size() - 23), "00:02:c9:03:00:31:78:f2");
    EXPECT_EQ(ib->mtu, 2044u);
    // Port 2's netdev has RoCE GIDs.
    EXPECT_FALSE(d->ports[1].gids.empty());
}

TEST(ExampleHostsSeeds, Mlx4ChildAsTheSeedsNmcliExample)
{
    std::unique_ptr<FakePlatform> p;
    load("mlx4-dual-port.host", &p);
    ASSERT_TRUE(p);
    ibnm::platform::IpoibChildSpec spec;
    spec.parent = "mlx4_ib0";
    spec.pkey = 0x8002;
    auto r = p->createIpoibChild(spec);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r.value(), "mlx4_ib0.8002");
    ASSERT_TRUE(p->setUp("mlx4_ib0", false).ok());
    ASSERT_TRUE(p->setIpoibMode("mlx4_ib0", ibnm::model::IpoibMode::Connected).ok());
    ASSERT_TRUE(p->setMtu("mlx4_ib0", 65520).ok()) << "the seed's connected-mode MTU";
}

// ipoib_change_mtu() in datagram mode refuses less than 68 plus the 4-byte
// IPoIB header (FACTS.md).
TEST(ExampleHostsSeeds, DatagramMtuBelow72IsRefused)
{
    std::unique_ptr<FakePlatform> p;
    load("mlx4-dual-port.host", &p);
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->setIpoibMode("mlx4_ib0", ibnm::model::IpoibMode::Datagram).ok());
    auto r = p->setMtu("mlx4_ib0", 71);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().errnum(), EINVAL);
    EXPECT_TRUE(p->setMtu("mlx4_ib0", 72).ok());
}

TEST(ExampleHostsSeeds, Cx6EnhancedIpoibWithOfedNaming)
{
    std::unique_ptr<FakePlatform> p;
    auto h = load("cx6-mlx5-ib.host", &p);
    ASSERT_TRUE(p);
    const auto *d = h.findDevice("mlx5_0");
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(d->enhancedIpoib);
    EXPECT_EQ(d->ports[0].activeMtu, 4096u);
    ibnm::platform::IpoibChildSpec spec;
    spec.parent = "ib0";
    spec.pkey = 0x0001;
    auto r = p->createIpoibChild(spec);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r.value(), "ib0.8001") << "seed 004: echo 1 > create_child gives ib0.8001";
    ASSERT_TRUE(p->setUp("ib0", false).ok());
    EXPECT_EQ(p->setIpoibMode("ib0", ibnm::model::IpoibMode::Connected).error().code(), IBNM_ERROR_NOT_SUPPORTED);
}

TEST(ExampleHostsSeeds, Mlx5RoceGidTableAsSeed003)
{
    auto h = load("mlx5-roce.host");
    const auto *d = h.findDevice("mlx5_0");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->fwVersion, "16.28.0578");
    EXPECT_EQ(d->nodeGuid, "ec0d:9a03:0044:3764");
    EXPECT_EQ(d->ports[0].maxMtu, 4096u);
    EXPECT_EQ(d->ports[0].activeMtu, 1024u);
    const auto &g = d->ports[0].gids;
    struct Want {
        unsigned index;
        const char *gid;
        GidType type;
        const char *netdev;
    };
    const Want want[] = {
        {0, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", GidType::IbRoceV1, "p4p1"},
        {1, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", GidType::RoceV2, "p4p1"},
        {2, "0000:0000:0000:0000:0000:ffff:0a0a:0a01", GidType::IbRoceV1, "p4p1"},
        {3, "0000:0000:0000:0000:0000:ffff:0a0a:0a01", GidType::RoceV2, "p4p1"},
        {4, "0000:0000:0000:0000:0000:ffff:c1a8:0146", GidType::IbRoceV1, "p4p1.100"},
        {5, "0000:0000:0000:0000:0000:ffff:c1a8:0146", GidType::RoceV2, "p4p1.100"},
        {6, "2001:0db8:0010:0000:0000:0000:0000:0001", GidType::IbRoceV1, "p4p1"},
        {7, "2001:0db8:0010:0000:0000:0000:0000:0001", GidType::RoceV2, "p4p1"},
    };
    ASSERT_EQ(g.size(), std::size(want));
    for (const auto &w : want) {
        EXPECT_EQ(g[w.index].index, w.index);
        EXPECT_EQ(g[w.index].gid, w.gid) << w.index;
        EXPECT_EQ(g[w.index].type, w.type) << w.index;
        EXPECT_EQ(g[w.index].netdev, w.netdev) << w.index;
    }
    const auto *d1 = h.findDevice("mlx5_1");
    ASSERT_NE(d1, nullptr);
    ASSERT_EQ(d1->ports[0].gids.size(), 2u);
    EXPECT_EQ(d1->ports[0].gids[0].gid, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3eb");
    const auto *vlan = h.findNetdev("p4p1.100");
    ASSERT_NE(vlan, nullptr);
    EXPECT_EQ(vlan->rdmaDevice, "mlx5_0");
}

TEST(ExampleHostsSeeds, EthernetOnlyTakesSiwAsTheSeed)
{
    std::unique_ptr<FakePlatform> p;
    auto h = load("ethernet-only.host", &p);
    ASSERT_TRUE(p);
    EXPECT_TRUE(h.devices.empty());
    ASSERT_TRUE(p->addSoftLink("siw0", SoftLinkType::Siw, "enp0s1").ok());
    ASSERT_TRUE(p->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());
    auto after = p->readHost();
    ASSERT_TRUE(after.ok());
    const auto *siw = after->findDevice("siw0");
    ASSERT_NE(siw, nullptr);
    EXPECT_EQ(siw->nodeGuid, "0250:b6ff:fea1:9d61") << "seed 000's ibv_devinfo siw0";
    EXPECT_EQ(siw->nodeType, "4: RNIC");
    EXPECT_EQ(siw->ports[0].state, "4: ACTIVE");
    EXPECT_EQ(siw->ports[0].activeMtu, 1024u) << "seed 000: active_mtu 1024";
}
