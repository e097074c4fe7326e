// SPDX-License-Identifier: LGPL-2.1-or-later
// The rules of libcore/profiles joined to the planner's verdict (check.hpp):
// what `ibnm check` and `up` ask.
#include "config.h"

#include "libcore/activation/check.hpp"

#include "libcore/activation/engine.hpp"
#include "libcore/model/host-index.hpp"
#include "libcore/profiles/profile-rules-private.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace ibnm::activation {

using rules::Finding;
using rules::idOf;
using rules::involving;
using rules::make;

std::vector<Finding> checkPlan(const std::vector<NMConnection *> &profiles, const model::Host &host, bool standalone,
                               const std::vector<NMConnection *> *context)
{
    std::vector<Finding> out;
    // One index of the host for every plan below: each profile is planned
    // alone, and building the index each time made checking N profiles on
    // a host of N interfaces quadratic.
    const model::HostIndex index(host);
    const ProfileIndex profileIndex(context ? *context : profiles);
    auto planFails = [&](const std::vector<NMConnection *> &selected) -> std::optional<Error> {
        auto desired = resolve(selected, context ? *context : profiles, true, standalone, &profileIndex);
        if (!desired.ok())
            return std::move(desired).error();
        Options options;
        options.dryRun = true;
        options.verdictOnly = true; // the steps are not shown
        options.index = &index;
        auto report = plan(host, *desired, options);
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
        Finding f = make(who, e.property(), IBNM_SEVERITY_ERROR, e.message());
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

namespace {

// What the planner says of `secondary` active on `netdev` (nullopt: fine).
std::optional<Error> planOn(NMConnection *secondary, const std::string &netdev, const model::Host &host)
{
    auto copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(secondary));
    g_object_set(rules::sCon(copy.get()), NM_SETTING_CONNECTION_INTERFACE_NAME, netdev.c_str(), nullptr);
    auto desired = resolve({copy.get()}, {copy.get()}, false);
    if (!desired.ok())
        return std::move(desired).error();
    Options options;
    options.dryRun = true;
    options.rdmaOnly = true;
    options.verdictOnly = true;
    auto report = plan(host, *desired, options);
    if (report.ok)
        return std::nullopt;
    return report.failure ? *report.failure : Error(report.errorCode, report.error);
}

// Rule 7 with the planner: each RDMA secondary of `profiles` on the device
// of each base profile of `all` that lists it and names one.
std::vector<Finding> checkSecondaryPlans(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                         const std::vector<NMConnection *> &all)
{
    std::vector<Finding> out;
    for (NMConnection *s : profiles) {
        if (!userkeys::isSecondary(s))
            continue;
        for (NMConnection *b : rules::secondaryBases(s, all)) {
            std::string netdev = rules::baseNetdev(b, &host);
            if (netdev.empty())
                continue;
            auto e = planOn(s, netdev, host);
            if (!e)
                continue;
            Finding f = make(s, e->property(), IBNM_SEVERITY_ERROR,
                             strprintf(_("%s (on %s, the device of the base profile '%s')"), e->message().c_str(),
                                       netdev.c_str(), idOf(b).c_str()),
                             _("NetworkManager fails the base profile's activation when its secondary fails."), {b});
            f.code = e->code();
            out.push_back(std::move(f));
        }
    }
    return out;
}

} // namespace

std::vector<Finding> checkProfiles(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                   const std::vector<NMConnection *> *context, bool standalone)
{
    // A profile whose interface is not there (yet) waits for it, as
    // NetworkManager's does: a warning (rule 7), and its plan, which `up`
    // refuses for that reason, is left out of the planner's verdict.
    std::unordered_set<NMConnection *> waiting;
    if (host == nullptr)
        return rules::checkRules(profiles, host, context, standalone, &waiting);
    // The planner's verdict is found first, and the rules' findings after
    // it: the plan of every profile and the findings (4 MB each at 10,000
    // profiles) are not held at once. It needs rule 7's `waiting`.
    std::vector<Finding> presence = rules::checkPresence(profiles, *host, model::HostIndex(*host), &waiting);
    std::vector<NMConnection *> present;
    present.reserve(profiles.size() - waiting.size());
    for (NMConnection *c : profiles)
        if (!waiting.count(c))
            present.push_back(c);
    // What `up` would refuse that no rule names: the planner's verdict, so
    // that check and up --dry-run always agree. An error a rule already
    // gave for the same profile and property is not repeated; the profiles
    // the plan's error involves join that one's.
    auto plans = checkPlan(present, *host, standalone, context ? context : &profiles);
    auto secondaries = checkSecondaryPlans(profiles, *host, context ? *context : profiles);
    std::vector<Finding> out = rules::checkRules(profiles, host, context, standalone, nullptr, &presence);
    out.reserve(out.size() + secondaries.size() + plans.size());
    for (auto &f : secondaries)
        out.push_back(std::move(f));
    for (auto &f : plans) {
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
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding &a, const Finding &b) { return a.severity > b.severity; });
    return out;
}

} // namespace ibnm::activation
