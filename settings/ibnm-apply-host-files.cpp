// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm_apply_host_files() of ibnm-apply.h: the /etc policy files are
// settings (settings/host-files.hpp), written on the apply path's terms (the
// activation lock, a report of steps).
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/boundary.hpp"
#include "settings/host-files.hpp"

using ibnm::apply::toVector;

namespace {

// ibnm_apply_host_files() in the internal form (ibnm::apply::reportOf()).
gboolean hostFiles(IbnmHost *host, IbnmHostFiles files, GPtrArray *profiles, IbnmApplyFlags flags,
                   IbnmApplyReport **report, GError **error)
{
    return ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::activation::Options options;
        options.dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
        // Policy files are settings, written under the host's root
        // (settings/host-files.hpp), not by its kernel platform.
        auto where = ibnm::settings::HostFiles::forHost(host);
        if (!where.ok())
            return std::move(where).error();
        // Under the activation lock, as every apply: two writers of the
        // same file each read, compare and replace it in turn, so neither
        // undoes the other's write on a rollback.
        auto &platform = ibnm::hostPlatform(host);
        return ibnm::apply::underActivationLock(
            host, platform, options.dryRun, report, [&]() -> ibnm::Result<ibnm::activation::Report> {
                return ibnm::settings::writeHostFiles(platform, *where, files,
                                                      profiles ? toVector(profiles) : std::vector<NMConnection *>(),
                                                      options);
            });
    });
}

} // namespace

/**
 * ibnm_apply_host_files:
 * @host: the host to change
 * @files: which files to write
 * @profiles: (element-type NM.Connection) (nullable): the profiles whose IPoIB
 *   ports get persistent names (for %IBNM_HOST_FILES_UDEV_RULES)
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 *
 * Writes the host policy files @files names (the memlock policy for group
 * rdma, the udev naming rules), atomically and only where they differ: under / on this machine; on a
 * simulated host under "root" in its state directory
 * (ibnm_host_get_runtime_dir()), never in the real /etc. A host read from a
 * sysfs tree has no files to change: writing fails.
 *
 * Returns: (transfer full): the report of every file step, whether or not
 *   the writes succeeded (%NULL only for a wrong argument); when a file
 *   could not be written, its error (ibnm_apply_report_propagate_error())
 *   has the code %IBNM_ERROR_NOT_SUPPORTED for a host whose files cannot be
 *   changed, a dry run included, the I/O error's otherwise
 *
 * Since: 0.1
 */
G_DEFINE_FLAGS_TYPE(IbnmHostFiles, ibnm_host_files,
                    G_DEFINE_ENUM_VALUE(IBNM_HOST_FILES_MEMLOCK_POLICY, "memlock-policy"),
                    G_DEFINE_ENUM_VALUE(IBNM_HOST_FILES_UDEV_RULES, "udev-rules"))

IbnmApplyReport *ibnm_apply_host_files(IbnmHost *host, IbnmHostFiles files, GPtrArray *profiles,
                                       IbnmApplyFlags flags)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    return ibnm::apply::reportOf([&](IbnmApplyReport **report, GError **error) {
        return hostFiles(host, files, profiles, flags, report, error);
    });
}
