// SPDX-License-Identifier: LGPL-2.1-or-later
// What the parts of the sysfs reader share (libcore/platform/linux only,
// not installed): the confinement of every read to the tree asked for, the
// raw read and the errors that name a file (sysfs.cpp), and the netdev
// reader (sysfs-netdev.cpp) that readHost() (sysfs-host.cpp) calls.
#pragma once

#include "libcore/platform/linux/sysfs.hpp"

#include "libcore/support/raii.hpp"

#include <optional>
#include <string>

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
ssize_t readRawAt(int dirfd, const char *path, char *buf);
Error tooLarge(const std::string &path);
Error readError(ssize_t n, const std::string &path);
Error malformed(const std::string &path, const std::string &text);
bool isNumber(const std::string &s);
std::string join(const std::string &a, const char *b);
Result<std::optional<std::string>> optionalString(const std::string &dir, const char *name);

// sysfs-netdev.cpp: class/net/<name>, with its IPoIB and bonding parts.
Result<model::Netdev> readNetdev(const std::string &netDir, const std::string &name, model::Host &host);

} // namespace ibnm::platform::sysfs
