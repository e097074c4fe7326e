// SPDX-License-Identifier: LGPL-2.1-or-later
// What the parts of the sysfs reader share (libcore/platform/linux only,
// not installed): the confinement of every read to the tree asked for, the
// raw read and the errors that name a file (sysfs.cpp), and the netdev
// reader (sysfs-netdev.cpp) that readHost() (sysfs-host.cpp) calls.
#pragma once

#include "libcore/platform/linux/sysfs.hpp"

#include "libcore/support/raii.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/types.h>

namespace ibnm::platform::sysfs {

// The tree a public entry point reads (readHost, readGidTables,
// readPortGids): a sysfs dump may come from another machine, so no path
// under it may lead out of it. Files and directories under the root are
// opened with openat2(RESOLVE_BENEATH): a symlink such as
// fw_ver -> /etc/shadow, or ../../.. out of the tree, fails with EXDEV. The
// kernel's own sysfs links are relative and stay inside /sys.
struct Confinement {
    std::string prefix; // root + "/"
    UniqueFd fd;
};

// Confines this thread's reads to `root` while it lives (in a nested entry
// point the outer root holds).
class ConfineTo {
public:
    explicit ConfineTo(const std::string &root);
    ~ConfineTo();
    ConfineTo(const ConfineTo &) = delete;
    ConfineTo &operator=(const ConfineTo &) = delete;

private:
    const Confinement *outer_;
    Confinement c_;
};

int openConfined(const char *path, int flags);
// type: the d_type of the entry when the caller listed it (DT_REG: no
// fstat(2)), DT_UNKNOWN otherwise.
ssize_t readRawAt(int dirfd, const char *path, char *buf, unsigned char type = DT_UNKNOWN);

// A directory's entries in natural order (listDir()'s), each with its
// d_type (DT_UNKNOWN where the file system does not say) and whether its
// name is a number without leading zeros; the names are in one arena,
// each ending in a NUL.
struct DirListing {
    struct Entry {
        uint32_t offset;
        uint16_t length;
        unsigned char type;
        bool plainNumber;
    };
    std::vector<char> arena;
    std::vector<Entry> entries;
    const char *name(const Entry &e) const { return arena.data() + e.offset; }
    std::string nameString(const Entry &e) const { return std::string(name(e), e.length); }
};
// The entries of a directory the caller opened (fd, read from its current
// position; path names it in errors).
Result<DirListing> listDirEntriesAt(int fd, const std::string &path);

Error tooLarge(const std::string &path);
Error readError(ssize_t n, const std::string &path);
Error malformed(const std::string &path, const std::string &text);
bool isNumber(const std::string &s);
std::string join(const std::string &a, const char *b);
Result<std::optional<std::string>> optionalString(const std::string &dir, const char *name);

// sysfs-netdev.cpp: class/net/<name>, with its IPoIB and bonding parts.
Result<model::Netdev> readNetdev(const std::string &netDir, const std::string &name, model::Host &host);

} // namespace ibnm::platform::sysfs
