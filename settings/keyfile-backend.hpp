// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile store: NetworkManager's keyfile directory read and written as
// NetworkManager does when it is not running.
#pragma once

#include "libcore/support/files.hpp"
#include "settings/backend.hpp"

#include <map>
#include <memory>

#include <sys/types.h>

namespace ibnm::settings {

class KeyfileBackend final : public Backend {
public:
    explicit KeyfileBackend(std::string dir);

    const char *name() const override { return "keyfile"; }
    const std::string &dir() const { return dir_; }

    // Files must be owned by this uid (root by default, as NetworkManager
    // requires); tests use their own uid.
    void setRequiredOwner(uid_t uid) { requiredOwner_ = uid; }

    Status load() override;
    // flock(2) on the directory itself (no lock file in NetworkManager's
    // directory). Under it, hidden temporary files a killed writer left
    // (".NAME.nmconnection.XXXXXX") are removed: every writer holds it.
    Status lockForUpdate() override;
    const std::vector<StoredProfile> &profiles() const override { return profiles_; }
    const std::vector<std::string> &warnings() const override { return warnings_; }
    const std::vector<std::string> &unreadable() const override { return unreadable_; }
    Result<std::string> add(NMConnection *connection) override;
    Status update(NMConnection *connection) override;
    Status remove(const std::string &uuid) override;
    void beginBatch() override;
    Status commitBatch() override;
    void abortBatch() override;

    // Reads one keyfile with the store's ownership and permission checks.
    Result<StoredProfile> readFile(const std::string &path, std::vector<std::string> *warnings) const;

private:
    StoredProfile *findByUuid(const std::string &uuid);
    Result<std::string> choosePath(NMConnection *connection) const;
    // replace false: fails (IBNM_ERROR_EXISTS) when `path` exists.
    Status write(const std::string &path, const std::string &data, bool replace);

    std::string dir_;
    UniqueFd lock_;
    uid_t requiredOwner_ = 0;
    std::vector<StoredProfile> profiles_;
    std::vector<std::string> warnings_;
    std::unique_ptr<AtomicWriteBatch> batch_; // between beginBatch() and commitBatch()
    // The files the open batch writes, each with the profile it still holds
    // on disk until the batch renames it (null: added by the batch).
    std::map<std::string, GObjectPtr<NMConnection>> batchOld_;
    void revertUnwritten(const std::vector<std::string> &renamed);
    std::vector<std::string> unreadable_;
};

} // namespace ibnm::settings
