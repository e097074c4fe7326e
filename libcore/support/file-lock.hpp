// SPDX-License-Identifier: LGPL-2.1-or-later
// Advisory locks between ibnm processes (flock(2): released when the fd is
// closed, also when the process is killed, so a crashed run never leaves a
// lock behind).
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <string>

namespace ibnm {

// Opens (creating it, mode 0600, never through a symlink) and locks the file
// `path` exclusively; blocks while another process holds it.
Result<UniqueFd> lockFileExclusive(const std::string &path);

// Locks the directory `dir` itself exclusively (nothing is created in it).
Result<UniqueFd> lockDirectoryExclusive(const std::string &dir);

} // namespace ibnm
