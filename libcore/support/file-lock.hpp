// SPDX-License-Identifier: LGPL-2.1-or-later
// Advisory locks between ibnm processes (flock(2) and open file description
// locks, fcntl(2) F_OFD_SETLK: released when the file is closed, also when
// the process is killed, so a crashed run never leaves a lock behind), who
// holds them, and who a process is (its pid and start time: a pid alone is
// reused).
//
// Waits are bounded: a lock another process holds is retried until a
// deadline, then refused with IBNM_ERROR_TIMED_OUT naming the holder
// (pid and command), which the holder writes into the lock file when it
// takes it. A lock file is opened without following a symlink and must
// belong to the process's user with no access for others (it is created
// 0600, in a directory only its owner may write): no other user can open
// it, so none can hold the lock and make the owner's writers wait.
//
// The order: a process that takes both the profile store's lock
// (settings/keyfile-backend.hpp) and the activation lock
// (Platform::lockActivations()) takes the store's first.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <string>

#include <sys/types.h>

namespace ibnm {

// A process: its pid and its start time (field 22 of /proc/PID/stat, in
// clock ticks since boot), which tell it from a later process of that pid.
struct ProcessId {
    pid_t pid = 0;
    unsigned long long start = 0;
};

// This process.
ProcessId currentProcess();
// Whether the process `p` still runs (a pid that now names another process,
// started later, does not).
bool processAlive(const ProcessId &p);

// How long to wait for a lock another process holds: a
// g_get_monotonic_time() deadline, kLockNoWait (fail at once) or
// kLockWaitForever.
inline constexpr int64_t kLockNoWait = 0;
inline constexpr int64_t kLockWaitForever = INT64_MAX;
// The deadline `seconds` from now: 0 is kLockNoWait, a negative value
// kLockWaitForever.
int64_t lockDeadline(int seconds);

// Opens (creating it, mode 0600, never through a symlink) the lock file
// `path` and locks it exclusively (flock(2)), waiting until `waitUntil`;
// then records this process as its holder. `what` names the lock in errors
// ("the activation lock").
Result<UniqueFd> lockFileExclusive(const std::string &path, int64_t waitUntil, const std::string &what);

// A lock file whose bytes are locks of their own (F_OFD_SETLK on one byte
// each): the profile store's writer lock and its commit lock share one file.
class RangeLockFile {
public:
    // Opens `path` (creating it when `create`, mode 0600, never through a
    // symlink), checking its owner and mode. `what` names the lock in errors.
    static Result<RangeLockFile> open(const std::string &path, bool create, const std::string &what);

    // Locks byte `byte` (exclusive or shared), waiting until `waitUntil`.
    Status lock(off_t byte, bool exclusive, int64_t waitUntil);
    void unlock(off_t byte);
    // Records this process as the holder (after an exclusive lock).
    void recordHolder();
    bool isOpen() const { return bool(fd_); }

private:
    UniqueFd fd_;
    std::string path_, what_;
};

} // namespace ibnm
