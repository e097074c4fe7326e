// SPDX-License-Identifier: LGPL-2.1-or-later
// Active connections' records (active.hpp): what an activation may create
// or change (footprint), what of it the host still shows (prune), and their
// JSON text (docs/active-connections.md).
#include "config.h"

#include "libcore/activation/active.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/json-text.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <json-glib/json-glib.h>

#include <algorithm>

namespace ibnm::activation {

bool CreatedObject::operator==(const CreatedObject &o) const
{
    if (kind != o.kind)
        return false;
    if (kind == Kind::IpoibChild)
        return parent == o.parent && (pkey | 0x8000) == (o.pkey | 0x8000);
    return name == o.name;
}

bool InterfaceChange::empty() const
{
    return !mtu && !mode && !umcast && !up && !master && addedAddresses.empty() && addedRoutes.empty() &&
           removedAddresses.empty();
}

bool RdmaPortChange::empty() const
{
    return !roceMode && !roceTos && !trafficClassChanged && !ttlChanged && tcRules.empty();
}

bool ActiveRecord::owns() const
{
    return !created.empty() || !interfaces.empty() || !bonds.empty() || !rdmaPorts.empty() || !rdmaDevices.empty() ||
           !dns.empty();
}

namespace {

const model::IpoibNetdev *findBaseIpoib(const model::Host &h, const std::string &ifname, const std::string &mac)
{
    if (!ifname.empty())
        return h.findIpoib(ifname);
    for (const auto &ib : h.ipoib)
        if (ib.parent.empty() && model::sameIpoibPort(ib.address, mac))
            return &ib;
    return nullptr;
}

const model::IpoibNetdev *findIpoib(const model::Host &h, const DesiredIpoib &x)
{
    return x.pkey ? model::findChild(h, x.parent, *x.pkey) : findBaseIpoib(h, x.ifname, x.macAddress);
}

InterfaceChange &interfaceEntry(ActiveRecord &r, const model::Netdev &nd)
{
    for (auto &i : r.interfaces)
        if (i.name == nd.name)
            return i;
    InterfaceChange c;
    c.name = nd.name;
    c.ifindex = nd.ifindex;
    c.mtu = nd.mtu;
    c.up = nd.up;
    c.master = nd.master;
    r.interfaces.push_back(std::move(c));
    return r.interfaces.back();
}

void addCreated(ActiveRecord &r, CreatedObject c)
{
    if (std::find(r.created.begin(), r.created.end(), c) == r.created.end())
        r.created.push_back(std::move(c));
}

// What planIp() may add to `nd`: the profile's addresses and routes it lacks.
void addedIp(InterfaceChange &c, const model::Netdev &nd, const DesiredIp &ip)
{
    for (const auto &a : ip.addresses)
        if (std::find(nd.addresses.begin(), nd.addresses.end(), a) == nd.addresses.end() &&
            std::find(c.addedAddresses.begin(), c.addedAddresses.end(), a) == c.addedAddresses.end())
            c.addedAddresses.push_back(a);
    for (const auto &rt : ip.routes)
        if (std::find(nd.routes.begin(), nd.routes.end(), rt) == nd.routes.end() &&
            std::find(c.addedRoutes.begin(), c.addedRoutes.end(), rt) == c.addedRoutes.end())
            c.addedRoutes.push_back(rt);
    // The planner removes every address of a family the profile sets that
    // the profile does not have (Planner::planIp), a port's all.
    for (const auto &a : nd.addresses)
        if (ip.manages(a) && !contains(ip.addresses, a) && !contains(c.removedAddresses, a))
            c.removedAddresses.push_back(a);
}

RdmaPortChange &portEntry(ActiveRecord &r, const std::string &device, unsigned port)
{
    for (auto &p : r.rdmaPorts)
        if (p.device == device && p.port == port)
            return p;
    r.rdmaPorts.push_back({});
    r.rdmaPorts.back().device = device;
    r.rdmaPorts.back().port = port;
    return r.rdmaPorts.back();
}

// The RDMA settings of `x` on the hardware (or existing soft) device behind
// its netdev, as `before` has them.
void rdmaFootprint(ActiveRecord &r, const DesiredRdma &x, const model::Host &before)
{
    const model::Netdev *nd = before.findNetdev(x.netdev);
    const model::Device *dev = nd ? before.findDevice(nd->rdmaDevice) : nullptr;
    if (dev == nullptr)
        return; // a device this activation makes (a RoCE LAG bond): it goes with what made it
    const model::Port *port = nullptr;
    for (const auto &p : dev->ports)
        if (p.number == nd->rdmaPort)
            port = &p;
    if (port == nullptr)
        return;
    if (x.roceEnable)
        r.rdmaDevices.push_back({dev->name, dev->roceEnabled.value_or(true)});
    if (x.roceMode || x.roceTos) {
        bool configfs = std::any_of(dev->ports.begin(), dev->ports.end(),
                                    [](const model::Port &p) { return p.defaultRoceMode || p.defaultRoceTos; });
        if (!configfs) {
            CreatedObject c;
            c.kind = CreatedObject::Kind::RdmaCm;
            c.name = dev->name;
            addCreated(r, std::move(c));
        } else {
            auto &e = portEntry(r, dev->name, port->number);
            if (x.roceMode)
                e.roceMode = port->defaultRoceMode;
            if (x.roceTos)
                e.roceTos = port->defaultRoceTos.value_or(0);
        }
    }
    if (!(x.trafficClass || x.ttl || !x.tcRules.empty()))
        return;
    auto &e = portEntry(r, dev->name, port->number);
    if (x.trafficClass) {
        e.trafficClassChanged = true;
        e.trafficClass = port->trafficClass;
    }
    if (x.ttl) {
        e.ttlChanged = true;
        e.ttl = port->ttl;
    }
    for (const auto &rule : x.tcRules) {
        model::TcRule was = model::tcRuleRemoval(rule);
        for (const auto &cur : port->tcRules)
            if (cur.sameMatch(rule))
                was = cur;
        e.tcRules.push_back(was);
    }
}

// What systemd-resolved held for `link` before the activation gives it
// `dns` (as planner.cpp's planDns(): nothing where it does not run or
// already holds those).
void dnsFootprint(ActiveRecord &r, const std::string &link, const model::LinkDns &dns, const model::Host &before)
{
    if (dns.empty() || !before.resolver || !before.resolver->running)
        return;
    DnsChange c;
    c.link = link;
    if (auto it = before.resolver->links.find(link); it != before.resolver->links.end()) {
        c.had = true;
        c.before = it->second;
    }
    if (c.before == dns ||
        std::any_of(r.dns.begin(), r.dns.end(), [&](const DnsChange &d) { return d.link == link; }))
        return;
    r.dns.push_back(std::move(c));
}

} // namespace

ActiveRecord footprint(const Desired &desired, const std::string &uuid, const model::Host &before)
{
    ActiveRecord r;
    r.uuid = uuid;
    auto mine = [&](const Origin &o) {
        if (o.uuid == uuid && r.id.empty())
            r.id = o.id;
        return o.uuid == uuid;
    };
    for (const auto &x : desired.ipoib) {
        if (!mine(x.origin))
            continue;
        const model::IpoibNetdev *ib = findIpoib(before, x);
        const model::Netdev *nd = ib ? before.findNetdev(ib->name) : nullptr;
        if (nd == nullptr) {
            if (x.pkey) {
                CreatedObject c;
                c.parent = x.parent;
                c.pkey = *x.pkey;
                c.name = x.ifname;
                addCreated(r, std::move(c));
            }
            continue;
        }
        auto &c = interfaceEntry(r, *nd);
        c.mode = ib->mode;
        if (x.umcast)
            c.umcast = ib->umcast;
        addedIp(c, *nd, x.ip);
        dnsFootprint(r, nd->name, x.ip->dns, before);
    }
    for (const auto &x : desired.ethernet) {
        if (!mine(x.origin))
            continue;
        if (const model::Netdev *nd = before.findNetdev(x.ifname)) {
            addedIp(interfaceEntry(r, *nd), *nd, x.ip);
            dnsFootprint(r, nd->name, x.ip->dns, before);
        }
    }
    for (const auto &x : desired.bonds) {
        if (!mine(x.origin))
            continue;
        const model::Bond *b = before.findBond(x.ifname);
        const model::Netdev *nd = before.findNetdev(x.ifname);
        if (b == nullptr || nd == nullptr) {
            CreatedObject c;
            c.kind = CreatedObject::Kind::Bond;
            c.name = x.ifname;
            addCreated(r, std::move(c));
            continue;
        }
        r.bonds.push_back({b->name, b->miimon, b->primary});
        addedIp(interfaceEntry(r, *nd), *nd, x.ip);
        dnsFootprint(r, nd->name, x.ip->dns, before);
    }
    for (const auto &x : desired.rdma) {
        if (!mine(x.origin))
            continue;
        if (!x.linkType) {
            rdmaFootprint(r, x, before);
            continue;
        }
        if (before.findSoftLink(x.linkName) == nullptr) {
            CreatedObject c;
            c.kind = CreatedObject::Kind::SoftLink;
            c.name = x.linkName;
            c.linkType = *x.linkType;
            c.netdev = x.netdev;
            addCreated(r, std::move(c));
        }
    }
    return r;
}

namespace {

// Whether `c` is on `host`, named as the host names it.
std::optional<CreatedObject> stillThere(const CreatedObject &c, const model::Host &host)
{
    CreatedObject out = c;
    switch (c.kind) {
    case CreatedObject::Kind::IpoibChild: {
        const model::IpoibNetdev *ib = model::findChild(host, c.parent, c.pkey);
        const model::Netdev *nd = ib ? host.findNetdev(ib->name) : nullptr;
        if (nd == nullptr || (c.ifindex != 0 && nd->ifindex != c.ifindex))
            return std::nullopt;
        out.name = nd->name;
        out.ifindex = nd->ifindex;
        return out;
    }
    case CreatedObject::Kind::Bond: {
        const model::Netdev *nd = host.findNetdev(c.name);
        if (host.findBond(c.name) == nullptr || nd == nullptr || (c.ifindex != 0 && nd->ifindex != c.ifindex))
            return std::nullopt;
        out.ifindex = nd->ifindex;
        return out;
    }
    case CreatedObject::Kind::SoftLink: {
        const model::SoftLink *l = host.findSoftLink(c.name);
        return l && l->netdev == c.netdev && l->type == c.linkType ? std::optional<CreatedObject>(out) : std::nullopt;
    }
    case CreatedObject::Kind::RdmaCm: {
        const model::Device *d = host.findDevice(c.name);
        bool there = d && std::any_of(d->ports.begin(), d->ports.end(), [](const model::Port &p) {
            return p.defaultRoceMode || p.defaultRoceTos;
        });
        return there ? std::optional<CreatedObject>(out) : std::nullopt;
    }
    }
    return std::nullopt;
}

std::optional<InterfaceChange> stillChanged(const InterfaceChange &c, const model::Host &host)
{
    const model::Netdev *nd = host.findNetdev(c.name);
    if (nd == nullptr || (c.ifindex != 0 && nd->ifindex != c.ifindex))
        return std::nullopt; // gone, or another interface of that name
    InterfaceChange out;
    out.name = c.name;
    out.ifindex = nd->ifindex;
    const model::IpoibNetdev *ib = host.findIpoib(c.name);
    if (c.mtu && nd->mtu != *c.mtu)
        out.mtu = c.mtu;
    if (c.mode && ib && ib->mode != *c.mode)
        out.mode = c.mode;
    if (c.umcast && ib && ib->umcast != *c.umcast)
        out.umcast = c.umcast;
    if (c.up && nd->up != *c.up)
        out.up = c.up;
    if (c.master && nd->master != *c.master)
        out.master = c.master;
    for (const auto &a : c.addedAddresses)
        if (std::find(nd->addresses.begin(), nd->addresses.end(), a) != nd->addresses.end())
            out.addedAddresses.push_back(a);
    for (const auto &r : c.addedRoutes)
        if (std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            out.addedRoutes.push_back(r);
    for (const auto &a : c.removedAddresses)
        if (std::find(nd->addresses.begin(), nd->addresses.end(), a) == nd->addresses.end())
            out.removedAddresses.push_back(a);
    if (out.empty())
        return std::nullopt;
    return out;
}

const model::Port *findPort(const model::Host &host, const std::string &device, unsigned number)
{
    const model::Device *d = host.findDevice(device);
    if (d)
        for (const auto &p : d->ports)
            if (p.number == number)
                return &p;
    return nullptr;
}

std::optional<RdmaPortChange> stillChanged(const RdmaPortChange &c, const model::Host &host, bool keepUnrestorable)
{
    const model::Port *p = findPort(host, c.device, c.port);
    if (p == nullptr)
        return std::nullopt;
    RdmaPortChange out;
    out.device = c.device;
    out.port = c.port;
    if (c.roceMode && p->defaultRoceMode != c.roceMode)
        out.roceMode = c.roceMode;
    if (c.roceTos && p->defaultRoceTos.value_or(0) != *c.roceTos)
        out.roceTos = c.roceTos;
    if (c.trafficClassChanged && p->trafficClass != c.trafficClass) {
        out.trafficClassChanged = true;
        out.trafficClass = c.trafficClass;
    }
    if (c.ttlChanged && (c.ttl ? p->ttl != c.ttl : keepUnrestorable)) {
        out.ttlChanged = true;
        out.ttl = c.ttl;
    }
    for (const auto &was : c.tcRules) {
        const model::TcRule *cur = nullptr;
        for (const auto &r : p->tcRules)
            if (r.sameMatch(was))
                cur = &r;
        bool same = was.tclass < 0 ? cur == nullptr : (cur && cur->tclass == was.tclass);
        if (!same)
            out.tcRules.push_back(was);
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

} // namespace

ActiveRecord prune(const ActiveRecord &record, const model::Host &host, bool keepUnrestorable)
{
    ActiveRecord out = record;
    out.created.clear();
    out.interfaces.clear();
    out.bonds.clear();
    out.rdmaPorts.clear();
    out.rdmaDevices.clear();
    out.dns.clear();
    for (const auto &c : record.created)
        if (auto there = stillThere(c, host))
            out.created.push_back(std::move(*there));
    for (const auto &c : record.interfaces)
        if (auto changed = stillChanged(c, host))
            out.interfaces.push_back(std::move(*changed));
    for (const auto &b : record.bonds) {
        const model::Bond *cur = host.findBond(b.name);
        if (cur == nullptr)
            continue;
        BondChange keep;
        keep.name = b.name;
        if (b.miimon && cur->miimon != *b.miimon)
            keep.miimon = b.miimon;
        if (b.primary && cur->primary != *b.primary)
            keep.primary = b.primary;
        if (!keep.empty())
            out.bonds.push_back(std::move(keep));
    }
    for (const auto &p : record.rdmaPorts)
        if (auto changed = stillChanged(p, host, keepUnrestorable))
            out.rdmaPorts.push_back(std::move(*changed));
    for (const auto &d : record.rdmaDevices) {
        const model::Device *dev = host.findDevice(d.device);
        if (dev && d.roceEnabled && dev->roceEnabled.value_or(true) != *d.roceEnabled)
            out.rdmaDevices.push_back(d);
    }
    // A link's DNS counts as changed unless the host says systemd-resolved
    // holds what it held before (not read: unknown, kept).
    for (const auto &d : record.dns) {
        if (host.resolver && !host.resolver->running)
            continue;
        if (host.resolver) {
            auto it = host.resolver->links.find(d.link);
            bool has = it != host.resolver->links.end();
            if (d.had ? has && it->second == d.before : !has)
                continue;
        }
        out.dns.push_back(d);
    }
    return out;
}

ActiveRecord renew(ActiveRecord record, const model::Host &host)
{
    auto index = [&](const std::string &name, unsigned &ifindex) {
        if (const model::Netdev *nd = name.empty() ? nullptr : host.findNetdev(name))
            ifindex = nd->ifindex;
    };
    for (auto &c : record.created) {
        if (c.kind == CreatedObject::Kind::IpoibChild) {
            if (const model::IpoibNetdev *ib = model::findChild(host, c.parent, c.pkey)) {
                if (record.device == c.name)
                    record.device = ib->name;
                c.name = ib->name;
            }
            index(c.name, c.ifindex);
        } else if (c.kind == CreatedObject::Kind::Bond) {
            index(c.name, c.ifindex);
        }
    }
    for (auto &i : record.interfaces)
        index(i.name, i.ifindex);
    index(record.device, record.ifindex);
    return record;
}

namespace {

template <typename T>
void keepOlder(std::optional<T> &value, const std::optional<T> &older)
{
    if (older)
        value = older;
}

template <typename T>
void unite(std::vector<T> &into, const std::vector<T> &more)
{
    for (const auto &x : more)
        if (std::find(into.begin(), into.end(), x) == into.end())
            into.push_back(x);
}

} // namespace

ActiveRecord merge(const ActiveRecord &older, ActiveRecord record)
{
    for (const auto &c : older.created)
        addCreated(record, c);
    for (const auto &o : older.interfaces) {
        auto it = std::find_if(record.interfaces.begin(), record.interfaces.end(),
                               [&](const InterfaceChange &c) { return c.name == o.name; });
        if (it == record.interfaces.end()) {
            record.interfaces.push_back(o);
            continue;
        }
        keepOlder(it->mtu, o.mtu);
        keepOlder(it->mode, o.mode);
        keepOlder(it->umcast, o.umcast);
        keepOlder(it->up, o.up);
        keepOlder(it->master, o.master);
        unite(it->addedAddresses, o.addedAddresses);
        unite(it->addedRoutes, o.addedRoutes);
        // What the older activation removed was there before both; what it
        // added and the newer one removed was not.
        for (const auto &a : o.removedAddresses)
            if (!contains(it->removedAddresses, a))
                it->removedAddresses.push_back(a);
        it->removedAddresses.erase(std::remove_if(it->removedAddresses.begin(), it->removedAddresses.end(),
                                                  [&](const std::string &a) { return contains(o.addedAddresses, a); }),
                                   it->removedAddresses.end());
    }
    for (const auto &o : older.bonds) {
        auto it = std::find_if(record.bonds.begin(), record.bonds.end(),
                               [&](const BondChange &b) { return b.name == o.name; });
        if (it == record.bonds.end()) {
            record.bonds.push_back(o);
            continue;
        }
        keepOlder(it->miimon, o.miimon);
        keepOlder(it->primary, o.primary);
    }
    for (const auto &o : older.rdmaPorts) {
        auto it = std::find_if(record.rdmaPorts.begin(), record.rdmaPorts.end(),
                               [&](const RdmaPortChange &p) { return p.device == o.device && p.port == o.port; });
        if (it == record.rdmaPorts.end()) {
            record.rdmaPorts.push_back(o);
            continue;
        }
        keepOlder(it->roceMode, o.roceMode);
        keepOlder(it->roceTos, o.roceTos);
        if (o.trafficClassChanged) {
            it->trafficClassChanged = true;
            it->trafficClass = o.trafficClass;
        }
        if (o.ttlChanged) {
            it->ttlChanged = true;
            it->ttl = o.ttl;
        }
        for (const auto &rule : o.tcRules) {
            auto same = std::find_if(it->tcRules.begin(), it->tcRules.end(),
                                     [&](const model::TcRule &r) { return r.sameMatch(rule); });
            if (same == it->tcRules.end())
                it->tcRules.push_back(rule);
            else
                *same = rule;
        }
    }
    for (const auto &o : older.rdmaDevices) {
        auto it = std::find_if(record.rdmaDevices.begin(), record.rdmaDevices.end(),
                               [&](const RdmaDeviceChange &d) { return d.device == o.device; });
        if (it == record.rdmaDevices.end())
            record.rdmaDevices.push_back(o);
        else
            keepOlder(it->roceEnabled, o.roceEnabled);
    }
    for (const auto &o : older.dns) {
        auto it = std::find_if(record.dns.begin(), record.dns.end(), [&](const DnsChange &d) { return d.link == o.link; });
        if (it == record.dns.end())
            record.dns.push_back(o);
        else
            *it = o;
    }
    return record;
}

std::optional<std::pair<std::string, unsigned>> deviceOf(const Desired &desired, const std::string &uuid,
                                                         const model::Host &host)
{
    auto named = [&](const std::string &name) -> std::optional<std::pair<std::string, unsigned>> {
        const model::Netdev *nd = name.empty() ? nullptr : host.findNetdev(name);
        if (nd == nullptr)
            return std::nullopt;
        return std::make_pair(nd->name, nd->ifindex);
    };
    for (const auto &x : desired.ipoib)
        if (x.origin.uuid == uuid) {
            const model::IpoibNetdev *ib = findIpoib(host, x);
            return named(ib ? ib->name : std::string());
        }
    for (const auto &x : desired.bonds)
        if (x.origin.uuid == uuid)
            return named(x.ifname);
    for (const auto &x : desired.ethernet)
        if (x.origin.uuid == uuid)
            return named(x.ifname);
    for (const auto &x : desired.rdma)
        if (x.origin.uuid == uuid)
            return named(x.netdev);
    return std::nullopt;
}

bool gone(const ActiveRecord &record, const model::Host &host)
{
    if (record.device.empty())
        return false;
    const model::Netdev *nd = host.findNetdev(record.device);
    return nd == nullptr || (record.ifindex != 0 && nd->ifindex != record.ifindex);
}

std::vector<std::string> interfacesOf(const ActiveRecord &record)
{
    std::vector<std::string> out;
    auto add = [&](const std::string &n) {
        if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end())
            out.push_back(n);
    };
    add(record.device);
    for (const auto &c : record.created)
        if (c.kind == CreatedObject::Kind::IpoibChild || c.kind == CreatedObject::Kind::Bond)
            add(c.name);
    for (const auto &i : record.interfaces)
        add(i.name);
    return out;
}

std::string settingsDigest(NMConnection *profile)
{
    // A copy without the timestamp, which NetworkManager updates on its own.
    GObjectPtr<NMConnection> copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(profile));
    if (NMSettingConnection *sc = nm_connection_get_setting_connection(copy.get()))
        g_object_set(sc, NM_SETTING_CONNECTION_TIMESTAMP, guint64(0), nullptr);
    GVariant *v = nm_connection_to_dbus(copy.get(), NM_CONNECTION_SERIALIZE_ALL);
    if (v == nullptr)
        return {};
    g_variant_ref_sink(v);
    GCharPtr text(g_variant_print(v, TRUE));
    g_variant_unref(v);
    GCharPtr sum(g_compute_checksum_for_string(G_CHECKSUM_SHA256, text.get(), -1));
    return sum.get();
}

} // namespace ibnm::activation
