// SPDX-License-Identifier: LGPL-2.1-or-later
// The values the kernel and its drivers derive, as FakePlatform::readHost()
// shows them: RoCE GIDs from the netdevs' MACs and addresses (rxe, siw,
// RoCE NICs), soft devices' port state, bond port lists, and RoCE LAG as the
// mlx5 driver does it (one RDMA device for a bond of a card's two functions).
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include <arpa/inet.h>

namespace ibnm::platform {

using model::GidType;
using model::LinkLayer;
using model::SoftLinkType;

using namespace fake;

namespace {

bool parseMac(const std::string &mac, unsigned m[6])
{
    return std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) == 6;
}

std::string linkLocalGid(const std::string &mac)
{
    unsigned m[6];
    if (!parseMac(mac, m))
        return {};
    return strprintf("fe80:0000:0000:0000:%02x%02x:%02xff:fe%02x:%02x%02x", m[0] ^ 0x02, m[1], m[2], m[3], m[4],
                     m[5]);
}

std::string siwGid(const std::string &mac)
{
    unsigned m[6];
    if (!parseMac(mac, m))
        return {};
    return strprintf("%02x%02x:%02x%02x:%02x%02x:0000:0000:0000:0000:0000", m[0], m[1], m[2], m[3], m[4], m[5]);
}

// The GID of an address ("192.0.2.1/24", "2001:db8::1/64") as sysfs prints
// it; empty for IPv6 link-local addresses (the default GID covers them).
std::string addressGid(const std::string &cidr)
{
    std::string addr = cidr.substr(0, cidr.find('/'));
    unsigned char b[16] = {};
    if (addr.find(':') == std::string::npos) {
        if (inet_pton(AF_INET, addr.c_str(), b + 12) != 1)
            return {};
        b[10] = b[11] = 0xff;
    } else {
        if (inet_pton(AF_INET6, addr.c_str(), b) != 1)
            return {};
        if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
            return {};
    }
    std::string out;
    for (int i = 0; i < 16; i += 2)
        out += strprintf("%s%02x%02x", i ? ":" : "", b[i], b[i + 1]);
    return out;
}

bool isIpv4(const std::string &cidr)
{
    return cidr.find(':') == std::string::npos;
}


unsigned ibMtuFor(unsigned netdevMtu)
{
    // rxe/siw: the largest IB MTU that fits the Ethernet MTU with the
    // RoCE v2 headers.
    for (unsigned m : {4096u, 2048u, 1024u, 512u})
        if (netdevMtu >= m + 80)
            return m;
    return 256;
}

} // namespace

namespace fake {

std::vector<Lag> lagsOf(const model::Host &h)
{
    std::vector<Lag> out;
    for (const auto &b : h.bonds) {
        if (b.mode != "active-backup" && b.mode != "balance-xor" && b.mode != "802.3ad")
            continue;
        std::vector<const model::Device *> devs;
        const std::vector<size_t> ports = portsOf(h, b.name);
        for (size_t i : ports) {
            const model::Device *d = h.findDevice(h.netdevs[i].rdmaDevice);
            if (d && d->driver == "mlx5_core" && d->ports.size() == 1 &&
                d->ports[0].linkLayer == LinkLayer::Ethernet && !d->pciAddress.empty())
                devs.push_back(d);
        }
        if (ports.size() != 2 || devs.size() != 2 || devs[0] == devs[1])
            continue;
        auto slot = [](const std::string &pci) { return pci.substr(0, pci.rfind('.')); };
        if (slot(devs[0]->pciAddress) != slot(devs[1]->pciAddress) || devs[0]->pciAddress == devs[1]->pciAddress)
            continue;
        if (devs[1]->pciAddress < devs[0]->pciAddress)
            std::swap(devs[0], devs[1]);
        out.push_back({"mlx5_bond_" + std::to_string(out.size()), devs[0]->name, devs[1]->name, b.name});
    }
    return out;
}

} // namespace fake

namespace {

// The host as the kernel shows it in LAG mode: the bonded device in place
// of the first function's, the second hidden, the bond its netdev.
void applyLags(model::Host &h)
{
    auto lags = lagsOf(h);
    for (const auto &l : lags) {
        for (auto &d : h.devices)
            if (d.name == l.primary)
                d.name = l.name;
        h.devices.erase(std::remove_if(h.devices.begin(), h.devices.end(),
                                       [&](const model::Device &d) { return d.name == l.secondary; }),
                        h.devices.end());
        for (auto &n : h.netdevs) {
            if (n.name == l.bond) {
                n.rdmaDevice = l.name;
                n.rdmaPort = 1;
            } else if (n.rdmaDevice == l.primary || n.rdmaDevice == l.secondary) {
                n.rdmaDevice.clear();
                n.rdmaPort = 0;
            }
        }
    }
}

// The values the kernel derives, filled into a snapshot.
void derive(model::Host &h)
{
    for (auto &b : h.bonds) {
        b.ports.clear();
        for (size_t i : portsOf(h, b.name))
            b.ports.push_back(h.netdevs[i].name);
    }
    // A netdev's PCI function is its RDMA device's (a port of a card):
    // /sys/class/net/<if>/device, which LAG mode does not change.
    for (auto &n : h.netdevs)
        if (const model::Device *d = h.findDevice(n.rdmaDevice); d && n.link.empty())
            n.pciAddress = d->pciAddress;
    // (Renames and hides devices, changes netdevs' RDMA ports: neither the
    // netdevs nor their names.)
    applyLags(h);
    for (auto &ib : h.ipoib) {
        if (const auto *n = h.findNetdev(ib.name)) {
            ib.mtu = n->mtu;
            ib.address = n->address;
            ib.portGuid = portGuidFromIpoibAddress(n->address);
        }
    }
    for (auto &d : h.devices) {
        const model::SoftLink *soft = h.findSoftLink(d.name);
        for (auto &p : d.ports) {
            if (p.linkLayer != LinkLayer::Ethernet)
                continue;
            // The netdevs over the port (not VLANs), then the VLANs over
            // them, in the netdevs' order.
            std::vector<const model::Netdev *> base;
            if (soft) {
                if (const auto *n = h.findNetdev(soft->netdev))
                    base.push_back(n);
            } else {
                for (const auto &n : h.netdevs)
                    if (n.link.empty() && n.rdmaDevice == d.name && n.rdmaPort == p.number)
                        base.push_back(&n);
            }
            std::vector<const model::Netdev *> all = base;
            for (const auto &n : h.netdevs)
                if (n.kind == "vlan" &&
                    std::any_of(base.begin(), base.end(), [&](const auto *b) { return b->name == n.link; }))
                    all.push_back(&n);

            p.gids.clear();
            // roce_enable 0: "there will be no GID tables" (NVIDIA's RoCE page).
            if (d.roceEnabled == false)
                continue;
            if (soft && soft->type == SoftLinkType::Siw) {
                if (!base.empty())
                    p.gids.push_back({0, siwGid(base.front()->address), GidType::IbRoceV1, ""});
            } else {
                std::vector<GidType> types;
                if (!soft)
                    types.push_back(GidType::IbRoceV1);
                types.push_back(GidType::RoceV2);
                unsigned idx = 0;
                auto add = [&](const std::string &gid, const std::string &netdev) {
                    if (gid.empty())
                        return;
                    for (auto t : types)
                        p.gids.push_back({idx++, gid, t, netdev});
                };
                for (const auto *n : base)
                    add(linkLocalGid(n->address), n->name);
                for (const auto *n : all)
                    for (const auto &a : n->addresses)
                        if (isIpv4(a))
                            add(addressGid(a), n->name);
                for (const auto *n : all)
                    for (const auto &a : n->addresses)
                        if (!isIpv4(a))
                            add(addressGid(a), n->name);
            }
            if (soft) {
                bool up = !base.empty() && base.front()->up;
                p.state = up ? "4: ACTIVE" : "1: DOWN";
                p.physState = up ? "5: LinkUp" : "3: Disabled";
                p.activeMtu = std::min(p.maxMtu.value_or(4096), base.empty() ? 1024 : ibMtuFor(base.front()->mtu));
            }
        }
    }
    // VLANs over a RoCE netdev map to its port, as gid_attrs/ndevs shows.
    for (auto &n : h.netdevs) {
        if (n.kind == "vlan" && n.rdmaDevice.empty()) {
            if (const auto *lower = h.findNetdev(n.link)) {
                n.rdmaDevice = lower->rdmaDevice;
                n.rdmaPort = lower->rdmaPort;
            }
        }
    }
}

} // namespace

model::Device *FakePlatform::storedDevice(const std::string &name)
{
    std::string stored = name;
    for (const auto &l : lagsOf(state_.host)) {
        if (name == l.name) {
            stored = l.primary;
            break;
        }
        if (name == l.primary || name == l.secondary)
            return nullptr;
    }
    return findDevice(state_.host, stored);
}

Result<model::Host> FakePlatform::readHost()
{
    auto s = transact(false, [] { return Status(); });
    if (!s.ok())
        return std::move(s).error();
    model::Host h = state_.host;
    derive(h);
    for (auto &n : h.netdevs)
        if (auto it = state_.maxMtu.find(n.name); it != state_.maxMtu.end())
            n.maxMtu = it->second;
    return h;
}

} // namespace ibnm::platform
