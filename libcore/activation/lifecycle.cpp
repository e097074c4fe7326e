// SPDX-License-Identifier: LGPL-2.1-or-later
// The executor for active connections (engine.hpp: reactivate(),
// deactivate()): the teardown of their records (planner-teardown.cpp) and
// the plan of what comes up after it, run as one transaction through the
// engine's execute(), verified by reading the host back and undone whole
// on failure.
#include "config.h"

#include "libcore/activation/planner.hpp"

#include "libcore/support/i18n.hpp"

#include <algorithm>
#include <unordered_map>

namespace ibnm::activation {

using detail::execute;
using detail::finish;
using detail::makePlan;
using detail::makeTeardownPlan;
using detail::planningFailed;
using detail::rollback;
using detail::Step;
using detail::verifyUp;
using model::Host;
using platform::Platform;

namespace {

void failed(Report &report, const Error &e)
{
    report.ok = false;
    report.error = e.toString();
    report.errorCode = e.code();
    report.failure = e;
}

// What of `record` the host `h` still shows after its teardown (a TTL whose
// old value the kernel did not show cannot be put back, and does not
// count); the first such object is the error.
Status verifyDown(const Host &h, const ActiveRecord &record)
{
    ActiveRecord left = prune(record, h, false);
    if (!left.owns())
        return {};
    std::string object;
    if (!left.created.empty())
        object = left.created.front().name;
    else if (!left.interfaces.empty())
        object = left.interfaces.front().name;
    else if (!left.bonds.empty())
        object = left.bonds.front().name;
    else if (!left.rdmaPorts.empty())
        object = strprintf("%s/%u", left.rdmaPorts.front().device.c_str(), left.rdmaPorts.front().port);
    else if (!left.rdmaDevices.empty())
        object = left.rdmaDevices.front().device;
    else
        object = left.dns.front().link;
    return Error(IBNM_ERROR_PLATFORM,
                 strprintf(_("verification failed: %s"), _("what the activation changed is not as it was before")))
        .withContext(object)
        .withProfile(record.id);
}

// The P_Key children of `before` that none of `records` created or changed
// and that are still there in `after`, as in `before`.
std::unordered_map<std::string, model::Netdev> untouchedChildren(const Host &before, const Host &after,
                                                                 const std::vector<ActiveRecord> &records)
{
    std::unordered_map<std::string, model::Netdev> out;
    for (const auto &ib : before.ipoib) {
        if (ib.parent.empty())
            continue;
        bool touched = false;
        for (const auto &r : records) {
            for (const auto &c : r.interfaces)
                touched = touched || c.name == ib.name;
            for (const auto &c : r.created)
                touched = touched || (c.kind == CreatedObject::Kind::IpoibChild && c.name == ib.name);
        }
        const model::Netdev *was = before.findNetdev(ib.name);
        const model::Netdev *now = after.findNetdev(ib.name);
        if (!touched && was && now && was->ifindex == now->ifindex)
            out.emplace(ib.name, *was);
    }
    return out;
}

} // namespace

Host afterTeardown(const Host &host, const std::vector<ActiveRecord> &replaced)
{
    if (replaced.empty())
        return host;
    Report scratch;
    return makeTeardownPlan(host, replaced, scratch).after;
}

Report reactivate(Platform &platform, const Host &host, const std::vector<ActiveRecord> &replaced,
                  const Desired &desired, const Options &options)
{
    Report report;
    detail::TeardownPlan teardown = makeTeardownPlan(host, replaced, report);
    // A parent the teardown closes (its first activation found it down)
    // and the new activation opens again: its children, which belong to
    // other activations or to none, come back as they were before this
    // command (F1 of the sequence test), not as the teardown left them.
    std::unordered_map<std::string, model::Netdev> childrenBefore = untouchedChildren(host, teardown.after, replaced);
    Options planOptions = options;
    planOptions.childrenBefore = &childrenBefore;
    auto planned = makePlan(teardown.after, desired, planOptions, report);
    if (!planned.ok())
        return planningFailed(std::move(report), std::move(planned).error());
    std::vector<Step> steps = std::move(teardown.steps);
    for (auto &s : *planned)
        steps.push_back(std::move(s));
    if (!options.dryRun && !steps.empty() && options.prepare)
        if (Status st = options.prepare(); !st.ok())
            return planningFailed(std::move(report), std::move(st).error());
    if (!options.dryRun && !steps.empty() && execute(platform, steps, report, &host)) {
        auto after = platform.readHost();
        Status verified = after.ok() ? verifyUp(*after, desired, options.rdmaOnly) : Status(std::move(after).error());
        if (!verified.ok()) {
            failed(report, verified.error());
            rollback(platform, steps, steps.size(), report, &host);
        }
    }
    finish(steps, report);
    return report;
}

Report deactivate(Platform &platform, const Host &host, const std::vector<ActiveRecord> &records,
                  const Options &options)
{
    Report report;
    detail::TeardownPlan teardown = makeTeardownPlan(host, records, report);
    std::vector<Step> &steps = teardown.steps;
    if (!options.dryRun && !steps.empty() && execute(platform, steps, report, &host)) {
        auto after = platform.readHost();
        Status verified = after.ok() ? Status() : Status(std::move(after).error());
        // What systemd-resolved holds, where DNS was given back.
        bool dns = std::any_of(records.begin(), records.end(), [](const ActiveRecord &r) { return !r.dns.empty(); });
        if (verified.ok() && dns) {
            auto resolver = platform.readResolver();
            if (resolver.ok())
                after->resolver = std::move(resolver).value();
            else
                verified = std::move(resolver).error();
        }
        for (const auto &r : records)
            if (verified.ok())
                verified = verifyDown(*after, r);
        if (!verified.ok()) {
            failed(report, verified.error());
            rollback(platform, steps, steps.size(), report, &host);
        }
    }
    finish(steps, report);
    return report;
}

} // namespace ibnm::activation
