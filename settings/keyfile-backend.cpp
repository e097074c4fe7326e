// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/keyfile-backend.hpp"

#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/keyfile-trust.h"
#include "libcore/support/strings.hpp"
#include "settings/keyfile-codec.hpp"
#include "libcore/support/file-lock.hpp"

#include <glib/gstdio.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ibnm::settings {

namespace {


Result<std::string> readWhole(int fd, const std::string &path, size_t max)
{
    std::string out;
    char buf[8192];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return Error::fromErrno(errno, path);
        }
        if (n == 0)
            break;
        out.append(buf, size_t(n));
        if (out.size() > max)
            return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes, the most a keyfile may have; ignored"), max))
                .withContext(path);
    }
    return out;
}

const char *uuidOf(NMConnection *c)
{
    const char *u = nm_connection_get_uuid(c);
    return u ? u : "";
}

} // namespace

KeyfileBackend::KeyfileBackend(std::string dir) : dir_(std::move(dir))
{
    while (dir_.size() > 1 && dir_.back() == '/')
        dir_.pop_back();
}

Result<StoredProfile> readKeyfile(const std::string &path, uid_t owner, std::vector<std::string> *warnings)
{
    // Open first and check what was opened, so the file checked is the file
    // read. Symlinks are followed and their target checked, as NetworkManager
    // does (stat(), not lstat(), for keyfiles).
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd)
        return Error::fromErrno(errno, path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0)
        return Error::fromErrno(errno, path);
    switch (ibnm_keyfile_trust(&st, owner, kMaxKeyfileSize)) {
    case IBNM_KEYFILE_TRUSTED:
        break;
    case IBNM_KEYFILE_NOT_REGULAR:
        return Error(IBNM_ERROR_PERMISSION_DENIED, _("not a regular file; ignored")).withContext(path);
    case IBNM_KEYFILE_WRONG_OWNER:
        return Error(IBNM_ERROR_PERMISSION_DENIED,
                     strprintf(_("file owner uid %u is insecure (the owner must be uid %u); ignored"),
                               unsigned(st.st_uid), unsigned(owner)))
            .withContext(path);
    case IBNM_KEYFILE_GROUP_OR_OTHER:
        return Error(IBNM_ERROR_PERMISSION_DENIED,
                     strprintf(_("insecure permissions %04o (group or others have access; 0600 is "
                                 "required); ignored"),
                               unsigned(st.st_mode & 07777)))
            .withContext(path);
    case IBNM_KEYFILE_TOO_LARGE:
        return Error(IBNM_ERROR_PARSE, strprintf(_("the file is larger than %zu bytes, the most a keyfile may have; ignored"),
                                                 kMaxKeyfileSize))
            .withContext(path);
    }
    auto data = readWhole(fd.get(), path, kMaxKeyfileSize);
    if (!data)
        return std::move(data).error();
    auto connection = keyfileFromData(*data, path, warnings);
    if (!connection)
        return std::move(connection).error();
    return StoredProfile{std::move(*connection), path, {}};
}

Result<StoredProfile> KeyfileBackend::readFile(const std::string &path, std::vector<std::string> *warnings) const
{
    return readKeyfile(path, requiredOwner_, warnings);
}

namespace {

// The bytes of the lock file that are locks (RangeLockFile).
constexpr off_t kWriterByte = 0;
constexpr off_t kCommitByte = 1;

std::string lockName()
{
    return _("the profile store's lock");
}

} // namespace

Status KeyfileBackend::takeWriterLock(bool cleanUp)
{
    if (lock_.isOpen())
        return {};
    if (g_mkdir_with_parents(dir_.c_str(), 0755) != 0)
        return Error::fromErrno(errno, dir_);
    // The lock file is as safe as its directory: a user who may write there
    // (or owns it) could replace the file, or make it first, and hold it.
    struct stat dirStat {};
    if (::stat(dir_.c_str(), &dirStat) != 0)
        return Error::fromErrno(errno, dir_);
    if ((dirStat.st_mode & S_IWOTH) != 0 || (dirStat.st_uid != ::geteuid() && dirStat.st_uid != 0))
        return Error(IBNM_ERROR_PERMISSION_DENIED,
                     strprintf(_("other users may write to this directory (mode %04o, owner uid %u): they could "
                                 "hold the store's lock; make it %u's and not writable by others"),
                               unsigned(dirStat.st_mode & 07777), unsigned(dirStat.st_uid), unsigned(::geteuid())))
            .withContext(dir_);
    auto file = RangeLockFile::open(dir_ + "/" + kLockFile, true, lockName());
    if (!file)
        return std::move(file).error();
    int64_t waitUntil = lockDeadline(lockWait_);
    if (Status st = file->lock(kWriterByte, true, waitUntil); !st.ok())
        return st;
    file->recordHolder();
    // What a killed writer decided is completed before anyone reads on,
    // with readers kept out while it is; then its temporary files go.
    if (Status st = file->lock(kCommitByte, true, waitUntil); !st.ok())
        return st;
    Status recovered = rollForwardJournal(dir_ + "/" + kJournalFile);
    file->unlock(kCommitByte);
    if (!recovered.ok())
        return recovered;
    if (cleanUp) // else scan() does, as it lists the directory
        removeDeadWritersFiles(dir_);
    lock_ = std::move(*file);
    return {};
}

Status KeyfileBackend::lockForUpdate()
{
    std::string indexPath = KeyfileIndex::pathFor(dir_);
    if (Status st = takeWriterLock(indexPath.empty()); !st.ok())
        return st;
    if (indexPath.empty())
        return load();
    return scan(indexPath);
}

Status KeyfileBackend::load()
{
    // A reader: under the commit lock (shared), so that no writer makes its
    // change visible meanwhile, and with a killed writer's journal taken
    // as done. A reader that may not open the lock file (another user)
    // reads without it: it cannot read the store's 0600 files either. The
    // writer (lock_ held) has completed any journal itself.
    partial_ = false;
    RangeLockFile reading;
    std::map<std::string, std::string> renamed; // path -> temporary file holding its content
    std::set<std::string> removed;
    if (!lock_.isOpen() && g_file_test(dir_.c_str(), G_FILE_TEST_IS_DIR)) {
        auto file = RangeLockFile::open(dir_ + "/" + kLockFile, true, lockName());
        if (file) {
            if (Status st = file->lock(kCommitByte, false, lockDeadline(lockWait_)); !st.ok())
                return st;
            reading = std::move(*file);
        }
        auto journal = readJournal(dir_ + "/" + kJournalFile);
        if (journal && *journal) {
            // Each file by its name, in this store's spelling of the directory.
            auto here = [this](const std::string &path) {
                GCharPtr base(g_path_get_basename(path.c_str()));
                return dir_ + "/" + base.get();
            };
            for (const auto &e : **journal) {
                std::string path = here(e.path);
                if (e.temporary.empty()) {
                    removed.insert(path);
                    renamed.erase(path);
                } else if (g_file_test(here(e.temporary).c_str(), G_FILE_TEST_EXISTS)) {
                    renamed[path] = here(e.temporary);
                    removed.erase(path);
                }
            }
        }
    }
    // Sorted here, once (not in natural order first).
    auto names = listDir(dir_, false);
    if (!names)
        return std::move(names).error();
    for (const auto &r : renamed) {
        GCharPtr base(g_path_get_basename(r.first.c_str()));
        if (std::find(names->begin(), names->end(), base.get()) == names->end())
            names->push_back(base.get());
    }
    // Byte order, as before: which of two profiles with one UUID wins (the
    // first read) does not depend on how digits in their names compare.
    std::sort(names->begin(), names->end());
    std::vector<StoredProfile> profiles;
    // One allocation for the whole store (growing by doubling would hold
    // two copies of the vector at its peak: 1.8 MB of 61 at 10,000 keyfiles).
    profiles.reserve(names->size());
    std::vector<std::string> warnings, unreadable;
    std::set<std::string> uuids;
    for (const auto &name : *names) {
        if (ignoreFilename(name))
            continue;
        std::string path = dir_ + "/" + name;
        if (removed.count(path))
            continue;
        auto from = renamed.find(path);
        auto p = readFile(from == renamed.end() ? path : from->second, &warnings);
        if (p)
            p->filename = path;
        if (!p) {
            if (p.error().errnum() == EACCES || p.error().errnum() == EPERM)
                unreadable.push_back(path);
            warnings.push_back(p.error().toString());
            continue;
        }
        std::string uuid = uuidOf(p->connection.get());
        if (!uuids.insert(uuid).second) {
            warnings.push_back(path + ": " +
                               strprintf(_("UUID %s is already used by another file; ignored"), uuid.c_str()));
            continue;
        }
        // Released as each is read: the next profile's settings reuse
        // the memory.
        if (readOnly_)
            releaseChangedSignal(p->connection.get());
        profiles.push_back(std::move(*p));
    }
    profiles_ = std::move(profiles);
    warnings_ = std::move(warnings);
    unreadable_ = std::move(unreadable);
    return {};
}

StoredProfile *KeyfileBackend::findByUuid(const std::string &uuid)
{
    if (partial_) {
        auto found = findPartial(IBNM_SETTINGS_MATCH_UUID, uuid);
        if (found)
            return const_cast<StoredProfile *>(*found);
    }
    for (auto &p : profiles_)
        if (uuid == uuidOf(p.connection.get()))
            return &p;
    return nullptr;
}

Result<std::string> KeyfileBackend::choosePath(NMConnection *connection) const
{
    // NetworkManager's order: "<id>.nmconnection", then "<id>-<uuid>", then
    // "<id>-<uuid>-<n>", skipping names that exist or that another profile uses.
    std::string id = nm_connection_get_id(connection);
    std::string uuid = uuidOf(connection);
    for (int i = -1; i < 10000; i++) {
        std::string name = i < 0    ? id
                           : i == 0 ? id + "-" + uuid
                                    : id + "-" + uuid + "-" + std::to_string(i);
        std::string path = dir_ + "/" + createFilename(name);
        bool used = g_file_test(path.c_str(), G_FILE_TEST_EXISTS);
        for (const auto &p : profiles_)
            used = used || p.filename == path;
        for (size_t k = 0; partial_ && k < accepted_.size(); k++)
            used = used || dir_ + "/" + std::string(index_->entries[accepted_[k]].name) == path;
        if (!used)
            return path;
    }
    return Error(IBNM_ERROR_EXISTS, strprintf(_("no free file name for profile '%s'"), id.c_str())).withContext(dir_);
}

Status KeyfileBackend::write(const std::string &path, const std::string &data, bool replace)
{
    // Every writer holds the store's lock (taken here when the caller did
    // not lock for update).
    if (Status st = takeWriterLock(); !st.ok())
        return st;
    AtomicWriteOptions opts;
    opts.mode = 0600;
    opts.replace = replace;
    opts.tagWriter = true;
    if (geteuid() == 0) {
        opts.uid = 0;
        opts.gid = 0;
    }
    if (batch_)
        return batch_->add(path, data, opts);
    return atomicWriteFile(path, data, opts);
}

void KeyfileBackend::beginBatch()
{
    // A batch keeps every profile in memory (revertUnwritten()).
    ensureFull();
    // Journaled: all of the batch or none of it, across a crash too.
    batch_ = std::make_unique<AtomicWriteBatch>(dir_ + "/" + kJournalFile);
    batchOld_.clear();
    batchRemoved_.clear();
}

// After a batch that failed or was aborted: a profile whose file was not
// renamed is, in memory, what its file still holds (an added one is gone,
// an updated one as before), so that a caller's clean-up (delete of an
// added profile, update back of a modified one) never touches a file that
// is not the store's: one that appeared meanwhile and that RENAME_NOREPLACE
// kept.
void KeyfileBackend::revertUnwritten(const std::vector<std::string> &changed)
{
    std::set<std::string> done(changed.begin(), changed.end());
    for (auto &r : batchRemoved_)
        if (!done.count(r.filename))
            profiles_.push_back(std::move(r)); // not removed: still stored
    batchRemoved_.clear();
    for (auto &written : batchOld_) {
        // Named references, not a structured binding: C++17 lambdas may not
        // capture one (clang refuses; g++ allows it).
        const std::string &filename = written.first;
        GObjectPtr<NMConnection> &old = written.second;
        if (done.count(filename))
            continue;
        auto it = std::find_if(profiles_.begin(), profiles_.end(),
                               [&](const StoredProfile &p) { return p.filename == filename; });
        if (it == profiles_.end())
            continue; // removed by the batch too
        if (old)
            it->connection = std::move(old); // not rewritten: as it was
        else
            profiles_.erase(it); // added and never renamed: not in the store
    }
    batchOld_.clear();
}

Status KeyfileBackend::commitBatch()
{
    auto batch = std::move(batch_);
    if (!batch)
        return {};
    // Readers hold the commit byte shared while they read the store
    // (load()): the renames happen while this writer holds it exclusively,
    // so a reader sees all of the batch or none of it (one that started
    // before the journal was written read the files as they were).
    if (lock_.isOpen())
        if (Status st = lock_.lock(kCommitByte, true, lockDeadline(lockWait_)); !st.ok()) {
            revertUnwritten({});
            batchOld_.clear();
            batchRemoved_.clear();
            return st;
        }
    std::vector<std::string> done;
    Status s = batch->commit(&done);
    if (lock_.isOpen())
        lock_.unlock(kCommitByte);
    if (!s.ok())
        revertUnwritten(done);
    batchOld_.clear();
    batchRemoved_.clear();
    return s;
}

void KeyfileBackend::abortBatch()
{
    if (batch_)
        revertUnwritten({});
    batch_.reset();
}

Result<std::string> KeyfileBackend::add(NMConnection *connection)
{
    auto copy = normalizedCopy(connection);
    if (!copy)
        return std::move(copy).error();
    std::string uuid = uuidOf(copy->get());
    if (findByUuid(uuid) != nullptr)
        return Error(IBNM_ERROR_EXISTS, strprintf(_("a profile with UUID %s exists already"), uuid.c_str()));
    auto data = keyfileToData(copy->get());
    if (!data)
        return std::move(data).error();
    auto path = choosePath(copy->get());
    if (!path)
        return std::move(path).error();
    // Never over a file that appeared since the store was read.
    if (Status s = write(*path, *data, false); !s.ok())
        return std::move(s).error();
    if (partial_) {
        refreshEntry(*path);
        return *path;
    }
    if (batch_)
        batchOld_.emplace(*path, GObjectPtr<NMConnection>());
    profiles_.push_back(StoredProfile{std::move(*copy), *path, {}});
    return *path;
}

Status KeyfileBackend::update(NMConnection *connection)
{
    std::string uuid = uuidOf(connection);
    StoredProfile *p = findByUuid(uuid);
    if (p == nullptr)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no profile with UUID %s"), uuid.c_str()));
    auto copy = normalizedCopy(connection);
    if (!copy)
        return std::move(copy).error();
    auto data = keyfileToData(copy->get());
    if (!data)
        return std::move(data).error();
    // NetworkManager keeps the file of an existing profile, even when its id changes.
    if (Status s = write(p->filename, *data, true); !s.ok())
        return s;
    if (partial_) {
        refreshEntry(p->filename);
        return {};
    }
    if (batch_)
        batchOld_.emplace(p->filename, p->connection); // the first: what the file holds
    p->connection = std::move(*copy);
    return {};
}

Status KeyfileBackend::remove(const std::string &uuid)
{
    if (partial_) {
        StoredProfile *p = findByUuid(uuid);
        if (p == nullptr)
            return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no profile with UUID %s"), uuid.c_str()));
        if (Status st = takeWriterLock(); !st.ok())
            return st;
        std::string path = p->filename;
        if (Status s = removeFileDurably(path); !s.ok() && s.error().code() != IBNM_ERROR_NOT_FOUND)
            return s;
        refreshEntry(path);
        return {};
    }
    auto it = std::find_if(profiles_.begin(), profiles_.end(),
                           [&](const StoredProfile &p) { return uuid == uuidOf(p.connection.get()); });
    if (it == profiles_.end())
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no profile with UUID %s"), uuid.c_str()));
    if (Status st = takeWriterLock(); !st.ok())
        return st;
    if (batch_) {
        // Removed with the batch's other changes, in its journal.
        batch_->remove(it->filename);
        batchRemoved_.push_back(std::move(*it));
        profiles_.erase(it);
        return {};
    }
    if (Status s = removeFileDurably(it->filename); !s.ok() && s.error().code() != IBNM_ERROR_NOT_FOUND)
        return s;
    profiles_.erase(it);
    return {};
}

} // namespace ibnm::settings
