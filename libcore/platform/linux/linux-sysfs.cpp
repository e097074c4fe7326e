// SPDX-License-Identifier: LGPL-2.1-or-later
// LinuxPlatform's sysfs side: the options for a tree, the host as sysfs
// shows it, and the error of a change to a tree. Neither netlink nor verbs.
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/platform/linux/sysfs.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <cerrno>

#include <glib.h>
#include <sys/utsname.h>

namespace ibnm::platform {

Result<LinuxOptions> sysfsDumpOptions(const std::string &dir)
{
    std::string root;
    for (const std::string &candidate : {dir, dir + "/sys"})
        if (root.empty() && g_file_test((candidate + "/class").c_str(), G_FILE_TEST_IS_DIR))
            root = candidate;
    if (root.empty())
        return Error(IBNM_ERROR_NOT_FOUND,
                     _("neither a sysfs tree (class/...) nor the root of one (sys/class/..., as in an extracted "
                       "sosreport)"),
                     ENOENT)
            .withContext(dir);
    LinuxOptions o;
    o.sysfsRoot = root;
    o.configfsRoot = root + "/kernel/config";
    o.readOnly = true;
    o.useNetlink = false;
    o.useVerbs = false;
    return o;
}

LinuxOptions linuxOptionsFromEnvironment()
{
    const char *root = g_getenv("IBNM_SYSFS_ROOT");
    if (root == nullptr || *root == '\0')
        return LinuxOptions{};
    auto o = sysfsDumpOptions(root);
    if (o.ok())
        return *o;
    // Read as given: reading fails and names the directory.
    LinuxOptions raw;
    raw.sysfsRoot = root;
    raw.configfsRoot = std::string(root) + "/kernel/config";
    raw.readOnly = true;
    raw.useNetlink = false;
    raw.useVerbs = false;
    return raw;
}

Error readOnlyTreeError(const std::string &sysfsRoot)
{
    return Error(IBNM_ERROR_NOT_SUPPORTED,
                 strprintf(_("the host under %s is a sysfs tree read from files, not a running kernel: it cannot be changed"),
                           sysfsRoot.c_str()));
}

Result<model::Host> readSysfsHost(const LinuxOptions &options, bool gidTables)
{
    sysfs::ReadOptions ro;
    ro.sysfsRoot = options.sysfsRoot;
    ro.configfsRoot = options.configfsRoot;
    ro.gidTables = gidTables;
    auto host = sysfs::readHost(ro);
    if (!host)
        return host;
    host->withGidTables = gidTables;
    if (!options.readOnly) {
        utsname u;
        if (uname(&u) == 0)
            host->kernelRelease = u.release;
    }

    // Soft links as sysfs shows them: rxe names its netdev in "parent".
    for (const auto &dev : host->devices) {
        auto type = model::softLinkTypeOfDriver(dev.driver);
        if (!type)
            continue;
        model::SoftLink l;
        l.name = dev.name;
        l.type = *type;
        auto parent = sysfs::readOptionalAttr(options.sysfsRoot + "/class/infiniband/" + dev.name + "/parent");
        if (!parent)
            return std::move(parent).error();
        l.netdev = parent->value_or("");
        host->softLinks.push_back(std::move(l));
    }
    return host;
}

} // namespace ibnm::platform
