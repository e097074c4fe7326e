// SPDX-License-Identifier: LGPL-2.1-or-later
// The files of the simulated host (fake-platform.hpp): what settings writes
// under /etc (memlock limits, udev rules), kept in the state.
#include "config.h"

#include "libcore/simulator/fake-platform-private.hpp"

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/support/i18n.hpp"

#include <cerrno>

namespace ibnm::platform {


using namespace fake;

// --- host files -------------------------------------------------------------------

Result<std::optional<std::string>> FakePlatform::readHostFile(const std::string &path)
{
    auto s = transact(false, [] { return Status(); });
    if (!s.ok())
        return std::move(s).error();
    auto it = state_.files.find(path);
    if (it == state_.files.end())
        return std::optional<std::string>();
    return std::optional<std::string>(it->second.contents);
}

Status FakePlatform::writeHostFile(const std::string &path, const std::string &contents, unsigned mode)
{
    return mutate("writeHostFile", path, {path, contents, num(mode)}, [&]() -> Status {
        if (path.empty() || path[0] != '/')
            return kernelError(EINVAL, path, IBNM_ERROR_INVALID_ARGUMENT, _("not an absolute path"));
        // What the state file (a GLib key file) holds and reads back.
        if (!isStorableId(path) ||
            !g_utf8_validate(contents.data(), static_cast<gssize>(contents.size()), nullptr))
            return kernelError(EINVAL, path, IBNM_ERROR_INVALID_ARGUMENT,
                               _("the simulated host keeps only UTF-8 text files whose paths are UTF-8 without “[”, "
                                 "“]”, control characters or blanks at either end"));
        state_.files[path] = {contents, mode & 07777};
        return {};
    });
}

Status FakePlatform::removeHostFile(const std::string &path)
{
    return mutate("removeHostFile", path, {path}, [&]() -> Status {
        if (state_.files.erase(path) == 0)
            return kernelError(ENOENT, path, IBNM_ERROR_NOT_FOUND);
        return {};
    });
}

} // namespace ibnm::platform
