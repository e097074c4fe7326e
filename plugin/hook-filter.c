/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE /* memmem() */
#include "config.h"

#include "plugin/hook-filter.h"

#include "libcore/support/keyfile-trust.h"
#include "libcore/support/runtime-dir.h"
#include "settings/ibnm-settings.h" /* IBNM_KEYFILE_MAX_SIZE */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 when the trusted keyfile `filename` certainly holds no ibnm key, 1 when
 * it may, -1 when it cannot be read or may not be trusted. */
static int keyfileMayHoldIbnmKeys(const char *filename, unsigned owner)
{
    static const char suffix[] = ".nmconnection";
    size_t len = strlen(filename);
    if (len < sizeof suffix - 1 || strcmp(filename + len - (sizeof suffix - 1), suffix) != 0)
        return -1;
    int fd = open(filename, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || ibnm_keyfile_trust(&st, (uid_t)owner, IBNM_KEYFILE_MAX_SIZE) != IBNM_KEYFILE_TRUSTED) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    char *data = malloc(size + 1);
    size_t got = 0;
    while (data != NULL && got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    int may = -1;
    if (data != NULL && got == size)
        may = memmem(data, got, "rdma.", 5) != NULL || memmem(data, got, "ipoib.", 6) != NULL;
    free(data);
    return may;
}

/* 1 when the hook keeps a record of an activation of `uuid` under
 * `runtime_dir`, or may (it cannot tell); 0 when it certainly does not. */
static int mayHaveRecord(const char *runtime_dir, const char *uuid)
{
    if (!ibnm_is_record_name(uuid))
        return 0; /* the hook never names a record so */
    size_t len = strlen(runtime_dir) + sizeof "/" IBNM_HOOK_RECORDS_SUBDIR "/" + strlen(uuid) +
                 sizeof IBNM_HOOK_RECORD_SUFFIX;
    char *path = malloc(len);
    if (path == NULL)
        return 1;
    snprintf(path, len, "%s/" IBNM_HOOK_RECORDS_SUBDIR "/%s" IBNM_HOOK_RECORD_SUFFIX, runtime_dir, uuid);
    struct stat st;
    int may = lstat(path, &st) == 0 || errno != ENOENT;
    free(path);
    return may;
}

IbnmHookAction ibnm_hook_action(const char *action)
{
    /* reapply: NetworkManager changed an active connection in place (no
     * pre-down, no pre-up); the hook brings its part to the settings
     * applied now, as at pre-up. */
    if (strcmp(action, "pre-up") == 0 || strcmp(action, "reapply") == 0)
        return IBNM_HOOK_ACTION_UP;
    if (strcmp(action, "pre-down") == 0 || strcmp(action, "down") == 0)
        return IBNM_HOOK_ACTION_DOWN;
    return IBNM_HOOK_ACTION_OTHER;
}

IbnmHookDecision ibnm_hook_filter(const char *action, const char *uuid, const char *filename, unsigned owner,
                                  const char *runtime_dir)
{
    IbnmHookAction kind = ibnm_hook_action(action);
    int down = kind == IBNM_HOOK_ACTION_DOWN;
    if (kind == IBNM_HOOK_ACTION_OTHER || uuid == NULL || *uuid == '\0')
        return IBNM_HOOK_SKIP;
    /* Deactivation undoes what the record says pre-up applied, whatever the
     * profile says now; a pre-up with a record may have an earlier
     * activation to take down first (plugin/hook-record.hpp). */
    if (mayHaveRecord(runtime_dir, uuid))
        return IBNM_HOOK_RUN;
    if (down)
        return IBNM_HOOK_SKIP;
    if (filename == NULL || *filename == '\0')
        return IBNM_HOOK_RUN;
    return keyfileMayHoldIbnmKeys(filename, owner) == 0 ? IBNM_HOOK_SKIP : IBNM_HOOK_RUN;
}
