// SPDX-License-Identifier: LGPL-2.1-or-later
// Every rule together (checkAll(), what `ibnm check` and `up` ask), and the
// planner's verdict on the profiles (checkPlan()): the rules themselves are in
// profile-rules-alone.cpp, -host.cpp and -across.cpp.
#include "config.h"

#include "libcore/profiles/profile-rules.hpp"
#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/model/host-index.hpp"
#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <optional>

namespace ibnm::rules {

std::vector<Finding> checkPlan(const std::vector<NMConnection *> &profiles, const model::Host &host, bool standalone,
                               const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    // One index of the host for every plan below: each profile is planned
    // alone, and building the index each time made checking N profiles on
    // a host of N interfaces quadratic.
    const model::HostIndex index(host);
    const activation::ProfileIndex profileIndex(context ? *context : profiles);
    auto planFails = [&](const std::vector<NMConnection *> &selected) -> std::optional<Error> {
        auto desired = activation::resolve(selected, context ? *context : profiles, true, standalone, &profileIndex);
        if (!desired.ok())
            return std::move(desired).error();
        activation::Options options;
        options.dryRun = true;
        options.verdictOnly = true; // the steps are not shown
        options.index = &index;
        auto report = activation::plan(host, *desired, options);
        if (report.ok)
            return std::nullopt;
        return report.failure;
    };
    // The profile an error names, by id (the last of that id, as before),
    // looked up in an index built at the first error: a scan of every
    // profile per failing one made checking N failing profiles quadratic.
    std::unordered_map<std::string, NMConnection *> byId;
    auto finding = [&](NMConnection *c, const Error &e) {
        if (byId.empty())
            for (NMConnection *o : context ? *context : profiles)
                byId[idOf(o)] = o;
        NMConnection *who = c;
        if (!e.profile().empty())
            if (auto it = byId.find(e.profile()); it != byId.end())
                who = it->second;
        std::string text = e.property().empty() ? e.message() : e.property() + ": " + e.message();
        Finding f = make(who, e.property(), IBNM_SEVERITY_ERROR, text);
        f.code = e.code();
        // The error can name another profile than the one planned (a
        // bond's Ethernet port): the planned one is involved.
        return involving(std::move(f), {c});
    };
    bool each = true;
    for (NMConnection *c : profiles) {
        if (auto e = planFails({c})) {
            out.push_back(finding(c, *e));
            each = false;
        }
    }
    if (each && profiles.size() > 1)
        if (auto e = planFails(profiles)) {
            // Each plans alone, all together do not: the profile whose
            // addition makes the plan of those before it fail is involved
            // (the shortest failing prefix, found in log2(n) plans; a
            // prefix of one plans, as each did alone).
            size_t good = 1, bad = profiles.size();
            while (bad - good > 1) {
                size_t mid = good + (bad - good) / 2;
                if (planFails(std::vector<NMConnection *>(profiles.begin(), profiles.begin() + mid)))
                    bad = mid;
                else
                    good = mid;
            }
            out.push_back(finding(profiles[bad - 1], *e));
        }
    return out;
}

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
        if (ids.count(f.profileId) && f.property == "infiniband.p-key" &&
            std::find(out.begin(), out.end(), f) == out.end())
            out.push_back(std::move(f));
    return out;
}

} // namespace

std::vector<Finding> checkAll(const std::vector<NMConnection *> &profiles, const model::Host *host,
                              const std::vector<NMConnection *> *context, bool standalone)
{
    std::vector<Finding> out;
    auto append = [&](std::vector<Finding> v) { std::move(v.begin(), v.end(), std::back_inserter(out)); };
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
    if (host) {
        // A profile whose interface is not there (yet) waits for it, as
        // NetworkManager's does: a warning (rule 7), and its plan, which
        // `up` refuses for that reason, is left out of the planner's verdict.
        std::unordered_set<NMConnection *> waiting;
        append(checkPresence(profiles, *host, *index, &waiting));
        std::vector<NMConnection *> present;
        for (NMConnection *c : profiles)
            if (!waiting.count(c))
                present.push_back(c);
        // What `up` would refuse that no rule above names: the planner's
        // verdict, so that check and up --dry-run always agree. An error a
        // rule already gave for the same profile and property is not
        // repeated; the profiles the plan's error involves join that one's.
        for (auto &f : checkPlan(present, *host, standalone, context ? context : &profiles)) {
            auto known = std::find_if(out.begin(), out.end(), [&](const Finding &o) {
                return o.severity == IBNM_SEVERITY_ERROR && o.profileId == f.profileId &&
                       (o.property == f.property || f.property.empty());
            });
            if (known == out.end()) {
                out.push_back(std::move(f));
                continue;
            }
            for (auto &r : f.related)
                if (std::find(known->related.begin(), known->related.end(), r) == known->related.end())
                    known->related.push_back(std::move(r));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return out;
}

} // namespace ibnm::rules
