/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exported under IBNM_PRIVATE for ibnm's CLI only, never installed: the
 * progress of long work (libcore/support/progress.hpp). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @phase is translated, for people; @done of @total are finished. */
typedef void (*IbnmProgressFunc)(const char *phase, guint done, guint total, gpointer user_data);

/* Sets the process's progress listener (NULL: none). */
void ibnm_set_progress_func_private(IbnmProgressFunc func, gpointer user_data);

G_END_DECLS
