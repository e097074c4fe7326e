// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference model on its own (nm-model.hpp): the NetworkManager
// behaviours it was written from (the lab transcripts in nm-model.cpp's
// header), each as a small case on a host made here, so that a change of the
// model that would make the sequence test prove something else shows here.
#include "config.h"

#include "tests/sequences/nm-model.hpp"

#include <gtest/gtest.h>

namespace ibnm::test::nm {
namespace {

// ib0: an IPoIB port with connected mode, datagram maximum 4092, clamped
// to 2044; eth0: an Ethernet NIC with an address of its own.
Host smallHost()
{
    Host h;
    Link ib;
    ib.ipoib = true;
    ib.datagramMax = 4092;
    ib.datagramCeiling = 2044;
    ib.connectedOk = true;
    ib.guid = "00:02:c9:03:00:31:78:f2";
    ib.up = true;
    ib.mtu = 2044;
    h.links["ib0"] = ib;
    Link eth;
    eth.maxMtu = 9000;
    eth.up = true;
    eth.mtu = 1500;
    eth.addresses = {"192.0.2.9/24"};
    h.links["eth0"] = eth;
    return h;
}

Profile child(const std::string &id, int pkey)
{
    Profile p;
    p.id = id;
    p.parent = "ib0";
    p.pkey = pkey;
    p.ipv4 = {"198.51.100.1/24"};
    p.ipv6 = {"2001:db8::1/64"};
    return p;
}

Profile ethernet(const std::string &id)
{
    Profile p;
    p.id = id;
    p.type = Profile::Type::Ethernet;
    p.ifname = "eth0";
    p.mtu = 1400;
    p.ipv4 = {"203.0.113.1/24"};
    return p;
}

TEST(NmModel, DownOfAnInactiveProfileIsExit10AndChangesNothing)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(ethernet("e")).status, Status::Ok);
    Host before = m.host();
    EXPECT_EQ(m.down({"e"}).status, Status::NotActive);
    EXPECT_EQ(difference(before, m.host()), "");
    EXPECT_EQ(m.down({"nope"}).status, Status::NotFound);
}

TEST(NmModel, DeleteOfAnInactiveProfileTouchesNothing)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(ethernet("e")).status, Status::Ok);
    Host before = m.host();
    EXPECT_EQ(m.remove("e").status, Status::Ok);
    EXPECT_EQ(difference(before, m.host()), "");
    EXPECT_EQ(m.profile("e"), nullptr);
}

TEST(NmModel, UpTakesTheAddressesOverAndDownRestoresThem)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(ethernet("e")).status, Status::Ok);
    ASSERT_EQ(m.up({"e"}).status, Status::Ok);
    EXPECT_EQ(m.host().links.at("eth0").addresses, std::set<std::string>{"203.0.113.1/24"});
    EXPECT_EQ(m.host().links.at("eth0").mtu, 1400u);
    Model again = m;
    ASSERT_EQ(again.up({"e"}).status, Status::Ok); // unchanged: the same host
    EXPECT_EQ(difference(m.host(), again.host()), "");
    ASSERT_EQ(m.down({"e"}).status, Status::Ok);
    EXPECT_EQ(difference(smallHost(), m.host()), "");
    EXPECT_FALSE(m.active("e"));
}

TEST(NmModel, UpOfAChangedActiveChildReplacesTheOldChild)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(child("c", 0x8002)).status, Status::Ok);
    ASSERT_EQ(m.up({"c"}).status, Status::Ok);
    EXPECT_TRUE(m.host().links.count("ib0.8002"));
    EXPECT_EQ(m.host().links.at("ib0.8002").mtu, 2044u);
    ASSERT_EQ(m.modify("c", child("c", 0x8003)).status, Status::Ok);
    // modify alone changes no activation
    EXPECT_EQ(m.activation("c")->device, "ib0.8002");
    ASSERT_EQ(m.up({"c"}).status, Status::Ok);
    EXPECT_FALSE(m.host().links.count("ib0.8002"));
    ASSERT_TRUE(m.host().links.count("ib0.8003"));
    EXPECT_TRUE(m.host().links.at("ib0.8003").up);
    EXPECT_EQ(m.host().links.at("ib0.8003").addresses.size(), 2u);
}

TEST(NmModel, DownAfterModifyTakesDownWhatTheActivationMade)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(child("c", 0x8002)).status, Status::Ok);
    ASSERT_EQ(m.up({"c"}).status, Status::Ok);
    ASSERT_EQ(m.modify("c", child("c", 0x8003)).status, Status::Ok);
    ASSERT_EQ(m.down({"c"}).status, Status::Ok);
    EXPECT_EQ(difference(smallHost(), m.host()), "");
    EXPECT_TRUE(m.owned().empty());
}

TEST(NmModel, APortBringsItsBondUpLosesItsAddressesAndTheBondsDownTakesItDown)
{
    Model m(smallHost());
    Profile bond;
    bond.id = "b";
    bond.type = Profile::Type::Bond;
    bond.ifname = "bond1";
    bond.bondMode = "active-backup";
    bond.ipv4 = {"192.0.2.50/24"};
    Profile port = ethernet("p");
    port.mtu = 0;
    port.ipv4.clear();
    port.master = "bond1";
    ASSERT_EQ(m.add(bond).status, Status::Ok);
    ASSERT_EQ(m.add(port).status, Status::Ok);
    ASSERT_EQ(m.up({"p"}).status, Status::Ok);
    EXPECT_TRUE(m.active("b"));
    EXPECT_EQ(m.host().links.at("eth0").master, "bond1");
    EXPECT_TRUE(m.host().links.at("eth0").addresses.empty());
    ASSERT_EQ(m.down({"b"}).status, Status::Ok);
    EXPECT_FALSE(m.active("p"));
    EXPECT_EQ(difference(smallHost(), m.host()), "");
}

TEST(NmModel, AParentsModeChangeLeavesItsChildrenAsTheyWere)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(child("c", 0x8002)).status, Status::Ok);
    ASSERT_EQ(m.up({"c"}).status, Status::Ok);
    Link before = m.host().links.at("ib0.8002");
    Profile base;
    base.id = "b";
    base.ifname = "ib0";
    base.connected = true;
    ASSERT_EQ(m.add(base).status, Status::Ok);
    ASSERT_EQ(m.up({"b"}).status, Status::Ok);
    EXPECT_EQ(m.host().links.at("ib0").mtu, 65520u);
    const Link &c = m.host().links.at("ib0.8002");
    EXPECT_TRUE(c.up);
    EXPECT_EQ(c.addresses, before.addresses);
    ASSERT_EQ(m.down({"b"}).status, Status::Ok); // datagram again: the same
    EXPECT_TRUE(m.host().links.at("ib0.8002").up);
    EXPECT_EQ(m.host().links.at("ib0.8002").addresses, before.addresses);
}

TEST(NmModel, AParentDownByHandTakesItsChildrenAndTheirUpBringsThemBack)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(child("c", 0x8002)).status, Status::Ok);
    ASSERT_EQ(m.up({"c"}).status, Status::Ok);
    m.linkDownByHand("ib0");
    EXPECT_FALSE(m.host().links.at("ib0.8002").up);
    EXPECT_EQ(m.host().links.at("ib0.8002").addresses, std::set<std::string>{"198.51.100.1/24"}); // IPv6 flushed
    EXPECT_TRUE(m.active("c"));
    ASSERT_EQ(m.up({"c"}).status, Status::Ok);
    EXPECT_TRUE(m.host().links.at("ib0.8002").up);
    EXPECT_EQ(m.host().links.at("ib0.8002").addresses.size(), 2u);
}

TEST(NmModel, AddRefusesWhatCheckCallsAnError)
{
    Model m(smallHost());
    ASSERT_EQ(m.add(child("c", 0x8002)).status, Status::Ok);
    EXPECT_EQ(m.add(child("d", 0x0002)).status, Status::Refused); // the same child
    EXPECT_EQ(m.add(child("e", 0x7fff)).status, Status::Refused); // the parent's own partition
    Profile small = ethernet("f");
    small.mtu = 60;
    EXPECT_EQ(m.add(small).status, Status::Refused); // below ETH_MIN_MTU
    Profile big = child("g", 0x8004);
    big.mtu = 4093;
    EXPECT_EQ(m.add(big).status, Status::Refused); // above the datagram maximum
    big.mtu = 4092;
    EXPECT_EQ(m.add(big).status, Status::Ok); // clamped to 2044 by the kernel
    EXPECT_EQ(m.profiles().size(), 2u);
}

} // namespace
} // namespace ibnm::test::nm
