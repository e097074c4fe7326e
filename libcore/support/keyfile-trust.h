/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* When a keyfile may be trusted, as NetworkManager's keyfile plugin decides
 * it (nms-keyfile-utils.c, nms_keyfile_utils_check_file_permissions()): a
 * regular file (a symlink's target counts: stat(), not lstat()) of the
 * required owner (root) with no access for group or others, and not larger
 * than a keyfile may be. The profile store (settings/keyfile-backend.cpp),
 * libibnm's ibnm_keyfile_read() and the dispatcher hook's filter
 * (plugin/hook-filter.c) all ask this. C, so that the filter, which loads
 * nothing but libc, includes it too. */
#ifndef IBNM_KEYFILE_TRUST_H
#define IBNM_KEYFILE_TRUST_H

#include <sys/stat.h>
#include <sys/types.h>

/* Why a keyfile is not trusted; the callers word the messages. */
typedef enum {
    IBNM_KEYFILE_TRUSTED = 0,
    IBNM_KEYFILE_NOT_REGULAR,    /* not a regular file */
    IBNM_KEYFILE_WRONG_OWNER,    /* not owned by the required owner */
    IBNM_KEYFILE_GROUP_OR_OTHER, /* group or others have access (0600 is required) */
    IBNM_KEYFILE_TOO_LARGE,      /* larger than max_size bytes */
} IbnmKeyfileTrust;

static inline IbnmKeyfileTrust ibnm_keyfile_trust(const struct stat *st, uid_t owner, unsigned long long max_size)
{
    if (!S_ISREG(st->st_mode))
        return IBNM_KEYFILE_NOT_REGULAR;
    if (st->st_uid != owner)
        return IBNM_KEYFILE_WRONG_OWNER;
    if ((st->st_mode & 0077) != 0)
        return IBNM_KEYFILE_GROUP_OR_OTHER;
    if ((unsigned long long)st->st_size > max_size)
        return IBNM_KEYFILE_TOO_LARGE;
    return IBNM_KEYFILE_TRUSTED;
}

#endif
