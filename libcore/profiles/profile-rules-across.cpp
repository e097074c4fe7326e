// SPDX-License-Identifier: LGPL-2.1-or-later
// Rules 3 and 4: across profiles: bonds of IPoIB ports (mode, Ethernet ports,
// fail_over_mac, the MTU a port takes at enslave), duplicate interfaces,
// children, persistent names and soft RDMA links, parents that exist nowhere,
// and bonds that break a RoCE LAG on the host.
#include "config.h"

#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ibnm::rules {

namespace {

std::string bondOption(NMConnection *c, const char *name)
{
    auto *bond = nm_connection_get_setting_bond(c);
    return bond ? str(nm_setting_bond_get_option_by_name(bond, name)) : "";
}

// The MTU a profile sets on its interface (0: automatic).
guint32 profileMtu(NMConnection *c, std::string *property)
{
    if (auto *ib = nm_connection_get_setting_infiniband(c); ib && nm_setting_infiniband_get_mtu(ib)) {
        *property = "infiniband.mtu";
        return nm_setting_infiniband_get_mtu(ib);
    }
    if (auto *wired = nm_connection_get_setting_wired(c); wired && nm_setting_wired_get_mtu(wired)) {
        *property = "802-3-ethernet.mtu";
        return nm_setting_wired_get_mtu(wired);
    }
    return 0;
}

} // namespace

std::vector<Finding> checkBonds(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    // Index once: a port names its bond by interface name or UUID. (A loop
    // over all profiles per bond made 10,000 profiles take seconds.) The
    // bond may be a profile that is not checked itself (the context).
    std::map<std::string, std::vector<NMConnection *>> bondsByRef;
    for (NMConnection *b : context ? *context : profiles) {
        if (typeOf(b) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(b), uuid = str(nm_connection_get_uuid(b));
        if (!ifname.empty())
            bondsByRef[ifname].push_back(b);
        if (!uuid.empty() && uuid != ifname)
            bondsByRef[uuid].push_back(b);
    }
    std::map<NMConnection *, std::pair<std::vector<NMConnection *>, std::vector<NMConnection *>>> portsOf;
    std::vector<NMConnection *> orphans;
    for (NMConnection *p : profiles) {
        if (slaveTypeOf(p) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        std::string master = masterOf(p);
        if (master.empty())
            continue;
        auto it = bondsByRef.find(master);
        if (it == bondsByRef.end()) {
            orphans.push_back(p);
            continue;
        }
        std::vector<NMConnection *> seen;
        for (NMConnection *b : it->second) {
            if (std::find(seen.begin(), seen.end(), b) != seen.end())
                continue;
            seen.push_back(b);
            if (typeOf(p) == NM_SETTING_INFINIBAND_SETTING_NAME)
                portsOf[b].first.push_back(p);
            else if (typeOf(p) == NM_SETTING_WIRED_SETTING_NAME)
                portsOf[b].second.push_back(p);
        }
    }
    for (NMConnection *bond : profiles) {
        if (typeOf(bond) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        const std::vector<NMConnection *> &ib = portsOf[bond].first;
        const std::vector<NMConnection *> &eth = portsOf[bond].second;
        if (ib.empty() && nm_connection_get_setting_infiniband(bond) == nullptr)
            continue;
        std::string mode = model::bondModeName(bondOption(bond, NM_SETTING_BOND_OPTION_MODE));
        if (!model::ipoibBondModeSupported(mode))
            out.push_back(make(bond, "bond.options", IBNM_SEVERITY_ERROR,
                               strprintf(_("mode %s; IPoIB ports can only join an active-backup "
                                           "bond"),
                                         mode.c_str()),
                               _("Set bond.options mode=active-backup."),
                               ib));
        std::vector<NMConnection *> bondAndIb = ib;
        bondAndIb.push_back(bond);
        for (NMConnection *e : eth)
            out.push_back(make(e, "connection.master",
                               IBNM_SEVERITY_ERROR,
                               strprintf(_("bond %s has IPoIB ports (%s); Ethernet and IPoIB "
                                           "ports cannot share a bond"),
                                         ifnameOf(bond).c_str(), ifnameOf(ib.empty() ? bond : ib[0]).c_str()),
                               _("Put the Ethernet ports into a bond of their own."),
                               bondAndIb));
        std::string fom = model::failOverMacName(bondOption(bond, NM_SETTING_BOND_OPTION_FAIL_OVER_MAC));
        const model::Bond *onHost = host ? host->findBond(ifnameOf(bond)) : nullptr;
        bool hasPorts = onHost && !onHost->ports.empty();
        // An existing bond keeps the fail_over_mac it has (the driver does
        // not change it under its ports).
        std::string current = hasPorts ? onHost->failOverMac : fom;
        if (!ib.empty() && current != "active" &&
            (hasPorts || !bondOption(bond, NM_SETTING_BOND_OPTION_FAIL_OVER_MAC).empty())) {
            if (model::failOverMacAfterIpoibEnslave(current, hasPorts) == "active")
                out.push_back(make(bond, "bond.options", IBNM_SEVERITY_INFO,
                                   strprintf(_("fail_over_mac=%s: IPoIB ports cannot take a MAC "
                                               "address, so the kernel switches the bond to fail_over_mac=active "
                                               "at its first port"),
                                             fom.c_str()),
                                   {}, ib));
            else
                out.push_back(make(bond, "bond.options", IBNM_SEVERITY_ERROR,
                                   strprintf(_("bond %s has ports and fail_over_mac=%s; the kernel "
                                               "refuses further IPoIB ports"),
                                             ifnameOf(bond).c_str(), onHost->failOverMac.c_str()),
                                   _("Take the bond down so that it is created again."),
                                   ib));
        }
        std::string bondProperty;
        guint32 bondMtu = profileMtu(bond, &bondProperty);
        if (bondMtu == 0) {
            bondProperty = "bond.mtu";
            const model::Netdev *bnd = host ? host->findNetdev(ifnameOf(bond)) : nullptr;
            bondMtu = bnd ? bnd->mtu : model::kBondDefaultMtu;
        }
        for (NMConnection *p : ib) {
            // The kernel gives each port the bond's MTU at enslave.
            auto *pib = nm_connection_get_setting_infiniband(p);
            if (pib == nullptr)
                continue;
            model::IpoibMode portMode =
                model::modeFromName(nm_setting_infiniband_get_transport_mode(pib)).value_or(model::IpoibMode::Datagram);
            const model::Port *port = host ? model::portOf(*host, ifnameOf(p)) : nullptr;
            auto r = model::portMtuAtEnslave(bondMtu, portMode, port);
            if (!r.ok())
                out.push_back(make(bond, bondProperty, IBNM_SEVERITY_ERROR,
                                   strprintf(_("the kernel sets the bond's MTU %u on its port %s at enslave: %s"),
                                             bondMtu, ifnameOf(p).c_str(),
                                             r.error().message().c_str()),
                                   strprintf(_("Lower the bond's MTU, or put %s in connected mode."),
                                             ifnameOf(p).c_str()),
                                   {p}));
            else if (guint32 portMtu = nm_setting_infiniband_get_mtu(pib); portMtu != 0 && portMtu != *r)
                out.push_back(make(p, "infiniband.mtu", IBNM_SEVERITY_INFO,
                                   strprintf(_("the port takes its bond's MTU %u at enslave, not "
                                               "%u"),
                                             *r, portMtu),
                                   {}, {bond}));
        }
    }
    for (NMConnection *p : orphans) {
        out.push_back(make(p, "connection.master", IBNM_SEVERITY_ERROR,
                           strprintf(_("no bond profile has the interface name or UUID '%s'"),
                                     masterOf(p).c_str()),
                           strprintf(_("Add the bond: type bond ifname %s bond.options mode=active-backup."),
                                     masterOf(p).c_str())));
    }
    return out;
}

std::vector<Finding> checkAcross(const std::vector<NMConnection *> &profiles, const model::Host *host)
{
    std::vector<Finding> out;
    // Looked up, never walked (the findings follow the profiles' order):
    // hash maps, the first profile of each key kept.
    std::unordered_map<std::string, NMConnection *> children; // "<parent>/<P_Key>"
    std::unordered_map<std::string, NMConnection *> childNames; // the kernel's name of each child
    std::unordered_map<std::string, NMConnection *> bases; // interface name of profiles without a P_Key
    std::unordered_map<std::string, NMConnection *> persistentNames; // port GUID -> profile naming it
    std::unordered_map<std::string, NMConnection *> softLinks; // link name -> profile
    std::unordered_map<std::string, NMConnection *> softLinkNetdevs; // "<netdev>/<type>" -> profile
    auto naming = host ? host->childNaming : model::ChildNaming::Upstream;
    for (NMConnection *o : profiles) {
        auto *oib = nm_connection_get_setting_infiniband(o);
        if (oib == nullptr || nm_setting_infiniband_get_p_key(oib) != -1 || typeOf(o) != NM_SETTING_INFINIBAND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(o);
        if (!ifname.empty())
            bases.emplace(ifname, o);
        // Persistent names (udev rules) match the port GUID of mac-address.
        const char *mac = nm_setting_infiniband_get_mac_address(oib);
        std::string guid = mac ? model::portGuidBytes(mac) : "";
        if (!guid.empty() && !ifname.empty()) {
            auto [it, inserted] = persistentNames.emplace(guid, o);
            if (!inserted && ifnameOf(it->second) != ifname)
                out.push_back(make(o, "infiniband.mac-address", IBNM_SEVERITY_ERROR,
                                   strprintf(_("profile '%s' names the port %s '%s'; one port "
                                               "cannot have two persistent names"),
                                             idOf(it->second).c_str(), guid.c_str(), ifnameOf(it->second).c_str()),
                                   _("Give both profiles the same interface name, or remove one mac-address."),
                                   {it->second}));
        }
    }
    // One interface, one profile: NetworkManager activates one profile per
    // device, and two would configure it twice (P_Key children are keyed by
    // parent and P_Key below).
    std::unordered_map<std::string, NMConnection *> interfaces;
    for (NMConnection *c : profiles) {
        auto *cib = nm_connection_get_setting_infiniband(c);
        if (cib && nm_setting_infiniband_get_p_key(cib) != -1 && typeOf(c) == NM_SETTING_INFINIBAND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(c);
        if (ifname.empty() && cib) // a MAC-only profile: the port with its GUID
            ifname = netdevByMac(host, nm_setting_infiniband_get_mac_address(cib));
        if (ifname.empty())
            continue;
        auto [it, inserted] = interfaces.emplace(ifname, c);
        if (!inserted)
            out.push_back(make(c, "connection.interface-name", IBNM_SEVERITY_ERROR,
                               strprintf(_("profile '%s' configures %s too; one interface "
                                           "has one active profile"),
                                         idOf(it->second).c_str(), ifname.c_str()),
                               _("Bring up one of the two profiles, or delete one."),
                               {it->second}));
    }
    for (NMConnection *c : profiles) {
        auto options = userkeys::parse(c);
        if (options && options->linkType && !ifnameOf(c).empty()) {
            std::string name = options->linkName ? *options->linkName
                                                 : model::defaultSoftLinkName(*options->linkType, ifnameOf(c));
            auto [it, inserted] = softLinks.emplace(name, c);
            auto [jt, jinserted]
                = softLinkNetdevs.emplace(ifnameOf(c) + "/" + std::to_string(int(*options->linkType)), c);
            if (!inserted)
                out.push_back(make(c, "rdma.link-name", IBNM_SEVERITY_ERROR,
                                   strprintf(_("profile '%s' creates the RDMA link %s too"),
                                             idOf(it->second).c_str(), name.c_str()),
                                   _("Give each profile its own rdma.link-name."),
                                   {it->second}));
            else if (!jinserted)
                out.push_back(make(c, "rdma.link-type", IBNM_SEVERITY_ERROR,
                                   strprintf(_("profile '%s' creates a %s link over %s too; the kernel "
                                               "allows one per netdev"),
                                             idOf(jt->second).c_str(), model::softLinkTypeName(*options->linkType),
                                             ifnameOf(c).c_str()),
                                   _("Keep the RDMA options in one of the two profiles."),
                                   {jt->second}));
        }
        auto *ib = nm_connection_get_setting_infiniband(c);
        if (ib == nullptr || nm_setting_infiniband_get_p_key(ib) == -1 || !model::validatePkey(nm_setting_infiniband_get_p_key(ib)))
            continue;
        std::string parent = str(nm_setting_infiniband_get_parent(ib));
        if (parent.empty())
            continue;
        uint16_t raw = uint16_t(nm_setting_infiniband_get_p_key(ib));
        unsigned pkey = model::fullMembership(raw);
        auto [it, inserted] = children.emplace(parent + "/" + std::to_string(pkey), c);
        if (!inserted) {
            out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_ERROR,
                               strprintf(_("profile '%s' already defines the child of %s with "
                                           "P_Key 0x%04x"),
                                         idOf(it->second).c_str(), parent.c_str(), pkey),
                               _("Delete one of the two profiles, or give them different P_Keys."),
                               {it->second}));
        } else {
            std::string name = model::childName(parent, raw, naming);
            auto [nt, ninserted] = childNames.emplace(name, c);
            if (!ninserted)
                out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_ERROR,
                                   strprintf(_("the kernel names this child %s, as the child of "
                                               "profile '%s' (names are cut to 15 characters)"),
                                             name.c_str(), idOf(nt->second).c_str()),
                                   _("Use a shorter parent name (a udev rule can rename it), or another P_Key."),
                                   {nt->second}));
        }

        // With an inventory the host rules say whether the parent exists.
        if (host == nullptr && bases.count(parent) == 0)
            out.push_back(make(c, "infiniband.parent", IBNM_SEVERITY_WARNING,
                               strprintf(_("'%s' has no profile (and there is no "
                                           "inventory to look for the device)"),
                                         parent.c_str()),
                               _("Check the parent's name, or add a profile for it.")));
    }
    return out;
}

namespace {

// Whether `o` sets RDMA options on the RDMA device behind its own interface
// (not a soft link of its own): rdma.roce-mode, -tos, traffic class, rules,
// roce-enable or TTL. The first key it sets in *key.
bool setsDeviceRdma(NMConnection *o, std::string *key)
{
    auto options = userkeys::parse(o);
    if (!options || options->linkType)
        return false;
    const std::pair<bool, const char *> keys[] = {
        {bool(options->roceMode), "rdma.roce-mode"},       {bool(options->roceTos), "rdma.roce-tos"},
        {bool(options->trafficClass), "rdma.traffic-class"}, {!options->tcRules.empty(), "rdma.traffic-class-rules"},
        {bool(options->roceEnable), "rdma.roce-enable"},     {bool(options->ttl), "rdma.ttl"}};
    for (const auto &[set, name] : keys)
        if (set) {
            *key = name;
            return true;
        }
    return false;
}

// A profile of `profiles` that takes a port out of its RoCE LAG bond (no
// master, or another one): the device splits, and the port's own comes back
// (model::roceLagSplit), which the profile's rdma.* keys then configure.
void portsLeavingLag(const std::vector<NMConnection *> &profiles, const model::Host &host,
                     const std::vector<model::RoceLag> &lags, const std::vector<NMConnection *> &all,
                     std::vector<Finding> &out)
{
    for (NMConnection *p : profiles) {
        if (typeOf(p) != NM_SETTING_WIRED_SETTING_NAME)
            continue;
        for (const auto &lag : lags) {
            if (std::find(lag.ports.begin(), lag.ports.end(), ifnameOf(p)) == lag.ports.end())
                continue;
            std::string master = masterOf(p);
            bool stays = master == lag.bond || std::any_of(all.begin(), all.end(), [&](NMConnection *b) {
                             return ifnameOf(b) == lag.bond && (master == idOf(b) || master == str(nm_connection_get_uuid(b)));
                         });
            if (stays)
                continue;
            std::string own;
            for (const auto &split : model::roceLagSplit(host, lag))
                if (split.netdev == ifnameOf(p))
                    own = split.device.name;
            out.push_back(make(p, "connection.master", IBNM_SEVERITY_WARNING,
                               strprintf(_("%s is a port of %s, which backs the RoCE LAG device %s; "
                                           "this profile takes it out of the bond, and the driver splits %s into one "
                                           "RDMA device per port (%s gets %s back)"),
                                         ifnameOf(p).c_str(), lag.bond.c_str(), lag.device.c_str(), lag.device.c_str(),
                                         ifnameOf(p).c_str(), own.c_str()),
                               strprintf(_("Set connection.master %s and slave-type bond to keep RoCE LAG."),
                                         lag.bond.c_str())));
        }
    }
}

// A bond profile `b` that puts its two Ethernet ports `portProfiles` into
// RoCE LAG mode: their own RDMA devices go (model::predictRoceLag), with
// what another known profile sets on them.
void devicesMergedAway(NMConnection *b, const std::string &mode, const std::vector<NMConnection *> &portProfiles,
                       const model::Host &host, const std::vector<NMConnection *> &all, std::vector<Finding> &out)
{
    // Only two Ethernet ports make one (not IPoIB bonds: no lookup for them).
    if (portProfiles.size() != 2 || std::any_of(portProfiles.begin(), portProfiles.end(), [](NMConnection *p) {
            return typeOf(p) != NM_SETTING_WIRED_SETTING_NAME;
        }))
        return;
    std::vector<std::string> ports = {ifnameOf(portProfiles[0]), ifnameOf(portProfiles[1])};
    auto merged = model::predictRoceLag(host, mode, ports);
    if (!merged)
        return;
    for (NMConnection *o : all) {
        std::string key;
        if (o == b || std::find(ports.begin(), ports.end(), ifnameOf(o)) == ports.end())
            continue;
        const model::Netdev *nd = host.findNetdev(ifnameOf(o));
        if (nd == nullptr || nd->rdmaDevice.empty() || !setsDeviceRdma(o, &key))
            continue;
        out.push_back(make(b, NM_SETTING_BOND_SETTING_NAME "." NM_SETTING_BOND_OPTIONS, IBNM_SEVERITY_WARNING,
                           strprintf(_("this bond puts %s into RoCE LAG mode: the driver replaces "
                                       "its RDMA device %s with %s, and what profile '%s' sets on %s (%s) goes "
                                       "with it"),
                                     nd->name.c_str(), nd->rdmaDevice.c_str(), merged->c_str(), idOf(o).c_str(),
                                     nd->rdmaDevice.c_str(), key.c_str()),
                           strprintf(_("Move the rdma.* options of '%s' to this bond's profile: they then go to "
                                       "the RoCE LAG device."),
                                     idOf(o).c_str()),
                           {o}));
    }
}

} // namespace

std::vector<Finding> checkRoceLag(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                  const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    auto lags = model::roceLags(host);
    const auto &all = context ? *context : profiles;
    // Nothing to find without a bond profile or a RoCE LAG on the host.
    bool bondProfiles = std::any_of(profiles.begin(), profiles.end(),
                                    [](NMConnection *c) { return typeOf(c) == NM_SETTING_BOND_SETTING_NAME; });
    if (lags.empty() && !bondProfiles)
        return out;
    // The bond ports of every profile by the reference to their bond
    // (interface, id or UUID), looked up once.
    std::unordered_map<std::string, std::vector<NMConnection *>> portsByMaster;
    std::unordered_map<NMConnection *, size_t> position;
    for (size_t i = 0; i < all.size(); i++)
        if (NMConnection *p = all[i]; slaveTypeOf(p) == NM_SETTING_BOND_SETTING_NAME && !masterOf(p).empty()) {
            portsByMaster[masterOf(p)].push_back(p);
            position.emplace(p, i);
        }
    // In the order of `all`.
    auto portsOf = [&](NMConnection *b) {
        std::vector<NMConnection *> v;
        for (const std::string &ref : {ifnameOf(b), idOf(b), str(nm_connection_get_uuid(b))})
            if (auto it = portsByMaster.find(ref); !ref.empty() && it != portsByMaster.end())
                for (NMConnection *p : it->second)
                    if (std::find(v.begin(), v.end(), p) == v.end())
                        v.push_back(p);
        std::sort(v.begin(), v.end(), [&](NMConnection *x, NMConnection *y) { return position[x] < position[y]; });
        return v;
    };
    portsLeavingLag(profiles, host, lags, all, out);
    for (NMConnection *b : profiles) {
        if (typeOf(b) != NM_SETTING_BOND_SETTING_NAME)
            continue;
        std::string ifname = ifnameOf(b);
        NMSettingBond *sb = nm_connection_get_setting_bond(b);
        const char *m = sb ? nm_setting_bond_get_option_by_name(sb, NM_SETTING_BOND_OPTION_MODE) : nullptr;
        std::string mode = model::bondModeName(m ? m : "");
        std::vector<NMConnection *> portProfiles = portsOf(b);
        auto lag = std::find_if(lags.begin(), lags.end(), [&](const model::RoceLag &l) { return l.bond == ifname; });
        if (lag == lags.end()) {
            devicesMergedAway(b, mode, portProfiles, host, all, out);
            continue;
        }
        // The bond's ports as the profiles name them (by interface, id or UUID).
        std::vector<std::string> ports;
        for (NMConnection *p : portProfiles)
            ports.push_back(ifnameOf(p));
        std::string why = model::roceLagBreak(*lag, mode, ports);
        if (!why.empty())
            out.push_back(make(b, NM_SETTING_BOND_SETTING_NAME "." NM_SETTING_BOND_OPTIONS, IBNM_SEVERITY_WARNING,
                               strprintf(_("%s backs the RoCE LAG device %s; this profile leaves LAG "
                                           "mode (%s): the driver splits %s into one RDMA device per port, and its "
                                           "GIDs and RDMA settings go"),
                                         ifname.c_str(), lag->device.c_str(), why.c_str(), lag->device.c_str()),
                               _("Keep the bond in active-backup, balance-xor or 802.3ad with exactly both ports of "
                                 "the card."),
                               portProfiles));
    }
    return out;
}

} // namespace ibnm::rules
