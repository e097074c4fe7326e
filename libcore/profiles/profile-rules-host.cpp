// SPDX-License-Identifier: LGPL-2.1-or-later
// Rule 2: an IPoIB profile against the host: the netdev it runs on, connected
// mode support, the MTU against the IB link and broadcast group, the port's
// P_Key table, limited membership and the child's name.
#include "config.h"

#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/profiles/profile-ip.hpp"
#include "libcore/model/host-index.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"

#include <algorithm>
#include <optional>

namespace ibnm::rules {

namespace {

// The netdev an IPoIB profile runs on: the parent of a P_Key child, else the
// profile's own interface; a profile naming neither is found by its MAC.
std::string baseNetdev(NMConnection *c, NMSettingInfiniband *ib, const model::Host *host, std::string *property)
{
    std::string name;
    if (nm_setting_infiniband_get_p_key(ib) != -1) {
        *property = "infiniband.parent";
        name = str(nm_setting_infiniband_get_parent(ib));
    } else {
        *property = "connection.interface-name";
        name = ifnameOf(c);
    }
    if (name.empty()) {
        name = netdevByMac(host, nm_setting_infiniband_get_mac_address(ib));
        if (!name.empty())
            *property = "infiniband.mac-address";
    }
    return name;
}

struct PortOnHost {
    const model::Netdev *netdev = nullptr;
    const model::Device *device = nullptr;
    const model::Port *port = nullptr;
};

PortOnHost lookup(const model::HostIndex &host, const std::string &netdev)
{
    return {host.findNetdev(netdev), model::deviceOf(host, netdev), model::portOf(host, netdev)};
}

void checkMtu(NMConnection *c, NMSettingInfiniband *ib, const PortOnHost &at, std::vector<Finding> &out)
{
    guint32 mtu = nm_setting_infiniband_get_mtu(ib);
    std::optional<unsigned> max = model::datagramMax(at.port);
    std::optional<unsigned> ceiling = model::datagramCeiling(at.port);
    if (!max)
        return;
    if (mtu != 0) {
        auto eff = model::effectiveMtu(mtu, model::IpoibMode::Datagram, at.port);
        if (!eff.ok()) {
            bool connectedOk = at.device && model::connectedModeAvailable(*at.device);
            std::string hint = connectedOk
                                   ? strprintf(_("Lower infiniband.mtu to %u or less, or use connected mode "
                                                 "(infiniband.transport-mode connected)."),
                                               ceiling.value_or(*max))
                                   : strprintf(_("Lower infiniband.mtu to %u or less (this device has no connected "
                                                 "mode)."),
                                               ceiling.value_or(*max));
            out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_ERROR,
                               eff.error().message(), hint));
            return;
        }
        if (*eff != mtu)
            out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_WARNING,
                               strprintf(_("the kernel uses %u, not %u: the IB link and the "
                                           "partition's broadcast group allow no more (the kernel clamps "
                                           "silently)"),
                                         *eff, mtu),
                               strprintf(_("Set infiniband.mtu %u, or raise the partition's MTU in the subnet "
                                           "manager (ibnm check --opensm prints its partitions.conf line)."),
                                         *eff)));
        return;
    }
    // The automatic MTU: only the broadcast group can make it smaller than
    // the link allows.
    const model::Port *p = at.port;
    if (p->broadcastMtu && p->activeMtu && *p->broadcastMtu < *p->activeMtu && ceiling)
        out.push_back(make(c, "infiniband.mtu", IBNM_SEVERITY_INFO,
                           strprintf(_("the effective MTU is %u (the partition's broadcast group "
                                       "MTU %u - 4), less than the link allows (%u)"),
                                     *ceiling, *p->broadcastMtu, *p->activeMtu - model::kIpoibHeader)));
}

void checkTransportMode(NMConnection *c, NMSettingInfiniband *ib, const PortOnHost &at,
                        std::vector<Finding> &out)
{
    if (model::modeFromName(nm_setting_infiniband_get_transport_mode(ib)) != model::IpoibMode::Connected ||
        at.device == nullptr ||
        model::connectedModeAvailable(*at.device))
        return;
    std::optional<unsigned> max = model::datagramCeiling(at.port);
    std::string hint = max ? strprintf(_("Set infiniband.transport-mode datagram and infiniband.mtu %u or less."), *max)
                           : std::string(_("Set infiniband.transport-mode datagram."));
    out.push_back(make(c, "infiniband.transport-mode", IBNM_SEVERITY_ERROR,
                       model::connectedModeRefusal(*at.device), hint));
}

void checkPkey(NMConnection *c, NMSettingInfiniband *ib, const model::HostIndex *host, const PortOnHost &at,
               std::vector<Finding> &out)
{
    int raw = nm_setting_infiniband_get_p_key(ib);
    if (raw == -1 || !model::validatePkey(raw))
        return; // rule 1 (NetworkManager's verify) names a bad value
    uint16_t pkey = uint16_t(raw);
    std::string parent = str(nm_setting_infiniband_get_parent(ib));
    if (at.port != nullptr && !at.port->pkeys.empty()) {
        bool found = std::any_of(at.port->pkeys.begin(), at.port->pkeys.end(),
                                 [&](uint16_t e) { return model::samePartition(e, pkey); });
        if (!found)
            out.push_back(make(c, "infiniband.p-key", IBNM_SEVERITY_WARNING,
                               strprintf(_("0x%04x is not in the P_Key table of %s port %u; "
                                           "the child is created but carries no traffic"),
                                         unsigned(pkey), at.device->name.c_str(), at.port->number),
                               strprintf(_("The subnet manager must add the partition 0x%04x (ibnm check --opensm "
                                           "prints its partitions.conf line)."),
                                         unsigned(pkey & ~model::kFullMembership))));
    }
    if (parent.empty()) {
        // NetworkManager finds the parent by mac-address; ibnm creates the
        // child under a parent it is told.
        out.push_back(make(c, "infiniband.parent", IBNM_SEVERITY_ERROR,
                           _("a P_Key child needs a parent interface to be created"),
                           _("Set infiniband.parent to the port's interface (e.g. ib0).")));
        return;
    }
    if (host && (host->findNetdev(parent) || host->findIpoib(parent))) {
        if (Status st = model::childCreatable(*host, parent, pkey); !st.ok()) {
            const char *property = st.error().code() == IBNM_ERROR_NOT_FOUND ? "infiniband.parent" : "infiniband.p-key";
            int e = st.error().errnum();
            std::string hint = e == ENOTUNIQ ? _("Use the parent itself for its own partition, or another P_Key.")
                               : e == EEXIST ? _("Use another P_Key, or a shorter parent name (a udev rule can "
                                                 "rename the port).")
                                             : _("Set infiniband.parent to the port's interface (e.g. ib0).");
            out.push_back(make(c, property, IBNM_SEVERITY_ERROR, st.error().message(),
                               hint));
        }
    }
    auto naming = host ? host->childNaming : model::ChildNaming::Upstream;
    // The names are asked for only where a finding needs them (libnm's
    // takes a setting object): every child of a large store comes here.
    if (!(pkey & model::kFullMembership)) {
        std::string kernelName = model::childName(parent, pkey, naming);
        std::string nmName = model::nmChildName(parent, pkey);
        bool mismatch = kernelName != nmName && nm_connection_get_interface_name(c) == nullptr;
        uint16_t full = model::fullMembership(pkey);
        std::string message =
            host ? strprintf(_("0x%04x has the full-membership bit clear; the kernel uses 0x%04x "
                               "and names the child '%s' on this host"),
                             unsigned(pkey), unsigned(full), kernelName.c_str())
                 : strprintf(_("0x%04x has the full-membership bit clear; the kernel uses "
                               "0x%04x"),
                             unsigned(pkey), unsigned(full));
        std::string hint;
        if (mismatch)
            hint = strprintf(_("NetworkManager looks for '%s'; use p-key 0x%04x so the names agree."),
                             nmName.c_str(), unsigned(full));
        out.push_back(make(c, "infiniband.p-key", mismatch ? IBNM_SEVERITY_WARNING : IBNM_SEVERITY_INFO,
                           message, hint));
    }
    // "<parent>.%04x" is the parent and five characters.
    if (parent.size() + 5 > model::kIfNameMax && nm_connection_get_interface_name(c) == nullptr) {
        std::string untruncated = strprintf("%s.%04x", parent.c_str(), unsigned(pkey));
        out.push_back(make(c, "connection.interface-name", IBNM_SEVERITY_INFO,
                           strprintf(_("the kernel cuts '%s' to 15 characters: '%s'"),
                                     untruncated.c_str(), model::nmChildName(parent, pkey).c_str())));
    }
}

} // namespace

std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host, const model::HostIndex *index)
{
    std::vector<Finding> out;
    auto *ib = nm_connection_get_setting_infiniband(profile);
    if (ib == nullptr || typeOf(profile) != NM_SETTING_INFINIBAND_SETTING_NAME)
        return out;
    std::string property;
    std::string netdev = baseNetdev(profile, ib, host, &property);
    PortOnHost at;
    bool child = nm_setting_infiniband_get_p_key(ib) != -1;
    const char *mac = nm_setting_infiniband_get_mac_address(ib);
    if (host == nullptr) {
        out.push_back(make(profile, property, IBNM_SEVERITY_INFO,
                           _("no inventory of the host; the host checks were skipped")));
    } else if (netdev.empty()) {
        // A MAC no port has yet is rule 7's (checkPresence).
        if (!child && !mac)
            out.push_back(make(profile, "connection.interface-name", IBNM_SEVERITY_ERROR,
                               _("neither an interface name nor a MAC address names the "
                                 "device")));
    } else if (index->findNetdev(netdev) == nullptr) {
        // Absent (yet): rule 7's warning (checkPresence).
    } else if (index->findIpoib(netdev) == nullptr || !index->findIpoib(netdev)->parent.empty()) {
        // The planner cannot bring up an IPoIB profile on something that is
        // not an IPoIB port's interface.
        std::string what =
            strprintf(_("'%s' is not the interface of an IPoIB port"), netdev.c_str());
        out.push_back(make(profile, property, IBNM_SEVERITY_ERROR, what,
                           child ? _("Check the parent's name (ibnm device status lists the IPoIB interfaces).")
                                 : _("Check the interface name (ibnm device status lists the IPoIB interfaces).")));
    } else {
        at = lookup(*index, netdev);
        // NetworkManager refuses a profile whose interface has another
        // port's GUID than its mac-address.
        const model::IpoibNetdev *nd = index->findIpoib(netdev);
        if (!child && mac && nm_connection_get_interface_name(profile) && !model::sameIpoibPort(nd->address, mac))
            out.push_back(make(profile, "infiniband.mac-address", IBNM_SEVERITY_ERROR,
                               strprintf(_("%s is not the address of %s (its port GUID is "
                                           "%s)"),
                                         mac, netdev.c_str(), model::portGuidBytes(nd->address).c_str()),
                               _("Remove the mac-address, or set the interface name of the port it names.")));
    }
    checkTransportMode(profile, ib, at, out);
    if (g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "datagram") == 0)
        checkMtu(profile, ib, at, out);
    checkPkey(profile, ib, index, at, out);
    return out;
}

bool needsResolver(NMConnection *profile)
{
    std::string type = typeOf(profile);
    if (!masterOf(profile).empty() ||
        (type != NM_SETTING_INFINIBAND_SETTING_NAME && type != NM_SETTING_WIRED_SETTING_NAME &&
         type != NM_SETTING_BOND_SETTING_NAME))
        return false;
    return !profiles::dnsOf(profile).empty();
}

std::vector<Finding> checkDns(NMConnection *profile, const model::Host *host, bool standalone)
{
    // With NetworkManager, NetworkManager gives them to its DNS backend.
    if (!standalone || host == nullptr || !needsResolver(profile))
        return {};
    std::string property;
    profiles::dnsOf(profile, &property);
    if (!host->resolver)
        return {make(profile, property, IBNM_SEVERITY_INFO,
                     _("without NetworkManager, ibnm gives the DNS servers and search domains to "
                       "systemd-resolved; whether it runs here was not asked"))};
    if (host->resolver->running)
        return {};
    return {make(profile, property, IBNM_SEVERITY_WARNING,
                 strprintf(_("not applied: without NetworkManager, ibnm gives the DNS servers and search domains "
                             "to systemd-resolved, and %s; up leaves them out"),
                           host->resolver->reason.c_str()),
                 _("Start systemd-resolved (systemctl enable --now systemd-resolved), or let NetworkManager "
                   "activate the profile."))};
}

std::vector<Finding> checkStandaloneDhcp(NMConnection *profile, const model::Host *host, bool standalone)
{
    // With a host, the planner's verdict (activation::checkPlan) refuses it.
    NMSettingConnection *sc = nm_connection_get_setting_connection(profile);
    if (!standalone || host != nullptr || (sc && nm_setting_connection_get_master(sc)) || !profiles::wantsDhcp(profile))
        return {};
    return {make(profile, "ipv4.method", IBNM_SEVERITY_WARNING,
                 profiles::dhcpRefusal())};
}

std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host)
{
    std::optional<model::HostIndex> index;
    if (host)
        index.emplace(*host);
    return checkHost(profile, host, host ? &*index : nullptr);
}

} // namespace ibnm::rules
