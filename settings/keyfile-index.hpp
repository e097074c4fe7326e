// SPDX-License-Identifier: LGPL-2.1-or-later
// The index of a keyfile directory (issue 34): for each file, what stat()
// says of it (inode, ctime, mtime, size, mode, owner) and what reading it
// gave: the warnings, and the few facts by which the rules across profiles
// find the profiles related to one (id, UUID, interface, controller,
// P_Key parent...). A cache, never a second source of truth: an entry
// counts only while its file's stat() still matches it, and a file changed
// within the clock tick in which the scan that made the index began counts
// as changed (git's "racily clean" rule); whatever does not match is read
// again. An index that
// cannot be read, written or trusted only means that every file is read.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <NetworkManager.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include <sys/stat.h>

namespace ibnm::settings {

// What stat() (following symlinks, as readKeyfile() does) says of a file.
struct FileStamp {
    uint64_t dev = 0, ino = 0;
    int64_t ctimeNs = 0, mtimeNs = 0, size = -1;
    uint32_t mode = 0, uid = 0;

    static FileStamp of(const struct stat &st);
    bool operator==(const FileStamp &o) const
    {
        return dev == o.dev && ino == o.ino && ctimeNs == o.ctimeNs && mtimeNs == o.mtimeNs && size == o.size &&
               mode == o.mode && uid == o.uid;
    }
};

// What the rules across profiles (libcore/profiles/profile-rules-*.cpp)
// relate profiles by. Views into the index's own storage.
struct ProfileFacts {
    std::string_view uuid, id, type, ifname, master, slaveType, parent, mac, linkName;
    int pkey = -1;
    bool secondary = false; // an RDMA secondary (userkeys::isSecondary)
    std::vector<std::string_view> secondaries;
};

struct IndexEntry {
    std::string_view name; // the file's name in the directory
    FileStamp stamp;
    bool ok = false;         // read as a profile (else its last warning says why not)
    bool unreadable = false; // EACCES or EPERM
    ProfileFacts facts;
    std::vector<std::string_view> warnings; // what reading it reported, in order
};

class KeyfileIndex {
public:
    // The index file of the keyfile directory `dir`: in $IBNM_CACHE_DIR, else
    // /var/cache/ibnm for root, else $XDG_CACHE_HOME/ibnm; "" when
    // IBNM_KEYFILE_INDEX=0 turns the index off.
    static std::string pathFor(const std::string &dir);

    // The index of `dir` at `path`, for files owned by `owner`, read in the
    // current locale; empty (and not an error) when there is none, or it is
    // another directory's, another version's, damaged, or not this user's
    // alone.
    static KeyfileIndex load(const std::string &path, const std::string &dir, uid_t owner);

    // Written atomically (renamed over the old one), without a sync: a lost
    // or torn index is only read again. False when it could not be.
    bool save() const;

    // Copies `s` into the index's storage.
    std::string_view keep(std::string_view s);
    // Moves `s` there (its views stay valid).
    std::string_view keep(std::string &&s);
    // The facts of `c`, kept in the index's storage.
    ProfileFacts factsOf(NMConnection *c);

    // Whether `e` may be trusted for a file whose stat() is `now`.
    bool trusted(const IndexEntry &e, const FileStamp &now) const;

    std::vector<IndexEntry> entries; // sorted by name (byte order)

private:
    std::string path_, dir_, locale_;
    uid_t owner_ = 0;
    bool sameLocale_ = true;    // the warnings are in the current locale
    // When the scan that wrote the index read began (0: no index): a file
    // whose ctime or mtime is not before it may have changed after its
    // entry was made, within one tick of the clock.
    int64_t writtenNs_ = 0;
    int64_t startedNs_ = 0; // when this scan began
    // The index file, mapped: loaded views point into it. Mapped rather than
    // read, so that its pages are the page cache's (no copy, and one fault
    // maps many of them) instead of 2 MB of fresh memory at 10,000 files.
    // save() never writes into it but renames a new file over it, so the
    // mapping stays as it was (git maps its index the same way).
    GMappedFilePtr data_;
    std::deque<std::string> kept_;
};

// The child name the rules compare (model::childName(), upstream naming);
// "" when `f` is no P_Key child.
std::string childNameOf(const ProfileFacts &f);
// The port GUID of the facts' MAC address (model::portGuidBytes); "" when none.
std::string portGuidOf(const ProfileFacts &f);

} // namespace ibnm::settings
