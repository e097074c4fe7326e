// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/file-lock.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/file.h>

namespace ibnm {

namespace {

Result<UniqueFd> lockFd(UniqueFd fd, const std::string &path)
{
    if (!fd)
        return Error::fromErrno(errno, path);
    while (::flock(fd.get(), LOCK_EX) != 0) {
        if (errno != EINTR)
            return Error::fromErrno(errno, path);
    }
    return fd;
}

} // namespace

Result<UniqueFd> lockFileExclusive(const std::string &path)
{
    return lockFd(UniqueFd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)), path);
}

Result<UniqueFd> lockDirectoryExclusive(const std::string &dir)
{
    return lockFd(UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)), dir);
}

} // namespace ibnm
