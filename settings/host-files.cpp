// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/host-files.hpp"

#include "libcore/activation/planner.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"

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
    using activation::detail::Planner;
    using activation::detail::Step;
    activation::Report report;
    model::Host none;
    Planner planner(none, report);
    struct File {
        const char *path;
        std::string contents;
    };
    std::vector<File> asked;
    if (which & IBNM_HOST_FILES_MEMLOCK_POLICY)
        asked.push_back({activation::kMemlockPolicyPath, activation::memlockPolicy()});
    if (which & IBNM_HOST_FILES_UDEV_RULES)
        asked.push_back({activation::kUdevRulesPath, activation::udevRules(profiles)});
    for (const File &f : asked) {
        auto cur = files.read(f.path);
        if (!cur.ok())
            return activation::detail::planningFailed(std::move(report), std::move(cur).error());
        if (*cur && **cur == f.contents)
            continue;
        std::optional<std::string> old = *cur;
        std::string path = f.path;
        // The steps change files, not the kernel: they ignore the platform.
        planner.add("write-file", path, strprintf(_("write %s"), path.c_str()), "",
                    [&files, path, c = f.contents](platform::Platform &) { return files.write(path, c, 0644); },
                    [&files, path, old](platform::Platform &) {
                        return old ? files.write(path, *old, 0644) : files.remove(path);
                    });
    }
    std::vector<Step> steps = std::move(planner.steps);
    if (!steps.empty() && files.refusal())
        return activation::detail::planningFailed(std::move(report), *files.refusal());
    if (!options.dryRun && !steps.empty())
        activation::detail::execute(platform, steps, report);
    activation::detail::finish(steps, report);
    return report;
}

} // namespace ibnm::settings
