// SPDX-License-Identifier: LGPL-2.1-or-later
// Shared by the fake platform's tests: a small host with one IPoIB port that
// supports connected mode (mlx4), one Enhanced IPoIB port (mlx5) and an
// Ethernet NIC, and the factory that runs the contract suite on it.
#pragma once

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

namespace ibnm::test {

inline const char *kTestHost = R"(# two IB HCAs and a NIC
[host]
kernel-release=6.1.0-13-amd64
child-naming=upstream

[device mlx4_0]
driver=mlx4_core
node-guid=0002:c903:0031:7850
fw-ver=2.42.5000
hca-type=MT4099

[port mlx4_0/1]
link-layer=InfiniBand
state=4: ACTIVE
phys-state=5: LinkUp
rate=56 Gb/sec (4X FDR)
lid=3
sm-lid=1
active-mtu=2048
max-mtu=4096
broadcast-mtu=2048
pkeys=0xffff;0x8002
port-guid=0002:c903:0031:7851

[device mlx5_0]
driver=mlx5_core
node-guid=b859:9f03:00d4:1a2c
fw-ver=20.31.1014
hca-type=MT4123
enhanced-ipoib=true

[port mlx5_0/1]
link-layer=InfiniBand
active-mtu=4096
max-mtu=4096
broadcast-mtu=4096
pkeys=0xffff
port-guid=b859:9f03:00d4:1a2d

[netdev ib0]
kind=ipoib
rdma-port=mlx4_0/1
mtu=2044

[netdev ib1]
kind=ipoib
rdma-port=mlx5_0/1
mtu=4092

[netdev enp1s0]
address=52:54:00:12:34:56
mtu=1500
max-mtu=9000
up=true
)";

// A simulated host from the host description `text` (named `name` in errors).
inline std::unique_ptr<platform::FakePlatform> makeTestFake(const char *text = kTestHost,
                                                            const char *name = "test.host")
{
    auto st = platform::parseHostDescription(text, name);
    EXPECT_TRUE(st.ok()) << st.error().toString();
    if (!st.ok())
        return nullptr;
    return std::make_unique<platform::FakePlatform>(std::move(st).value());
}

// A canonical text of the whole host, to compare before and after. With
// `addressesAsSet`, each netdev's addresses are sorted: an undo re-adds a
// removed address at the end of the list (as the kernel does).
inline std::string snapshot(platform::FakePlatform &p, bool addressesAsSet = false)
{
    auto h = p.readHost();
    EXPECT_TRUE(h.ok());
    if (!h.ok())
        return {};
    platform::FakeState st;
    st.host = *h;
    // systemd-resolved's DNS per link, which readHost() leaves out.
    if (auto r = p.readResolver(); r.ok())
        st.resolver = std::move(r).value();
    if (addressesAsSet)
        for (auto &n : st.host.netdevs)
            std::sort(n.addresses.begin(), n.addresses.end());
    return platform::formatHostDescription(st);
}

struct FakeFactory {
    static std::unique_ptr<platform::Platform> make() { return makeTestFake(); }
    static std::string makeEthernet(platform::Platform &p, const std::string &name)
    {
        model::Netdev n;
        n.name = name;
        n.kind = "dummy";
        auto st = static_cast<platform::FakePlatform &>(p).addNetdev(n);
        EXPECT_TRUE(st.ok()) << st.error().toString();
        return st.ok() ? name : std::string();
    }
    static bool canIpoib() { return true; }
    static std::string ipoibParent() { return "ib0"; }
    static std::string enhancedIpoibParent() { return "ib1"; }
};

} // namespace ibnm::test
