// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "plugin/hook-record.hpp"

#include "libcore/ibnm-error.h"
#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/runtime-dir.h"
#include "settings/ibnm-settings.h"

#include <glib/gstdio.h>

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace ibnm::plugin {

namespace {

std::string recordDir(IbnmHost *host)
{
    const char *runtime = ibnm_host_get_runtime_dir(host);
    if (runtime == nullptr)
        return {};
    return std::string(runtime) + "/" IBNM_HOOK_RECORDS_SUBDIR;
}

} // namespace

std::string hookRecordPath(IbnmHost *host, const char *uuid)
{
    std::string dir = recordDir(host);
    if (dir.empty() || uuid == nullptr || !ibnm_is_record_name(uuid))
        return {};
    return dir + "/" + uuid + IBNM_HOOK_RECORD_SUFFIX;
}

GObjectPtr<NMConnection> readHookRecord(IbnmHost *host, const char *uuid, GError **error)
{
    std::string path = hookRecordPath(host, uuid);
    if (path.empty() || !g_file_test(path.c_str(), G_FILE_TEST_EXISTS))
        return nullptr;
    // The same trust as a keyfile's: root's (or the owner a simulated host's
    // files have), no access for group or others.
    auto c = GObjectPtr<NMConnection>::adopt(ibnm_keyfile_read(path.c_str(), geteuid(), error));
    if (c && g_strcmp0(nm_connection_get_uuid(c.get()), uuid) != 0) {
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_PARSE, _("%s holds profile %s, not %s"), path.c_str(),
                    nm_connection_get_uuid(c.get()), uuid);
        return nullptr;
    }
    return c;
}

bool writeHookRecord(IbnmHost *host, NMConnection *profile, GError **error)
{
    std::string path = hookRecordPath(host, nm_connection_get_uuid(profile));
    if (path.empty())
        return true;
    GCharPtr data(ibnm_keyfile_to_data(profile, error));
    if (!data)
        return false;
    std::string dir = recordDir(host);
    if (g_mkdir_with_parents(dir.c_str(), 0700) != 0) {
        int e = errno;
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_IO, _("cannot create %s: %s"), dir.c_str(), g_strerror(e));
        return false;
    }
    return toGError(atomicWriteFile(path, data.get()), error);
}

bool removeHookRecord(IbnmHost *host, const char *uuid, GError **error)
{
    std::string path = hookRecordPath(host, uuid);
    if (path.empty() || g_unlink(path.c_str()) == 0 || errno == ENOENT)
        return true;
    int e = errno;
    g_set_error(error, IBNM_ERROR, IBNM_ERROR_IO, _("cannot remove %s: %s"), path.c_str(), g_strerror(e));
    return false;
}

bool sameSettings(NMConnection *a, NMConnection *b)
{
    return nm_connection_compare(a, b, NM_SETTING_COMPARE_FLAG_EXACT);
}

} // namespace ibnm::plugin
