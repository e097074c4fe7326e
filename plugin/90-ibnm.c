/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 90-ibnm: NetworkManager's dispatcher hook of ibnm, installed in its
 * dispatcher.d with pre-up.d/ and pre-down.d/ links to it. NetworkManager
 * runs it at every activation and deactivation of every profile: it decides
 * with libc alone whether there is anything to do (plugin/hook-filter.h)
 * and, only then, runs ibnm-dispatcher, which provisions what the profile's
 * ibnm keys ask ([user] rdma.* / ipoib.*, ibnm-keyfile(5)) with libnm and
 * libibnm. A profile without them costs about what /bin/true does. */
#include "config.h"

#include "plugin/hook-filter.h"
#include "libcore/support/runtime-dir.h"

#include <errno.h>
#include <libintl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IBNM_DISPATCHER LIBEXECDIR "/ibnm/ibnm-dispatcher"

int main(int argc, char **argv)
{
    if (argc >= 3 && ibnm_hook_filter(argv[2], getenv("CONNECTION_UUID"), getenv("CONNECTION_FILENAME"), 0,
                                      IBNM_RUNTIME_DIR) == IBNM_HOOK_SKIP)
        return 0;
    argv[0] = (char *)IBNM_DISPATCHER;
    execv(IBNM_DISPATCHER, argv);
    int e = errno;
    setlocale(LC_ALL, "");
    bindtextdomain(GETTEXT_PACKAGE, LOCALEDIR);
    fprintf(stderr, "90-ibnm: ");
    fprintf(stderr, dgettext(GETTEXT_PACKAGE, "cannot run %s: %s"), IBNM_DISPATCHER, strerror(e));
    fputc('\n', stderr);
    return 1;
}
