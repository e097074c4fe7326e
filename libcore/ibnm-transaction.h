/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An apply whose undo is kept: ibnm_apply_up_transaction() brings profiles up
 * as ibnm_apply_up() does and keeps what it did, so that
 * ibnm_transaction_undo() undoes exactly that later (what a process that
 * lives from the activation to the deactivation needs: nm-ibnm-service's
 * Connect and Disconnect). */
#pragma once

#include <glib-object.h>

#include "ibnm-apply.h"
#include "ibnm-host.h"

G_BEGIN_DECLS

/**
 * IbnmTransaction:
 *
 * The changes one successful ibnm_apply_up_transaction() made on a host,
 * each with its undo, in order, until ibnm_transaction_undo() undoes them.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_TRANSACTION (ibnm_transaction_get_type())
G_DECLARE_FINAL_TYPE(IbnmTransaction, ibnm_transaction, IBNM, TRANSACTION, GObject)

IbnmApplyReport *ibnm_apply_up_transaction(IbnmHost *host,
                                           GPtrArray *profiles,
                                           IbnmApplyFlags flags,
                                           IbnmTransaction **transaction);
gboolean ibnm_transaction_get_pending(IbnmTransaction *self);
GPtrArray *ibnm_transaction_get_steps(IbnmTransaction *self);
IbnmApplyReport *ibnm_transaction_undo(IbnmTransaction *self);

G_END_DECLS
