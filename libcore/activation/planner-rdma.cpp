// SPDX-License-Identifier: LGPL-2.1-or-later
// The planner, for RDMA devices: soft RDMA links (rxe, siw), roce_enable,
// the RDMA-CM defaults (configfs), traffic class, its rules and TTL, on a
// hardware port, a new soft link or the RoCE LAG device a planned bond makes.
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

namespace ibnm::activation::detail {

namespace {

// The first RDMA key `x` sets other than the link's, for errors.
const char *firstKey(const DesiredRdma &x)
{
    if (x.roceMode)
        return x.names.roceMode;
    if (x.roceTos)
        return x.names.roceTos;
    if (x.trafficClass)
        return x.names.trafficClass;
    if (!x.tcRules.empty())
        return x.names.tcRules;
    if (x.roceEnable)
        return x.names.roceEnable;
    return x.names.ttl;
}

} // namespace

// The RDMA device and port the keys of a DesiredRdma go to, and what the
// plan knows of them: the stages of planRdma() pass it along.
struct RdmaTarget {
    std::string device;
    unsigned portNo = 1;
    // Made by this plan (a soft link, a RoCE LAG device, a split port's
    // device): nothing is set on it yet, and its undo removes all.
    bool newDevice = false;
    // Made by the bonding steps (not by a step of its own).
    bool lagNew = false;
    std::optional<model::SoftLinkType> softType;
    const model::Device *dev = nullptr;
    const model::Port *port = nullptr; // on the host; null for a new device
    model::LinkLayer linkLayer = model::LinkLayer::Ethernet;
    std::string object; // "device/port", the steps' object
};

// Stage 1, a soft link (rdma.link-type): refuses a netdev that is not
// there or not Ethernet and a name or netdev taken by another link, and
// plans adding the link when it is not there yet.
Status Planner::planRdmaSoftLink(const DesiredRdma &x, bool netdevKnown, RdmaTarget &t)
{
    const std::string &origin = x.origin.id;
    const auto *netdev = index_.findNetdev(x.netdev);
    if (!netdevKnown)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no interface %s on this host"), x.netdev.c_str()), ENODEV)
            .withProperty(x.names.netdev)
            .withProfile(origin);
    if (netdev && netdev->type != 1)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s is not an Ethernet interface; soft RDMA links run over Ethernet"),
                               x.netdev.c_str()),
                     EINVAL)
            .withProperty(x.names.linkType)
            .withProfile(origin);
    const model::SoftLink *cur = host_.findSoftLink(x.linkName);
    if (cur && (cur->netdev != x.netdev || cur->type != *x.linkType))
        return Error(IBNM_ERROR_EXISTS,
                     strprintf(_("the RDMA link %s exists already over %s"), x.linkName.c_str(),
                               cur->netdev.c_str()),
                     EEXIST)
            .withProperty(x.names.linkName)
            .withProfile(origin);
    if (cur == nullptr) {
        if (index_.findDevice(x.linkName))
            return Error(IBNM_ERROR_EXISTS,
                         strprintf(_("an RDMA device named %s exists already"), x.linkName.c_str()), EEXIST)
                .withProperty(x.names.linkName)
                .withProfile(origin);
        for (const auto &l : host_.softLinks)
            if (l.netdev == x.netdev && l.type == *x.linkType)
                return Error(IBNM_ERROR_EXISTS,
                             strprintf(_("%s already has the %s link %s; the kernel allows one per netdev"),
                                       x.netdev.c_str(), model::softLinkTypeName(*x.linkType), l.name.c_str()),
                             EEXIST)
                    .withProperty(x.names.linkName)
                    .withProfile(origin);
        const char *type = model::softLinkTypeName(*x.linkType);
        add(
            IBNM_STEP_ACTION_ADD_RDMA_LINK, x.linkName,
            [&] { return strprintf(_("add the %s link %s over %s"), type, x.linkName.c_str(), x.netdev.c_str()); },
            origin,
            [name = x.linkName, lt = *x.linkType, nd = x.netdev](Platform &p) { return p.addSoftLink(name, lt, nd); },
            [name = x.linkName](Platform &p) { return p.deleteSoftLink(name); });
        t.newDevice = true;
    }
    t.device = x.linkName;
    t.softType = x.linkType;
    t.dev = index_.findDevice(t.device);
    return {};
}

// Stage 2, the device behind the netdev: its own RDMA device, else
// refused (with the reason a bond has none, or that rdma.link-type adds
// one); a port joining a bond this plan puts in RoCE LAG mode is refused.
Status Planner::planRdmaNetdevDevice(const DesiredRdma &x, const std::set<std::string> &newNetdevs, RdmaTarget &t)
{
    const std::string &origin = x.origin.id;
    const auto *netdev = index_.findNetdev(x.netdev);
    if (auto joining = lagPorts_.find(x.netdev);
        joining != lagPorts_.end() && netdev && !netdev->rdmaDevice.empty()) {
        // The port joins a bond this plan puts into RoCE LAG mode: its own
        // RDMA device is gone once it is enslaved (model::predictRoceLag).
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s joins the bond %s, which merges its RDMA device %s into the RoCE LAG device %s; "
                                 "set the RDMA options on the bond's profile"),
                               x.netdev.c_str(), joining->second.first.c_str(), netdev->rdmaDevice.c_str(),
                               joining->second.second.c_str()),
                     ENODEV)
            .withProperty(firstKey(x))
            .withProfile(origin);
    }
    bool bond = newNetdevs.count(x.netdev) > 0 || (netdev && netdev->kind == "bond");
    if (bond && (netdev == nullptr || netdev->rdmaDevice.empty()))
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("no RDMA device is behind %s: a bond has one in RoCE LAG mode only, when its "
                                 "only ports are both Ethernet ports of one dual-port mlx5 card and its mode is "
                                 "active-backup, balance-xor or 802.3ad (add the port profiles first)"),
                               x.netdev.c_str()),
                     ENODEV)
            .withProperty(x.names.netdev)
            .withProfile(origin);
    if (netdev == nullptr || netdev->rdmaDevice.empty())
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("no RDMA device is behind %s; set rdma.link-type to add a soft RDMA link"),
                               x.netdev.c_str()),
                     ENODEV)
            .withProperty(x.names.netdev)
            .withProfile(origin);
    t.device = netdev->rdmaDevice;
    t.portNo = netdev->rdmaPort;
    t.dev = index_.findDevice(t.device);
    if (const auto *l = host_.findSoftLink(t.device))
        t.softType = l->type;
    return {};
}

// Stage 3, the target: which device and port the keys go to (a soft link,
// the device and port a typed call names, the RoCE LAG device of a bond
// this plan makes, a released port's own device again, or the netdev's),
// and its port on the host when the device is not new.
Status Planner::planRdmaTarget(const DesiredRdma &x, const std::set<std::string> &newNetdevs, RdmaTarget &t)
{
    bool netdevKnown = index_.findNetdev(x.netdev) != nullptr || newNetdevs.count(x.netdev) > 0;
    Status s;
    if (x.linkType) {
        s = planRdmaSoftLink(x, netdevKnown, t);
    } else if (!x.device.empty()) {
        // A typed call names the device and port (which need no netdev).
        t.device = x.device;
        t.portNo = x.port;
        t.dev = index_.findDevice(t.device);
        if (const auto *l = host_.findSoftLink(t.device))
            t.softType = l->type;
    } else if (auto lag = lagDevices_.find(x.netdev); lag != lagDevices_.end()) {
        // The bond this plan forms puts the card in RoCE LAG mode: the
        // settings go to the bonded device, which exists once both ports
        // are enslaved (earlier steps). Undoing those splits it again, and
        // the re-created per-port devices have none of them.
        t.device = lag->second.first;
        t.dev = lag->second.second;
        t.newDevice = t.lagNew = true;
    } else if (auto split = splitDevices_.find(x.netdev); split != splitDevices_.end()) {
        // The port leaves its RoCE LAG bond (an earlier step): the driver
        // gives it an RDMA device of its own again (model::roceLagSplit),
        // new and without settings. Undoing the release merges it away.
        t.device = split->second.name;
        t.dev = &split->second;
        t.newDevice = t.lagNew = true;
    } else {
        s = planRdmaNetdevDevice(x, newNetdevs, t);
    }
    if (!s.ok())
        return s;
    if (t.dev && !t.newDevice)
        for (const auto &p : t.dev->ports)
            if (p.number == t.portNo)
                t.port = &p;
    if (t.port)
        t.linkLayer = t.port->linkLayer;
    t.object = strprintf("%s/%u", t.device.c_str(), t.portNo);
    return {};
}

// Stage 4, what the device supports: refuses a RoCE mode it does not
// have, and traffic class, TTL, rules or roce_enable without their files.
Status Planner::checkRdmaSupport(const DesiredRdma &x, const RdmaTarget &t) const
{
    const std::string &origin = x.origin.id;
    const model::Device *dev = t.dev;
    if (x.roceMode && !model::roceModeSupported(t.softType, t.linkLayer, *x.roceMode))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s does not support %s; the kernel refuses it"), t.object.c_str(),
                               model::roceModeName(*x.roceMode)),
                     EINVAL)
            .withProperty(x.names.roceMode)
            .withProfile(origin);
    if ((x.trafficClass || x.clearTrafficClass || x.ttl) && !(dev && model::hasTrafficClassFiles(*dev)))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s has no traffic class or TTL files (mlx5 devices only)"), t.device.c_str()),
                     ENOENT)
            .withProperty(x.trafficClass || x.clearTrafficClass ? x.names.trafficClass : x.names.ttl)
            .withProfile(origin);

    if (!x.tcRules.empty() && !(dev && model::hasTrafficClassFiles(*dev)))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s has no traffic class file for rules (mlx5 devices only)"), t.device.c_str()),
                     ENOENT)
            .withProperty(x.names.tcRules)
            .withProfile(origin);
    if (x.roceEnable && !(dev && model::hasRoceEnableFile(*dev)))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s has no roce_enable file (mlx5 PCI functions only)"), t.device.c_str()), ENOENT)
            .withProperty(x.names.roceEnable)
            .withProfile(origin);
    return {};
}

// Stage 5, RoCE: roce_enable first (the other settings are for the RoCE
// it enables), then the RDMA-CM defaults in configfs (mode, ToS) that
// differ, with the undo that puts each back or removes the directory.
void Planner::planRdmaRoceDefaults(const DesiredRdma &x, const RdmaTarget &t)
{
    const std::string &origin = x.origin.id;
    const std::string &device = t.device;
    const model::Device *dev = t.dev;
    const model::Port *port = t.port;
    bool newDevice = t.newDevice;
    unsigned portNo = t.portNo;
    if (x.roceEnable && dev && dev->roceEnabled != x.roceEnable) {
        bool old = dev->roceEnabled.value_or(true);
        add(IBNM_STEP_ACTION_SET_ROCE_ENABLE, device,
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
        add(
            IBNM_STEP_ACTION_SET_ROCE_MODE, t.object,
            [&] {
                return strprintf(_("set the default RoCE mode for RDMA-CM to %s"), model::roceModeName(*x.roceMode));
            },
            origin, [device, portNo, m = *x.roceMode](Platform &p) { return p.setDefaultRoceMode(device, portNo, m); },
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
        add(
            IBNM_STEP_ACTION_SET_ROCE_TOS, t.object,
            [&] { return strprintf(_("set the default RoCE ToS for RDMA-CM to %u"), *x.roceTos); }, origin,
            [device, portNo, tos = *x.roceTos](Platform &p) { return p.setDefaultRoceTos(device, portNo, tos); }, undo);
    }
}

// Stage 6, traffic class and TTL: the global class (set, or disabled by a
// negative value), each rule that differs, the TTL; each undo puts back
// what the port had, or removes what it did not have.
void Planner::planRdmaTrafficClass(const DesiredRdma &x, const RdmaTarget &t)
{
    const std::string &origin = x.origin.id;
    const std::string &device = t.device;
    const std::string &object = t.object;
    const model::Port *port = t.port;
    bool newDevice = t.newDevice;
    unsigned portNo = t.portNo;
    if (x.trafficClass && (newDevice || !port || port->trafficClass != x.trafficClass)) {
        Op undo;
        if (port && port->trafficClass)
            undo = [device, portNo, o = *port->trafficClass](Platform &p) { return p.setTrafficClass(device, portNo, o); };
        else if (!newDevice)
            undo = [device, portNo](Platform &p) { return p.clearTrafficClass(device, portNo); };
        add(
            IBNM_STEP_ACTION_SET_TRAFFIC_CLASS, object, [&] { return strprintf(_("set the traffic class to %u"), *x.trafficClass); },
            origin, [device, portNo, v = *x.trafficClass](Platform &p) { return p.setTrafficClass(device, portNo, v); },
            undo);
    }
    // A negative value disables the global class (NVIDIA's RoCE page).
    if (x.clearTrafficClass && port && port->trafficClass) {
        add(
            IBNM_STEP_ACTION_CLEAR_TRAFFIC_CLASS, object, [&] { return std::string(_("disable the global traffic class")); }, origin,
            [device, portNo](Platform &p) { return p.clearTrafficClass(device, portNo); },
            [device, portNo, o = *port->trafficClass](Platform &p) { return p.setTrafficClass(device, portNo, o); });
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
        add(rule.tclass < 0 ? IBNM_STEP_ACTION_REMOVE_TRAFFIC_CLASS_RULE : IBNM_STEP_ACTION_SET_TRAFFIC_CLASS_RULE, object,
            rule.tclass < 0 ? strprintf(_("remove the traffic class rule %s"), model::formatTcRule(*cur).c_str())
                            : strprintf(_("set the traffic class rule %s"), model::formatTcRule(rule).c_str()),
            origin, [device, portNo, rule](Platform &p) { return p.setTrafficClassRule(device, portNo, rule); },
            [device, portNo, undoRule](Platform &p) { return p.setTrafficClassRule(device, portNo, undoRule); });
    }
    if (x.ttl && (newDevice || !port || port->ttl != x.ttl)) {
        Op undo;
        if (port && port->ttl)
            undo = [device, portNo, o = *port->ttl](Platform &p) { return p.setTtl(device, portNo, o); };
        add(
            IBNM_STEP_ACTION_SET_TTL, object, [&] { return strprintf(_("set the TTL to %u"), *x.ttl); }, origin,
            [device, portNo, v = *x.ttl](Platform &p) { return p.setTtl(device, portNo, v); }, undo);
    }
}

// The stages in order: the target, what it supports, RoCE, traffic class.
Status Planner::planRdma(const DesiredRdma &x, const std::set<std::string> &newNetdevs)
{
    RdmaTarget t;
    if (Status s = planRdmaTarget(x, newNetdevs, t); !s.ok())
        return s;
    size_t first = steps.size();
    if (Status s = checkRdmaSupport(x, t); !s.ok())
        return s;
    planRdmaRoceDefaults(x, t);
    planRdmaTrafficClass(x, t);
    // Deleting a new soft link removes its device and all set on it; the
    // new LAG device goes when the enslaving is undone.
    if (t.lagNew) {
        for (size_t i = first; i < steps.size(); i++)
            if (!steps[i].undo)
                steps[i].undo = [](Platform &) { return Status{}; };
    } else if (t.newDevice) {
        coverFrom(first - 1);
    }
    return {};
}

} // namespace ibnm::activation::detail
