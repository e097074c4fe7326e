// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/activation/engine.hpp"

#include "libcore/model/host-index.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>

namespace ibnm::activation {

using model::Host;
using model::IpoibMode;
using platform::Platform;

namespace {

using Op = std::function<Status(Platform &)>;

struct Step {
    StepRecord rec;
    Op run;
    Op undo; // empty: nothing to undo of its own
    // Set for the steps of a new object (a P_Key child, a bond, a soft RDMA
    // link): the name the kernel gave it, for the report, and whether the
    // object's own undo (its deletion) ran, which undoes these steps too.
    std::shared_ptr<std::string> kernelName;
    std::shared_ptr<bool> removed;
};

std::string pkeyHex(uint16_t p)
{
    return strprintf("0x%04x", p);
}

bool contains(const std::vector<std::string> &v, const std::string &s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

// A planning error: the code and errno of the fact that refused, the
// property and the profile as context.
Error refused(Error e, const char *property, const std::string &origin)
{
    return std::move(e).withProperty(property).withProfile(origin);
}

class Planner {
public:
    Planner(const Host &host, Report &report, bool rdmaOnly = false, const model::HostIndex *index = nullptr)
        : host_(host), ownIndex_(index ? std::nullopt : std::optional<model::HostIndex>(std::in_place, host)),
          index_(index ? *index : *ownIndex_), report_(report), rdmaOnly_(rdmaOnly)
    {
    }

    std::vector<Step> steps;

    void add(std::string action, std::string object, std::string detail, const std::string &origin, Op run,
             Op undo)
    {
        Step s;
        s.rec.action = std::move(action);
        s.rec.object = std::move(object);
        s.rec.detail = std::move(detail);
        s.rec.origin = origin;
        s.run = std::move(run);
        s.undo = std::move(undo);
        steps.push_back(std::move(s));
    }

    // The steps from `first` on configure the object that steps[first]
    // creates: deleting it (its undo) undoes them.
    void coverFrom(size_t first)
    {
        auto removed = std::make_shared<bool>(false);
        Op undo = std::move(steps[first].undo);
        steps[first].undo = [undo, removed](Platform &p) -> Status {
            Status s = undo(p);
            *removed = s.ok();
            return s;
        };
        for (size_t i = first; i < steps.size(); i++)
            steps[i].removed = removed;
    }

    void note(const std::string &origin, const std::string &object, std::string message)
    {
        report_.notes.push_back({origin, object, std::move(message)});
    }

    const model::IpoibNetdev *findBase(const activation::DesiredIpoib &x) const
    {
        if (!x.ifname.empty())
            return index_.findIpoib(x.ifname);
        for (const auto &ib : host_.ipoib)
            if (ib.parent.empty() && model::sameIpoibPort(ib.address, x.macAddress))
                return &ib;
        return nullptr;
    }

    const model::IpoibNetdev *find(const activation::DesiredIpoib &x) const
    {
        return x.pkey ? index_.child(x.parent, *x.pkey) : findBase(x);
    }

    // The MTU the bond `name` has once `up` has run: what its profile asks,
    // else what it has, else the driver's default.
    unsigned bondMtu(const std::string &name) const
    {
        for (const auto *b : desiredBonds_)
            if (b->ifname == name && b->mtu != 0)
                return b->mtu;
        const auto *nd = index_.findNetdev(name);
        return nd ? nd->mtu : model::kBondDefaultMtu;
    }

    void setDesiredBonds(const std::vector<DesiredBond> &bonds)
    {
        for (const auto &b : bonds)
            desiredBonds_.push_back(&b);
    }

    // The RoCE LAG devices the desired bonds make (model::predictRoceLag),
    // by bond: rdma.* keys of such a bond's profile go to that device.
    void predictRoceLags(const Desired &desired)
    {
        for (const auto &b : desired.bonds) {
            if (const auto *n = index_.findNetdev(b.ifname); n && !n->rdmaDevice.empty())
                continue; // in LAG mode already
            std::vector<std::string> ports;
            for (const auto &e : desired.ethernet)
                if (e.master == b.ifname)
                    ports.push_back(e.ifname);
            if (auto lag = model::predictRoceLag(host_, b.mode, ports)) {
                // Built on the card's first function (the lower PCI address).
                const model::Device *first = nullptr;
                for (const auto &port : ports)
                    if (const auto *n = index_.findNetdev(port))
                        if (const auto *d = index_.findDevice(n->rdmaDevice))
                            if (!first || d->pciAddress < first->pciAddress)
                                first = d;
                lagDevices_[b.ifname] = {*lag, first};
            }
        }
    }

    Status planIpoib(const DesiredIpoib &x);
    Status planBond(const DesiredBond &x);
    Status planEthernet(const DesiredEthernet &x);
    Status planRdma(const DesiredRdma &x, const std::set<std::string> &newNetdevs);
    // Addresses and routes of ifname as `ip` says. `flushed`: an earlier step
    // takes the link down, which removes its routes and IPv6 addresses.
    void planIp(const std::string &origin, const std::string &ifname, const DesiredIp &ip, bool flushed);
    void planUp(const std::string &origin, const std::string &ifname, bool isUp);
    // Takes ifname down; the undo brings it up with the addresses and routes
    // the kernel flushed.
    void planDown(const std::string &origin, const std::string &ifname, std::string detail);
    // Enslaves ifname (whose MTU is `mtu` now) into bond; the undo releases
    // it and puts the MTU back that enslaving replaced with the bond's.
    void planEnslave(const std::string &origin, const std::string &ifname, const std::string &bond, unsigned mtu);

    // Interfaces whose final "up" is planned after their configuration.
    std::vector<std::pair<std::string, std::string>> pendingUp; // origin, ifname

private:
    Status planIpoibExtras(const DesiredIpoib &x);
    // The port's MTU once it joins its bond, refused as the kernel refuses it.
    Status checkPortMtu(const std::string &origin, const std::string &port, const std::string &bond,
                        IpoibMode mode, const model::Port *rdmaPort) const;

    const Host &host_;
    // Lookups by name in constant time: planning a large host stays linear.
    // The caller's index of host_ (Options::index), else the planner's own.
    std::optional<model::HostIndex> ownIndex_;
    const model::HostIndex &index_;
    Report &report_;
    bool rdmaOnly_ = false;
    std::vector<const DesiredBond *> desiredBonds_;
    std::map<std::string, std::pair<std::string, const model::Device *>> lagDevices_;
};

// NetworkManager has created and configured the interface: only umcast,
// and a clear error where the device cannot do the transport mode asked.
Status Planner::planIpoibExtras(const DesiredIpoib &x)
{
    const std::string &origin = x.origin.id;
    const model::IpoibNetdev *cur = find(x);
    if (cur == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("the interface %s does not exist (yet)"), x.ifname.c_str()))
            .withProperty("connection.interface-name")
            .withProfile(origin);
    const model::Device *dev = model::deviceOf(index_, cur->name);
    if (x.mode == IpoibMode::Connected && dev && !model::connectedModeAvailable(*dev))
        return Error(IBNM_ERROR_NOT_SUPPORTED, model::connectedModeRefusal(*dev), EOPNOTSUPP)
            .withProperty("infiniband.transport-mode")
            .withProfile(origin);
    if (x.umcast && *x.umcast != cur->umcast) {
        bool old = cur->umcast;
        std::string ifname = cur->name;
        add("set-umcast", ifname, strprintf(_("set umcast to %s"), *x.umcast ? "yes" : "no"), origin,
            [ifname, v = *x.umcast](Platform &p) { return p.setIpoibUmcast(ifname, v); },
            [ifname, old](Platform &p) { return p.setIpoibUmcast(ifname, old); });
    }
    return {};
}

void Planner::planIp(const std::string &origin, const std::string &ifname, const DesiredIp &ip, bool flushed)
{
    const auto *nd = index_.findNetdev(ifname);
    std::vector<std::string> have;
    if (nd)
        for (const auto &a : nd->addresses)
            if (!(flushed && model::flushedOnLinkDown(a)))
                have.push_back(a);
    for (const auto &a : have) {
        if (!ip.manages(a) || contains(ip.addresses, a))
            continue;
        add("remove-address", ifname, strprintf(_("remove address %s"), a.c_str()), origin,
            [ifname, a](Platform &p) { return p.removeAddress(ifname, a); },
            [ifname, a](Platform &p) { return p.addAddress(ifname, a); });
    }
    for (const auto &a : ip.addresses) {
        if (contains(have, a))
            continue;
        add("add-address", ifname, strprintf(_("add address %s"), a.c_str()), origin,
            [ifname, a](Platform &p) { return p.addAddress(ifname, a); },
            [ifname, a](Platform &p) { return p.removeAddress(ifname, a); });
    }
    for (const auto &r : ip.routes) {
        if (nd && !flushed && std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
            continue;
        add("add-route", ifname, strprintf(_("add route %s"), model::formatRoute(r).c_str()), origin,
            [ifname, r](Platform &p) { return p.addRoute(ifname, r); },
            [ifname, r](Platform &p) { return p.removeRoute(ifname, r); });
    }
}

void Planner::planUp(const std::string &origin, const std::string &ifname, bool isUp)
{
    if (isUp)
        return;
    add("set-up", ifname, _("set the link up"), origin, [ifname](Platform &p) { return p.setUp(ifname, true); },
        [ifname](Platform &p) { return p.setUp(ifname, false); });
}

void Planner::planDown(const std::string &origin, const std::string &ifname, std::string detail)
{
    const auto *nd = index_.findNetdev(ifname);
    std::vector<std::string> flushed;
    std::vector<model::Route> routes;
    if (nd) {
        for (const auto &a : nd->addresses)
            if (model::flushedOnLinkDown(a))
                flushed.push_back(a);
        routes = nd->routes;
    }
    add("set-down", ifname, std::move(detail), origin, [ifname](Platform &p) { return p.setUp(ifname, false); },
        [ifname, flushed, routes](Platform &p) -> Status {
            if (Status s = p.setUp(ifname, true); !s.ok())
                return s;
            for (const auto &a : flushed)
                if (Status s = p.addAddress(ifname, a); !s.ok())
                    return s;
            for (const auto &r : routes)
                if (Status s = p.addRoute(ifname, r); !s.ok())
                    return s;
            return {};
        });
}

void Planner::planEnslave(const std::string &origin, const std::string &ifname, const std::string &bond,
                          unsigned mtu)
{
    add("enslave", ifname, strprintf(_("add to bond %s"), bond.c_str()), origin,
        [ifname, bond](Platform &p) { return p.enslave(ifname, bond); },
        [ifname, mtu](Platform &p) -> Status {
            if (Status s = p.release(ifname); !s.ok())
                return s;
            return mtu ? p.setMtu(ifname, mtu) : Status{};
        });
}

Status Planner::checkPortMtu(const std::string &origin, const std::string &port, const std::string &bond,
                             IpoibMode mode, const model::Port *rdmaPort) const
{
    unsigned mtu = bondMtu(bond);
    auto r = model::portMtuAtEnslave(mtu, mode, rdmaPort);
    if (r.ok())
        return {};
    return Error(IBNM_ERROR_INVALID_PROPERTY,
                 strprintf(_("the bond %s has MTU %u, which the kernel sets on its port %s at enslave: %s"),
                           bond.c_str(), mtu, port.c_str(), r.error().message().c_str()),
                 EINVAL)
        .withProperty("connection.master")
        .withProfile(origin);
}

Status Planner::planIpoib(const DesiredIpoib &x)
{
    if (rdmaOnly_)
        return planIpoibExtras(x);
    const std::string &origin = x.origin.id;
    const model::IpoibNetdev *cur = nullptr;

    if (x.pkey) {
        if (Status s = model::childCreatable(host_, x.parent, *x.pkey); !s.ok())
            return refused(std::move(s).error(),
                           s.error().code() == IBNM_ERROR_NOT_FOUND ? "infiniband.parent" : "infiniband.p-key",
                           origin);
        cur = index_.child(x.parent, *x.pkey);
    } else {
        cur = findBase(x);
        if (cur == nullptr)
            return Error(IBNM_ERROR_NOT_FOUND,
                         x.ifname.empty()
                             ? strprintf(_("no IPoIB interface has the address %s"), x.macAddress.c_str())
                             : strprintf(_("no IPoIB interface %s on this host"), x.ifname.c_str()))
                .withProperty(x.ifname.empty() ? "infiniband.mac-address" : "connection.interface-name")
                .withProfile(origin);
    }
    const std::string base = x.pkey ? x.parent : cur->name;
    const model::Port *port = model::portOf(index_, base);
    const model::Device *dev = model::deviceOf(index_, base);
    if (x.mode == IpoibMode::Connected && dev && !model::connectedModeAvailable(*dev))
        return Error(IBNM_ERROR_NOT_SUPPORTED, model::connectedModeRefusal(*dev), EOPNOTSUPP)
            .withProperty("infiniband.transport-mode")
            .withProfile(origin);
    unsigned eff = 0;
    if (x.mtu != 0) {
        auto e = model::effectiveMtu(x.mtu, x.mode, port);
        if (!e.ok())
            return refused(std::move(e).error(), "infiniband.mtu", origin);
        eff = *e;
        if (eff != x.mtu)
            note(origin, x.ifname,
                 strprintf(_("the kernel uses the MTU %u, not %u: the partition's broadcast group and the IB link "
                             "allow no more in datagram mode"),
                           eff, x.mtu));
    }
    if (!x.master.empty()) {
        if (Status s = checkPortMtu(origin, x.ifname.empty() ? base : x.ifname, x.master, x.mode, port); !s.ok())
            return s;
        // A bond that is there already (and not recreated by this plan)
        // takes IPoIB ports only as bond_enslave() allows.
        const model::Bond *b = index_.findBond(x.master);
        bool planned = std::any_of(desiredBonds_.begin(), desiredBonds_.end(),
                                   [&](const DesiredBond *d) { return d->ifname == x.master; });
        if (b && !planned) {
            if (!model::ipoibBondModeSupported(b->mode))
                return Error(IBNM_ERROR_NOT_SUPPORTED,
                             strprintf(_("the bond %s has mode %s; IPoIB ports can only join an active-backup bond"),
                                       x.master.c_str(), b->mode.c_str()),
                             EOPNOTSUPP)
                    .withProperty("connection.master")
                    .withProfile(origin);
            bool alreadyIn = cur && index_.findNetdev(cur->name) && index_.findNetdev(cur->name)->master == x.master;
            if (!alreadyIn && model::failOverMacAfterIpoibEnslave(b->failOverMac, !b->ports.empty()) != "active")
                return Error(IBNM_ERROR_NOT_SUPPORTED,
                             strprintf(_("the bond %s has ports and fail_over_mac=%s; the kernel refuses further IPoIB "
                                         "ports"),
                                       x.master.c_str(), b->failOverMac.c_str()),
                             EOPNOTSUPP)
                    .withProperty("connection.master")
                    .withProfile(origin);
        }
    }

    if (cur == nullptr) {
        platform::IpoibChildSpec spec;
        spec.parent = x.parent;
        spec.pkey = *x.pkey;
        spec.mode = x.mode;
        spec.umcast = x.umcast;
        // The planner names the child where the kernel takes a name; where it
        // does not (create_child), later steps use the name it gave, and the
        // report names it too.
        auto name = std::make_shared<std::string>();
        std::string parent = x.parent;
        uint16_t pkey = *x.pkey;
        std::string guess = model::childName(parent, pkey, host_.childNaming);
        spec.name = guess;
        add("create-ipoib-child", guess,
            strprintf(_("create the P_Key %s child of %s (%s mode)"), pkeyHex(pkey).c_str(), parent.c_str(),
                      model::modeName(x.mode)),
            origin,
            [spec, name](Platform &p) -> Status {
                auto r = p.createIpoibChild(spec);
                if (!r.ok())
                    return std::move(r).error();
                *name = *r;
                return {};
            },
            [parent, pkey](Platform &p) { return p.deleteIpoibChild(parent, pkey); });
        size_t first = steps.size() - 1;
        if (x.mtu != 0)
            add("set-mtu", guess, strprintf(_("set the MTU to %u"), x.mtu), origin,
                [name, mtu = x.mtu](Platform &p) { return p.setMtu(*name, mtu); }, {});
        if (x.master.empty())
            add("set-up", guess, _("set the link up"), origin, [name](Platform &p) { return p.setUp(*name, true); },
                {});
        else
            add("enslave", guess, strprintf(_("add to bond %s"), x.master.c_str()), origin,
                [name, bond = x.master](Platform &p) { return p.enslave(*name, bond); }, {});
        for (const auto &a : x.ip.addresses)
            add("add-address", guess, strprintf(_("add address %s"), a.c_str()), origin,
                [name, a](Platform &p) { return p.addAddress(*name, a); }, {});
        for (const auto &r : x.ip.routes)
            add("add-route", guess, strprintf(_("add route %s"), model::formatRoute(r).c_str()), origin,
                [name, r](Platform &p) { return p.addRoute(*name, r); }, {});
        // The steps of the new child report the name the kernel gave; its
        // deletion undoes them all.
        coverFrom(first);
        for (size_t i = first; i < steps.size(); i++)
            steps[i].kernelName = name;
        return {};
    }

    std::string ifname = cur->name;
    const auto *nd = index_.findNetdev(ifname);
    bool isUp = nd ? nd->up : false;
    bool flushed = false;
    unsigned curMtu = nd ? nd->mtu : cur->mtu;

    if (cur->mode != x.mode) {
        if (isUp)
            planDown(origin, ifname, _("set the link down to change the transport mode"));
        flushed = isUp;
        IpoibMode old = cur->mode;
        // The mode change sets the MTU as a side effect: the undo puts the
        // mode and the MTU back.
        add("set-transport-mode", ifname, strprintf(_("set the transport mode to %s"), model::modeName(x.mode)),
            origin, [ifname, m = x.mode](Platform &p) { return p.setIpoibMode(ifname, m); },
            [ifname, old, curMtu](Platform &p) -> Status {
                if (Status s = p.setIpoibMode(ifname, old); !s.ok())
                    return s;
                return p.setMtu(ifname, curMtu);
            });
        curMtu = model::mtuAfterModeChange(curMtu, x.mode, port);
        isUp = false;
    }
    if (x.umcast && *x.umcast != cur->umcast) {
        bool old = cur->umcast;
        add("set-umcast", ifname, strprintf(_("set umcast to %s"), *x.umcast ? "yes" : "no"), origin,
            [ifname, v = *x.umcast](Platform &p) { return p.setIpoibUmcast(ifname, v); },
            [ifname, old](Platform &p) { return p.setIpoibUmcast(ifname, old); });
    }
    if (x.mtu != 0 && curMtu != eff && x.master.empty()) {
        add("set-mtu", ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
            [ifname, mtu = x.mtu](Platform &p) { return p.setMtu(ifname, mtu); },
            [ifname, curMtu](Platform &p) { return p.setMtu(ifname, curMtu); });
        curMtu = eff;
    }
    if (!x.master.empty()) {
        if (!nd || nd->master != x.master)
            planEnslave(origin, ifname, x.master, curMtu);
        return {};
    }
    planUp(origin, ifname, isUp);
    planIp(origin, ifname, x.ip, flushed);
    return {};
}

Status Planner::planEthernet(const DesiredEthernet &x)
{
    const std::string &origin = x.origin.id;
    const auto *nd = index_.findNetdev(x.ifname);
    if (nd == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no interface %s on this host"), x.ifname.c_str()), ENODEV)
            .withProperty("connection.interface-name")
            .withProfile(origin);
    if (nd->type != 1)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%s is not an Ethernet interface"), x.ifname.c_str()), EINVAL)
            .withProperty("connection.interface-name")
            .withProfile(origin);
    // dev_set_mtu() refuses more than the NIC's maximum, for the profile's
    // MTU and for the bond's, which the port takes at enslave.
    unsigned wantMtu = x.master.empty() ? x.mtu : bondMtu(x.master);
    if (wantMtu != 0 && nd->maxMtu && wantMtu > *nd->maxMtu)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%s takes an MTU of at most %u, not %u"), x.ifname.c_str(), *nd->maxMtu, wantMtu),
                     EINVAL)
            .withProperty(x.master.empty() ? "802-3-ethernet.mtu" : "connection.master")
            .withProfile(origin);
    unsigned curMtu = nd->mtu;
    if (x.mtu != 0 && curMtu != x.mtu && x.master.empty()) {
        add("set-mtu", x.ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
            [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); },
            [name = x.ifname, curMtu](Platform &p) { return p.setMtu(name, curMtu); });
        curMtu = x.mtu;
    }
    if (!x.master.empty()) {
        if (nd->master != x.master)
            planEnslave(origin, x.ifname, x.master, curMtu);
        return {};
    }
    planUp(origin, x.ifname, nd->up);
    planIp(origin, x.ifname, x.ip, false);
    return {};
}

Status Planner::planBond(const DesiredBond &x)
{
    const std::string &origin = x.origin.id;
    const model::Bond *cur = index_.findBond(x.ifname);
    if (cur == nullptr) {
        if (index_.findNetdev(x.ifname))
            return Error(IBNM_ERROR_EXISTS,
                         strprintf(_("%s exists and is not a bond"), x.ifname.c_str()), EEXIST)
                .withProperty("connection.interface-name")
                .withProfile(origin);
        platform::BondSpec spec;
        spec.name = x.ifname;
        spec.mode = x.mode;
        spec.miimon = x.miimon;
        spec.primary = x.primary;
        spec.failOverMac = x.failOverMac;
        add("create-bond", x.ifname, strprintf(_("create the %s bond"), x.mode.c_str()), origin,
            [spec](Platform &p) { return p.createBond(spec); },
            [name = x.ifname](Platform &p) { return p.deleteLink(name); });
        size_t first = steps.size() - 1;
        if (x.mtu != 0 && x.mtu != model::kBondDefaultMtu)
            add("set-mtu", x.ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
                [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); }, {});
        coverFrom(first);
        pendingUp.emplace_back(origin, x.ifname);
        return {};
    }
    // The bonding driver changes the mode only of a bond that is down and
    // has no ports; miimon and primary it changes under its ports, as
    // NetworkManager does on reapply.
    if (cur->mode != x.mode)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("bond %s exists with mode %s; ibnm does not change it under its ports (take the "
                                 "bond down first to recreate it with %s)"),
                               x.ifname.c_str(), cur->mode.c_str(), x.mode.c_str()))
            .withProperty("bond.options.mode")
            .withProfile(origin);
    std::optional<unsigned> miimon;
    std::optional<std::string> primary;
    std::vector<std::string> changes;
    if (x.miimon && *x.miimon != cur->miimon) {
        miimon = x.miimon;
        changes.push_back(strprintf("miimon %u", *x.miimon));
    }
    if (!x.primary.empty() && x.primary != cur->primary) {
        primary = x.primary;
        changes.push_back("primary " + x.primary);
    }
    if (!changes.empty()) {
        std::optional<unsigned> oldMiimon = miimon ? std::optional<unsigned>(cur->miimon) : std::nullopt;
        std::optional<std::string> oldPrimary = primary ? std::optional<std::string>(cur->primary) : std::nullopt;
        std::string what;
        for (const auto &c : changes)
            what += (what.empty() ? "" : ", ") + c;
        add("set-bond-options", x.ifname, strprintf(_("set %s"), what.c_str()), origin,
            [name = x.ifname, miimon, primary](Platform &p) { return p.setBondOptions(name, miimon, primary); },
            [name = x.ifname, oldMiimon, oldPrimary](Platform &p) {
                return p.setBondOptions(name, oldMiimon, oldPrimary);
            });
    }
    const auto *nd = index_.findNetdev(x.ifname);
    if (x.mtu != 0 && nd && nd->mtu != x.mtu) {
        // The driver sets the new MTU on every port too; the undo puts the
        // bond's back, which the driver also passes on.
        unsigned old = nd->mtu;
        add("set-mtu", x.ifname, strprintf(_("set the MTU to %u"), x.mtu), origin,
            [name = x.ifname, mtu = x.mtu](Platform &p) { return p.setMtu(name, mtu); },
            [name = x.ifname, old](Platform &p) { return p.setMtu(name, old); });
    }
    if (!nd || !nd->up)
        pendingUp.emplace_back(origin, x.ifname);
    return {};
}

Status Planner::planRdma(const DesiredRdma &x, const std::set<std::string> &newNetdevs)
{
    const std::string &origin = x.origin.id;
    const auto *netdev = index_.findNetdev(x.netdev);
    bool netdevKnown = netdev != nullptr || newNetdevs.count(x.netdev) > 0;
    std::string device;
    unsigned portNo = 1;
    bool newDevice = false;
    std::optional<model::SoftLinkType> softType;
    model::LinkLayer linkLayer = model::LinkLayer::Ethernet;
    const model::Device *dev = nullptr;
    bool lagNew = false;
    if (x.linkType) {
        if (!netdevKnown)
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("the netdev %s of the soft RDMA link does not exist on this host"),
                                   x.netdev.c_str()),
                         ENODEV)
                .withProperty("connection.interface-name")
                .withProfile(origin);
        if (netdev && netdev->type != 1)
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("%s is not an Ethernet interface; soft RDMA links run over Ethernet"),
                                   x.netdev.c_str()),
                         EINVAL)
                .withProperty("rdma.link-type")
                .withProfile(origin);
        const model::SoftLink *cur = model::findSoftLink(host_, x.linkName);
        if (cur && (cur->netdev != x.netdev || cur->type != *x.linkType))
            return Error(IBNM_ERROR_EXISTS,
                         strprintf(_("the RDMA link %s exists already over %s"), x.linkName.c_str(),
                                   cur->netdev.c_str()),
                         EEXIST)
                .withProperty("rdma.link-name")
                .withProfile(origin);
        if (cur == nullptr) {
            if (index_.findDevice(x.linkName))
                return Error(IBNM_ERROR_EXISTS,
                             strprintf(_("an RDMA device named %s exists already"), x.linkName.c_str()), EEXIST)
                    .withProperty("rdma.link-name")
                    .withProfile(origin);
            for (const auto &l : host_.softLinks)
                if (l.netdev == x.netdev && l.type == *x.linkType)
                    return Error(IBNM_ERROR_EXISTS,
                                 strprintf(_("%s already has the %s link %s; the kernel allows one per netdev"),
                                           x.netdev.c_str(), model::softLinkTypeName(*x.linkType), l.name.c_str()),
                                 EEXIST)
                        .withProperty("rdma.link-name")
                        .withProfile(origin);
            const char *type = model::softLinkTypeName(*x.linkType);
            add("add-rdma-link", x.linkName, strprintf(_("add the %s link %s over %s"), type, x.linkName.c_str(),
                                                        x.netdev.c_str()),
                origin,
                [name = x.linkName, t = *x.linkType, nd = x.netdev](Platform &p) {
                    return p.addSoftLink(name, t, nd);
                },
                [name = x.linkName](Platform &p) { return p.deleteSoftLink(name); });
            newDevice = true;
        }
        device = x.linkName;
        softType = x.linkType;
        dev = index_.findDevice(device);
    } else if (auto lag = lagDevices_.find(x.netdev); lag != lagDevices_.end()) {
        // The bond this plan forms puts the card in RoCE LAG mode: the
        // settings go to the bonded device, which exists once both ports
        // are enslaved (earlier steps). Undoing those splits it again, and
        // the re-created per-port devices have none of them.
        device = lag->second.first;
        portNo = 1;
        dev = lag->second.second;
        newDevice = true;
        lagNew = true;
    } else {
        bool bond = newNetdevs.count(x.netdev) > 0 || (netdev && netdev->kind == "bond");
        if (bond && (netdev == nullptr || netdev->rdmaDevice.empty()))
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("no RDMA device is behind %s: a bond has one in RoCE LAG mode only, when its "
                                     "only ports are both Ethernet ports of one dual-port mlx5 card and its mode is "
                                     "active-backup, balance-xor or 802.3ad (add the port profiles first)"),
                                   x.netdev.c_str()),
                         ENODEV)
                .withProperty("connection.interface-name")
                .withProfile(origin);
        if (netdev == nullptr || netdev->rdmaDevice.empty())
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("no RDMA device is behind %s; set rdma.link-type to add a soft RDMA link"),
                                   x.netdev.c_str()),
                         ENODEV)
                .withProperty("connection.interface-name")
                .withProfile(origin);
        device = netdev->rdmaDevice;
        portNo = netdev->rdmaPort;
        dev = index_.findDevice(device);
        if (const auto *l = model::findSoftLink(host_, device))
            softType = l->type;
    }

    const model::Port *port = nullptr;
    if (dev && !newDevice)
        for (const auto &p : dev->ports)
            if (p.number == portNo)
                port = &p;
    if (port)
        linkLayer = port->linkLayer;
    std::string object = strprintf("%s/%u", device.c_str(), portNo);
    size_t first = steps.size();

    if (x.roceMode && !model::roceModeSupported(softType, linkLayer, *x.roceMode))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s does not support %s; the kernel refuses it"), object.c_str(),
                               model::roceModeName(*x.roceMode)),
                     EINVAL)
            .withProperty("rdma.roce-mode")
            .withProfile(origin);
    if ((x.trafficClass || x.ttl) && !(dev && model::hasTrafficClassFiles(*dev)))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s has no traffic class or TTL files (mlx5 devices only)"), device.c_str()),
                     ENOENT)
            .withProperty(x.trafficClass ? "rdma.traffic-class" : "rdma.ttl")
            .withProfile(origin);

    if (!x.tcRules.empty() && !(dev && model::hasTrafficClassFiles(*dev)))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s has no traffic class file for rules (mlx5 devices only)"), device.c_str()),
                     ENOENT)
            .withProperty("rdma.traffic-class-rules")
            .withProfile(origin);
    if (x.roceEnable && !(dev && model::hasRoceEnableFile(*dev)))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s has no roce_enable file (mlx5 PCI functions only)"), device.c_str()), ENOENT)
            .withProperty("rdma.roce-enable")
            .withProfile(origin);
    // roce_enable first: the other settings are for the RoCE it enables.
    if (x.roceEnable && dev && dev->roceEnabled != x.roceEnable) {
        bool old = dev->roceEnabled.value_or(true);
        add("set-roce-enable", device,
            *x.roceEnable ? std::string(_("enable RoCE"))
                          : strprintf(_("disable RoCE: the GIDs of every port of %s go"), device.c_str()),
            origin, [device, v = *x.roceEnable](Platform &p) { return p.setRoceEnabled(device, v); },
            [device, old](Platform &p) { return p.setRoceEnabled(device, old); });
    }

    // configfs rdma_cm: the device's directory appears with the first write;
    // when it was not there before, the undo removes it again.
    bool configfsNew = newDevice || !port || !port->defaultRoceMode;
    Op removeConfigfs = [device](Platform &p) { return p.removeRoceDefaults(device); };
    bool configfsUndoPlanned = false;
    if (x.roceMode && (newDevice || !port || port->defaultRoceMode != x.roceMode)) {
        Op undo;
        if (!newDevice)
            undo = configfsNew ? removeConfigfs
                               : Op([device, portNo, o = *port->defaultRoceMode](Platform &p) {
                                     return p.setDefaultRoceMode(device, portNo, o);
                                 });
        configfsUndoPlanned = configfsNew;
        add("set-roce-mode", object,
            strprintf(_("set the default RoCE mode for RDMA-CM to %s"), model::roceModeName(*x.roceMode)), origin,
            [device, portNo, m = *x.roceMode](Platform &p) { return p.setDefaultRoceMode(device, portNo, m); },
            undo);
    }
    if (x.roceTos && (newDevice || !port || port->defaultRoceTos != x.roceTos)) {
        Op undo;
        if (!newDevice && !configfsUndoPlanned)
            undo = configfsNew ? removeConfigfs
                               : Op([device, portNo, o = port->defaultRoceTos.value_or(0)](Platform &p) {
                                     return p.setDefaultRoceTos(device, portNo, o);
                                 });
        else if (!newDevice)
            undo = [](Platform &) { return Status{}; }; // the mode step's undo removes the directory
        add("set-roce-tos", object, strprintf(_("set the default RoCE ToS for RDMA-CM to %u"), *x.roceTos), origin,
            [device, portNo, t = *x.roceTos](Platform &p) { return p.setDefaultRoceTos(device, portNo, t); }, undo);
    }
    if (x.trafficClass && (newDevice || !port || port->trafficClass != x.trafficClass)) {
        Op undo;
        if (port && port->trafficClass)
            undo = [device, portNo, o = *port->trafficClass](Platform &p) { return p.setTrafficClass(device, portNo, o); };
        else if (!newDevice)
            undo = [device, portNo](Platform &p) { return p.clearTrafficClass(device, portNo); };
        add("set-traffic-class", object, strprintf(_("set the traffic class to %u"), *x.trafficClass), origin,
            [device, portNo, v = *x.trafficClass](Platform &p) { return p.setTrafficClass(device, portNo, v); },
            undo);
    }
    // Rules: each is set, replaced or (tclass -1) removed; the undo puts back
    // the rule with that match as it was, or removes it.
    for (const auto &rule : x.tcRules) {
        const model::TcRule *cur = nullptr;
        if (port)
            for (const auto &r : port->tcRules)
                if (r.sameMatch(rule))
                    cur = &r;
        if (rule.tclass < 0 ? cur == nullptr : (cur && cur->tclass == rule.tclass))
            continue;
        model::TcRule undoRule = cur ? *cur : model::tcRuleRemoval(rule);
        add(rule.tclass < 0 ? "remove-traffic-class-rule" : "set-traffic-class-rule", object,
            rule.tclass < 0 ? strprintf(_("remove the traffic class rule %s"), model::formatTcRule(*cur).c_str())
                            : strprintf(_("set the traffic class rule %s"), model::formatTcRule(rule).c_str()),
            origin, [device, portNo, rule](Platform &p) { return p.setTrafficClassRule(device, portNo, rule); },
            [device, portNo, undoRule](Platform &p) { return p.setTrafficClassRule(device, portNo, undoRule); });
    }
    if (x.ttl && (newDevice || !port || port->ttl != x.ttl)) {
        Op undo;
        if (port && port->ttl)
            undo = [device, portNo, o = *port->ttl](Platform &p) { return p.setTtl(device, portNo, o); };
        add("set-ttl", object, strprintf(_("set the TTL to %u"), *x.ttl), origin,
            [device, portNo, v = *x.ttl](Platform &p) { return p.setTtl(device, portNo, v); }, undo);
    }
    // Deleting a new soft link removes its device and all set on it; the
    // new LAG device goes when the enslaving is undone.
    if (lagNew) {
        for (size_t i = first; i < steps.size(); i++)
            if (!steps[i].undo)
                steps[i].undo = [](Platform &) { return Status{}; };
    } else if (newDevice) {
        coverFrom(first - 1);
    }
    return {};
}

// Undoes the steps that ran, in reverse order. The report says the host is
// as before only if every step that changed it was undone: by its own undo,
// or by the deletion of the object it configured.
void rollback(Platform &platform, std::vector<Step> &steps, size_t end, Report &report)
{
    for (size_t j = end; j-- > 0;) {
        Step &s = steps[j];
        if (s.rec.state != StepState::Done || !s.undo)
            continue;
        report.operations++;
        Status st = s.undo(platform);
        if (st.ok()) {
            s.rec.state = StepState::Undone;
        } else {
            s.rec.state = StepState::UndoFailed;
            s.rec.error = st.error().toString();
        }
    }
    bool all = true;
    for (size_t j = 0; j < end; j++) {
        Step &s = steps[j];
        if (s.rec.state == StepState::Done && s.removed && *s.removed)
            s.rec.state = StepState::Undone;
        all = all && (s.rec.state == StepState::Undone || s.rec.state == StepState::Planned ||
                      s.rec.state == StepState::Failed);
    }
    report.rolledBack = all;
}

// Runs the steps in order; the first failure stops the run and undoes the
// steps done so far. Returns false on failure (report says why).
bool execute(Platform &platform, std::vector<Step> &steps, Report &report)
{
    for (size_t i = 0; i < steps.size(); i++) {
        Step &s = steps[i];
        report.operations++;
        Status st = s.run(platform);
        if (st.ok()) {
            s.rec.state = StepState::Done;
            continue;
        }
        s.rec.state = StepState::Failed;
        s.rec.error = st.error().toString();
        report.ok = false;
        report.error = s.rec.error;
        report.errorCode = st.error().code();
        report.failure = st.error();
        rollback(platform, steps, i, report);
        return false;
    }
    return true;
}

void finish(std::vector<Step> &steps, Report &report)
{
    for (auto &s : steps) {
        if (s.kernelName && !s.kernelName->empty())
            s.rec.object = *s.kernelName;
        report.steps.push_back(std::move(s.rec));
    }
}

// Reads what the kernel now has and checks every object the profiles asked
// for. The first mismatch is the error.
Status verifyUp(const Host &h, const Desired &d, bool rdmaOnly)
{
    Report scratch;
    Planner lookup(h, scratch);
    model::HostIndex hi(h);
    auto mismatch = [](const std::string &origin, const std::string &object, std::string what) {
        return Error(IBNM_ERROR_PLATFORM, strprintf(_("verification failed: %s"), what.c_str()))
            .withContext(object)
            .withProfile(origin);
    };
    // The addresses and routes of ifname are those the profile asks.
    auto verifyIp = [&](const std::string &origin, const std::string &ifname, const model::Netdev *nd,
                        const DesiredIp &ip) -> Status {
        for (const auto &a : ip.addresses)
            if (!nd || !contains(nd->addresses, a))
                return mismatch(origin, ifname, strprintf(_("no address %s"), a.c_str()));
        if (nd)
            for (const auto &a : nd->addresses)
                if (ip.manages(a) && !contains(ip.addresses, a))
                    return mismatch(origin, ifname, strprintf(_("address %s is not in the profile"), a.c_str()));
        for (const auto &r : ip.routes)
            if (!nd || std::find(nd->routes.begin(), nd->routes.end(), r) == nd->routes.end())
                return mismatch(origin, ifname, strprintf(_("no route %s"), model::formatRoute(r).c_str()));
        return {};
    };
    auto verifyPortMtu = [&](const std::string &origin, const std::string &ifname, const model::Netdev *nd,
                             const std::string &bond, IpoibMode mode, const model::Port *port) -> Status {
        const auto *b = hi.findNetdev(bond);
        if (!nd || !b)
            return {};
        auto want = model::portMtuAtEnslave(b->mtu, mode, port);
        if (want.ok() && nd->mtu != *want)
            return mismatch(origin, ifname, strprintf(_("MTU is %u, expected %u (the bond's)"), nd->mtu, *want));
        return {};
    };
    for (const auto &x : d.ipoib) {
        if (rdmaOnly)
            break;
        const model::IpoibNetdev *cur = lookup.find(x);
        std::string object = x.ifname.empty() ? x.macAddress : x.ifname;
        if (cur == nullptr)
            return mismatch(x.origin.id, object, _("the interface does not exist"));
        if (cur->mode != x.mode)
            return mismatch(x.origin.id, cur->name,
                            strprintf(_("transport mode is %s, not %s"), model::modeName(cur->mode),
                                      model::modeName(x.mode)));
        if (x.umcast && cur->umcast != *x.umcast)
            return mismatch(x.origin.id, cur->name, _("umcast was not set"));
        const auto *nd = hi.findNetdev(cur->name);
        unsigned mtu = nd ? nd->mtu : cur->mtu;
        const model::Port *port = model::portOf(hi, cur->name);
        if (x.mtu != 0 && x.master.empty()) {
            auto eff = model::effectiveMtu(x.mtu, x.mode, port);
            if (eff.ok() && mtu != *eff)
                return mismatch(x.origin.id, cur->name, strprintf(_("MTU is %u, expected %u"), mtu, *eff));
        }
        if (!x.master.empty()) {
            if (!nd || nd->master != x.master)
                return mismatch(x.origin.id, cur->name, strprintf(_("not a port of %s"), x.master.c_str()));
            if (Status s = verifyPortMtu(x.origin.id, cur->name, nd, x.master, x.mode, port); !s.ok())
                return s;
            continue;
        }
        if (nd && !nd->up)
            return mismatch(x.origin.id, cur->name, _("the link is down"));
        if (Status s = verifyIp(x.origin.id, cur->name, nd, x.ip); !s.ok())
            return s;
    }
    for (const auto &x : d.ethernet) {
        if (rdmaOnly)
            break;
        const auto *nd = hi.findNetdev(x.ifname);
        if (nd == nullptr)
            return mismatch(x.origin.id, x.ifname, _("the interface does not exist"));
        if (!x.master.empty()) {
            if (nd->master != x.master)
                return mismatch(x.origin.id, x.ifname, strprintf(_("not a port of %s"), x.master.c_str()));
            continue;
        }
        if (x.mtu != 0 && nd->mtu != x.mtu)
            return mismatch(x.origin.id, x.ifname, strprintf(_("MTU is %u, expected %u"), nd->mtu, x.mtu));
        if (!nd->up)
            return mismatch(x.origin.id, x.ifname, _("the link is down"));
        if (Status s = verifyIp(x.origin.id, x.ifname, nd, x.ip); !s.ok())
            return s;
    }
    for (const auto &b : d.bonds) {
        if (rdmaOnly)
            break;
        const model::Bond *cur = hi.findBond(b.ifname);
        if (cur == nullptr)
            return mismatch(b.origin.id, b.ifname, _("the bond does not exist"));
        if (cur->mode != b.mode)
            return mismatch(b.origin.id, b.ifname, strprintf(_("bond mode is %s"), cur->mode.c_str()));
        if (b.miimon && cur->miimon != *b.miimon)
            return mismatch(b.origin.id, b.ifname, strprintf(_("bond miimon is %u"), cur->miimon));
        if (!b.primary.empty() && cur->primary != b.primary)
            return mismatch(b.origin.id, b.ifname,
                            strprintf(_("bond primary is %s"), cur->primary.empty() ? "-" : cur->primary.c_str()));
        const auto *nd = hi.findNetdev(b.ifname);
        if (b.mtu != 0 && nd && nd->mtu != b.mtu)
            return mismatch(b.origin.id, b.ifname, strprintf(_("MTU is %u, expected %u"), nd->mtu, b.mtu));
        if (nd && !nd->up)
            return mismatch(b.origin.id, b.ifname, _("the link is down"));
        if (Status s = verifyIp(b.origin.id, b.ifname, nd, b.ip); !s.ok())
            return s;
    }
    for (const auto &r : d.rdma) {
        std::string device;
        unsigned portNo = 1;
        if (r.linkType) {
            const model::SoftLink *l = model::findSoftLink(h, r.linkName);
            if (l == nullptr || l->netdev != r.netdev || l->type != *r.linkType)
                return mismatch(r.origin.id, r.linkName, _("the RDMA link does not exist"));
            device = r.linkName;
        } else if (const auto *nd = hi.findNetdev(r.netdev)) {
            device = nd->rdmaDevice;
            portNo = nd->rdmaPort;
        }
        const model::Device *dev = hi.findDevice(device);
        const model::Port *port = nullptr;
        if (dev)
            for (const auto &p : dev->ports)
                if (p.number == portNo)
                    port = &p;
        std::string object = strprintf("%s/%u", device.c_str(), portNo);
        if (port == nullptr)
            return mismatch(r.origin.id, object, _("the RDMA port does not exist"));
        if (r.roceMode && port->defaultRoceMode != r.roceMode)
            return mismatch(r.origin.id, object, _("the default RoCE mode was not set"));
        if (r.roceTos && port->defaultRoceTos != r.roceTos)
            return mismatch(r.origin.id, object, _("the default RoCE ToS was not set"));
        if (r.trafficClass && port->trafficClass != r.trafficClass)
            return mismatch(r.origin.id, object, _("the traffic class was not set"));
        if (r.ttl && port->ttl != r.ttl)
            return mismatch(r.origin.id, object, _("the TTL was not set"));
        for (const auto &rule : r.tcRules) {
            bool found = false;
            for (const auto &cur : port->tcRules)
                found = found || (rule.tclass < 0 ? cur.sameMatch(rule) : cur == rule);
            if (found != (rule.tclass >= 0))
                return mismatch(r.origin.id, object,
                                strprintf(_("the traffic class rule %s does not hold"), model::formatTcRule(rule).c_str()));
        }
        if (r.roceEnable && dev->roceEnabled != r.roceEnable)
            return mismatch(r.origin.id, device, _("roce_enable was not set"));
    }
    return {};
}

Report planningFailed(Report report, Error e)
{
    report.ok = false;
    report.error = e.toString();
    report.errorCode = e.code();
    report.failure = std::move(e);
    return report;
}

// The steps that bring `desired` onto `host`, in order; a planning error
// (a fact that refuses) fails before anything is changed.
Result<std::vector<Step>> makePlan(const Host &host, const Desired &desired, const Options &options, Report &report)
{
    Planner planner(host, report, options.rdmaOnly, options.index);
    planner.setDesiredBonds(desired.bonds);
    planner.predictRoceLags(desired);
    std::set<std::string> newNetdevs;
    if (!options.rdmaOnly)
        for (const auto &b : desired.bonds)
            newNetdevs.insert(b.ifname);

    // Order: bonds are created first so ports can join them; ports and other
    // interfaces are configured (mode, MTU) and then enslaved or set up;
    // bonds come up after their ports; soft RDMA links come last, over
    // netdevs that now exist.
    std::vector<Step> bondSteps, ipoibSteps, upSteps, rdmaSteps;
    for (const auto &b : desired.bonds)
        if (Status s = options.rdmaOnly ? Status{} : planner.planBond(b); !s.ok())
            return std::move(s).error();
    bondSteps = std::move(planner.steps);
    planner.steps.clear();
    // Parents before children.
    for (int pass = 0; pass < 2; pass++)
        for (const auto &x : desired.ipoib)
            if (bool(x.pkey) == (pass == 1))
                if (Status s = planner.planIpoib(x); !s.ok())
                    return std::move(s).error();
    if (!options.rdmaOnly)
        for (const auto &x : desired.ethernet)
            if (Status s = planner.planEthernet(x); !s.ok())
                return std::move(s).error();
    ipoibSteps = std::move(planner.steps);
    planner.steps.clear();
    for (const auto &[origin, ifname] : planner.pendingUp)
        planner.planUp(origin, ifname, false);
    if (!options.rdmaOnly)
        for (const auto &b : desired.bonds)
            planner.planIp(b.origin.id, b.ifname, b.ip, false);
    upSteps = std::move(planner.steps);
    planner.steps.clear();
    for (const auto &r : desired.rdma)
        if (Status s = planner.planRdma(r, newNetdevs); !s.ok())
            return std::move(s).error();
    rdmaSteps = std::move(planner.steps);

    // A step nothing can undo (a TTL whose previous value the kernel does
    // not show) runs last, so that no later failure leaves it behind.
    std::vector<Step> steps, last;
    for (auto *v : {&bondSteps, &ipoibSteps, &upSteps, &rdmaSteps})
        for (auto &s : *v)
            (s.undo || s.removed ? steps : last).push_back(std::move(s));
    for (auto &s : last)
        steps.push_back(std::move(s));
    return steps;
}

} // namespace

Report plan(const Host &host, const Desired &desired, const Options &options)
{
    Report report;
    auto steps = makePlan(host, desired, options, report);
    if (!steps.ok())
        return planningFailed(std::move(report), std::move(steps).error());
    finish(*steps, report);
    return report;
}

std::optional<std::string> activeInterface(const Host &host, const Desired &desired)
{
    Report report;
    auto steps = makePlan(host, desired, Options{}, report);
    if (!steps.ok() || !steps->empty())
        return std::nullopt;
    std::string name;
    if (!desired.ipoib.empty()) {
        Planner planner(host, report);
        const model::IpoibNetdev *ib = planner.find(desired.ipoib.front());
        if (ib == nullptr)
            return std::nullopt;
        name = ib->name;
    } else if (!desired.bonds.empty()) {
        name = desired.bonds.front().ifname;
    } else if (!desired.ethernet.empty()) {
        name = desired.ethernet.front().ifname;
    }
    const model::Netdev *nd = name.empty() ? nullptr : host.findNetdev(name);
    if (nd == nullptr || !nd->up)
        return std::nullopt;
    return name;
}

Report up(Platform &platform, const Desired &desired, const Options &options)
{
    auto host = platform.readHost();
    if (!host.ok())
        return planningFailed(Report{}, std::move(host).error());
    return up(platform, *host, desired, options);
}

Report up(Platform &platform, const Host &host, const Desired &desired, const Options &options)
{
    Report report;
    auto planned = makePlan(host, desired, options, report);
    if (!planned.ok())
        return planningFailed(std::move(report), std::move(planned).error());
    std::vector<Step> &steps = *planned;
    if (!options.dryRun && !steps.empty() && execute(platform, steps, report)) {
        auto after = platform.readHost();
        Status verified =
            after.ok() ? verifyUp(*after, desired, options.rdmaOnly) : Status(std::move(after).error());
        if (!verified.ok()) {
            report.ok = false;
            report.error = verified.error().toString();
            report.errorCode = verified.error().code();
            report.failure = verified.error();
            rollback(platform, steps, steps.size(), report);
        }
    }
    finish(steps, report);
    return report;
}

Report down(Platform &platform, const Desired &desired, const Options &options)
{
    Report report;
    auto hostR = platform.readHost();
    if (!hostR.ok())
        return planningFailed(std::move(report), std::move(hostR).error());
    const Host &host = *hostR;
    Planner planner(host, report);

    // A base interface (IPoIB port, Ethernet NIC): out of its bond, its
    // profile's routes and addresses removed, link down.
    auto takeDown = [&](const std::string &origin, const std::string &name, const DesiredIp &ip) {
        const auto *nd = host.findNetdev(name);
        if (nd == nullptr)
            return;
        if (!nd->master.empty())
            planner.add("release", name, strprintf(_("remove from bond %s"), nd->master.c_str()), origin,
                        [name](Platform &p) { return p.release(name); },
                        [name, bond = nd->master, mtu = nd->mtu](Platform &p) -> Status {
                            if (Status s = p.enslave(name, bond); !s.ok())
                                return s;
                            return p.setMtu(name, mtu);
                        });
        for (const auto &r : ip.routes)
            if (std::find(nd->routes.begin(), nd->routes.end(), r) != nd->routes.end())
                planner.add("remove-route", name, strprintf(_("remove route %s"), model::formatRoute(r).c_str()),
                            origin, [name, r](Platform &p) { return p.removeRoute(name, r); },
                            [name, r](Platform &p) { return p.addRoute(name, r); });
        for (const auto &a : ip.addresses)
            if (contains(nd->addresses, a))
                planner.add("remove-address", name, strprintf(_("remove address %s"), a.c_str()), origin,
                            [name, a](Platform &p) { return p.removeAddress(name, a); },
                            [name, a](Platform &p) { return p.addAddress(name, a); });
        if (nd->up && nd->master.empty())
            planner.planDown(origin, name, _("set the link down"));
    };

    // Reverse of up: soft links first, then children and ports, then bonds.
    for (const auto &x : desired.rdma) {
        if (!x.linkType)
            continue;
        for (const auto &l : host.softLinks) {
            if (l.name != x.linkName)
                continue;
            // The link's RDMA-CM defaults go with it (its configfs
            // directory): the undo sets them again on the new link.
            std::vector<std::tuple<unsigned, std::optional<model::RoceMode>, std::optional<unsigned>>> cm;
            if (const model::Device *dev = host.findDevice(l.name))
                for (const auto &port : dev->ports)
                    if (port.defaultRoceMode || port.defaultRoceTos)
                        cm.emplace_back(port.number, port.defaultRoceMode, port.defaultRoceTos);
            planner.add("delete-rdma-link", l.name, strprintf(_("delete the RDMA link %s"), l.name.c_str()),
                        x.origin.id, [name = l.name](Platform &p) { return p.deleteSoftLink(name); },
                        [l, cm](Platform &p) -> Status {
                            if (Status s = p.addSoftLink(l.name, l.type, l.netdev); !s.ok())
                                return s;
                            for (const auto &[n, mode, tos] : cm) {
                                if (mode)
                                    if (Status s = p.setDefaultRoceMode(l.name, n, *mode); !s.ok())
                                        return s;
                                if (tos)
                                    if (Status s = p.setDefaultRoceTos(l.name, n, *tos); !s.ok())
                                        return s;
                            }
                            return {};
                        });
        }
    }
    // RDMA-CM defaults a profile set on a hardware device: the configfs
    // directory goes, so the kernel's defaults apply again.
    for (const auto &x : desired.rdma) {
        if (x.linkType || !(x.roceMode || x.roceTos))
            continue;
        const auto *nd = host.findNetdev(x.netdev);
        const model::Device *dev = nd ? host.findDevice(nd->rdmaDevice) : nullptr;
        if (dev == nullptr)
            continue;
        std::vector<std::pair<unsigned, const model::Port *>> set;
        for (const auto &p : dev->ports)
            if (p.defaultRoceMode)
                set.emplace_back(p.number, &p);
        if (set.empty())
            continue;
        std::vector<std::tuple<unsigned, model::RoceMode, unsigned>> old;
        for (const auto &[n, p] : set)
            old.emplace_back(n, *p->defaultRoceMode, p->defaultRoceTos.value_or(0));
        planner.add("remove-roce-defaults", dev->name,
                    strprintf(_("remove the RDMA-CM defaults of %s (the kernel's apply again)"), dev->name.c_str()),
                    x.origin.id, [name = dev->name](Platform &p) { return p.removeRoceDefaults(name); },
                    [name = dev->name, old](Platform &p) -> Status {
                        for (const auto &[n, mode, tos] : old) {
                            if (Status s = p.setDefaultRoceMode(name, n, mode); !s.ok())
                                return s;
                            if (Status s = p.setDefaultRoceTos(name, n, tos); !s.ok())
                                return s;
                        }
                        return {};
                    });
    }
    // A traffic class a profile set on a hardware port: disabled again
    // ("-1", what an unset one is), as the RDMA-CM defaults go.
    for (const auto &x : desired.rdma) {
        if (x.linkType || !x.trafficClass)
            continue;
        const auto *nd = host.findNetdev(x.netdev);
        const model::Device *dev = nd ? host.findDevice(nd->rdmaDevice) : nullptr;
        if (dev == nullptr)
            continue;
        for (const auto &port : dev->ports) {
            if (!port.trafficClass || (nd->rdmaPort != 0 && nd->rdmaPort != port.number))
                continue;
            planner.add("clear-traffic-class", dev->name + "/" + std::to_string(port.number),
                        strprintf(_("disable the traffic class of %s port %u"), dev->name.c_str(), port.number),
                        x.origin.id,
                        [name = dev->name, n = port.number](Platform &p) { return p.clearTrafficClass(name, n); },
                        [name = dev->name, n = port.number, old = *port.trafficClass](Platform &p) {
                            return p.setTrafficClass(name, n, old);
                        });
        }
    }
    for (const auto &x : desired.ipoib) {
        if (options.rdmaOnly)
            break;
        const model::IpoibNetdev *cur = nullptr;
        if (x.pkey) {
            cur = model::findChild(host, x.parent, *x.pkey);
            if (cur == nullptr)
                continue;
            const auto *nd = host.findNetdev(cur->name);
            platform::IpoibChildSpec spec{x.parent, *x.pkey, cur->mode, cur->umcast, cur->name};
            unsigned mtu = nd ? nd->mtu : cur->mtu;
            bool wasUp = nd && nd->up;
            planner.add("delete-ipoib-child", cur->name,
                        strprintf(_("delete the P_Key %s child of %s"), pkeyHex(*x.pkey).c_str(), x.parent.c_str()),
                        x.origin.id,
                        [parent = x.parent, pkey = *x.pkey](Platform &p) { return p.deleteIpoibChild(parent, pkey); },
                        [spec, mtu, wasUp](Platform &p) -> Status {
                            auto r = p.createIpoibChild(spec);
                            if (!r.ok())
                                return std::move(r).error();
                            if (Status s = p.setMtu(*r, mtu); !s.ok())
                                return s;
                            return wasUp ? p.setUp(*r, true) : Status{};
                        });
            continue;
        }
        cur = planner.findBase(x);
        if (cur == nullptr)
            continue;
        takeDown(x.origin.id, cur->name, x.ip);
    }
    for (const auto &x : desired.ethernet) {
        if (options.rdmaOnly)
            break;
        if (host.findNetdev(x.ifname))
            takeDown(x.origin.id, x.ifname, x.ip);
    }
    for (const auto &x : desired.bonds) {
        if (options.rdmaOnly)
            break;
        const model::Bond *cur = host.findBond(x.ifname);
        if (cur == nullptr)
            continue;
        model::Bond old = *cur;
        const auto *nd = host.findNetdev(x.ifname);
        unsigned mtu = nd ? nd->mtu : 0;
        bool wasUp = nd && nd->up;
        planner.add("delete-bond", x.ifname, strprintf(_("delete the bond %s"), x.ifname.c_str()), x.origin.id,
                    [name = x.ifname](Platform &p) { return p.deleteLink(name); },
                    [old, mtu, wasUp](Platform &p) -> Status {
                        platform::BondSpec spec;
                        spec.name = old.name;
                        spec.mode = old.mode;
                        spec.miimon = old.miimon;
                        spec.primary = old.primary;
                        spec.failOverMac = old.failOverMac;
                        if (Status s = p.createBond(spec); !s.ok())
                            return s;
                        for (const auto &port : old.ports)
                            if (Status s = p.enslave(port, old.name); !s.ok())
                                return s;
                        if (mtu != 0)
                            if (Status s = p.setMtu(old.name, mtu); !s.ok())
                                return s;
                        return wasUp ? p.setUp(old.name, true) : Status{};
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!options.dryRun && !steps.empty())
        execute(platform, steps, report);
    finish(steps, report);
    return report;
}


std::string memlockPolicy()
{
    return "# Written by ibnm. Members of group rdma may pin unlimited memory for RDMA\n"
           "# (libibverbs warns when RLIMIT_MEMLOCK is 32 KiB or less).\n"
           "@rdma    soft    memlock    unlimited\n"
           "@rdma    hard    memlock    unlimited\n";
}

// `value` as one udev rules string (udev(7)): '%' and '$' start a
// substitution, so they are doubled; a '"' or '\\' makes it an e"..." string
// with C escapes (systemd 250 and later), so no value ends the string early
// and adds a key of its own (a name such as 'a",RUN+="x').
namespace {

std::string udevString(const std::string &value)
{
    std::string body;
    bool escaped = false;
    for (char c : value) {
        switch (c) {
        case '%': body += "%%"; break;
        case '$': body += "$$"; break;
        case '"': body += "\\\""; escaped = true; break;
        case '\\': body += "\\\\"; escaped = true; break;
        default: body += c;
        }
    }
    return (escaped ? "e\"" : "\"") + body + "\"";
}

} // namespace

std::string udevRules(const std::vector<NMConnection *> &profiles)
{
    std::string out = "# Written by ibnm: persistent names for IPoIB ports, matched by the last 8 bytes\n"
                      "# of the hardware address (the port GUID), as rdma-core's persistent-ipoib.rules.\n";
    std::vector<std::string> lines;
    for (NMConnection *c : profiles) {
        NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
        const char *ifname = nm_connection_get_interface_name(c);
        if (ib == nullptr || ifname == nullptr || nm_setting_infiniband_get_p_key(ib) >= 0)
            continue;
        const char *mac = nm_setting_infiniband_get_mac_address(ib);
        std::string guid = model::portGuidBytes(mac ? mac : "");
        if (guid.empty())
            continue;
        lines.push_back(strprintf("ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
                                  "ATTR{address}==\"?*%s\", NAME=%s\n",
                                  guid.c_str(), udevString(ifname).c_str()));
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    for (const auto &l : lines)
        out += l;
    return out;
}

Report writeHostFiles(Platform &platform, const std::vector<NMConnection *> &profiles, const Options &options)
{
    Report report;
    Host none;
    Planner planner(none, report);
    struct File {
        const char *path;
        std::string contents;
    };
    for (const File &f : {File{kMemlockPolicyPath, memlockPolicy()}, File{kUdevRulesPath, udevRules(profiles)}}) {
        auto cur = platform.readHostFile(f.path);
        if (!cur.ok())
            return planningFailed(std::move(report), std::move(cur).error());
        if (*cur && **cur == f.contents)
            continue;
        std::optional<std::string> old = *cur;
        std::string path = f.path;
        planner.add("write-file", path, strprintf(_("write %s"), path.c_str()), "",
                    [path, c = f.contents](Platform &p) { return p.writeHostFile(path, c, 0644); },
                    [path, old](Platform &p) {
                        return old ? p.writeHostFile(path, *old, 0644) : p.removeHostFile(path);
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!options.dryRun && !steps.empty())
        execute(platform, steps, report);
    finish(steps, report);
    return report;
}

} // namespace ibnm::activation
