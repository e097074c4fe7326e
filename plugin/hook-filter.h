/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whether the dispatcher hook has anything to do for one event, decided
 * before anything but libc is loaded (issue 34): NetworkManager runs the
 * hook at every activation and deactivation of every profile, and most carry
 * no ibnm keys. plugin/90-ibnm.c asks it before it runs the hook itself
 * (ibnm-dispatcher, which loads libnm and libibnm). Only a certain "nothing
 * to do" skips; in doubt the hook runs, and it decides through libnm. */
#ifndef IBNM_HOOK_FILTER_H
#define IBNM_HOOK_FILTER_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    IBNM_HOOK_SKIP = 0, /* certainly nothing to do */
    IBNM_HOOK_RUN = 1,  /* run the hook */
} IbnmHookDecision;

typedef enum {
    IBNM_HOOK_ACTION_OTHER = 0, /* none of the hook's business */
    IBNM_HOOK_ACTION_UP = 1,    /* pre-up, and reapply (decided as pre-up) */
    IBNM_HOOK_ACTION_DOWN = 2,  /* pre-down and down */
} IbnmHookAction;

/* What the dispatcher's `action` ($2) asks of the hook: the one place that
 * names the events it acts on (90-ibnm's filter and ibnm-dispatcher ask). */
IbnmHookAction ibnm_hook_action(const char *action);

/* `action` and `uuid` as NetworkManager's dispatcher gives them ($2 and
 * CONNECTION_UUID), `filename` its CONNECTION_FILENAME (NULL when unset),
 * `owner` the uid a trusted keyfile has (0), `runtime_dir` where the hook
 * keeps its records of activations (IBNM_RUNTIME_DIR, runtime-dir.h).
 * Skips an action other than pre-up, reapply (decided as pre-up), pre-down
 * and down, and an event without a UUID. Runs the hook whenever it has (or may have) a record of
 * an activation of the profile. Without one, skips pre-down and down (the
 * hook applied nothing to undo), and a pre-up or reapply whose keyfile may be trusted
 * (keyfile-trust.h, as the hook would read it) and contains neither "rdma."
 * nor "ipoib." anywhere: then it has no [user] key of ibnm's (their names
 * are written as they are: their characters, [A-Za-z0-9._/-], are never
 * escaped), which is what the hook would find. Runs the hook in every other
 * case (no keyfile, or one that cannot be read or trusted: the hook then
 * asks NetworkManager for the profile). */
IbnmHookDecision ibnm_hook_filter(const char *action, const char *uuid, const char *filename, unsigned owner,
                                  const char *runtime_dir);

#ifdef __cplusplus
}
#endif

#endif
