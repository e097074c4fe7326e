// SPDX-License-Identifier: LGPL-2.1-or-later
// Where profiles are stored. IbnmSettings talks to one Backend and does not
// care which: the keyfile store or NetworkManager over D-Bus.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include "settings/ibnm-settings.h"

#include <NetworkManager.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::settings {

// Where NetworkManager has a profile active (NetworkManager's backend only).
struct ActiveInfo {
    // Its active connection's devices, comma-separated as nmcli shows them;
    // empty when active without a device yet.
    std::string device;
    // Its active connection's D-Bus path and state.
    std::string path;
    NMActiveConnectionState state = NM_ACTIVE_CONNECTION_STATE_UNKNOWN;
    // Its place among the active profiles in nmcli's `connection show`
    // (0 first).
    int rank = -1;
};

struct StoredProfile {
    GObjectPtr<NMConnection> connection;
    // The keyfile it was read from (keyfile store) or NetworkManager's
    // filename for it (may be empty for in-memory profiles).
    std::string filename;
    // Where NetworkManager has it active; null when not active or not known
    // (always, in the keyfile store). Held apart, shared by the copies: the
    // four fields in every profile were 0.6 MB of `ibnm check` at 10,000
    // profiles.
    std::shared_ptr<const ActiveInfo> active;
};

// What NetworkManager reports when asked to activate a profile
// (NetworkManager's backend only).
struct ActivationResult {
    std::string activePath; // the active connection's D-Bus path
    std::string device;     // where NetworkManager activates it, when known (also after a failure)
    std::string note;       // why it counts as activated early (nmcli's "master waiting for slaves")
    std::optional<Error> error;
};

// A watch on a store (Backend::watch()): its sources stay on the context
// it was made on until it is destroyed.
class StoreWatch {
public:
    virtual ~StoreWatch() = default;
};

class Backend {
public:
    virtual ~Backend() = default;

    // Calls `onChange` on the thread-default main context after the stored
    // profiles changed (settings/store-watch.cpp): the keyfile directory's
    // inotify events (GFileMonitor), NetworkManager's D-Bus signals.
    virtual Result<std::unique_ptr<StoreWatch>> watch(std::function<void()> onChange) = 0;

    virtual const char *name() const = 0;

    // Reads every profile; a profile that cannot be used is skipped with a
    // warning naming it. Only a failure to read the store at all is an error.
    virtual Status load() = 0;

    // Takes the store's write lock, held until the backend is destroyed, and
    // reads the store again: a read-modify-write (add, modify, delete) after
    // it is not interleaved with another process's. NetworkManager's daemon
    // serialises its own changes: nothing to do there.
    virtual Status lockForUpdate() { return load(); }

    virtual const std::vector<StoredProfile> &profiles() const = 0;

    // A store that read, for one change, only what the change needs (the
    // keyfile store with its index, after lockForUpdate()): profiles() then
    // reads every profile first, and these answer without doing so.
    virtual bool partial() const { return false; }
    // The profile ibnm_settings_find_by() finds; nullopt when the store
    // cannot tell without profiles().
    virtual std::optional<const StoredProfile *> findPartial(IbnmSettingsMatch, const std::string &)
    {
        return std::nullopt;
    }
    // The stored profiles the rules across profiles read to check
    // `connection` (nullable) with the store, and those whose UUID, id or
    // interface name is one of `names`, in the store's order; every profile
    // unless partial().
    virtual std::vector<const StoredProfile *> related(NMConnection *connection, const std::vector<std::string> &names);
    virtual const std::vector<std::string> &warnings() const = 0;
    // Files of the store this process may not read (EACCES, EPERM): a
    // profile looked for may be in one of them.
    virtual const std::vector<std::string> &unreadable() const
    {
        static const std::vector<std::string> none;
        return none;
    }

    // Stores a new profile; returns where (a file path or D-Bus path).
    virtual Result<std::string> add(NMConnection *connection) = 0;
    // Replaces the stored profile with the same UUID.
    virtual Status update(NMConnection *connection) = 0;
    virtual Status remove(const std::string &uuid) = 0;

    // Asks NetworkManager to activate or deactivate a profile, as nmcli
    // does (settings/nm-activation.hpp). The keyfile store cannot: ibnm
    // then activates profiles itself (ibnm_apply_up()).
    virtual ActivationResult activate(const std::string &uuid, const char *ifname, unsigned timeoutS);
    virtual Result<std::vector<std::string>> deactivate(const std::string &uuid, unsigned timeoutS);

    // Between these, add() and update() may defer making their writes
    // durable to commitBatch(), which does it for all at once (the keyfile
    // store: one sync instead of two per file). abortBatch() drops the
    // writes not committed (the profiles in memory stay as written: reload
    // or write them again). Backends without such a cost write at once.
    virtual void beginBatch() {}
    virtual Status commitBatch() { return {}; }
    virtual void abortBatch() {}
};

} // namespace ibnm::settings
