// SPDX-License-Identifier: LGPL-2.1-or-later
// Every rule together (checkRules(); with the planner's verdict, what `ibnm
// check` and `up` ask of activation::checkProfiles()), and whether they need
// the GID tables: the rules themselves are in profile-rules-alone.cpp,
// -host.cpp, -across.cpp and the others.
#include "config.h"

#include "libcore/profiles/profile-rules.hpp"
#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/model/host-index.hpp"

#include <algorithm>
#include <unordered_set>
#include <optional>

namespace ibnm::rules {

bool needsGidTables(const std::vector<NMConnection *> &profiles, const model::Host &host)
{
    // The netdevs a GID entry could give an RDMA device (a netdev that has
    // one keeps it: sysfs::mapNetdevsByGids). The rules look a netdev up by
    // a name a profile gives, or find it another way: a bond by the host's
    // list (model::roceLags), an IPoIB interface by a profile's MAC address.
    const model::HostIndex index(host);
    std::unordered_set<std::string> unmapped;
    for (const auto &n : host.netdevs) {
        if (!n.rdmaDevice.empty())
            continue;
        if (n.kind == "bond" || index.findBond(n.name) || index.findIpoib(n.name))
            return true;
        unmapped.insert(n.name);
    }
    if (unmapped.empty())
        return false;
    for (NMConnection *c : profiles) {
        std::string names[] = {ifnameOf(c), masterOf(c), {}};
        if (auto *ib = nm_connection_get_setting_infiniband(c))
            names[2] = str(nm_setting_infiniband_get_parent(ib));
        for (const auto &name : names)
            if (!name.empty() && unmapped.count(name))
                return true;
    }
    return false;
}

namespace {

// The rules across profiles for `profiles`, with the others of `context`
// (the store: `connection up` checks the profiles it brings up against every
// stored one). Of two profiles for one P_Key child the later in the store's
// order is the error, as `ibnm check NAME` (all profiles, NAME's findings)
// says: check, the dry run and up agree on which one.
std::vector<Finding> checkAcrossIn(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                   const std::vector<NMConnection *> *context)
{
    if (context == nullptr || context->empty())
        return checkAcross(profiles, host);
    std::unordered_set<std::string> ids;
    for (NMConnection *c : profiles)
        ids.insert(str(nm_connection_get_id(c)));
    std::vector<NMConnection *> all = *context;
    std::unordered_set<NMConnection *> inContext(context->begin(), context->end());
    for (NMConnection *c : profiles)
        if (!inContext.count(c))
            all.push_back(c);
    // Two profiles for one interface named by its name are not refused here:
    // `up` of one deactivates the other, as NetworkManager does on a device
    // (planUp(); NetworkManager lab).
    std::vector<Finding> out = checkAcross(profiles, host);
    for (auto &f : checkAcross(all, host))
        if (ids.count(f.profileId.str()) && f.property == "infiniband.p-key" &&
            std::find(out.begin(), out.end(), f) == out.end())
            out.push_back(std::move(f));
    return out;
}

} // namespace

std::vector<Finding> checkRules(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                const std::vector<NMConnection *> *context, bool standalone,
                                std::unordered_set<NMConnection *> *waiting, std::vector<Finding> *presence)
{
    // Room for a finding per profile, grown by a quarter when more come:
    // growing by doubling held up to 2.5 times the findings at once (4 MB
    // at 10,000 profiles) and left up to half of it unused.
    std::vector<Finding> out;
    out.reserve(profiles.size());
    auto append = [&](std::vector<Finding> v) {
        if (out.size() + v.size() > out.capacity())
            out.reserve(std::max(out.size() + v.size(), out.capacity() + out.capacity() / 4));
        std::move(v.begin(), v.end(), std::back_inserter(out));
    };
    std::optional<model::HostIndex> index;
    if (host)
        index.emplace(*host);
    for (NMConnection *c : profiles) {
        append(checkNetworkManager(c));
        append(checkHost(c, host, host ? &*index : nullptr));
        append(checkOptions(c));
        append(checkLinkMtu(c));
        append(checkDns(c, host, standalone));
        append(checkStandaloneDhcp(c, host, standalone));
        append(checkRocePriority(c, host, host ? &*index : nullptr));
    }
    append(checkBonds(profiles, host, context));
    append(checkAcrossIn(profiles, host, context));
    if (host)
        append(checkRoceLag(profiles, *host, context));
    append(checkSecondaries(profiles, host, context));
    if (host)
        append(presence ? std::move(*presence) : checkPresence(profiles, *host, *index, waiting));
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return out;
}

} // namespace ibnm::rules
