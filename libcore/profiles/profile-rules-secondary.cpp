// SPDX-License-Identifier: LGPL-2.1-or-later
// Rule 7: RDMA secondaries (VPN profiles of ibnm's service, whose vpn.data
// holds the rdma.* keys; ibnm-secondary.h). NetworkManager activates one on
// the device of each base profile that lists it in connection.secondaries,
// so it is planned there, as nm-ibnm-service would apply it (the plan is
// activation::checkProfiles()'s, libcore/activation/check.cpp); and a base
// profile that also carries the keys in [user] provisions its device twice.
#include "config.h"

#include "libcore/profiles/profile-rules.hpp"
#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

namespace ibnm::rules {

namespace {

bool listsSecondary(NMConnection *base, const char *uuid)
{
    NMSettingConnection *sc = sCon(base);
    guint n = sc ? nm_setting_connection_get_num_secondaries(sc) : 0;
    for (guint i = 0; i < n; i++)
        if (g_strcmp0(nm_setting_connection_get_secondary(sc, i), uuid) == 0)
            return true;
    return false;
}

bool hasRdmaOptions(const userkeys::Options &o)
{
    return o.linkType || o.linkName || o.roceMode || o.roceTos || o.trafficClass || !o.tcRules.empty() ||
           o.roceEnable || o.ttl;
}

// `secondary` on each base's device: an info where a base names none (its
// plan there is activation::checkProfiles()'s).
void checkOnBases(NMConnection *secondary, const std::vector<NMConnection *> &bases, const model::Host *host,
                  std::vector<Finding> &out)
{
    for (NMConnection *b : bases)
        if (baseNetdev(b, host).empty())
            out.push_back(involving(makeWhole(secondary, "connection.secondaries", IBNM_SEVERITY_INFO,
                                              strprintf(_("the base profile '%s' names no interface: the settings "
                                                          "are checked once NetworkManager activates them on its "
                                                          "device"),
                                                        idOf(b).c_str())),
                                    {b}));
}

} // namespace

std::vector<NMConnection *> secondaryBases(NMConnection *secondary, const std::vector<NMConnection *> &all)
{
    std::vector<NMConnection *> bases;
    const char *uuid = nm_connection_get_uuid(secondary);
    for (NMConnection *b : all)
        if (b != secondary && uuid && listsSecondary(b, uuid))
            bases.push_back(b);
    return bases;
}

std::string baseNetdev(NMConnection *base, const model::Host *host)
{
    std::string netdev = ifnameOf(base);
    if (auto *ib = nm_connection_get_setting_infiniband(base); netdev.empty() && ib && host)
        netdev = netdevByMac(host, nm_setting_infiniband_get_mac_address(ib));
    return netdev;
}

std::vector<Finding> checkSecondaries(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                      const std::vector<NMConnection *> *context)
{
    const std::vector<NMConnection *> &all = context ? *context : profiles;
    std::vector<Finding> out;
    for (NMConnection *s : profiles) {
        if (!userkeys::isSecondary(s))
            continue;
        const char *uuid = nm_connection_get_uuid(s);
        std::vector<NMConnection *> bases = secondaryBases(s, all);
        if (bases.empty()) {
            out.push_back(makeWhole(s, "connection.secondaries", IBNM_SEVERITY_INFO,
                                    strprintf(_("no profile lists '%s' as a secondary connection: NetworkManager "
                                                "provisions it on the device of the profile that does"),
                                              idOf(s).c_str()),
                                    strprintf(_("Attach it: nmcli connection modify BASE +connection.secondaries %s"),
                                              str(uuid).c_str())));
            continue;
        }
        checkOnBases(s, bases, host, out);
    }
    // A base profile with rdma.* keys in [user] and an RDMA secondary: the
    // dispatcher hook and nm-ibnm-service would both provision its device.
    for (NMConnection *b : profiles) {
        if (userkeys::isSecondary(b) || sCon(b) == nullptr || nm_setting_connection_get_num_secondaries(sCon(b)) == 0)
            continue;
        auto options = userkeys::parse(b);
        if (!options || !hasRdmaOptions(*options))
            continue;
        for (NMConnection *s : all) {
            const char *uuid = nm_connection_get_uuid(s);
            if (!userkeys::isSecondary(s) || !uuid || !listsSecondary(b, uuid))
                continue;
            out.push_back(make(b, "connection.secondaries", IBNM_SEVERITY_WARNING,
                               strprintf(_("'%s' carries rdma.* keys in [user] and has the "
                                           "RDMA secondary '%s' for the same device: the dispatcher hook and "
                                           "nm-ibnm-service would both provision it"),
                                         idOf(b).c_str(), idOf(s).c_str()),
                               _("Keep one: remove the rdma.* keys from the base profile, or the secondary from its "
                                 "connection.secondaries."),
                               {s}));
        }
    }
    return out;
}

} // namespace ibnm::rules
