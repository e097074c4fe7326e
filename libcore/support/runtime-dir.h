/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where ibnm keeps its runtime state about this machine (FHS /run: gone at
 * reboot, as what it describes): the activation lock and the records of
 * active connections, one file per profile UUID under active/
 * (docs/active-connections.md). C, so that the dispatcher hook's filter
 * (plugin/hook-filter.c), which loads nothing but libc, includes it too. */
#ifndef IBNM_RUNTIME_DIR_H
#define IBNM_RUNTIME_DIR_H

#include <stddef.h>

#define IBNM_RUNTIME_DIR "/run/ibnm"
/* Under the runtime directory: one record per active connection. */
#define IBNM_ACTIVE_RECORDS_SUBDIR "active"
/* Under the runtime directory: the dispatcher hook's record of each
 * activation NetworkManager ran it for, the profile as pre-up applied it,
 * named <uuid> IBNM_HOOK_RECORD_SUFFIX (plugin/hook-record.hpp). */
#define IBNM_HOOK_RECORDS_SUBDIR "hook"
#define IBNM_HOOK_RECORD_SUFFIX ".nmconnection"

/* Whether `name` can name a record: NetworkManager's UUIDs are hex digits
 * and dashes; anything else is not one of ibnm's. */
static inline int ibnm_is_record_name(const char *name)
{
    size_t n = 0;
    for (; name[n] != '\0'; n++) {
        char c = name[n];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-'))
            return 0;
    }
    return n > 0 && n <= 64;
}

#endif
