// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile store in partial mode (issue 34): one add, modify or delete
// reads only the files that changed since the index was written and the
// profiles the change relates to, instead of every profile of the store.
#include "config.h"

#include "settings/keyfile-backend.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "settings/keyfile-codec.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>
#include <unordered_set>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

namespace ibnm::settings {

namespace {

bool byName(const IndexEntry &e, std::string_view name)
{
    return e.name < name;
}

bool contains(const std::vector<std::string_view> &v, std::string_view s)
{
    return !s.empty() && std::find(v.begin(), v.end(), s) != v.end();
}

// Whether the rules across profiles (checkBonds(), checkAcross(),
// checkSecondaries() of libcore/profiles) can look at `e` when they check
// `s`: the same id (its findings are shown as s's) or UUID, its bond or its
// ports, the same interface, its parent's profile, the same P_Key child or
// child name, the same port GUID, the same soft RDMA link, a secondary of
// it or its base. `sChild`, `sGuid`: s's child name and port GUID.
bool relates(const ProfileFacts &s, const std::string &sChild, const std::string &sGuid, const ProfileFacts &e)
{
    if (e.id == s.id || (!s.uuid.empty() && e.uuid == s.uuid))
        return true;
    if (!s.master.empty() && (e.ifname == s.master || e.uuid == s.master || e.id == s.master))
        return true;
    if (!e.master.empty() && ((!s.ifname.empty() && e.master == s.ifname) || e.master == s.uuid || e.master == s.id))
        return true;
    if (!s.ifname.empty() && e.ifname == s.ifname)
        return true;
    if (!s.parent.empty() && e.ifname == s.parent)
        return true;
    if (!sChild.empty() && e.pkey >= 0 && e.pkey <= 0xffff && !e.parent.empty()) {
        if (e.parent == s.parent && model::fullMembership(uint16_t(e.pkey)) == model::fullMembership(uint16_t(s.pkey)))
            return true;
        // Equal child names begin with equal parents (cut to 15 characters).
        size_t n = std::min({e.parent.size(), s.parent.size(), size_t(15)});
        if (e.parent.substr(0, n) == s.parent.substr(0, n) && childNameOf(e) == sChild)
            return true;
    }
    if (!sGuid.empty() && !e.mac.empty() && portGuidOf(e) == sGuid)
        return true;
    if (!s.linkName.empty() && e.linkName == s.linkName)
        return true;
    return contains(e.secondaries, s.uuid) || contains(s.secondaries, e.uuid);
}

} // namespace

// What stat() says of each listed file (size -1 where it failed: never
// trusted). A big directory is stat()ed by a few threads at once, as git's
// preload-index does: the stat() calls are most of a command's time at
// 10,000 files, and each is independent. A thread that cannot be started
// leaves its share to the others.
std::vector<FileStamp> KeyfileBackend::statAll(int dirFd, const std::string &names, const std::vector<Listed> &listed)
{
    std::vector<FileStamp> stamps(listed.size());
    constexpr size_t kChunk = 512;
    std::atomic<size_t> next{0};
    auto work = [&]() {
        for (size_t from; (from = next.fetch_add(kChunk)) < listed.size();)
            for (size_t i = from; i < std::min(from + kChunk, listed.size()); i++) {
                struct stat st {};
                if (::fstatat(dirFd, names.c_str() + listed[i].offset, &st, 0) == 0)
                    stamps[i] = FileStamp::of(st);
            }
    };
    std::vector<std::thread> helpers;
    size_t wanted = std::min<size_t>({kStatThreads, std::max(1u, std::thread::hardware_concurrency()),
                                      listed.size() / kStatPerThread});
    for (size_t t = 1; t < wanted; t++) {
        try {
            helpers.emplace_back(work);
        } catch (const std::system_error &) {
            break;
        }
    }
    work();
    for (auto &t : helpers)
        t.join();
    return stamps;
}

IndexEntry KeyfileBackend::readEntry(const std::string &name, const FileStamp &stamp)
{
    IndexEntry e;
    e.name = index_->keep(name);
    e.stamp = stamp;
    std::vector<std::string> warnings;
    std::string path = dir_ + "/" + name;
    auto p = readFile(path, &warnings);
    if (p) {
        p->filename = path;
        e.ok = true;
        e.facts = index_->factsOf(p->connection.get());
        loaded_[name] = std::move(*p);
    } else {
        e.unreadable = p.error().errnum() == EACCES || p.error().errnum() == EPERM;
        warnings.push_back(p.error().toString());
    }
    for (const auto &w : warnings)
        e.warnings.push_back(index_->keep(w));
    return e;
}

// The profiles and warnings as load() makes them: each file's warnings in
// name order, and of two files with one UUID the first.
void KeyfileBackend::acceptEntries(bool warn)
{
    accepted_.clear();
    accepted_.reserve(index_->entries.size());
    if (warn) {
        warnings_.clear();
        unreadable_.clear();
    }
    // The UUIDs seen, open addressing (10,000 nodes of a std::unordered_set
    // cost more than the rest of this loop).
    const auto &entries = index_->entries;
    size_t capacity = 16;
    while (capacity < entries.size() * 2)
        capacity *= 2;
    std::vector<uint32_t> seen(capacity, 0); // entry + 1
    std::hash<std::string_view> hash;
    for (size_t i = 0; i < entries.size(); i++) {
        const IndexEntry &e = entries[i];
        auto path = [&]() { return dir_ + "/" + std::string(e.name); };
        if (warn) {
            for (auto w : e.warnings)
                warnings_.emplace_back(w);
            if (e.unreadable)
                unreadable_.push_back(path());
        }
        if (!e.ok)
            continue;
        size_t slot = hash(e.facts.uuid) & (capacity - 1);
        while (seen[slot] != 0 && entries[seen[slot] - 1].facts.uuid != e.facts.uuid)
            slot = (slot + 1) & (capacity - 1);
        if (seen[slot] != 0) {
            if (warn)
                warnings_.push_back(path() + ": " + strprintf(_("UUID %s is already used by another file; ignored"),
                                                              std::string(e.facts.uuid).c_str()));
            continue;
        }
        seen[slot] = uint32_t(i + 1);
        accepted_.push_back(i);
    }
}

Status KeyfileBackend::scan(const std::string &indexPath)
{
    auto index = std::make_unique<KeyfileIndex>(KeyfileIndex::load(indexPath, dir_, requiredOwner_));
    DIR *d = ::opendir(dir_.c_str());
    if (d == nullptr) {
        removeDeadWritersFiles(dir_);
        return load(); // its error, or an empty store
    }
    // Every file's name, sorted as load() reads them: kept in one buffer,
    // each ended by its NUL (one allocation instead of one per name).
    std::string names;
    names.reserve((index->entries.size() + 16) * 32);
    std::vector<Listed> listed;
    listed.reserve(index->entries.size() + 16);
    while (struct dirent *de = ::readdir(d)) {
        if (ignoreFilename(de->d_name)) {
            if (de->d_name[0] == '.' && std::strstr(de->d_name, ".ibnm-"))
                removeIfDeadWritersFile(dir_, de->d_name);
            continue;
        }
        size_t length = std::strlen(de->d_name);
        listed.push_back({names.size(), length});
        names.append(de->d_name, length + 1);
    }
    std::sort(listed.begin(), listed.end(), [&names](const Listed &a, const Listed &b) {
        return std::strcmp(names.c_str() + a.offset, names.c_str() + b.offset) < 0;
    });
    std::vector<FileStamp> stamps = statAll(::dirfd(d), names, listed);
    ::closedir(d);
    std::string_view kept = index->keep(std::move(names));
    std::vector<std::string_view> files;
    files.reserve(listed.size());
    for (const auto &l : listed)
        files.push_back(kept.substr(l.offset, l.length));
    loaded_.clear();
    profiles_.clear();
    index_ = std::move(index);
    size_t stale = mergeListing(files, stamps);
    acceptEntries(true);
    partial_ = true;
    // Written again once enough files are read each time (each costs about
    // what writing 200 entries does), or the store is small.
    if (stale >= kIndexStaleLimit || stale * 8 > index_->entries.size())
        index_->save();
    return {};
}

// The index's entries made those of `files` (sorted, with their stamps):
// an entry kept while its file's stamp says it may be trusted, else read
// again. Returns how many files were read. A few files added or removed
// (one command's change) are inserted and erased in place; more, and the
// entries are merged into a new vector.
size_t KeyfileBackend::mergeListing(const std::vector<std::string_view> &files, const std::vector<FileStamp> &stamps)
{
    auto &old = index_->entries;
    size_t changes = 0;
    for (size_t f = 0, o = 0; (f < files.size() || o < old.size()) && changes <= kInPlaceChanges;) {
        if (o < old.size() && f < files.size() && old[o].name == files[f])
            f++, o++;
        else if (o < old.size() && (f == files.size() || old[o].name < files[f]))
            o++, changes++; // removed since
        else
            f++, changes++; // added since
    }
    size_t stale = 0;
    if (changes <= kInPlaceChanges) {
        for (size_t f = 0, o = 0; f < files.size() || o < old.size();) {
            if (o < old.size() && (f == files.size() || old[o].name < files[f])) {
                old.erase(old.begin() + long(o));
                continue;
            }
            if (o == old.size() || old[o].name != files[f]) {
                old.insert(old.begin() + long(o), readEntry(std::string(files[f]), stamps[f]));
                stale++;
            } else if (!index_->trusted(old[o], stamps[f])) {
                old[o] = readEntry(std::string(files[f]), stamps[f]);
                stale++;
            }
            f++, o++;
        }
        return stale;
    }
    std::vector<IndexEntry> entries;
    entries.reserve(files.size());
    size_t o = 0;
    for (size_t f = 0; f < files.size(); f++) {
        while (o < old.size() && old[o].name < files[f])
            o++; // removed since
        if (o < old.size() && old[o].name == files[f] && index_->trusted(old[o], stamps[f])) {
            entries.push_back(std::move(old[o]));
            continue;
        }
        entries.push_back(readEntry(std::string(files[f]), stamps[f]));
        stale++;
    }
    old = std::move(entries);
    return stale;
}

void KeyfileBackend::ensureFull() const
{
    if (!partial_)
        return;
    auto *self = const_cast<KeyfileBackend *>(this);
    self->partial_ = false;
    // The warnings stay the objects ibnm_settings_get_load_warnings() shows.
    auto warnings = std::move(self->warnings_);
    auto unreadable = std::move(self->unreadable_);
    Status st = self->load();
    self->warnings_ = std::move(warnings);
    self->unreadable_ = std::move(unreadable);
    if (!st.ok())
        self->warnings_.push_back(st.error().toString());
    // A profile already handed out stays the one the store holds.
    for (auto &p : self->profiles_) {
        GCharPtr base(g_path_get_basename(p.filename.c_str()));
        auto it = loaded_.find(base.get());
        if (it != loaded_.end() && g_strcmp0(nm_connection_get_uuid(it->second.connection.get()),
                                             nm_connection_get_uuid(p.connection.get())) == 0)
            p.connection = it->second.connection;
    }
}

const StoredProfile *KeyfileBackend::materialize(size_t entry)
{
    const IndexEntry &e = index_->entries[entry];
    std::string name(e.name);
    auto it = loaded_.find(name);
    if (it != loaded_.end())
        return &it->second;
    std::vector<std::string> warnings;
    auto p = readFile(dir_ + "/" + name, &warnings);
    // Changed behind the store's lock since scan(): not this entry.
    if (!p || std::string_view(nm_connection_get_uuid(p->connection.get()) ?: "") != e.facts.uuid)
        return nullptr;
    p->filename = dir_ + "/" + name;
    return &(loaded_[name] = std::move(*p));
}

std::optional<size_t> KeyfileBackend::entryByUuid(const std::string &uuid) const
{
    for (size_t i : accepted_)
        if (index_->entries[i].facts.uuid == uuid)
            return i;
    return std::nullopt;
}

std::optional<const StoredProfile *> KeyfileBackend::findPartial(IbnmSettingsMatch match, const std::string &value)
{
    if (!partial_)
        return std::nullopt;
    bool any = match == IBNM_SETTINGS_MATCH_ANY;
    std::optional<size_t> found;
    if (any || match == IBNM_SETTINGS_MATCH_UUID)
        found = entryByUuid(value);
    for (size_t i = 0; !found && (any || match == IBNM_SETTINGS_MATCH_ID) && i < accepted_.size(); i++)
        if (index_->entries[accepted_[i]].facts.id == value)
            found = accepted_[i];
    // Keyfiles have no D-Bus path: `path` and `apath` find none.
    for (size_t i = 0; !found && (any || match == IBNM_SETTINGS_MATCH_FILENAME) && i < accepted_.size(); i++) {
        std::string_view name = index_->entries[accepted_[i]].name;
        if (value == name || value == dir_ + "/" + std::string(name))
            found = accepted_[i];
    }
    if (!found)
        return nullptr;
    if (const StoredProfile *p = materialize(*found))
        return p;
    ensureFull();
    return std::nullopt;
}

std::vector<const StoredProfile *> KeyfileBackend::related(NMConnection *connection,
                                                           const std::vector<std::string> &names)
{
    if (!partial_)
        return Backend::related(connection, names);
    const auto &entries = index_->entries;
    // The profile, and the stored ones of its id, whose findings are its own.
    std::vector<ProfileFacts> subjects;
    if (connection)
        subjects.push_back(index_->factsOf(connection));
    for (size_t i : accepted_)
        if (connection && entries[i].facts.id == subjects.front().id)
            subjects.push_back(entries[i].facts);
    std::vector<std::pair<std::string, std::string>> keys;
    for (const auto &s : subjects)
        keys.emplace_back(childNameOf(s), portGuidOf(s));
    std::vector<bool> chosen(entries.size(), false);
    std::unordered_set<std::string_view> bonds; // interface names and UUIDs of the subjects' bonds
    for (size_t i : accepted_) {
        const ProfileFacts &e = entries[i].facts;
        for (size_t k = 0; k < subjects.size() && !chosen[i]; k++)
            chosen[i] = relates(subjects[k], keys[k].first, keys[k].second, e);
        for (const auto &n : names)
            chosen[i] = chosen[i] || e.uuid == n || e.id == n || (!e.ifname.empty() && e.ifname == n);
        if (e.type == NM_SETTING_BOND_SETTING_NAME)
            for (const auto &s : subjects)
                if (!s.master.empty() && (e.ifname == s.master || e.uuid == s.master)) {
                    if (!e.ifname.empty())
                        bonds.insert(e.ifname);
                    bonds.insert(e.uuid);
                }
    }
    // Every port of those bonds: their findings involve the profile.
    std::vector<const StoredProfile *> out;
    for (size_t i : accepted_) {
        std::string_view master = entries[i].facts.master;
        chosen[i] = chosen[i] || (!master.empty() && bonds.count(master));
        if (!chosen[i])
            continue;
        const StoredProfile *p = materialize(i);
        if (p == nullptr) {
            ensureFull();
            return Backend::related(connection, names);
        }
        out.push_back(p);
    }
    return out;
}

void KeyfileBackend::refreshEntry(std::string path)
{
    GCharPtr base(g_path_get_basename(path.c_str()));
    std::string name = base.get();
    auto &entries = index_->entries;
    auto it = std::lower_bound(entries.begin(), entries.end(), name, byName);
    size_t at = size_t(it - entries.begin());
    bool known = it != entries.end() && it->name == name;
    bool wasAccepted = known && std::binary_search(accepted_.begin(), accepted_.end(), at);
    // accepted_ as the write left it, as profiles_ after a write in full mode
    // (the warnings of the load stay as they were); the index file is left
    // to the next scan(), which reads this file again.
    auto shift = [&](int by) {
        for (size_t &i : accepted_)
            if (i > at || (by > 0 && i == at))
                i = size_t(long(i) + by);
    };
    if (wasAccepted)
        accepted_.erase(std::find(accepted_.begin(), accepted_.end(), at));
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (known) {
            entries.erase(it);
            shift(-1);
        }
        return;
    }
    IndexEntry e = readEntry(name, FileStamp::of(st));
    bool ok = e.ok && !entryByUuid(std::string(e.facts.uuid));
    if (known) {
        *it = std::move(e);
    } else {
        entries.insert(it, std::move(e));
        shift(1);
    }
    if (ok)
        accepted_.insert(std::lower_bound(accepted_.begin(), accepted_.end(), at), at);
}

} // namespace ibnm::settings
