// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook's record of an activation: the profile as pre-up
// applied it, a keyfile in <runtime dir>/hook/<uuid>.nmconnection (root's,
// 0600; /run/ibnm/hook on this machine, gone at reboot as the activation).
//
// NetworkManager deactivates the connection it applied, not the profile as
// it is stored now (STYLE.md, "State over time"): an admin may modify or
// delete an active profile, removing its rdma.* keys, and the next pre-down
// must still remove the rxe link pre-up created. So pre-down and down act on
// the record alone (no record: the hook did nothing to undo), and a pre-up
// that finds a record of other settings (an activation NetworkManager never
// took down, e.g. it was killed) takes that one down first, as a changed
// profile's re-activation replaces the old one. The hook (plugin/
// dispatcher.cpp) and `ibnm connection up|down --dry-run` with
// NetworkManager (cli/connection-nm.cpp) both decide from here.
#pragma once

#include "libcore/ibnm-host.h"
#include "libcore/support/raii.hpp"

#include <NetworkManager.h>

#include <string>

namespace ibnm::plugin {

// The record's path for profile `uuid` on `host`; "" when the host keeps no
// runtime state (a sysfs dump) or `uuid` cannot name a record.
std::string hookRecordPath(IbnmHost *host, const char *uuid);

// The record of `uuid`: nullptr without `error` when there is none; nullptr
// with `error` when it cannot be read or trusted (ibnm_keyfile_read()).
GObjectPtr<NMConnection> readHookRecord(IbnmHost *host, const char *uuid, GError **error);

// Records `profile` as applied (atomically: whole or not at all).
bool writeHookRecord(IbnmHost *host, NMConnection *profile, GError **error);

// Removes the record of `uuid` (none is fine).
bool removeHookRecord(IbnmHost *host, const char *uuid, GError **error);

// Whether `a` and `b` have the same settings (libnm's exact comparison):
// a record that has them needs no taking down before the next pre-up.
bool sameSettings(NMConnection *a, NMConnection *b);

} // namespace ibnm::plugin
