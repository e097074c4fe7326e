// SPDX-License-Identifier: LGPL-2.1-or-later
// The one path of every apply (ibnm_apply_up/down of profiles, the typed
// RDMA calls of ibnm-rdma-apply.h): the activation lock, one read of the
// host, the desired state on it, the kernel modules it needs, the plan, its
// run, verification or undo, and the report. And what the files of
// ibnm-apply.h share (ibnm::apply).
#pragma once

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-host.h"

#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace ibnm {

struct ApplyRequest {
    bool goingUp = true;
    // What to bring about on the host as read. An error is a request that
    // cannot be resolved: no report.
    std::function<Result<activation::Desired>(const model::Host &)> resolve;
    // Optional, up only: what `ibnm check` refuses, before anything changes
    // (the report says the apply failed).
    std::function<std::optional<Error>(const model::Host &)> refuse;
    // Optional: after an apply that changed the host and succeeded.
    std::function<void()> applied;
    // Optional: after an apply that succeeded with no step to take, the host
    // as read under the activation lock (what the apply verified; the
    // verified no-op record digests it, settings/apply-record.hpp).
    std::function<void(const model::Host &)> settled;
    // Optional, up only: where a successful apply keeps its steps and their
    // undos, to be undone later (ibnm-transaction.cpp).
    activation::UndoLog *keep = nullptr;
};

gboolean runApply(IbnmHost *host, IbnmApplyFlags flags, const ApplyRequest &request, IbnmApplyReport **out,
                  GError **error);

namespace apply {

// ibnm-apply-report.cpp: the engine's report as an IbnmApplyReport of
// IbnmSteps.
IbnmApplyReport *wrap(activation::Report report);

// ibnm-apply.cpp: what every apply (runApply(), ibnm_apply_host_files())
// does around its work. One activation at a time, from reading the host to
// verifying it (or undoing it): the activation lock, unless a dry run, which
// changes nothing, so that a parallel run neither plans on this run's
// half-done work nor rolls it back, and two writers of one file each read,
// compare and replace it in turn. `work` returns the engine's report, or an
// error before there is one (no report then); the report goes to *out when
// asked for, and a failed one is the error returned.
Status underActivationLock(platform::Platform &platform, bool dryRun, IbnmApplyReport **out,
    const std::function<Result<activation::Report>()> &work);

// ibnm-apply.cpp: the profiles of a GPtrArray (none for NULL).
std::vector<NMConnection *> toVector(GPtrArray *a);

// ibnm-apply-active.cpp: the file of the record below, "" for a host
// without a runtime directory.
std::string activeRecordPath(IbnmHost *host);
// ibnm-apply-active.cpp: records `profiles` as brought up by ibnm itself
// (`active`) or taken down.
void updateActiveRecord(IbnmHost *host, const std::vector<NMConnection *> &profiles, bool active);

// ibnm-apply.cpp: ibnm_apply_up() (goingUp) or ibnm_apply_down(), with
// `settled` (may be empty) as ApplyRequest::settled.
gboolean runProfiles(IbnmHost *host, GPtrArray *profiles, GPtrArray *all, IbnmApplyFlags flags, bool goingUp,
                     IbnmApplyReport **out, GError **error,
                     const std::function<void(const model::Host &)> &settled,
                     activation::UndoLog *keep = nullptr);

} // namespace apply

} // namespace ibnm
