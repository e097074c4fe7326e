// SPDX-License-Identifier: LGPL-2.1-or-later
// What the files of the profile rules share (libcore/profiles, and the
// planner's verdict in libcore/activation/check.cpp; not installed): a profile's id, type, interface and bond controller as strings,
// make() and involving() to build a finding, the IPoIB port a MAC names, and
// the host rules with an index of the host (profile-rules-host.cpp) that
// checkRules() runs for every profile.
#pragma once

#include "libcore/profiles/profile-rules.hpp"

#include "libcore/model/host-index.hpp"
#include "libcore/model/ipoib.hpp"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

namespace ibnm::rules {

inline std::string str(const char *s)
{
    return s ? s : "";
}

inline std::string idOf(NMConnection *c)
{
    return str(nm_connection_get_id(c));
}

inline std::string typeOf(NMConnection *c)
{
    return str(nm_connection_get_connection_type(c));
}

inline std::string ifnameOf(NMConnection *c)
{
    return str(nm_connection_get_interface_name(c));
}

inline NMSettingConnection *sCon(NMConnection *c)
{
    return nm_connection_get_setting_connection(c);
}

inline std::string slaveTypeOf(NMConnection *c)
{
    return sCon(c) ? str(nm_setting_connection_get_slave_type(sCon(c))) : "";
}

inline std::string masterOf(NMConnection *c)
{
    return sCon(c) ? str(nm_setting_connection_get_master(sCon(c))) : "";
}

// A finding about `property` of `c`. `message` is the translated text alone;
// the property is attached here, once, as NetworkManager's verify() prefixes
// its errors in code (g_prefix_error (error, "%s.%s: ", ...)) and not in each
// translated string: Finding::message (IbnmFinding:message) reads
// "infiniband.mtu: the kernel uses ...". An empty property adds no prefix.
inline Finding make(NMConnection *c, std::string property, IbnmSeverity severity, const std::string &message,
                    std::string hint = {})
{
    std::string text = property.empty() ? message : property + ": " + message;
    return Finding{SharedText(idOf(c)), SharedText(property), severity, std::move(text), SharedText(hint)};
}

// make() for a text that is already whole: an Error::toString() whose
// context names the property, or a finding about the profile as a whole
// that names its property only in the PROPERTY field.
inline Finding makeWhole(NMConnection *c, std::string property, IbnmSeverity severity, std::string text,
                         std::string hint = {})
{
    return Finding{SharedText(idOf(c)), SharedText(property), severity, std::move(text), SharedText(hint)};
}

// `f`, involving the profiles `others`: the rule looked at them to find it.
inline Finding involving(Finding f, const std::vector<NMConnection *> &others)
{
    for (NMConnection *o : others) {
        std::string id = idOf(o);
        if (id != f.profileId && std::find(f.related.begin(), f.related.end(), id) == f.related.end())
            f.related.push_back(id);
    }
    return f;
}

// make(), involving `others`.
inline Finding make(NMConnection *c, std::string property, IbnmSeverity severity, const std::string &message,
                    std::string hint, const std::vector<NMConnection *> &others)
{
    return involving(make(c, std::move(property), severity, message, std::move(hint)), others);
}

// The IPoIB port interface whose port GUID (the last 8 of the 20 address
// bytes, the only stable part) is that of `mac`; empty when none.
inline std::string netdevByMac(const model::Host *host, const char *mac)
{
    if (host == nullptr || mac == nullptr)
        return {};
    for (const auto &n : host->ipoib)
        if (n.parent.empty() && model::sameIpoibPort(n.address, mac))
            return n.name;
    return {};
}

// Rule 2 with an index (profile-rules-host.cpp).
// `index` is one of `host` (checkRules() builds it once for every profile: the
// Host's own lookups scan it, which made checking N profiles on a host of N
// interfaces quadratic).
std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host, const model::HostIndex *index);

// Rule 7 (profile-rules-presence.cpp): a warning, with code
// IBNM_ERROR_NOT_FOUND, for each profile whose interface (a child's parent,
// a MAC-only profile's port) `host` does not have (yet); those profiles are
// added to `waiting`. checkHost() leaves these cases to it.
std::vector<Finding> checkPresence(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                   const model::HostIndex &index, std::unordered_set<NMConnection *> *waiting);

// Rule 8 (profile-rules-priority.cpp): the RoCE priority of rdma.roce-tos
// against the port's VLAN egress maps and DCB PFC.
std::vector<Finding> checkRocePriority(NMConnection *profile, const model::Host *host, const model::HostIndex *index);

} // namespace ibnm::rules
