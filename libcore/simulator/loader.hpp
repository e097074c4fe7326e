// SPDX-License-Identifier: LGPL-2.1-or-later
// Opens libibnm-simulator at run time (GModule), as NetworkManager loads its
// plugins: the CLI's --simulate and the hook's test configuration use it,
// and a program that never simulates never maps it. Compiled into those
// programs (libibnm-simulator-loader.la), not into libibnm.so.
#pragma once

#include <glib.h>

struct _IbnmHost;

namespace ibnm::simulator {

struct Api {
    struct _IbnmHost *(*newHost)(const char *hostFile, const char *stateDir, GError **error);
    gboolean (*reset)(struct _IbnmHost *host, GError **error);
    gboolean (*addFaults)(struct _IbnmHost *host, const char *rules, GError **error);
};

// The simulator's entry points, or nullptr with `error` set (a translated
// message that names the library). The library stays loaded.
const Api *load(GError **error);

} // namespace ibnm::simulator
