// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference model's host and profiles (nm-model.hpp): the host as read
// back from the simulator in the model's terms and how two differ, the RDMA
// devices the kernel shows (RoCE LAG), the child names the kernel gives, and
// profiles as `ibnm connection add/modify` arguments.
#include "config.h"

#include "tests/sequences/nm-model.hpp"

#include "libcore/model/host.hpp"

#include <algorithm>
#include <cstdio>

namespace ibnm::test::nm {

namespace {

std::string hex4(int v)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04x", unsigned(v) & 0xffff);
    return buf;
}

std::string join(const std::vector<std::string> &v, const char *sep = ",")
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : sep) + x;
    return s;
}

template <typename T>
std::string show(const Known<T> &v);
template <>
std::string show(const Known<unsigned> &v)
{
    return v ? std::to_string(*v) : "?";
}
template <>
std::string show(const Known<std::string> &v)
{
    return v ? *v : "?";
}

} // namespace

std::string childName(const std::string &parent, int pkey, bool ofed)
{
    int shown = ofed ? (pkey | 0x8000) : pkey;
    return (parent + "." + hex4(shown)).substr(0, 15);
}

// --- the host -------------------------------------------------------------------

std::set<std::string> Host::rdmaDevices() const
{
    std::set<std::string> out;
    std::set<std::string> merged;
    unsigned lags = 0;
    // NVIDIA's RoCE LAG (the card's two functions, each one Ethernet port,
    // the only ports of one bond in active-backup, balance-xor or 802.3ad):
    // the driver registers one device mlx5_bond_N instead of the two.
    for (const auto &[bond, mode] : bondModes) {
        if (mode != "active-backup" && mode != "balance-xor" && mode != "802.3ad")
            continue;
        std::vector<std::string> fns;
        unsigned ports = 0;
        for (const auto &[name, l] : links)
            if (l.master == bond) {
                ports++;
                auto f = functions.find(l.rdmaDevice);
                if (f != functions.end() && f->second.driver == "mlx5_core" && f->second.ethernet)
                    fns.push_back(l.rdmaDevice);
            }
        if (ports != 2 || fns.size() != 2 || fns[0] == fns[1])
            continue;
        const std::string &a = functions.at(fns[0]).pci, &b = functions.at(fns[1]).pci;
        if (a.empty() || a.substr(0, a.rfind('.')) != b.substr(0, b.rfind('.')))
            continue;
        merged.insert(fns.begin(), fns.end());
        out.insert("mlx5_bond_" + std::to_string(lags++));
    }
    for (const auto &[name, f] : functions)
        if (!merged.count(name))
            out.insert(name);
    for (const auto &[name, l] : softLinks)
        out.insert(name);
    return out;
}

std::string Host::rdmaDeviceOf(const std::string &netdev) const
{
    for (const auto &[name, l] : softLinks)
        if (l.netdev == netdev)
            return name;
    auto it = links.find(netdev);
    return it == links.end() ? std::string() : it->second.rdmaDevice;
}

Host project(const model::Host &h, const model::Host &described)
{
    Host out;
    out.ofedNaming = h.childNaming == model::ChildNaming::FullMembershipBit;
    for (const auto &n : h.netdevs) {
        Link l;
        const model::IpoibNetdev *ib = h.findIpoib(n.name);
        l.ipoib = ib != nullptr;
        l.kind = n.kind == "bond"                        ? Link::Kind::Bond
                 : ib && !ib->parent.empty()             ? Link::Kind::Child
                 : n.kind.empty() || n.kind == "ipoib" ? Link::Kind::Hardware
                                                         : Link::Kind::Other;
        l.up = n.up;
        l.mtu = n.mtu;
        l.master = n.master;
        for (const auto &a : n.addresses)
            if (a.rfind("fe80:", 0) != 0)
                l.addresses.insert(a);
        if (ib) {
            l.parent = ib->parent;
            l.pkey = ib->pkey;
            l.connected = ib->mode == model::IpoibMode::Connected;
            l.umcast = ib->umcast;
            l.guid = n.address.size() >= 23 ? n.address.substr(n.address.size() - 23) : n.address;
        }
        // Static facts, from the description (a LAG hides the functions).
        const model::Netdev *d = described.findNetdev(ib && !ib->parent.empty() ? ib->parent : n.name);
        if (d) {
            l.rdmaDevice = d->rdmaDevice;
            l.rdmaPort = d->rdmaPort;
            l.maxMtu = d->maxMtu.value_or(65535);
            if (const model::Device *dev = described.findDevice(d->rdmaDevice); dev && l.ipoib) {
                const model::Port &p = dev->ports.at(d->rdmaPort - 1);
                unsigned max = p.maxMtu.value_or(4096);
                unsigned link = p.activeMtu.value_or(max);
                unsigned bcast = p.broadcastMtu.value_or(link);
                l.datagramMax = max - 4;
                l.datagramCeiling = std::min(link, bcast) - 4;
                l.connectedOk = dev->connectedModeSupported && !dev->enhancedIpoib;
            }
        }
        out.links[n.name] = l;
    }
    for (const auto &b : h.bonds)
        out.bondModes[b.name] = b.mode;
    for (const auto &s : h.softLinks)
        out.softLinks[s.name] = {s.type == model::SoftLinkType::Rxe ? "rxe" : "siw", s.netdev};
    for (const auto &d : described.devices)
        if (!d.pciAddress.empty() || d.driver.rfind("mlx", 0) == 0)
            out.functions[d.name] = {d.driver, d.pciAddress,
                                     !d.ports.empty() && d.ports[0].linkLayer == model::LinkLayer::Ethernet};
    for (const auto &d : h.devices) {
        out.devices.insert(d.name);
        for (const auto &p : d.ports) {
            std::string key = d.name + "/" + std::to_string(p.number);
            RoceDefaults r;
            r.present = p.defaultRoceMode || p.defaultRoceTos;
            if (p.defaultRoceMode)
                r.mode = *p.defaultRoceMode == model::RoceMode::V1 ? "v1" : "v2";
            r.tos = p.defaultRoceTos;
            out.roce[key] = r;
            if (d.driver == "mlx5_core")
                out.tc[key] = {p.trafficClass, p.ttl};
        }
    }
    return out;
}

std::string difference(const Host &m, const Host &a)
{
    auto yes = [](bool b) { return b ? "yes" : "no"; };
    for (const auto &[name, l] : m.links)
        if (!a.links.count(name))
            return name + ": missing on the host";
    for (const auto &[name, l] : a.links)
        if (!m.links.count(name))
            return name + ": on the host, not in the model";
    for (const auto &[name, ml] : m.links) {
        const Link &al = a.links.at(name);
        std::string p = name + ": ";
        if (ml.up != al.up)
            return p + "up: model " + yes(ml.up) + ", host " + yes(al.up);
        if (ml.master != al.master)
            return p + "master: model '" + ml.master + "', host '" + al.master + "'";
        if (ml.mtu && ml.mtu != al.mtu)
            return p + "MTU: model " + show(ml.mtu) + ", host " + show(al.mtu);
        if (ml.ipoib && ml.connected != al.connected)
            return p + "mode: model " + (ml.connected ? "connected" : "datagram") + ", host " +
                   (al.connected ? "connected" : "datagram");
        if (ml.ipoib && ml.umcast != al.umcast)
            return p + "umcast: model " + yes(ml.umcast) + ", host " + yes(al.umcast);
        if (ml.addresses != al.addresses)
            return p + "addresses: model {" + join({ml.addresses.begin(), ml.addresses.end()}) + "}, host {" +
                   join({al.addresses.begin(), al.addresses.end()}) + "}";
    }
    if (m.bondModes != a.bondModes) {
        std::string s = "bonds: model";
        for (const auto &[b, mode] : m.bondModes)
            s += " " + b + "(" + mode + ")";
        s += ", host";
        for (const auto &[b, mode] : a.bondModes)
            s += " " + b + "(" + mode + ")";
        return s;
    }
    for (const auto &[name, s] : m.softLinks)
        if (!a.softLinks.count(name) || a.softLinks.at(name).type != s.type || a.softLinks.at(name).netdev != s.netdev)
            return "soft RDMA link " + name + " (" + s.type + " over " + s.netdev + "): not on the host";
    for (const auto &[name, s] : a.softLinks)
        if (!m.softLinks.count(name))
            return "soft RDMA link " + name + ": on the host, not in the model";
    std::set<std::string> devs = m.rdmaDevices();
    if (devs != a.devices)
        return "RDMA devices: model {" + join({devs.begin(), devs.end()}) + "}, host {" +
               join({a.devices.begin(), a.devices.end()}) + "}";
    for (const auto &[key, r] : m.roce) {
        RoceDefaults h = a.roce.count(key) ? a.roce.at(key) : RoceDefaults{};
        if (r.present != h.present)
            return key + ": RoCE defaults (configfs rdma_cm): model " + (r.present ? "set" : "absent") + ", host " +
                   (h.present ? "set" : "absent");
        if (r.mode && r.mode != h.mode)
            return key + ": default RoCE mode: model " + show(r.mode) + ", host " + show(h.mode);
        if (r.tos && r.tos != h.tos)
            return key + ": default RoCE ToS: model " + show(r.tos) + ", host " + show(h.tos);
    }
    for (const auto &[key, t] : m.tc) {
        TrafficClass h = a.tc.count(key) ? a.tc.at(key) : TrafficClass{};
        if (t.tclass && t.tclass != h.tclass)
            return key + ": traffic class: model " + show(t.tclass) + ", host " + show(h.tclass);
        if (t.ttl && t.ttl != h.ttl)
            return key + ": TTL: model " + show(t.ttl) + ", host " + show(h.ttl);
    }
    return {};
}

// --- profiles as nmcli arguments ---------------------------------------------------

namespace {

void ipArgs(std::vector<std::string> &a, const Profile &p)
{
    if (p.ipv4.empty())
        a.insert(a.end(), {"ipv4.method", "disabled"});
    else
        a.insert(a.end(), {"ipv4.method", "manual", "ipv4.addresses", join(p.ipv4)});
    if (p.ipv6.empty())
        a.insert(a.end(), {"ipv6.method", "disabled"});
    else
        a.insert(a.end(), {"ipv6.method", "manual", "ipv6.addresses", join(p.ipv6)});
}

const char *mtuKey(const Profile &p)
{
    return p.type == Profile::Type::Infiniband ? "infiniband.mtu" : "802-3-ethernet.mtu";
}

} // namespace

std::vector<std::string> Profile::addArgs() const
{
    std::vector<std::string> a = {"type"};
    a.push_back(type == Type::Infiniband ? "infiniband" : type == Type::Ethernet ? "ethernet" : "bond");
    // Activation by command only: NetworkManager also activates a profile
    // that connects automatically when its device (a port's controller)
    // appears, which the model leaves out (the lab's advice too).
    a.insert(a.end(), {"con-name", id, "connection.autoconnect", "no"});
    if (!ifname.empty())
        a.insert(a.end(), {"ifname", ifname});
    if (!mac.empty())
        a.insert(a.end(), {"infiniband.mac-address", mac});
    if (isChild())
        a.insert(a.end(), {"infiniband.parent", parent, "infiniband.p-key", "0x" + hex4(pkey)});
    if (type == Type::Infiniband)
        a.insert(a.end(), {"infiniband.transport-mode", connected ? "connected" : "datagram"});
    if (type == Type::Bond)
        a.insert(a.end(), {"bond.options", "mode=" + bondMode});
    if (mtu)
        a.insert(a.end(), {mtuKey(*this), std::to_string(mtu)});
    if (!master.empty())
        a.insert(a.end(), {"connection.master", master, "connection.slave-type", "bond"});
    else
        ipArgs(a, *this);
    if (umcast)
        a.insert(a.end(), {"ipoib.umcast", *umcast ? "yes" : "no"});
    if (!linkType.empty())
        a.insert(a.end(), {"rdma.link-type", linkType, "rdma.link-name", linkName});
    if (!roceMode.empty())
        a.insert(a.end(), {"rdma.roce-mode", roceMode});
    if (roceTos >= 0)
        a.insert(a.end(), {"rdma.roce-tos", std::to_string(roceTos)});
    if (trafficClass >= 0)
        a.insert(a.end(), {"rdma.traffic-class", std::to_string(trafficClass)});
    if (ttl >= 0)
        a.insert(a.end(), {"rdma.ttl", std::to_string(ttl)});
    return a;
}

std::vector<std::string> Profile::modifyArgs(const Profile &to) const
{
    std::vector<std::string> a;
    auto num = [](int v) { return v < 0 ? std::string() : std::to_string(v); };
    if (ifname != to.ifname)
        a.insert(a.end(), {"connection.interface-name", to.ifname});
    if (mac != to.mac)
        a.insert(a.end(), {"infiniband.mac-address", to.mac});
    if (parent != to.parent)
        a.insert(a.end(), {"infiniband.parent", to.parent});
    if (pkey != to.pkey)
        a.insert(a.end(), {"infiniband.p-key", to.pkey < 0 ? "default" : "0x" + hex4(to.pkey)});
    if (connected != to.connected)
        a.insert(a.end(), {"infiniband.transport-mode", to.connected ? "connected" : "datagram"});
    if (bondMode != to.bondMode)
        a.insert(a.end(), {"bond.options", "mode=" + to.bondMode});
    if (mtu != to.mtu)
        a.insert(a.end(), {mtuKey(to), std::to_string(to.mtu)});
    if (master != to.master) {
        a.insert(a.end(), {"connection.master", to.master, "connection.slave-type", to.master.empty() ? "" : "bond"});
        if (to.master.empty())
            ipArgs(a, to); // a port no more: IP settings of its own
    } else if (to.master.empty() && (ipv4 != to.ipv4 || ipv6 != to.ipv6)) {
        // Addresses before the method: "disabled" takes none.
        a.insert(a.end(), {"ipv4.addresses", join(to.ipv4), "ipv4.method", to.ipv4.empty() ? "disabled" : "manual",
                           "ipv6.addresses", join(to.ipv6), "ipv6.method", to.ipv6.empty() ? "disabled" : "manual"});
    }
    if (umcast != to.umcast)
        a.insert(a.end(), {"ipoib.umcast", to.umcast ? (*to.umcast ? "yes" : "no") : ""});
    if (linkType != to.linkType || linkName != to.linkName)
        a.insert(a.end(), {"rdma.link-type", to.linkType, "rdma.link-name", to.linkName});
    if (roceMode != to.roceMode)
        a.insert(a.end(), {"rdma.roce-mode", to.roceMode});
    if (roceTos != to.roceTos)
        a.insert(a.end(), {"rdma.roce-tos", num(to.roceTos)});
    if (trafficClass != to.trafficClass)
        a.insert(a.end(), {"rdma.traffic-class", num(to.trafficClass)});
    if (ttl != to.ttl)
        a.insert(a.end(), {"rdma.ttl", num(to.ttl)});
    return a;
}

} // namespace ibnm::test::nm
