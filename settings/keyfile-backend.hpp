// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile store: NetworkManager's keyfile directory read and written as
// NetworkManager does when it is not running.
#pragma once

#include "libcore/support/file-lock.hpp"
#include "libcore/support/files.hpp"
#include "settings/backend.hpp"
#include "settings/ibnm-settings.h"
#include "settings/keyfile-index.hpp"

#include <map>
#include <memory>

#include <sys/types.h>

namespace ibnm::settings {

// Reads one keyfile as NetworkManager's keyfile plugin does: opened first and
// what was opened checked (keyfile-trust.h: a regular file owned by `owner`,
// no access for group or others, not larger than a keyfile may be), then
// parsed through libnm. IBNM_ERROR_PERMISSION_DENIED or IBNM_ERROR_PARSE
// naming the file when it may not be trusted.
Result<StoredProfile> readKeyfile(const std::string &path, uid_t owner, std::vector<std::string> *warnings);

class KeyfileBackend final : public Backend {
public:
    explicit KeyfileBackend(std::string dir);

    Result<std::unique_ptr<StoreWatch>> watch(std::function<void()> onChange) override;
    const char *name() const override { return "keyfile"; }
    const std::string &dir() const { return dir_; }

    // Files must be owned by this uid (root by default, as NetworkManager
    // requires); tests use their own uid.
    void setRequiredOwner(uid_t uid) { requiredOwner_ = uid; }

    // How long to wait for another process's lock (seconds; 0: not at
    // all; -1: without a limit).
    void setLockWait(int seconds) { lockWait_ = seconds; }

    // The profiles load() reads will not change (IbnmSettings:read-only):
    // they keep no NMConnection::changed (releaseChangedSignal()).
    void setReadOnly(bool readOnly) { readOnly_ = readOnly; }

    // Reads the store as the last complete change left it: under the
    // commit lock (shared), with the journal of a writer that was killed
    // taken as done (readJournal()), so no reader sees half of one change.
    Status load() override;
    // The store's lock: the file kLockFile in the directory (hidden, which
    // NetworkManager ignores), 0600 and the user's: byte 0 is held by the
    // writer for its whole read-modify-write, byte 1 by the writer while it
    // makes a change visible and by readers (shared) while they read. With
    // it, the change a killed writer journaled is completed
    // (rollForwardJournal()) and the temporary files of writers that have
    // ended are removed. Every writer holds it: add(), update() and remove()
    // take it when lockForUpdate() was not called.
    Status lockForUpdate() override;
    // With the index (KeyfileIndex::pathFor() not ""), lockForUpdate() reads
    // only the files that changed since it was written and keeps the store
    // partial(): findPartial() and related() read only the profiles they
    // return, and whatever asks for every profile reads them all (load()).
    const std::vector<StoredProfile> &profiles() const override
    {
        ensureFull();
        return profiles_;
    }
    bool partial() const override { return partial_; }
    std::optional<const StoredProfile *> findPartial(IbnmSettingsMatch match, const std::string &value) override;
    std::vector<const StoredProfile *> related(NMConnection *connection, const std::vector<std::string> &names) override;
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

    static constexpr const char *kLockFile = IBNM_KEYFILE_LOCK_FILE;
    static constexpr const char *kJournalFile = ".ibnm-journal";
    // scan() writes the index again when it read at least this many files.
    static constexpr size_t kIndexStaleLimit = 32;

private:
    // `cleanUp`: removes the temporary files of writers that have ended.
    Status takeWriterLock(bool cleanUp = true);
    // lockForUpdate() with the index: every file's stat() against it, the
    // files that differ read (readFile()), the warnings as load() gives them.
    Status scan(const std::string &indexPath);
    // A listed file: its name at `offset` in the listing's buffer.
    struct Listed {
        size_t offset, length;
    };
    static std::vector<FileStamp> statAll(int dirFd, const std::string &names, const std::vector<Listed> &listed);
    // A few threads stat() a directory of at least kStatPerThread files each.
    static constexpr size_t kStatThreads = 4, kStatPerThread = 512;
    size_t mergeListing(const std::vector<std::string_view> &files, const std::vector<FileStamp> &stamps);
    // At most this many files added and removed: the entries change in place.
    static constexpr size_t kInPlaceChanges = 64;
    IndexEntry readEntry(const std::string &name, const FileStamp &stamp);
    // accepted_ from the entries; with `warn`, warnings_ and unreadable_ too.
    void acceptEntries(bool warn);
    const StoredProfile *materialize(size_t entry);
    // After a write or removal of `path` in partial mode: its entry again.
    void refreshEntry(std::string path);
    void ensureFull() const;
    std::optional<size_t> entryByUuid(const std::string &uuid) const;
    StoredProfile *findByUuid(const std::string &uuid);
    Result<std::string> choosePath(NMConnection *connection) const;
    // replace false: fails (IBNM_ERROR_EXISTS) when `path` exists.
    Status write(const std::string &path, const std::string &data, bool replace);

    std::string dir_;
    RangeLockFile lock_; // open while this process is the store's writer
    int lockWait_ = 90;
    uid_t requiredOwner_ = 0;
    bool readOnly_ = false;
    std::vector<StoredProfile> profiles_;
    std::vector<std::string> warnings_;
    std::unique_ptr<AtomicWriteBatch> batch_; // between beginBatch() and commitBatch()
    // The files the open batch writes, each with the profile it still holds
    // on disk until the batch renames it (null: added by the batch).
    std::map<std::string, GObjectPtr<NMConnection>> batchOld_;
    // The profiles the open batch removes, until it has.
    std::vector<StoredProfile> batchRemoved_;
    void revertUnwritten(const std::vector<std::string> &done);
    std::vector<std::string> unreadable_;
    bool partial_ = false;
    std::unique_ptr<KeyfileIndex> index_;
    std::vector<size_t> accepted_; // entries of index_ that are profiles, in order
    // Profiles read in partial mode, by file name (kept until the next
    // load: what findPartial() returned stays valid).
    std::map<std::string, StoredProfile> loaded_;
};

} // namespace ibnm::settings
