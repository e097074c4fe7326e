// SPDX-License-Identifier: LGPL-2.1-or-later
// model::HostIndex answers every lookup as model::Host's find* scans do.
#include "config.h"

#include "libcore/model/host-index.hpp"

#include <gtest/gtest.h>

namespace {

using namespace ibnm::model;

TEST(HostIndex, AnswersAsTheScans)
{
    Host h;
    for (const char *d : {"mlx5_0", "mlx5_1"}) {
        Device dev;
        dev.name = d;
        h.devices.push_back(dev);
    }
    for (const char *n : {"ib0", "ib1", "ib0.8002", "bond0", "ib0"}) { // a duplicate name: the first wins
        Netdev nd;
        nd.name = n;
        nd.mtu = static_cast<unsigned>(h.netdevs.size());
        h.netdevs.push_back(nd);
    }
    IpoibNetdev a;
    a.name = "ib0";
    IpoibNetdev child;
    child.name = "ib0.8002";
    child.parent = "ib0";
    child.pkey = 0x8002;
    h.ipoib = {a, child};
    Bond b;
    b.name = "bond0";
    h.bonds = {b};

    HostIndex idx(h);
    for (const char *n : {"ib0", "ib1", "ib0.8002", "bond0", "nothing"}) {
        EXPECT_EQ(idx.netdev(n), h.findNetdev(n)) << n;
        EXPECT_EQ(idx.ipoib(n), h.findIpoib(n)) << n;
        EXPECT_EQ(idx.bond(n), h.findBond(n)) << n;
    }
    EXPECT_EQ(idx.netdev("ib0")->mtu, 0u);
    EXPECT_EQ(idx.device("mlx5_1"), h.findDevice("mlx5_1"));
    EXPECT_EQ(idx.device("mlx5_9"), nullptr);
    // A child is found with or without the full-membership bit.
    EXPECT_EQ(idx.child("ib0", 0x0002), &h.ipoib[1]);
    EXPECT_EQ(idx.child("ib0", 0x8002), &h.ipoib[1]);
    EXPECT_EQ(idx.child("ib1", 0x8002), nullptr);
    EXPECT_EQ(idx.child("ib0", 0x8003), nullptr);
}

} // namespace
