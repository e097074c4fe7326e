/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exported under IBNM_PRIVATE for ibnm's CLI only, never installed: `ibnm
 * apply` with its verified no-op record (settings/apply-record.hpp). */
#pragma once

#include "settings/ibnm-state.h"

G_BEGIN_DECLS

/* The verified no-op shortcut: when the record of @host answers for this
 * document, these flags, the keyfile store @store_dir (a standalone store,
 * not yet loaded) and the host as read now, sets @changes (IbnmStateChange,
 * each "none") and @notes (the reports' notes, NULL-terminated) as the full
 * apply would, and returns TRUE. Otherwise returns FALSE and changes
 * nothing. @reason (optional) says why it declined, or that it answered.
 * @store_state (optional) is set to the store's identity as found before
 * anything else, for ibnm_state_apply_private() (NULL when unreadable). */
gboolean ibnm_state_apply_recorded_private(IbnmHost *host,
                                           const char *store_dir,
                                           const char *text,
                                           gssize length,
                                           IbnmApplyFlags flags,
                                           GPtrArray **changes,
                                           char ***notes,
                                           char **reason,
                                           char **store_state);

/* ibnm_state_apply(), which, unless a dry run, writes the record of @host
 * when it ends a verified no-op on the keyfile store @store_dir as
 * @store_state found it before it was loaded, and removes it otherwise (a
 * NULL @store_dir: NetworkManager's store, the record is left alone; a NULL
 * @store_state: none is written). */
gboolean ibnm_state_apply_private(IbnmSettings *settings,
                                  IbnmHost *host,
                                  const char *text,
                                  gssize length,
                                  const char *filename,
                                  IbnmApplyFlags flags,
                                  const char *store_dir,
                                  const char *store_state,
                                  GPtrArray **changes,
                                  IbnmApplyReport **down_report,
                                  IbnmApplyReport **up_report,
                                  GError **error);

G_END_DECLS
