// SPDX-License-Identifier: LGPL-2.1-or-later
// The platform contract: one typed GoogleTest suite that every Platform
// implementation must pass. It runs against Fake always (tests/platform/
// fake-tests) and against Linux inside the kernel lab, where rxe, siw,
// configfs rdma_cm, bonding and dummy/veth are real. IPoIB needs InfiniBand
// hardware: where the factory cannot provide an IPoIB parent, the IPoIB cases
// skip, and the refusal case (a P_Key child on an Ethernet parent) runs
// everywhere.
//
// A Factory provides:
//   static std::unique_ptr<ibnm::platform::Platform> make();
//       a platform on a host with nothing the tests create below;
//   static std::string makeEthernet(ibnm::platform::Platform &p, const std::string &name);
//       creates an Ethernet netdev `name` (a dummy in the lab, a simulated
//       NIC on Fake) and returns its name; an empty string fails the test.
//       The fixture deletes it again with Platform::deleteLink();
//   static bool canIpoib();
//       whether ipoibParent() names an IPoIB port interface;
//   static std::string ipoibParent();
//       an IPoIB port interface that supports connected mode (not Enhanced
//       IPoIB), or "" (the IPoIB cases skip);
//   static std::string enhancedIpoibParent();
//       an Enhanced IPoIB (mlx5) port interface, or "".
//
//   INSTANTIATE_TYPED_TEST_SUITE_P(Fake, PlatformContract, ::testing::Types<FakeFactory>);
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/platform/platform.hpp"
#include "libcore/support/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <arpa/inet.h>

namespace ibnm::test::contract {

// "0000:0000:0000:0000:0000:ffff:c000:020a" for "192.0.2.10": the GID of an
// IPv4 address as sysfs prints it.
inline std::string ipv4MappedGid(const std::string &ipv4)
{
    in_addr a{};
    if (inet_pton(AF_INET, ipv4.c_str(), &a) != 1)
        return {};
    const auto *b = reinterpret_cast<const unsigned char *>(&a.s_addr);
    char buf[64];
    std::snprintf(buf, sizeof buf, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3]);
    return buf;
}

inline bool parseMac(const std::string &mac, unsigned char out[6])
{
    unsigned v[6];
    if (std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
        return false;
    for (int i = 0; i < 6; i++)
        out[i] = static_cast<unsigned char>(v[i]);
    return true;
}

// The default RoCE GID of a netdev: the IPv6 link-local address whose
// interface identifier is the modified EUI-64 of the MAC.
inline std::string linkLocalGid(const std::string &mac)
{
    unsigned char m[6];
    if (!parseMac(mac, m))
        return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "fe80:0000:0000:0000:%02x%02x:%02xff:fe%02x:%02x%02x", m[0] ^ 0x02, m[1], m[2],
                  m[3], m[4], m[5]);
    return buf;
}

// siw's GID 0: the MAC in the first six bytes, zeros after.
inline std::string siwGid(const std::string &mac)
{
    unsigned char m[6];
    if (!parseMac(mac, m))
        return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%02x%02x:%02x%02x:%02x%02x:0000:0000:0000:0000:0000", m[0], m[1], m[2], m[3],
                  m[4], m[5]);
    return buf;
}

inline const model::Gid *findGid(const model::Port &port, const std::string &gid, model::GidType type)
{
    for (const auto &g : port.gids)
        if (g.gid == gid && g.type == type)
            return &g;
    return nullptr;
}

} // namespace ibnm::test::contract

template <typename Factory>
class PlatformContract : public ::testing::Test {
protected:
    void SetUp() override
    {
        platform_ = Factory::make();
        ASSERT_TRUE(platform_) << "the factory made no platform";
    }

    void TearDown() override
    {
        if (!platform_)
            return;
        // Undo in reverse: soft links, then IPoIB children, then bonds and
        // netdevs. Failures are ignored (a test may have removed them).
        for (auto it = softLinks_.rbegin(); it != softLinks_.rend(); ++it)
            (void)platform_->deleteSoftLink(*it);
        for (auto it = children_.rbegin(); it != children_.rend(); ++it)
            (void)platform_->deleteIpoibChild(it->first, it->second);
        for (auto it = links_.rbegin(); it != links_.rend(); ++it)
            (void)platform_->deleteLink(*it);
    }

    ibnm::platform::Platform &p() { return *platform_; }

    // An Ethernet netdev, deleted at the end of the test.
    std::string ethernet(const std::string &name)
    {
        std::string n = Factory::makeEthernet(*platform_, name);
        EXPECT_FALSE(n.empty()) << "could not create Ethernet netdev " << name;
        if (!n.empty())
            links_.push_back(n);
        return n;
    }

    // An Ethernet netdev that is up and carries `cidr`.
    std::string ethernetWithAddress(const std::string &name, const std::string &cidr)
    {
        std::string n = ethernet(name);
        if (n.empty())
            return n;
        auto up = p().setUp(n, true);
        EXPECT_TRUE(up.ok()) << up.error().toString();
        auto addr = p().addAddress(n, cidr);
        EXPECT_TRUE(addr.ok()) << addr.error().toString();
        return n;
    }

    ibnm::Status addSoftLink(const std::string &name, ibnm::model::SoftLinkType type, const std::string &netdev)
    {
        auto st = platform_->addSoftLink(name, type, netdev);
        if (st.ok())
            softLinks_.push_back(name);
        return st;
    }

    void trackLink(const std::string &name) { links_.push_back(name); }

    // The bond `spec` made of two new Ethernet netdevs `ports` (both
    // enslaved); the bond and the netdevs are deleted at the end.
    void bondOfTwo(const ibnm::platform::BondSpec &spec, const std::array<std::string, 2> &ports)
    {
        for (const auto &port : ports)
            ASSERT_FALSE(port.empty()) << "could not create a port of " << spec.name;
        auto st = p().createBond(spec);
        ASSERT_TRUE(st.ok()) << st.error().toString();
        trackLink(spec.name);
        for (const auto &port : ports) {
            auto en = p().enslave(port, spec.name);
            ASSERT_TRUE(en.ok()) << port << ": " << en.error().toString();
        }
    }
    void trackChild(const std::string &parent, uint16_t pkey) { children_.emplace_back(parent, pkey); }

    ibnm::model::Host host()
    {
        auto h = platform_->readHost();
        EXPECT_TRUE(h.ok()) << h.error().toString();
        return h.ok() ? std::move(h).value() : ibnm::model::Host{};
    }

    // The first port of RDMA device `dev` in a fresh snapshot (nullptr-safe
    // copy: a default Port when missing, with a test failure).
    ibnm::model::Port port1(const std::string &dev)
    {
        auto h = host();
        const auto *d = h.findDevice(dev);
        EXPECT_NE(d, nullptr) << dev << " is not in readHost()";
        if (d == nullptr || d->ports.empty()) {
            ADD_FAILURE() << dev << " has no port";
            return {};
        }
        return d->ports.front();
    }

    std::unique_ptr<ibnm::platform::Platform> platform_;
    std::vector<std::string> softLinks_;
    std::vector<std::string> links_;
    std::vector<std::pair<std::string, uint16_t>> children_;
};

TYPED_TEST_SUITE_P(PlatformContract);

using ibnm::model::GidType;
using ibnm::model::IpoibMode;
using ibnm::model::LinkLayer;
using ibnm::model::RoceMode;
using ibnm::model::SoftLinkType;

// --- soft RDMA links ---------------------------------------------------------

TYPED_TEST_P(PlatformContract, RxeLinkAppearsWithRoceV2Gids)
{
    namespace c = ibnm::test::contract;
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();

    auto h = this->host();
    const auto *link = h.findSoftLink("ctrxe0");
    ASSERT_NE(link, nullptr);
    EXPECT_EQ(link->type, SoftLinkType::Rxe);
    EXPECT_EQ(link->netdev, eth);
    const auto *dev = h.findDevice("ctrxe0");
    ASSERT_NE(dev, nullptr);
    ASSERT_FALSE(dev->ports.empty());
    const auto &port = dev->ports.front();
    EXPECT_EQ(port.number, 1u);
    EXPECT_EQ(port.linkLayer, LinkLayer::Ethernet);

    const auto *nd = h.findNetdev(eth);
    ASSERT_NE(nd, nullptr);
    const auto *ll = c::findGid(port, c::linkLocalGid(nd->address), GidType::RoceV2);
    ASSERT_NE(ll, nullptr) << "no RoCE v2 link-local GID for " << nd->address;
    EXPECT_EQ(ll->netdev, eth);
    const auto *v4 = c::findGid(port, c::ipv4MappedGid("192.0.2.10"), GidType::RoceV2);
    ASSERT_NE(v4, nullptr) << "no RoCE v2 GID for 192.0.2.10";
    EXPECT_EQ(v4->netdev, eth);
    // rxe is RoCE v2 only.
    for (const auto &g : port.gids)
        EXPECT_EQ(g.type, GidType::RoceV2) << g.gid;
}

TYPED_TEST_P(PlatformContract, GidTablesListWhatReadHostLists)
{
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.12/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();

    auto whole = this->host();
    auto tables = this->p().readGidTables();
    ASSERT_TRUE(tables.ok()) << tables.error().toString();
    // Every device readHost() shows is there, port by port, GID by GID.
    for (const auto &d : whole.devices) {
        const auto *t = tables->findDevice(d.name);
        ASSERT_NE(t, nullptr) << d.name << " is missing from readGidTables()";
        ASSERT_EQ(t->ports.size(), d.ports.size()) << d.name;
        for (size_t k = 0; k < d.ports.size(); k++) {
            EXPECT_EQ(t->ports[k].number, d.ports[k].number) << d.name;
            ASSERT_EQ(t->ports[k].gids.size(), d.ports[k].gids.size()) << d.name << " port " << d.ports[k].number;
            for (size_t g = 0; g < d.ports[k].gids.size(); g++) {
                const auto &a = d.ports[k].gids[g], &b = t->ports[k].gids[g];
                EXPECT_EQ(b.index, a.index) << d.name;
                EXPECT_EQ(b.gid, a.gid) << d.name;
                EXPECT_EQ(b.type, a.type) << d.name << " " << a.gid;
                EXPECT_EQ(b.netdev, a.netdev) << d.name << " " << a.gid;
            }
        }
    }
    const auto *rxe = tables->findDevice("ctrxe0");
    ASSERT_NE(rxe, nullptr);
    ASSERT_FALSE(rxe->ports.empty());
    EXPECT_FALSE(rxe->ports.front().gids.empty()) << "the rxe link over " << eth << " has GIDs";
}

TYPED_TEST_P(PlatformContract, RxeGidsFollowAddresses)
{
    namespace c = ibnm::test::contract;
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();

    auto add = this->p().addAddress(eth, "198.51.100.7/24");
    ASSERT_TRUE(add.ok()) << add.error().toString();
    EXPECT_NE(c::findGid(this->port1("ctrxe0"), c::ipv4MappedGid("198.51.100.7"), GidType::RoceV2), nullptr);

    auto rm = this->p().removeAddress(eth, "198.51.100.7/24");
    ASSERT_TRUE(rm.ok()) << rm.error().toString();
    auto port = this->port1("ctrxe0");
    EXPECT_EQ(c::findGid(port, c::ipv4MappedGid("198.51.100.7"), GidType::RoceV2), nullptr);
    EXPECT_NE(c::findGid(port, c::ipv4MappedGid("192.0.2.10"), GidType::RoceV2), nullptr);
}

TYPED_TEST_P(PlatformContract, SiwLinkAppearsWithMacGid)
{
    namespace c = ibnm::test::contract;
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctsiw0", SoftLinkType::Siw, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();

    auto h = this->host();
    const auto *link = h.findSoftLink("ctsiw0");
    ASSERT_NE(link, nullptr);
    EXPECT_EQ(link->type, SoftLinkType::Siw);
    EXPECT_EQ(link->netdev, eth);
    const auto *dev = h.findDevice("ctsiw0");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->nodeType, "4: RNIC");
    ASSERT_FALSE(dev->ports.empty());
    EXPECT_EQ(dev->ports.front().linkLayer, LinkLayer::Ethernet);
    const auto *nd = h.findNetdev(eth);
    ASSERT_NE(nd, nullptr);
    const auto *g0 = c::findGid(dev->ports.front(), c::siwGid(nd->address), GidType::IbRoceV1);
    ASSERT_NE(g0, nullptr) << "no IB/RoCE v1 GID from the MAC " << nd->address;
    EXPECT_EQ(g0->index, 0u);
}

TYPED_TEST_P(PlatformContract, RxeAndSiwShareANetdev)
{
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto a = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(a.ok()) << a.error().toString();
    auto b = this->addSoftLink("ctsiw0", SoftLinkType::Siw, eth);
    ASSERT_TRUE(b.ok()) << b.error().toString();
    auto h = this->host();
    EXPECT_NE(h.findDevice("ctrxe0"), nullptr);
    EXPECT_NE(h.findDevice("ctsiw0"), nullptr);
}

TYPED_TEST_P(PlatformContract, SoftLinkDisappearsOnDelete)
{
    namespace c = ibnm::test::contract;
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    for (auto type : {SoftLinkType::Rxe, SoftLinkType::Siw}) {
        std::string name = type == SoftLinkType::Rxe ? "ctrxe0" : "ctsiw0";
        auto st = this->addSoftLink(name, type, eth);
        ASSERT_TRUE(st.ok()) << st.error().toString();
        ASSERT_NE(this->host().findDevice(name), nullptr);
        auto del = this->p().deleteSoftLink(name);
        ASSERT_TRUE(del.ok()) << del.error().toString();
        auto h = this->host();
        EXPECT_EQ(h.findDevice(name), nullptr) << name;
        EXPECT_EQ(h.findSoftLink(name), nullptr) << name;
    }
}

TYPED_TEST_P(PlatformContract, DeletingAMissingSoftLinkIsNotFound)
{
    auto st = this->p().deleteSoftLink("ctnosuch0");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_FOUND);
    EXPECT_NE(st.error().toString().find("ctnosuch0"), std::string::npos) << st.error().toString();
}

TYPED_TEST_P(PlatformContract, SoftLinkOverAMissingNetdevFails)
{
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, "ibnmnosuch0");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().toString().find("ibnmnosuch0"), std::string::npos) << st.error().toString();
    EXPECT_EQ(this->host().findDevice("ctrxe0"), nullptr);
}

// --- configfs rdma_cm ---------------------------------------------------------

TYPED_TEST_P(PlatformContract, RxeRefusesRoceV1AcceptsV2)
{
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();

    auto v1 = this->p().setDefaultRoceMode("ctrxe0", 1, RoceMode::V1);
    ASSERT_FALSE(v1.ok());
    EXPECT_EQ(v1.error().errnum(), EINVAL) << v1.error().toString();
    EXPECT_NE(v1.error().toString().find("ctrxe0"), std::string::npos) << v1.error().toString();

    auto v2 = this->p().setDefaultRoceMode("ctrxe0", 1, RoceMode::V2);
    ASSERT_TRUE(v2.ok()) << v2.error().toString();
    auto port = this->port1("ctrxe0");
    ASSERT_TRUE(port.defaultRoceMode.has_value());
    EXPECT_EQ(*port.defaultRoceMode, RoceMode::V2);
}

TYPED_TEST_P(PlatformContract, SiwRefusesRoceV2)
{
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctsiw0", SoftLinkType::Siw, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    auto v2 = this->p().setDefaultRoceMode("ctsiw0", 1, RoceMode::V2);
    ASSERT_FALSE(v2.ok());
    EXPECT_EQ(v2.error().errnum(), EINVAL) << v2.error().toString();
}

TYPED_TEST_P(PlatformContract, RoceTosTakes0To255)
{
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    for (unsigned tos : {0u, 106u, 255u}) {
        auto set = this->p().setDefaultRoceTos("ctrxe0", 1, tos);
        ASSERT_TRUE(set.ok()) << tos << ": " << set.error().toString();
        auto port = this->port1("ctrxe0");
        ASSERT_TRUE(port.defaultRoceTos.has_value());
        EXPECT_EQ(*port.defaultRoceTos, tos);
    }
    auto bad = this->p().setDefaultRoceTos("ctrxe0", 1, 256);
    ASSERT_FALSE(bad.ok());
    EXPECT_TRUE(bad.error().errnum() == ERANGE || bad.error().errnum() == EINVAL) << bad.error().toString();
    auto port = this->port1("ctrxe0");
    ASSERT_TRUE(port.defaultRoceTos.has_value());
    EXPECT_EQ(*port.defaultRoceTos, 255u);
}

TYPED_TEST_P(PlatformContract, RoceDefaultsOnAMissingDeviceAreNotFound)
{
    auto st = this->p().setDefaultRoceMode("ctnosuch0", 1, RoceMode::V2);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_FOUND) << st.error().toString();
    EXPECT_NE(st.error().toString().find("ctnosuch0"), std::string::npos) << st.error().toString();
}

TYPED_TEST_P(PlatformContract, TrafficClassIsMlx5Only)
{
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    auto tc = this->p().setTrafficClass("ctrxe0", 1, 106);
    ASSERT_FALSE(tc.ok());
    EXPECT_EQ(tc.error().code(), IBNM_ERROR_NOT_SUPPORTED) << tc.error().toString();
    auto ttl = this->p().setTtl("ctrxe0", 1, 64);
    ASSERT_FALSE(ttl.ok());
    EXPECT_EQ(ttl.error().code(), IBNM_ERROR_NOT_SUPPORTED) << ttl.error().toString();
}

// --- links ---------------------------------------------------------------------

TYPED_TEST_P(PlatformContract, MtuUpAndAddresses)
{
    namespace c = ibnm::test::contract;
    std::string eth = this->ethernet("ibnmct0");
    ASSERT_FALSE(eth.empty());

    auto mtu = this->p().setMtu(eth, 1400);
    ASSERT_TRUE(mtu.ok()) << mtu.error().toString();
    auto up = this->p().setUp(eth, true);
    ASSERT_TRUE(up.ok()) << up.error().toString();
    auto a4 = this->p().addAddress(eth, "192.0.2.1/24");
    ASSERT_TRUE(a4.ok()) << a4.error().toString();
    auto a6 = this->p().addAddress(eth, "2001:db8::1/64");
    ASSERT_TRUE(a6.ok()) << a6.error().toString();

    auto h = this->host();
    const auto *nd = h.findNetdev(eth);
    ASSERT_NE(nd, nullptr);
    EXPECT_EQ(nd->mtu, 1400u);
    EXPECT_TRUE(nd->up);
    EXPECT_EQ(nd->type, 1u);
    EXPECT_TRUE(ibnm::contains(nd->addresses, "192.0.2.1/24"));
    EXPECT_TRUE(ibnm::contains(nd->addresses, "2001:db8::1/64"));

    auto rm = this->p().removeAddress(eth, "192.0.2.1/24");
    ASSERT_TRUE(rm.ok()) << rm.error().toString();
    auto down = this->p().setUp(eth, false);
    ASSERT_TRUE(down.ok()) << down.error().toString();
    h = this->host();
    nd = h.findNetdev(eth);
    ASSERT_NE(nd, nullptr);
    EXPECT_FALSE(nd->up);
    EXPECT_FALSE(ibnm::contains(nd->addresses, "192.0.2.1/24"));
    // keep_addr_on_down defaults to 0: the kernel flushes IPv6 addresses
    // when the link goes down (addrconf_ifdown()); IPv4 ones stay.
    EXPECT_FALSE(ibnm::contains(nd->addresses, "2001:db8::1/64"));
    auto a4b = this->p().addAddress(eth, "192.0.2.2/24");
    ASSERT_TRUE(a4b.ok()) << a4b.error().toString();
    auto up2 = this->p().setUp(eth, true);
    ASSERT_TRUE(up2.ok()) << up2.error().toString();
    auto a6b = this->p().addAddress(eth, "2001:db8::2/64");
    ASSERT_TRUE(a6b.ok()) << a6b.error().toString();
    auto down2 = this->p().setUp(eth, false);
    ASSERT_TRUE(down2.ok()) << down2.error().toString();
    h = this->host();
    nd = h.findNetdev(eth);
    ASSERT_NE(nd, nullptr);
    EXPECT_TRUE(ibnm::contains(nd->addresses, "192.0.2.2/24"));
    EXPECT_FALSE(ibnm::contains(nd->addresses, "2001:db8::2/64"));
}

// bond_enslave() sets the port's MTU to the bond's, bond_change_mtu()
// passes a new one on to its ports, and release puts the port's own back
// (checked on Debian's kernel in the kernel lab).
TYPED_TEST_P(PlatformContract, PortsTakeTheBondsMtuAndGetTheirOwnBack)
{
    std::string eth = this->ethernet("ibnmct4");
    ASSERT_FALSE(eth.empty());
    ibnm::platform::BondSpec spec;
    spec.name = "ibnmctb4";
    ASSERT_TRUE(this->p().createBond(spec).ok());
    ASSERT_TRUE(this->p().setMtu(spec.name, 1400).ok());
    ASSERT_TRUE(this->p().setMtu(eth, 1500).ok());
    auto en = this->p().enslave(eth, spec.name);
    ASSERT_TRUE(en.ok()) << en.error().toString();
    auto h = this->host();
    EXPECT_EQ(h.findNetdev(eth)->mtu, 1400u);
    ASSERT_TRUE(this->p().setMtu(spec.name, 1300).ok());
    ASSERT_TRUE(this->p().setUp(eth, true).ok());
    h = this->host();
    EXPECT_EQ(h.findNetdev(eth)->mtu, 1300u);
    EXPECT_TRUE(h.findNetdev(eth)->up);
    ASSERT_TRUE(this->p().release(eth).ok());
    h = this->host();
    EXPECT_EQ(h.findNetdev(eth)->mtu, 1500u);
    // __bond_release_one() closes the port (dev_close).
    EXPECT_FALSE(h.findNetdev(eth)->up);
    // Deleting the bond releases its ports the same way.
    ASSERT_TRUE(this->p().enslave(eth, spec.name).ok());
    ASSERT_TRUE(this->p().deleteLink(spec.name).ok());
    h = this->host();
    EXPECT_EQ(h.findNetdev(eth)->mtu, 1500u);
    EXPECT_EQ(h.findNetdev(eth)->master, "");
}

TYPED_TEST_P(PlatformContract, RemovingAMissingAddressFails)
{
    std::string eth = this->ethernet("ibnmct0");
    ASSERT_FALSE(eth.empty());
    auto rm = this->p().removeAddress(eth, "203.0.113.9/24");
    ASSERT_FALSE(rm.ok());
    EXPECT_EQ(rm.error().errnum(), EADDRNOTAVAIL) << rm.error().toString();
}

TYPED_TEST_P(PlatformContract, LinkOperationsOnAMissingNetdevAreNotFound)
{
    std::vector<ibnm::Status> results;
    results.push_back(this->p().setMtu("ibnmnosuch0", 1500));
    results.push_back(this->p().setUp("ibnmnosuch0", true));
    results.push_back(this->p().deleteLink("ibnmnosuch0"));
    results.push_back(this->p().addAddress("ibnmnosuch0", "192.0.2.1/24"));
    for (const auto &st : results) {
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_FOUND) << st.error().toString();
        EXPECT_NE(st.error().toString().find("ibnmnosuch0"), std::string::npos) << st.error().toString();
    }
}

TYPED_TEST_P(PlatformContract, DeleteLinkRemovesTheNetdevAndItsSoftLinks)
{
    namespace c = ibnm::test::contract;
    std::string eth = this->ethernetWithAddress("ibnmct0", "192.0.2.10/24");
    ASSERT_FALSE(eth.empty());
    auto st = this->addSoftLink("ctrxe0", SoftLinkType::Rxe, eth);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    auto del = this->p().deleteLink(eth);
    ASSERT_TRUE(del.ok()) << del.error().toString();
    auto h = this->host();
    EXPECT_EQ(h.findNetdev(eth), nullptr);
    EXPECT_EQ(h.findDevice("ctrxe0"), nullptr);
    EXPECT_EQ(h.findSoftLink("ctrxe0"), nullptr);
}

TYPED_TEST_P(PlatformContract, ActiveBackupBondWithPortsMiimonPrimary)
{
    namespace c = ibnm::test::contract;
    std::string a = this->ethernet("ibnmct0");
    std::string b = this->ethernet("ibnmct1");
    ibnm::platform::BondSpec spec;
    spec.name = "ibnmctbond0";
    spec.mode = "active-backup";
    spec.miimon = 100;
    spec.primary = a;
    ASSERT_NO_FATAL_FAILURE(this->bondOfTwo(spec, {a, b}));

    auto h = this->host();
    const auto *bond = h.findBond(spec.name);
    ASSERT_NE(bond, nullptr);
    EXPECT_EQ(bond->mode, "active-backup");
    EXPECT_EQ(bond->miimon, 100u);
    EXPECT_EQ(bond->primary, a);
    EXPECT_TRUE(ibnm::contains(bond->ports, a));
    EXPECT_TRUE(ibnm::contains(bond->ports, b));
    const auto *na = h.findNetdev(a);
    ASSERT_NE(na, nullptr);
    EXPECT_EQ(na->master, spec.name);
    const auto *nb = h.findNetdev(spec.name);
    ASSERT_NE(nb, nullptr);
    EXPECT_EQ(nb->kind, "bond");

    auto rel = this->p().release(b);
    ASSERT_TRUE(rel.ok()) << rel.error().toString();
    h = this->host();
    bond = h.findBond(spec.name);
    ASSERT_NE(bond, nullptr);
    EXPECT_FALSE(ibnm::contains(bond->ports, b));
    EXPECT_TRUE(ibnm::contains(bond->ports, a));
    ASSERT_NE(h.findNetdev(b), nullptr);
    EXPECT_EQ(h.findNetdev(b)->master, "");
}

TYPED_TEST_P(PlatformContract, BondMiimonAndPrimaryChangeUnderItsPorts)
{
    namespace c = ibnm::test::contract;
    std::string a = this->ethernet("ibnmct0");
    std::string b = this->ethernet("ibnmct1");
    ibnm::platform::BondSpec spec;
    spec.name = "ibnmctbond0";
    spec.miimon = 100;
    spec.primary = a;
    ASSERT_NO_FATAL_FAILURE(this->bondOfTwo(spec, {a, b}));

    auto st = this->p().setBondOptions(spec.name, 250u, b);
    ASSERT_TRUE(st.ok()) << st.error().toString();
    auto h = this->host();
    const auto *bond = h.findBond(spec.name);
    ASSERT_NE(bond, nullptr);
    EXPECT_EQ(bond->miimon, 250u);
    EXPECT_EQ(bond->primary, b);
    EXPECT_TRUE(ibnm::contains(bond->ports, a)) << "the ports stay";
    EXPECT_TRUE(ibnm::contains(bond->ports, b));

    // nullopt leaves an option alone; an empty primary clears it.
    st = this->p().setBondOptions(spec.name, std::nullopt, std::string());
    ASSERT_TRUE(st.ok()) << st.error().toString();
    h = this->host();
    bond = h.findBond(spec.name);
    ASSERT_NE(bond, nullptr);
    EXPECT_EQ(bond->miimon, 250u);
    EXPECT_EQ(bond->primary, "");

    auto missing = this->p().setBondOptions("ibnmctnobond", 100u, std::nullopt);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code(), IBNM_ERROR_NOT_FOUND) << missing.error().toString();
}

TYPED_TEST_P(PlatformContract, EnslavingIntoAMissingBondFails)
{
    std::string a = this->ethernet("ibnmct0");
    ASSERT_FALSE(a.empty());
    auto en = this->p().enslave(a, "ibnmnosuchbond");
    ASSERT_FALSE(en.ok());
    EXPECT_NE(en.error().toString().find("ibnmnosuchbond"), std::string::npos) << en.error().toString();
}

// --- IPoIB ---------------------------------------------------------------------

// Everywhere: the kernel refuses an IPoIB child on a parent that is not an
// InfiniBand netdev.
TYPED_TEST_P(PlatformContract, IpoibChildOnAnEthernetParentIsRefused)
{
    std::string eth = this->ethernet("ibnmct0");
    ASSERT_FALSE(eth.empty());
    ibnm::platform::IpoibChildSpec spec;
    spec.parent = eth;
    spec.pkey = 0x8002;
    auto r = this->p().createIpoibChild(spec);
    if (r.ok())
        this->trackLink(r.value());
    ASSERT_FALSE(r.ok()) << "created " << r.value();
    EXPECT_NE(r.error().errnum(), 0) << r.error().toString();
    EXPECT_NE(r.error().toString().find(eth), std::string::npos) << r.error().toString();
    for (const auto &ib : this->host().ipoib)
        EXPECT_NE(ib.parent, eth) << ib.name;
}

TYPED_TEST_P(PlatformContract, IpoibChildNameAndFullMembershipBit)
{
    if (!TypeParam::canIpoib() || TypeParam::ipoibParent().empty())
        GTEST_SKIP() << "no InfiniBand port here: IPoIB children need IB hardware (see IpoibChildOnAnEthernetParentIsRefused)";
    const std::string parent = TypeParam::ipoibParent();
    auto before = this->host();
    char expected[32];
    std::snprintf(expected, sizeof expected, "%s.%04x", parent.c_str(),
                  before.childNaming == ibnm::model::ChildNaming::Upstream ? 0x0002u : 0x8002u);

    ibnm::platform::IpoibChildSpec spec;
    spec.parent = parent;
    spec.pkey = 0x0002;
    auto r = this->p().createIpoibChild(spec);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    this->trackChild(parent, 0x0002);
    EXPECT_EQ(r.value(), std::string(expected).substr(0, 15));

    auto h = this->host();
    const auto *child = h.findIpoib(r.value());
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->parent, parent);
    EXPECT_EQ(child->pkey, 0x8002);
    const auto *nd = h.findNetdev(r.value());
    ASSERT_NE(nd, nullptr);
    EXPECT_EQ(nd->type, 32u);

    // The same P_Key again exists already, with or without the bit: sysfs
    // create_child answers ENOTUNIQ, rtnetlink EEXIST for the name.
    spec.pkey = 0x8002;
    auto again = this->p().createIpoibChild(spec);
    if (again.ok())
        this->trackChild(parent, 0x8002);
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(again.error().errnum() == EEXIST || again.error().errnum() == ENOTUNIQ) << again.error().toString();
    EXPECT_EQ(again.error().code(), IBNM_ERROR_EXISTS) << again.error().toString();

    auto del = this->p().deleteIpoibChild(parent, 0x0002);
    ASSERT_TRUE(del.ok()) << del.error().toString();
    EXPECT_EQ(this->host().findIpoib(r.value()), nullptr);
    auto del2 = this->p().deleteIpoibChild(parent, 0x0002);
    ASSERT_FALSE(del2.ok());
    EXPECT_EQ(del2.error().code(), IBNM_ERROR_NOT_FOUND) << del2.error().toString();
}

TYPED_TEST_P(PlatformContract, IpoibInvalidPkeysAreRefused)
{
    if (!TypeParam::canIpoib() || TypeParam::ipoibParent().empty())
        GTEST_SKIP() << "no InfiniBand port here: IPoIB children need IB hardware";
    for (uint16_t pkey : {uint16_t(0x0000), uint16_t(0x8000)}) {
        ibnm::platform::IpoibChildSpec spec;
        spec.parent = TypeParam::ipoibParent();
        spec.pkey = pkey;
        auto r = this->p().createIpoibChild(spec);
        if (r.ok())
            this->trackLink(r.value());
        ASSERT_FALSE(r.ok()) << pkey;
        EXPECT_EQ(r.error().errnum(), EINVAL) << r.error().toString();
    }
}

TYPED_TEST_P(PlatformContract, IpoibConnectedModeWhereSupported)
{
    if (!TypeParam::canIpoib() || TypeParam::ipoibParent().empty())
        GTEST_SKIP() << "no InfiniBand port here: IPoIB needs IB hardware";
    ibnm::platform::IpoibChildSpec spec;
    spec.parent = TypeParam::ipoibParent();
    spec.pkey = 0x0003;
    spec.mode = IpoibMode::Connected;
    auto r = this->p().createIpoibChild(spec);
    ASSERT_TRUE(r.ok()) << r.error().toString();
    this->trackChild(spec.parent, spec.pkey);
    auto h = this->host();
    const auto *child = h.findIpoib(r.value());
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->mode, IpoibMode::Connected);
    // Back to datagram (the link is down after creation).
    auto dg = this->p().setIpoibMode(r.value(), IpoibMode::Datagram);
    ASSERT_TRUE(dg.ok()) << dg.error().toString();
    h = this->host();
    child = h.findIpoib(r.value());
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->mode, IpoibMode::Datagram);
}

TYPED_TEST_P(PlatformContract, EnhancedIpoibRefusesConnectedMode)
{
    if (!TypeParam::canIpoib() || TypeParam::enhancedIpoibParent().empty())
        GTEST_SKIP() << "no Enhanced IPoIB (mlx5 InfiniBand) port here";
    const std::string parent = TypeParam::enhancedIpoibParent();
    auto st = this->p().setIpoibMode(parent, IpoibMode::Connected);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_SUPPORTED) << st.error().toString();
    EXPECT_NE(st.error().toString().find(parent), std::string::npos) << st.error().toString();
    auto h = this->host();
    const auto *ib = h.findIpoib(parent);
    ASSERT_NE(ib, nullptr);
    EXPECT_EQ(ib->mode, IpoibMode::Datagram);

    ibnm::platform::IpoibChildSpec spec;
    spec.parent = parent;
    spec.pkey = 0x0004;
    spec.mode = IpoibMode::Connected;
    auto r = this->p().createIpoibChild(spec);
    if (r.ok())
        this->trackChild(parent, spec.pkey);
    EXPECT_FALSE(r.ok()) << "created " << r.value() << " in connected mode on Enhanced IPoIB";
}

TYPED_TEST_P(PlatformContract, IpoibUmcast)
{
    if (!TypeParam::canIpoib() || TypeParam::ipoibParent().empty())
        GTEST_SKIP() << "no InfiniBand port here: IPoIB needs IB hardware";
    const std::string parent = TypeParam::ipoibParent();
    for (bool on : {true, false}) {
        auto st = this->p().setIpoibUmcast(parent, on);
        ASSERT_TRUE(st.ok()) << st.error().toString();
        auto h = this->host();
        ASSERT_NE(h.findIpoib(parent), nullptr);
        EXPECT_EQ(h.findIpoib(parent)->umcast, on);
    }
}

// --- DNS (systemd-resolved) ----------------------------------------------------

// Where systemd-resolved runs, a link's DNS servers and search domains are
// set, read back in order and given back (RevertLink; again: nothing to
// do). Where it does not, readResolver() says why, setting is refused as not
// supported, and giving back does nothing.
TYPED_TEST_P(PlatformContract, ResolvedLinkDnsSetReadAndReverted)
{
    std::string eth = this->ethernet("ibnmdns0");
    ASSERT_FALSE(eth.empty());
    auto r = this->p().readResolver();
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ibnm::model::LinkDns dns{{"192.0.2.53", "2001:db8::53"}, {"example.com", "~corp.example"}};
    auto set = this->p().setLinkDns(eth, dns);
    if (!r->running) {
        EXPECT_FALSE(r->reason.empty());
        ASSERT_FALSE(set.ok());
        EXPECT_EQ(set.error().code(), IBNM_ERROR_NOT_SUPPORTED) << set.error().toString();
        auto revert = this->p().revertLinkDns(eth);
        EXPECT_TRUE(revert.ok()) << revert.error().toString();
        return;
    }
    ASSERT_TRUE(set.ok()) << set.error().toString();
    auto after = this->p().readResolver();
    ASSERT_TRUE(after.ok());
    ASSERT_EQ(after->links.count(eth), 1u);
    EXPECT_EQ(after->links.at(eth).servers, dns.servers);
    EXPECT_EQ(after->links.at(eth).domains, dns.domains);
    auto revert = this->p().revertLinkDns(eth);
    ASSERT_TRUE(revert.ok()) << revert.error().toString();
    auto reverted = this->p().readResolver();
    ASSERT_TRUE(reverted.ok());
    EXPECT_EQ(reverted->links.count(eth), 0u);
    auto again = this->p().revertLinkDns(eth);
    EXPECT_TRUE(again.ok()) << again.error().toString();
    // A link that does not exist is refused.
    EXPECT_FALSE(this->p().setLinkDns("ibnmnosuch0", dns).ok());
}

REGISTER_TYPED_TEST_SUITE_P(PlatformContract, RxeLinkAppearsWithRoceV2Gids, GidTablesListWhatReadHostLists,
                            RxeGidsFollowAddresses,
                            SiwLinkAppearsWithMacGid, RxeAndSiwShareANetdev, SoftLinkDisappearsOnDelete,
                            DeletingAMissingSoftLinkIsNotFound, SoftLinkOverAMissingNetdevFails,
                            RxeRefusesRoceV1AcceptsV2, SiwRefusesRoceV2, RoceTosTakes0To255,
                            RoceDefaultsOnAMissingDeviceAreNotFound, TrafficClassIsMlx5Only, MtuUpAndAddresses,
                            PortsTakeTheBondsMtuAndGetTheirOwnBack, RemovingAMissingAddressFails, LinkOperationsOnAMissingNetdevAreNotFound,
                            DeleteLinkRemovesTheNetdevAndItsSoftLinks, ActiveBackupBondWithPortsMiimonPrimary,
                            BondMiimonAndPrimaryChangeUnderItsPorts,
                            EnslavingIntoAMissingBondFails, IpoibChildOnAnEthernetParentIsRefused,
                            IpoibChildNameAndFullMembershipBit, IpoibInvalidPkeysAreRefused,
                            IpoibConnectedModeWhereSupported, EnhancedIpoibRefusesConnectedMode, IpoibUmcast,
                            ResolvedLinkDnsSetReadAndReverted);
