// SPDX-License-Identifier: LGPL-2.1-or-later
// The C++ side of IbnmHost: the platform behind it, for the rest of libcore
// (inventory, activation).
#pragma once

#include "libcore/ibnm-host.h"
#include "libcore/platform/platform.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace ibnm {

// The platform of `host`; valid as long as the host lives.
platform::Platform &hostPlatform(IbnmHost *host);

// When an apply on `host` stops waiting for another's activation lock
// (ibnm_host_set_lock_wait()): a deadline for Platform::lockActivations().
int64_t hostLockDeadline(IbnmHost *host);

// The host's platform under its deadline (ibnm_host_set_deadline()), or
// nullptr when it has none; it borrows hostPlatform(host).
std::unique_ptr<platform::Platform> hostDeadlinePlatform(IbnmHost *host);

// Where a simulated host whose state is in `stateDir` keeps the files
// settings writes under /etc (settings/host-files.hpp): "<stateDir>/root",
// so /etc/udev/rules.d/X lands in <stateDir>/root/etc/udev/rules.d/X and
// the real /etc is never touched. ibnm_simulator_reset() removes it.
inline std::string simulatedHostFilesRoot(const std::string &stateDir)
{
    return stateDir + "/root";
}

// The records of the active connections of a host without a runtime
// directory (ibnm::apply::ActiveStore), by UUID: kept for the life of the
// IbnmHost, as /run keeps them until a reboot.
std::map<std::string, std::string> &hostMemoryRecords(IbnmHost *host);

// A host around any platform (tests: a FakePlatform built in memory).
IbnmHost *hostNewFromPlatform(std::unique_ptr<platform::Platform> platform, IbnmHostKind kind,
                              const std::string &location, const std::string &runtimeDir = {});

} // namespace ibnm

// Exported under IBNM_PRIVATE for libibnm-simulator only, never installed:
// a host that owns `platform` (an ibnm::platform::Platform *), keeping its
// runtime state in `runtime_dir`. The one C++ object that crosses a library
// boundary (libibnm-simulator and libibnm come from the same build: the
// ibnm-simulator package depends on this very libibnm0).
extern "C" {
IbnmHost *ibnm_host_new_for_platform_private(void *platform, IbnmHostKind kind, const char *location,
                                             const char *runtime_dir);
}
