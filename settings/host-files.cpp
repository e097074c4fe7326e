// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/host-files.hpp"

#include "libcore/ibnm-host-private.hpp"
#include "libcore/profiles/host-files.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <glib/gstdio.h>

#include <cerrno>

namespace ibnm::settings {

HostFiles::HostFiles(std::string root, bool createDirs) : root_(std::move(root)), createDirs_(createDirs) {}

HostFiles HostFiles::readOnly(Error refusal)
{
    HostFiles f({}, false);
    f.refusal_ = std::move(refusal);
    return f;
}

Result<HostFiles> HostFiles::forHost(IbnmHost *host)
{
    const char *location = ibnm_host_get_location(host);
    switch (ibnm_host_get_kind(host)) {
    case IBNM_HOST_KIND_SYSTEM:
        return HostFiles("/", false);
    case IBNM_HOST_KIND_SIMULATED:
        if (const char *state = ibnm_host_get_runtime_dir(host))
            return HostFiles(simulatedHostFilesRoot(state), true);
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("this simulated host has no state directory to keep its files in"))
            .withContext(location ? location : "");
    case IBNM_HOST_KIND_SYSFS_DUMP:
        break;
    }
    return readOnly(Error(IBNM_ERROR_NOT_SUPPORTED,
                          strprintf(_("the host under %s is a sysfs tree read from files, not a running kernel: it "
                                      "cannot be changed"),
                                    location ? location : "")));
}

std::string HostFiles::locate(const std::string &path) const
{
    if (root_ == "/")
        return path;
    return root_ + path;
}

Result<std::optional<std::string>> HostFiles::read(const std::string &path) const
{
    if (refusal_)
        return std::optional<std::string>();
    GCharPtr contents;
    gsize len = 0;
    GErrorPtr err;
    std::string where = locate(path);
    if (!g_file_get_contents(where.c_str(), outPtr(contents), &len, outPtr(err))) {
        // No such file, or a part of its directory is no directory: none.
        if (g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
            g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOTDIR))
            return std::optional<std::string>();
        return Error(IBNM_ERROR_IO, err->message).withContext(where);
    }
    return std::optional<std::string>(std::string(contents.get(), len));
}

Status HostFiles::write(const std::string &path, const std::string &contents, unsigned mode) const
{
    if (refusal_)
        return *refusal_;
    std::string where = locate(path);
    if (createDirs_) {
        GCharPtr dir(g_path_get_dirname(where.c_str()));
        if (g_mkdir_with_parents(dir.get(), 0755) < 0)
            return Error::fromErrno(errno, dir.get());
    }
    AtomicWriteOptions opts;
    opts.mode = mode;
    // A simulated host need not survive a power cut (support/files.hpp).
    opts.durable = !createDirs_;
    return atomicWriteFile(where, contents, opts);
}

Status HostFiles::remove(const std::string &path) const
{
    if (refusal_)
        return *refusal_;
    std::string where = locate(path);
    if (g_unlink(where.c_str()) < 0 && errno != ENOENT)
        return Error::fromErrno(errno, where);
    return {};
}

activation::Report writeHostFiles(platform::Platform &platform, const HostFiles &files, IbnmHostFiles which,
                                  const std::vector<NMConnection *> &profiles, const activation::Options &options)
{
    std::vector<activation::FileContents> asked;
    if (which & IBNM_HOST_FILES_MEMLOCK_POLICY)
        asked.push_back({hostfiles::kMemlockPolicyPath, hostfiles::memlockPolicy()});
    if (which & IBNM_HOST_FILES_UDEV_RULES)
        asked.push_back({hostfiles::kUdevRulesPath, hostfiles::udevRules(profiles)});
    return activation::writeFiles(platform, files, asked, options);
}

} // namespace ibnm::settings
