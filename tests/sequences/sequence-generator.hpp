// SPDX-License-Identifier: LGPL-2.1-or-later
// The sequence test's steps (add, modify, up, down, delete, apply of a
// document, show-state then apply; faults in up, down and apply), the command
// lines a user would type for them, and the generator that makes sequences of
// them for a host from fixed seeds (sequence-test.cpp).
#pragma once

#include "tests/activation/example-hosts.hpp"
#include "tests/sequences/nm-model.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace ibnm::test::seq {

using nm::DocEntry;
using nm::Profile;
using nm::Status;
using Type = nm::Profile::Type;

// --- steps ----------------------------------------------------------------------------

struct Step {
    enum class Kind {
        Add,
        Modify,
        Up,
        Down,
        Delete,
        Apply,
        ShowStateApply,
        LinkDownByHand,
        KeyfileByHand, // a profile written as nmcli or an editor would, unchecked
    } kind = Kind::Add;
    Profile profile;              // add: the new one; modify: the result
    std::vector<std::string> ids; // modify, up, down, delete
    std::vector<DocEntry> doc;    // apply
    bool fault = false;           // inject a fault in up, down, apply
    unsigned faultPick = 0;       // which planned operation fails: 1 + pick % planned
};

inline std::string quoted(const std::vector<std::string> &words)
{
    std::string s;
    for (const auto &w : words) {
        bool plain = !w.empty() && w.find_first_of(" '\"$\\;&|<>(){}*?[]#~=,") == std::string::npos;
        s += " " + (plain ? w : "'" + w + "'");
    }
    return s;
}

std::string documentJson(const std::vector<DocEntry> &doc);

// The step as the command lines a user would type (the reproducer).
inline std::string describe(const Step &s, const std::map<std::string, Profile> &stored)
{
    std::string fault = s.fault ? "IBNM_FAKE_FAIL='op=*,nth=<1 + " + std::to_string(s.faultPick) +
                                      " mod planned operations>,errno=EIO' "
                                : "";
    switch (s.kind) {
    case Step::Kind::Add: return "ibnm connection add" + quoted(s.profile.addArgs());
    case Step::Kind::Modify: {
        auto it = stored.find(s.ids[0]);
        Profile from = it == stored.end() ? Profile{} : it->second;
        return "ibnm connection modify " + s.ids[0] + quoted(from.modifyArgs(s.profile));
    }
    case Step::Kind::Up: return fault + "ibnm connection up" + quoted(s.ids);
    case Step::Kind::Down: return fault + "ibnm connection down" + quoted(s.ids);
    case Step::Kind::Delete: return "ibnm connection delete" + quoted(s.ids);
    case Step::Kind::Apply: return "echo '" + documentJson(s.doc) + "' | " + fault + "ibnm apply -";
    case Step::Kind::ShowStateApply: return "ibnm show-state | ibnm apply -";
    case Step::Kind::LinkDownByHand: return "ip link set " + s.ids[0] + " down   # by hand, on the simulated host";
    case Step::Kind::KeyfileByHand:
        return "ibnm --offline connection add" + quoted(s.profile.addArgs()) + " > KEYFILE-DIR/" + s.profile.id +
               ".nmconnection   # as nmcli would write it";
    }
    return {};
}

// --- declarative documents (docs/declarative-state.md) -------------------------------------

inline std::string addressesJson(const std::vector<std::string> &addrs)
{
    std::string s = "[";
    for (const auto &a : addrs) {
        size_t slash = a.find('/');
        s += (s.size() > 1 ? "," : "") + std::string("{\"ip\":\"") + a.substr(0, slash) +
             "\",\"prefix-length\":" + a.substr(slash + 1) + "}";
    }
    return s + "]";
}

inline std::string documentJson(const std::vector<DocEntry> &doc)
{
    std::string s = "{\"interfaces\":[";
    for (size_t i = 0; i < doc.size(); i++) {
        const Profile &p = doc[i].profile;
        char pkey[16];
        std::snprintf(pkey, sizeof pkey, "0x%04x", unsigned(p.pkey) & 0xffff);
        s += i ? "," : "";
        s += "{\"name\":\"" + p.ifname + "\",\"type\":\"" + (p.type == Type::Infiniband ? "infiniband" : "ethernet") +
             "\",\"state\":\"" + doc[i].state + "\"";
        if (doc[i].state != "absent") {
            if (p.mtu)
                s += ",\"mtu\":" + std::to_string(p.mtu);
            if (p.type == Type::Infiniband) {
                s += ",\"infiniband\":{";
                if (p.isChild())
                    s += "\"base-iface\":\"" + p.parent + "\",\"pkey\":\"" + pkey + "\",";
                s += std::string("\"mode\":\"") + (p.connected ? "connected" : "datagram") + "\"}";
            }
            s += ",\"ipv4\":" + (p.ipv4.empty() ? std::string("{\"enabled\":false}")
                                                : "{\"enabled\":true,\"dhcp\":false,\"address\":" +
                                                      addressesJson(p.ipv4) + "}");
            s += ",\"ipv6\":" + (p.ipv6.empty() ? std::string("{\"enabled\":false}")
                                                : "{\"enabled\":true,\"dhcp\":false,\"autoconf\":false,\"address\":" +
                                                      addressesJson(p.ipv6) + "}");
            std::string rdma;
            auto add = [&](const std::string &k, const std::string &v) { rdma += (rdma.empty() ? "" : ",") + k + ":" + v; };
            if (!p.linkType.empty()) {
                add("\"link-type\"", "\"" + p.linkType + "\"");
                add("\"link-name\"", "\"" + p.linkName + "\"");
            }
            if (!p.roceMode.empty())
                add("\"roce-mode\"", "\"" + p.roceMode + "\"");
            if (p.roceTos >= 0)
                add("\"roce-tos\"", std::to_string(p.roceTos));
            if (p.trafficClass >= 0)
                add("\"traffic-class\"", std::to_string(p.trafficClass));
            if (p.ttl >= 0)
                add("\"ttl\"", std::to_string(p.ttl));
            if (p.umcast)
                add("\"umcast\"", *p.umcast ? "true" : "false");
            if (!rdma.empty())
                s += ",\"ibnm-rdma\":{" + rdma + "}";
        }
        s += "}";
    }
    return s + "]}";
}

// --- the generator --------------------------------------------------------------------------

// What a host offers, beyond test::Names: for each IPoIB port whether it
// has connected mode and its MTU limits; for each Ethernet NIC its RDMA
// function's driver; RoCE LAG bonds and their ports.
struct HostOffer {
    Names names;
    nm::Host host;
    std::vector<std::string> lagPorts; // Ethernet ports of a bond described in the host file
    std::string lagBond;
};

class Generator {
public:
    Generator(unsigned seed, const HostOffer &offer) : rng_(seed), o_(offer) {}

    std::vector<Step> sequence(nm::Model model)
    {
        std::vector<Step> steps;
        unsigned n = 6 + pick(7);
        while (steps.size() < n) {
            // Now and then a scenario that reaches a rule random steps
            // seldom do.
            std::vector<Step> next1 = chance(6) ? scenario(model) : std::vector<Step>{};
            if (next1.empty())
                next1.push_back(next(model));
            for (auto &s : next1) {
                // The generator follows the model to know what exists and
                // is active; the test runs the model again alongside the
                // commands.
                play(model, s);
                steps.push_back(std::move(s));
            }
        }
        return steps;
    }

    static nm::Outcome play(nm::Model &m, const Step &s)
    {
        switch (s.kind) {
        case Step::Kind::Add: return m.add(s.profile);
        case Step::Kind::Modify: return m.modify(s.ids[0], s.profile);
        case Step::Kind::Up: return m.up(s.ids);
        case Step::Kind::Down: return m.down(s.ids);
        case Step::Kind::Delete: return m.remove(s.ids[0]);
        case Step::Kind::Apply: return m.apply(s.doc);
        case Step::Kind::ShowStateApply: return {};
        case Step::Kind::LinkDownByHand: m.linkDownByHand(s.ids[0]); return {};
        case Step::Kind::KeyfileByHand: m.setProfile(s.profile.id, s.profile); return {};
        }
        return {};
    }

private:
    unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
    bool chance(unsigned inN) { return pick(inN) == 0; }
    template <typename T>
    const T &one(const std::vector<T> &v) { return v[pick(unsigned(v.size()))]; }

    std::vector<std::string> stored(const nm::Model &m, int activeWanted = -1) const
    {
        std::vector<std::string> ids;
        for (const auto &[id, p] : m.profiles())
            if (activeWanted < 0 || m.active(id) == bool(activeWanted))
                ids.push_back(id);
        return ids;
    }

    Step next(const nm::Model &m)
    {
        Step s;
        auto all = stored(m), on = stored(m, 1), off = stored(m, 0);
        unsigned r = pick(100);
        if (all.empty() || r < 28) {
            s.kind = Step::Kind::Add;
            s.profile = fresh(m);
        } else if (r < 42) {
            s.kind = Step::Kind::Modify;
            s.ids = {!on.empty() && chance(2) ? one(on) : one(all)}; // an active one: N4, N5 next
            s.profile = changed(m.profiles().at(s.ids[0]));
        } else if (r < 62) {
            s.kind = Step::Kind::Up;
            std::vector<std::string> stale; // active with other settings stored (N4)
            for (const auto &id : on)
                if (m.activation(id)->applied != m.profiles().at(id))
                    stale.push_back(id);
            s.ids = {!stale.empty() && chance(2) ? one(stale) : chance(3) || off.empty() ? one(all) : one(off)};
            if (chance(4) && all.size() > 1) { // up of several
                for (unsigned k = 0; k < 2; k++) {
                    const std::string &x = one(all);
                    if (std::find(s.ids.begin(), s.ids.end(), x) == s.ids.end())
                        s.ids.push_back(x);
                }
            }
        } else if (r < 75) {
            s.kind = Step::Kind::Down;
            s.ids = {!on.empty() && !chance(4) ? one(on) : one(all)};
        } else if (r < 83) {
            s.kind = Step::Kind::Delete;
            s.ids = {one(all)};
        } else if (r < 92) {
            s.kind = Step::Kind::Apply;
            s.doc = document(m);
            if (s.doc.empty())
                return next(m);
        } else if (r < 96) {
            s.kind = Step::Kind::ShowStateApply;
        } else if (r < 98 && !on.empty()) {
            // An administrator takes an active profile's interface (or a
            // child's parent) down.
            const nm::Activation *a = m.activation(one(on));
            const auto &links = m.host().links;
            auto l = links.find(a->device);
            if (l == links.end() || (l->second.kind != nm::Link::Kind::Hardware && l->second.kind != nm::Link::Kind::Child))
                return next(m);
            s.kind = Step::Kind::LinkDownByHand;
            s.ids = {l->second.kind == nm::Link::Kind::Child ? l->second.parent : a->device};
        } else {
            // A profile that does not exist (N11).
            s.kind = chance(2) ? Step::Kind::Up : chance(2) ? Step::Kind::Down : Step::Kind::Delete;
            s.ids = {"no-such-profile"};
        }
        if ((s.kind == Step::Kind::Up || s.kind == Step::Kind::Down || s.kind == Step::Kind::Apply) && chance(4)) {
            s.fault = true;
            s.faultPick = pick(1000);
        }
        return s;
    }

    static Step add(const Profile &p)
    {
        Step s;
        s.profile = p;
        return s;
    }
    static Step command(Step::Kind kind, const std::string &id, const Profile &p = {})
    {
        Step s;
        s.kind = kind;
        s.ids = {id};
        s.profile = p;
        return s;
    }

    // Short scenarios for the rules random steps seldom reach: a parent's
    // mode change under an active child (F1), a child's new P_Key (N4), a
    // bond taken down under an active port (N8), a RoCE LAG port on its own
    // (F2). Empty when the host has nothing for the one picked.
    std::vector<Step> scenario(const nm::Model &m)
    {
        using K = Step::Kind;
        std::vector<Step> out;
        switch (pick(8)) {
        case 0: { // F1: an IPoIB port with connected mode, a child and the port's own profile
            std::vector<std::string> cm;
            for (const auto &n : o_.names.ipoib)
                if (link(n).connectedOk)
                    cm.push_back(n);
            if (cm.empty())
                break;
            Profile c, b;
            c.id = "p" + std::to_string(++ids_);
            child(c);
            c.parent = one(cm);
            c.pkey = 0x8003 + int(pick(3)), c.mtu = 0, c.ifname.clear();
            b.id = "p" + std::to_string(++ids_);
            b.type = Type::Infiniband, b.ifname = c.parent, b.connected = link(c.parent).connected;
            addresses(b);
            Profile toggled = b;
            toggled.connected = !b.connected;
            out = {add(c), command(K::Up, c.id), add(b), command(K::Up, b.id), command(K::Modify, b.id, toggled),
                   command(K::Up, b.id), command(K::Up, c.id)};
            break;
        }
        case 1: { // N4: a child's new P_Key while it is active
            if (o_.names.ipoib.empty())
                break;
            Profile c;
            c.id = "p" + std::to_string(++ids_);
            child(c);
            c.pkey = 0x8002, c.ifname.clear();
            Profile moved = c;
            moved.pkey = 0x8004;
            out = {add(c), command(K::Up, c.id), command(K::Modify, c.id, moved), command(K::Up, c.id)};
            break;
        }
        case 2: { // N8: a bond with an active port, taken down
            Profile b, port;
            b.id = "p" + std::to_string(++ids_);
            port.id = "p" + std::to_string(++ids_);
            bondOrPort(nm::Model(o_.host), b); // a new bond (no stored one to join)
            if (b.type != Type::Bond || b.ifname == o_.lagBond)
                break;
            bool ib = !o_.names.ipoib.empty();
            b.bondMode = ib ? "active-backup" : b.bondMode;
            port.type = ib ? Type::Infiniband : Type::Ethernet;
            port.ifname = ib ? one(o_.names.ipoib) : one(o_.names.ethernet);
            port.master = b.ifname;
            out = {add(b), add(port), command(K::Up, port.id), command(K::Down, b.id)};
            break;
        }
        case 3: { // F1: a child's parent down by hand; the child's up brings it back
            if (o_.names.ipoib.empty())
                break;
            Profile c;
            c.id = "p" + std::to_string(++ids_);
            child(c);
            c.connected = false, c.mtu = 0, c.ifname.clear();
            c.ipv6 = {addr6()};
            out = {add(c), command(K::Up, c.id), command(K::LinkDownByHand, c.parent), command(K::Up, c.id)};
            break;
        }
        case 4: { // F1a: the port's own profile activated while the port was down by hand, then changed
            if (o_.names.ipoib.empty())
                break;
            Profile c, b;
            c.id = "p" + std::to_string(++ids_);
            child(c);
            c.connected = false, c.mtu = 0, c.ifname.clear();
            c.ipv6 = {addr6()};
            b.id = "p" + std::to_string(++ids_);
            b.type = Type::Infiniband, b.ifname = c.parent;
            b.connected = link(c.parent).connected;
            addresses(b);
            Profile changedMtu = b;
            changedMtu.mtu = 1500;
            out = {add(c),
                   command(K::Up, c.id),
                   command(K::LinkDownByHand, c.parent),
                   command(K::Up, c.id),
                   add(b),
                   command(K::Up, b.id),
                   command(K::Modify, b.id, changedMtu),
                   command(K::Up, b.id)};
            break;
        }
        case 5: { // K6a: a document naming a stored child by its interface
            if (o_.names.ipoib.empty())
                break;
            Profile c;
            c.id = "p" + std::to_string(++ids_);
            child(c);
            c.connected = false, c.mtu = 0, c.ifname.clear();
            std::string name = nm::childName(c.parent, c.pkey, o_.host.ofedNaming);
            if (name != nm::childName(c.parent, c.pkey, false))
                break;
            Profile e = c;
            e.ifname = name;
            addresses(e);
            Step apply;
            apply.kind = K::Apply;
            apply.doc = {{e, "up"}};
            out = {add(c), apply};
            break;
        }
        case 6: { // K1a: a second profile for a child, written as nmcli would (NetworkManager allows it)
            if (o_.names.ipoib.empty())
                break;
            Profile c, d;
            c.id = "p" + std::to_string(++ids_);
            child(c);
            c.pkey = 0x8006, c.connected = false, c.mtu = 0, c.ifname.clear();
            d = c;
            d.id = "p" + std::to_string(++ids_);
            d.pkey = 0x0006;
            Step byHand = add(d);
            byHand.kind = K::KeyfileByHand;
            // Up of either: check calls one of them an error.
            out = {add(c), byHand, command(K::Up, chance(2) ? c.id : d.id)};
            break;
        }
        default: { // F2: a RoCE LAG port on its own, then down
            if (o_.lagPorts.empty())
                break;
            Profile p;
            p.id = "p" + std::to_string(++ids_);
            p.type = Type::Ethernet;
            p.ifname = one(o_.lagPorts);
            addresses(p);
            out = {add(p), command(K::Up, p.id), command(K::Down, p.id)};
        }
        }
        return out;
    }

    // --- values -------------------------------------------------------------------------------

    std::string addr4()
    {
        return (chance(2) ? "192.0.2." : "198.51.100.") + std::to_string(10 + (serial_++ % 200)) + "/24";
    }
    std::string addr6() { return "2001:db8:" + std::to_string(1 + pick(9)) + "::" + std::to_string(10 + serial_++) + "/64"; }
    void addresses(Profile &p)
    {
        p.ipv4.clear();
        p.ipv6.clear();
        switch (pick(8)) {
        case 0: break; // both disabled
        case 1: p.ipv6 = {addr6()}; break;
        case 2: p.ipv4 = {addr4()}; p.ipv6 = {addr6()}; break;
        default: p.ipv4 = {addr4()};
        }
    }
    const nm::Link &link(const std::string &n) const { return o_.host.links.at(n); }
    unsigned ibMtu(const nm::Link &port, bool connected)
    {
        if (chance(12))
            return connected ? 0 : 65520; // above the datagram maximum: refused
        std::vector<unsigned> v = connected ? std::vector<unsigned>{0, 65520, 32000, 4092}
                                            : std::vector<unsigned>{0, 1500, 2044, port.datagramMax};
        return one(v);
    }
    unsigned ethMtu(const nm::Link &nic)
    {
        if (chance(10))
            // Below 68 (F3), or above the NIC's maximum where the host
            // describes one (without it the simulator holds to 65535 but
            // shows none, as no kernel does: IFLA_MAX_MTU is always there).
            return chance(2) || nic.maxMtu >= 65535 ? 60 : nic.maxMtu + 100;
        std::vector<unsigned> v = {0, 1400, 1500};
        if (nic.maxMtu >= 9000)
            v.push_back(9000);
        return one(v);
    }
    bool mode(const nm::Link &port) { return (port.connectedOk || chance(10)) && chance(3); }

    Profile fresh(const nm::Model &m)
    {
        Profile p;
        p.id = "p" + std::to_string(++ids_);
        bool ib = !o_.names.ipoib.empty();
        bool eth = !o_.names.ethernet.empty();
        unsigned kind = pick(100);
        if (ib && kind < 30)
            base(p);
        else if (ib && kind < 60)
            child(p);
        else if (kind < 75 && (ib || o_.names.ethernet.size() > 1 || !o_.lagBond.empty()))
            bondOrPort(m, p);
        else if (eth)
            ethernet(p);
        else
            child(p);
        return p;
    }
    void base(Profile &p)
    {
        size_t i = pick(unsigned(o_.names.ipoib.size()));
        p.type = Type::Infiniband;
        if (chance(5))
            p.mac = o_.names.macs[i]; // named by its port GUID only
        else
            p.ifname = o_.names.ipoib[i];
        const nm::Link &port = link(o_.names.ipoib[i]);
        p.connected = mode(port);
        p.mtu = ibMtu(port, p.connected);
        addresses(p);
        if (chance(4))
            p.umcast = chance(2);
    }
    void child(Profile &p)
    {
        static const std::vector<int> pkeys = {0x8001, 0x8002, 0x0002, 0x8003, 0x0004, 0x8005, 0x0006};
        p.type = Type::Infiniband;
        p.parent = one(o_.names.ipoib);
        p.pkey = chance(15) ? 0x7fff : one(pkeys); // 0x7fff: the parent's own partition
        // NetworkManager takes the name `<parent>.%04x` of the raw value or
        // none; where the kernel names it so, sometimes given.
        std::string name = nm::childName(p.parent, p.pkey, o_.host.ofedNaming);
        if (chance(3) && name == nm::childName(p.parent, p.pkey, false))
            p.ifname = name;
        const nm::Link &port = link(p.parent);
        p.connected = mode(port);
        p.mtu = ibMtu(port, p.connected);
        addresses(p);
    }
    void ethernet(Profile &p)
    {
        p.type = Type::Ethernet;
        p.ifname = one(o_.names.ethernet);
        const nm::Link &nic = link(p.ifname);
        p.mtu = ethMtu(nic);
        addresses(p);
        rdma(p, nic);
    }
    void rdma(Profile &p, const nm::Link &nic)
    {
        auto f = o_.host.functions.find(nic.rdmaDevice);
        bool lagPort = std::find(o_.lagPorts.begin(), o_.lagPorts.end(), p.ifname) != o_.lagPorts.end();
        if (lagPort || chance(3))
            return;
        if (f == o_.host.functions.end()) {
            // Soft RDMA over a NIC without RDMA hardware.
            p.linkType = chance(3) ? "siw" : "rxe";
            p.linkName = p.linkType + "_" + p.ifname;
            if (p.linkType == "rxe" && chance(2)) {
                p.roceMode = chance(8) ? "v1" : "v2"; // v1: refused
                p.roceTos = chance(2) ? 106 : -1;
            }
            return;
        }
        if (chance(2)) {
            p.roceMode = chance(2) ? "v1" : "v2";
            p.roceTos = chance(2) ? 184 : -1;
        }
        if (chance(2) || f->second.driver != "mlx5_core") { // not mlx5: refused
            p.trafficClass = chance(2) ? 96 : -1;
            p.ttl = chance(2) ? 64 : -1;
        }
    }
    void bondOrPort(const nm::Model &m, Profile &p)
    {
        // A port of a stored bond profile, or a new bond.
        std::vector<const Profile *> bonds;
        for (const auto &[id, b] : m.profiles())
            if (b.type == Type::Bond)
                bonds.push_back(&b);
        if (!bonds.empty() && !chance(3)) {
            const Profile &b = *one(bonds);
            bool lag = b.ifname == o_.lagBond;
            bool ib = !lag && !o_.names.ipoib.empty();
            p.type = ib ? Type::Infiniband : Type::Ethernet;
            p.ifname = lag ? one(o_.lagPorts) : ib ? one(o_.names.ipoib) : one(o_.names.ethernet);
            p.master = b.ifname;
            if (ib)
                p.connected = mode(link(p.ifname));
            return;
        }
        p.type = Type::Bond;
        if (!o_.lagBond.empty() && chance(2)) {
            p.ifname = o_.lagBond; // the RoCE LAG bond as it is
            p.bondMode = "802.3ad";
            p.mtu = chance(3) ? 9000 : 0;
            addresses(p);
            return;
        }
        p.ifname = chance(2) ? "bond1" : "bond2";
        bool ib = !o_.names.ipoib.empty();
        p.bondMode = ib ? (chance(8) ? "balance-rr" : "active-backup") : one(std::vector<std::string>{
                                                                             "active-backup", "balance-rr", "802.3ad"});
        static const std::vector<unsigned> ibMtus = {0, 0, 1500, 2044, 4092, 65520, 60};
        static const std::vector<unsigned> ethMtus = {0, 0, 1500, 9000, 60};
        p.mtu = one(ib ? ibMtus : ethMtus);
        addresses(p);
    }

    // One change of a stored profile, as `connection modify` makes it.
    Profile changed(const Profile &from)
    {
        Profile p = from;
        for (unsigned tries = 0; tries < 8 && p == from; tries++) {
            switch (pick(6)) {
            case 0:
                if (p.isChild()) { // a new P_Key (and the name with it)
                    static const std::vector<int> pkeys = {0x8001, 0x8002, 0x0002, 0x8003, 0x8005, 0x7fff};
                    p.pkey = one(pkeys);
                    if (!p.ifname.empty()) {
                        std::string name = nm::childName(p.parent, p.pkey, o_.host.ofedNaming);
                        p.ifname = name == nm::childName(p.parent, p.pkey, false) ? name : "";
                    }
                } else if (p.type == Type::Infiniband && !p.ifname.empty() && o_.names.ipoib.size() > 1) {
                    p.ifname = one(o_.names.ipoib); // another interface
                } else if (p.type == Type::Ethernet && p.master.empty() && o_.names.ethernet.size() > 1) {
                    p.ifname = one(o_.names.ethernet);
                    if (!p.linkName.empty())
                        p.linkName = p.linkType + "_" + p.ifname;
                }
                break;
            case 1:
                if (p.master.empty())
                    addresses(p);
                break;
            case 2:
                if (p.type == Type::Infiniband) // a port's mode too (issue 27 item 4)
                    p.connected = !p.connected;
                break;
            case 3:
                if (!p.master.empty())
                    break;
                if (p.type == Type::Infiniband)
                    p.mtu = ibMtu(link(p.isChild()         ? p.parent
                                       : p.ifname.empty() ? o_.names.ipoib[0]
                                                          : p.ifname),
                                  p.connected);
                else if (p.type == Type::Ethernet)
                    p.mtu = ethMtu(link(p.ifname));
                else
                    p.mtu = one(std::vector<unsigned>{0, 1500, 2044, 60, 9000});
                break;
            case 4:
                if (p.type == Type::Ethernet && p.master.empty()) {
                    Profile q = p;
                    q.linkType.clear(), q.linkName.clear(), q.roceMode.clear();
                    q.roceTos = q.trafficClass = q.ttl = -1;
                    rdma(q, link(p.ifname));
                    p = q;
                } else if (p.type == Type::Infiniband) {
                    p.umcast = !p.umcast.value_or(false);
                }
                break;
            default:
                if (p.type == Type::Bond && p.ifname != o_.lagBond)
                    p.bondMode = p.bondMode == "active-backup" ? "balance-rr" : "active-backup";
                else if (!p.master.empty() && chance(3)) { // a port no more
                    p.master.clear();
                    addresses(p);
                }
            }
        }
        return p;
    }

    // A declarative document: stored profiles with an interface name
    // brought up, down or removed, some changed; or a new child or NIC
    // profile.
    std::vector<DocEntry> document(const nm::Model &m)
    {
        std::vector<DocEntry> doc;
        std::set<std::string> named;
        for (const auto &[id, p] : m.profiles()) {
            if (p.ifname.empty() || p.type == Type::Bond || !p.master.empty() || named.count(p.ifname) ||
                m.documentProfile(p) != &p || !chance(2))
                continue;
            DocEntry e{p, chance(5) ? "absent" : chance(4) ? "down" : "up"};
            if (chance(2))
                addresses(e.profile);
            if (chance(3) && p.type == Type::Infiniband && !p.isChild())
                e.profile.mtu = one(std::vector<unsigned>{1500, 2044});
            named.insert(p.ifname);
            doc.push_back(e);
            if (doc.size() == 2)
                break;
        }
        if (doc.empty() || chance(3)) {
            Profile p;
            if (!o_.names.ipoib.empty() && chance(2)) {
                child(p);
                // The name is the interface's (NetworkManager allows only
                // `<parent>.%04x` of the raw P_Key, the kernel's name here).
                std::string name = nm::childName(p.parent, p.pkey, o_.host.ofedNaming);
                p.ifname = name == nm::childName(p.parent, p.pkey, false) ? name : "";
            } else if (!o_.names.ethernet.empty()) {
                ethernet(p);
            }
            // A new profile (the name of no stored one's interface).
            if (!p.ifname.empty() && !named.count(p.ifname) && !m.documentProfile(p)) {
                p.id = p.ifname;
                doc.push_back({p, "up"});
            }
        }
        return doc;
    }

    std::mt19937 rng_;
    const HostOffer &o_;
    unsigned ids_ = 0, serial_ = 0;
};

} // namespace ibnm::test::seq
