// SPDX-License-Identifier: LGPL-2.1-or-later
// Activation: bring desired state onto a host through the platform, as a
// transaction. The planner compares what the profiles ask (Desired) with a
// snapshot of the host (model::Host) and emits only the operations that make
// a difference, in dependency order (parent before child, ports configured
// before they join their bond, a netdev before its soft RDMA link); the
// executor runs them, reads the host back to verify, and on any failure undoes
// what it did in reverse order.
//
// Where: planner.cpp, planner-rdma.cpp and planner-down.cpp plan; engine.cpp
// runs, verifies and undoes; host-files.cpp writes files as a transaction
// (writeFiles()); check.cpp joins the rules of profiles/ to the planner's
// verdict (check.hpp); planner.hpp holds what they share (Step, the Planner).
#pragma once

#include "libcore/ibnm-apply.h"

#include "libcore/activation/active.hpp"
#include "libcore/activation/desired.hpp"
#include "libcore/platform/platform.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibnm::model {
class HostIndex;
}

namespace ibnm::activation {

enum class StepState { Planned, Done, Failed, Undone, UndoFailed };

struct StepRecord {
    IbnmStepAction action = IBNM_STEP_ACTION_CREATE_IPOIB_CHILD; // its nick: "create-ipoib-child", ...
    std::string object;  // the interface, device or file
    std::string detail;  // translated, for people
    std::string origin;  // the profile's id ("" for host-wide steps)
    StepState state = StepState::Planned;
    std::string error;   // when Failed / UndoFailed
};

// Something the user should know that is not a step: the effective MTU after
// the kernel's clamp, a value left alone, ...
struct Note {
    std::string origin;
    std::string object;
    std::string message;
};

struct Report {
    bool ok = true;
    // After a failure: every step that changed the host was undone, and the
    // host read back is as before. False when a step could not be undone
    // (its state says which) or the host differs (notRestored says how).
    bool rolledBack = false;
    // After a failure: what the host read back has otherwise than before,
    // one line per object and property (host-diff.hpp).
    std::vector<std::string> notRestored;
    std::string error;            // the failure, when !ok
    IbnmError errorCode = IBNM_ERROR_FAILED; // its code, kept from the step or fact that failed
    std::optional<Error> failure;  // the failure itself, with its property and profile
    unsigned operations = 0;      // platform operations performed (incl. undo)
    std::vector<StepRecord> steps;
    std::vector<Note> notes;
};

class UndoLog;

struct Options {
    bool dryRun = false;          // plan only
    // Only what NetworkManager does not do itself: soft RDMA links, RoCE
    // defaults, traffic class/TTL, umcast, and the connected-mode probe.
    // Interfaces, modes, MTUs, bonds and IP stay NetworkManager's (the
    // dispatcher plugin's mode).
    bool rdmaOnly = false;
    // An index of the host being planned against, built once by a caller
    // that plans many times against one snapshot (`ibnm check` plans each
    // profile alone); nullptr: the planner builds its own.
    const model::HostIndex *index = nullptr;
    // plan() only: the verdict alone (ok, or the failure that refuses),
    // with no steps and no notes. The planner decides exactly as for a
    // plan with steps; it only keeps none of them (`ibnm check` asks each
    // profile's verdict and all of them together, and shows no step).
    // up() always keeps its steps.
    bool verdictOnly = false;
    // What the steps need of the kernel before the first one (modules,
    // configfs), run once the plan is made and not empty, never for a dry
    // run: a request the planner refuses loads nothing. Its failure changes
    // nothing and fails the report.
    std::function<Status()> prepare;
    // up() only: where a successful run keeps its steps, each with its undo,
    // to be undone later (UndoLog::undo()); nullptr: nothing is kept.
    UndoLog *keep = nullptr;
    // The P_Key children, by name, as they were before a teardown planned
    // ahead of this plan (reactivate()): a parent the teardown closed and
    // this plan opens gets them back so, their IPv6 addresses included,
    // not as the teardown left them. nullptr: as on the host planned on.
    const std::unordered_map<std::string, model::Netdev> *childrenBefore = nullptr;
};

// What a successful up() changed, kept to be undone later exactly: the steps
// it performed with their undos (the same the engine's rollback runs), in
// order. A VPN service's Disconnect undoes what its Connect did with it
// (plugin/nm-ibnm-service). Empty when up() failed, was a dry run or had
// nothing to do.
class UndoLog {
public:
    UndoLog();
    ~UndoLog();
    UndoLog(UndoLog &&) noexcept;
    UndoLog &operator=(UndoLog &&) noexcept;

    bool empty() const;
    // The steps as performed, in order.
    std::vector<StepRecord> records() const;
    // Undoes them in reverse order, once: the report lists every step
    // (Undone, or UndoFailed with its error) and fails when one could not
    // be undone; the log is empty afterwards.
    Report undo(platform::Platform &platform);

    struct Steps; // engine.cpp

private:
    friend Report up(platform::Platform &, const model::Host &, const Desired &, const Options &);
    std::unique_ptr<Steps> steps_;
};

// Brings the objects of `desired` up. Planning errors (a missing parent, a
// device that cannot do what is asked) fail before anything is changed.
Report up(platform::Platform &platform, const Desired &desired, const Options &options);
// The same on a snapshot of the host the caller has read.
Report up(platform::Platform &platform, const model::Host &host, const Desired &desired, const Options &options);

// What up() would do on `host`, without a platform: the steps (Planned), or
// the planning error. `ibnm check` asks this, so check and `up --dry-run`
// agree by construction.
Report plan(const model::Host &host, const Desired &desired, const Options &options);

// The interface `desired` (one profile) is active on in `host`: the one it
// names or resolves to (a P_Key child as the kernel named it, a port by its
// GUID) when that exists, is up, and up() would change nothing; else none.
std::optional<std::string> activeInterface(const model::Host &host, const Desired &desired);

// Takes down what `up` of the same profiles would create, from the
// profiles alone: soft links, P_Key children, bonds, addresses; base IPoIB
// interfaces are set down. For NetworkManager's hook (rdmaOnly), which
// keeps no record; standalone activations are taken down from their
// records (deactivate()).
Report down(platform::Platform &platform, const Desired &desired, const Options &options);

// Active connections (lifecycle.cpp). As NetworkManager re-activates a
// profile: the activations `replaced` (of the profiles brought up again
// with changed settings, and of other profiles active on the devices they
// take) are taken down first, then `desired` is brought up on the host as
// that leaves it; one plan, one transaction: a failure undoes both.
Report reactivate(platform::Platform &platform, const model::Host &host, const std::vector<ActiveRecord> &replaced,
                  const Desired &desired, const Options &options);
// The host as it is once `replaced` is taken down (what check's rules and
// the plan of reactivate() see).
model::Host afterTeardown(const model::Host &host, const std::vector<ActiveRecord> &replaced);
// Takes the activations of `records` down: deletes what they created, puts
// back what they changed; verified by reading the host back (a failure
// undoes every step).
Report deactivate(platform::Platform &platform, const model::Host &host, const std::vector<ActiveRecord> &records,
                  const Options &options);

// Where the files a plan writes live, not the kernel (settings::HostFiles:
// this machine's /etc, or a simulated host's root); paths as on the host.
class FileStore {
public:
    virtual ~FileStore() = default;
    // The contents of `path`, or none when it does not exist.
    virtual Result<std::optional<std::string>> read(const std::string &path) const = 0;
    // Replaces `path` atomically with `mode`.
    virtual Status write(const std::string &path, const std::string &contents, unsigned mode) const = 0;
    // Removes `path`; an absent file is removed already.
    virtual Status remove(const std::string &path) const = 0;
    // Why nothing can be written, or none.
    virtual const std::optional<Error> &refusal() const = 0;
};

// A file and what it is to hold.
struct FileContents {
    const char *path;
    std::string contents;
};

// The host policy files (settings/host-files.cpp, host-files.cpp): plans
// writing `files` through `store` (mode 0644), in order and only those
// whose contents differ, as "write-file" steps; unless options.dryRun, runs
// them as one transaction through `platform`'s executor (the steps change
// files, not the kernel): a failure undoes those written before it, each
// back as it was, or removed. A read error fails before any step; where
// `store` refuses writes, a plan with a step fails with the refusal, a dry
// run too (it says what the run would do).
Report writeFiles(platform::Platform &platform, const FileStore &store, const std::vector<FileContents> &files,
                  const Options &options);

} // namespace ibnm::activation
