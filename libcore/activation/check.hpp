// SPDX-License-Identifier: LGPL-2.1-or-later
// The one service `ibnm check` and `up` both ask of a set of profiles
// (libcore/ibnm-check.cpp, libcore/ibnm-apply-lifecycle.cpp): every rule of
// libcore/profiles (rules::checkRules()) and the planner's verdict on the
// profiles, each alone and all together, so that check and `up --dry-run`
// agree by construction. The rules below need nothing of activation/; this
// is where they meet the planner.
#pragma once

#include "libcore/profiles/profile-rules.hpp"

#include <vector>

namespace ibnm::activation {

// Rule 6 (with a host): what the planner refuses, each profile alone and
// then all together: `up --dry-run` of these profiles refuses exactly then.
// `standalone`: ibnm brings the profiles up itself (activation::resolve).
// `context`: every known profile (a port's bond, a bond's ports), when
// more than `profiles`.
std::vector<rules::Finding> checkPlan(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                      bool standalone = false, const std::vector<NMConnection *> *context = nullptr);

// Every rule and the planner's verdict: rules::checkRules(), each RDMA
// secondary planned on the device of each base profile listing it (rule 7:
// an error where the planner refuses it there), and, with a host,
// checkPlan() of the profiles whose interface exists. An error the rules
// already gave for the same profile and property is not repeated. Errors
// first, then warnings, then info; stable within a severity.
std::vector<rules::Finding> checkProfiles(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                          const std::vector<NMConnection *> *context = nullptr,
                                          bool standalone = false);

} // namespace ibnm::activation
