// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/module-path.hpp"

#include "libcore/support/raii.hpp"

#include <glib.h>

namespace ibnm {

std::string modulePath(const char *name, const char *installedDir)
{
    const char *path = g_getenv("IBNM_MODULE_PATH");
    if (path != nullptr && *path != '\0') {
        GStrvPtr dirs(g_strsplit(path, G_SEARCHPATH_SEPARATOR_S, -1));
        for (char **dir = dirs.get(); *dir != nullptr; dir++) {
            if (**dir == '\0')
                continue;
            GCharPtr candidate(g_build_filename(*dir, name, nullptr));
            if (g_file_test(candidate.get(), G_FILE_TEST_EXISTS))
                return candidate.get();
        }
    }
    GCharPtr installed(g_build_filename(installedDir, name, nullptr));
    return installed.get();
}

} // namespace ibnm
