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
#include <initializer_list>
#include <map>
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

// ibnm-apply-report.cpp: the public form of an apply (ibnm_apply_up() and
// the others that return their report): `run` is the internal form (a report
// when the apply started, and the error); the report it gives, or one without
// steps that says it did not start, carries the error. Never NULL.
IbnmApplyReport *reportOf(const std::function<gboolean(IbnmApplyReport **, GError **)> &run);

// ibnm-apply-report.cpp: the engine's report as an IbnmApplyReport of
// IbnmSteps.
IbnmApplyReport *wrap(activation::Report report);

// ibnm-apply-report.cpp: one report of applies run as one (the two halves
// of ibnm_state_apply()), as the CLI printed them: their steps and notes
// in order, the operations summed, each line not restored once; it failed
// when one did (with the first failure's error), and was rolled back when
// a failed one says so and none says otherwise; its host digest is theirs
// when they all have the same. Null parts are skipped; none: nullptr.
IbnmApplyReport *join(std::initializer_list<IbnmApplyReport *> parts);

// ibnm-apply-report.cpp: ibnm_apply_report_get_host_digest().
void setHostDigest(IbnmApplyReport *report, std::string digest);

// ibnm-apply-report.cpp: what a rollback across two runs achieved (ibnm
// apply's later half failed, and what the first half took down was brought
// up again), the host read back: the report says rolled back only when
// `restored` (nothing differs), and adds `notRestored` (the objects that
// do, "object: ...") to what it says was not restored. With `undone` (the
// first half's report, whose steps the second bringing up undid), each done
// step whose object is not among them becomes undone.
void settleRollback(IbnmApplyReport *report, bool restored, const std::vector<std::string> &notRestored,
                    bool undone);

// ibnm-apply.cpp: what every apply (runApply(), ibnm_apply_host_files())
// does around its work. One activation at a time, from reading the host to
// verifying it (or undoing it): the activation lock, unless a dry run, which
// changes nothing, so that a parallel run neither plans on this run's
// half-done work nor rolls it back, and two writers of one file each read,
// compare and replace it in turn. `work` returns the engine's report, or an
// error before there is one (no report then); the report goes to *out when
// asked for, and a failed one is the error returned.
// The wait for another process's lock is the host's (hostLockDeadline()).
Status underActivationLock(IbnmHost *host, platform::Platform &platform, bool dryRun, IbnmApplyReport **out,
    const std::function<Result<activation::Report>()> &work);

// ibnm-apply.cpp: the profiles of a GPtrArray (none for NULL).
std::vector<NMConnection *> toVector(GPtrArray *a);

// ibnm-apply-active.cpp: the records of a host's active connections
// (activation/active.hpp), as NetworkManager keeps its run state: one JSON
// file per activation, <runtime dir>/active/<uuid> (/run/ibnm/active on
// this machine: gone at a reboot, as the activations are), each written
// whole or not at all (a temporary file renamed over it, after an fsync);
// for a host without a runtime directory, in the IbnmHost for the life of
// the process. Read and changed under the activation lock.
class ActiveStore {
public:
    explicit ActiveStore(IbnmHost *host);
    // Every record, by UUID. A file that does not parse is left alone and
    // counts as no activation.
    std::map<std::string, activation::ActiveRecord> read() const;
    // The active connections on `host`, as NetworkManager sees them: an
    // activation whose device is gone is no more (its record removed when
    // `tidy`); an interrupted activation ("activating": ibnm was killed
    // midway) is what of it the host still shows, none when nothing
    // (rewritten or removed when `tidy`).
    std::map<std::string, activation::ActiveRecord> current(const model::Host &host, bool tidy);
    Status save(const activation::ActiveRecord &record);
    void remove(const std::string &uuid);

private:
    IbnmHost *host_;
    std::string dir_; // "" : in memory
};

// ibnm-apply-active.cpp: a digest of every record (the verified no-op
// record of settings/apply-record.hpp compares it); nullopt when they
// cannot be read.
std::optional<std::string> activeRecordsDigest(IbnmHost *host);

// ibnm-apply-lifecycle.cpp: ibnm_apply_up() or ibnm_apply_down() of
// profiles in standalone mode, with NetworkManager's active-connection
// semantics (see there).
gboolean runActive(IbnmHost *host, std::vector<NMConnection *> selected, const std::vector<NMConnection *> &everything,
                   IbnmApplyFlags flags, bool goingUp, IbnmApplyReport **out, GError **error,
                   const std::function<void(const model::Host &)> &settled);

// ibnm-apply-lifecycle.cpp: the active connections ibnm_apply_up() of
// `profiles` (all stored: each other's context) would take down first on
// `host` (none when none is active, or a profile cannot be resolved).
std::vector<activation::ActiveRecord> replacedBy(IbnmHost *owner, const model::Host &host,
                                                 const std::vector<NMConnection *> &profiles);

// ibnm-apply.cpp: `selected` and the bond profiles of its ports whose bond
// is not on the host.
std::vector<NMConnection *> withMissingBonds(std::vector<NMConnection *> selected,
                                             const std::vector<NMConnection *> &everything, const model::Host &host);

// ibnm-apply.cpp: loads what the profiles' RDMA settings need of the
// kernel before the first step.
Status prepareFor(platform::Platform &platform, const activation::Desired &desired);

// ibnm-apply.cpp: ibnm_apply_up() (goingUp) or ibnm_apply_down(), with
// `settled` (may be empty) as ApplyRequest::settled.
gboolean runProfiles(IbnmHost *host, GPtrArray *profiles, GPtrArray *all, IbnmApplyFlags flags, bool goingUp,
                     IbnmApplyReport **out, GError **error,
                     const std::function<void(const model::Host &)> &settled,
                     activation::UndoLog *keep = nullptr);

} // namespace apply

} // namespace ibnm
