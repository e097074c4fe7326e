// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmTransaction: an ibnm_apply_up() whose undo is kept (the engine's
// activation::UndoLog), to undo exactly what it did later, through the same
// activation lock, deadline and report as every apply.
#include "config.h"

#include "libcore/ibnm-transaction.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/raii.hpp"

struct _IbnmTransaction {
    GObject parent_instance;
};

struct IbnmTransactionPrivate {
    ibnm::GObjectPtr<IbnmHost> host;
    ibnm::activation::UndoLog log;
};

IBNM_DEFINE_FINAL_TYPE(IbnmTransaction, ibnm_transaction, G_TYPE_OBJECT)

static void ibnm_transaction_class_init_impl(IbnmTransactionClass *)
{
}

/**
 * ibnm_apply_up_transaction:
 * @host: the host to change
 * @profiles: (element-type NM.Connection): the profiles to bring up
 * @flags: as for ibnm_apply_up()
 * @report: (out) (optional) (transfer full): every step, set whether or not
 *   the apply succeeded (unless the profiles could not be resolved)
 * @error: return location for a #GError
 *
 * Brings the profiles up as ibnm_apply_up() does (one transaction, undone
 * on failure) and keeps what it changed, with the undo of each change, for
 * ibnm_transaction_undo(). Nothing is kept for a dry run or when nothing
 * had to change.
 *
 * Returns: (transfer full) (nullable): the transaction; %NULL with @error set
 *   when the apply failed (then nothing was left changed)
 *
 * Since: 0.1
 */
IbnmTransaction *ibnm_apply_up_transaction(IbnmHost *host, GPtrArray *profiles, IbnmApplyFlags flags,
                                           IbnmApplyReport **report, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(profiles != nullptr, nullptr);
    g_return_val_if_fail(report == nullptr || *report == nullptr, nullptr);
    auto self = ibnm::GObjectPtr<IbnmTransaction>::adopt(
        IBNM_TRANSACTION(g_object_new(IBNM_TYPE_TRANSACTION, nullptr)));
    IbnmTransactionPrivate *priv = ibnm_transaction_priv(self.get());
    priv->host = ibnm::GObjectPtr<IbnmHost>::retain(host);
    if (!ibnm::apply::runProfiles(host, profiles, nullptr, flags, true, report, error, {}, &priv->log))
        return nullptr;
    return self.release();
}

/**
 * ibnm_transaction_get_pending:
 * @self: an #IbnmTransaction
 *
 * Whether the transaction holds changes that ibnm_transaction_undo() has not
 * undone yet.
 *
 * Returns: %TRUE when there is something to undo
 *
 * Since: 0.1
 */
gboolean ibnm_transaction_get_pending(IbnmTransaction *self)
{
    g_return_val_if_fail(IBNM_IS_TRANSACTION(self), FALSE);
    return !ibnm_transaction_priv(self)->log.empty();
}

/**
 * ibnm_transaction_get_steps:
 * @self: an #IbnmTransaction
 *
 * The changes the transaction holds, as performed, in order.
 *
 * Returns: (transfer container) (element-type IbnmStep): the steps, none
 *   once undone
 *
 * Since: 0.1
 */
GPtrArray *ibnm_transaction_get_steps(IbnmTransaction *self)
{
    g_return_val_if_fail(IBNM_IS_TRANSACTION(self), nullptr);
    ibnm::activation::Report r;
    r.steps = ibnm_transaction_priv(self)->log.records();
    auto report = ibnm::GObjectPtr<IbnmApplyReport>::adopt(ibnm::apply::wrap(std::move(r)));
    return g_ptr_array_ref(ibnm_apply_report_get_steps(report.get()));
}

/**
 * ibnm_transaction_undo:
 * @self: an #IbnmTransaction
 * @report: (out) (optional) (transfer full): every step undone, in the
 *   order undone
 * @error: return location for a #GError
 *
 * Undoes the changes the transaction holds, in reverse order, under the
 * activation lock and the host's deadline (ibnm_host_set_deadline()), as
 * the engine's rollback does after a failure: each change is put back as it
 * was before (a link created is deleted, a value set gets its old value).
 * The transaction holds nothing afterwards, whatever the outcome.
 *
 * Whether it worked is judged as a rollback is, by reading the host back:
 * the objects the changes touched (links, bonds, RDMA links and ports) must
 * read back as they were before the transaction; the rest of the host may
 * have changed meanwhile and is not judged.
 *
 * Returns: %TRUE when every change was undone (or there was none) and what
 *   they touched reads back as it was; %FALSE with @error set when one
 *   could not be undone, or an object it touched differs (a side effect an
 *   undo missed, or a change made meanwhile by someone else: @report's
 *   ibnm_apply_report_get_not_restored() names each)
 *
 * Since: 0.1
 */
gboolean ibnm_transaction_undo(IbnmTransaction *self, IbnmApplyReport **report, GError **error)
{
    g_return_val_if_fail(IBNM_IS_TRANSACTION(self), FALSE);
    g_return_val_if_fail(report == nullptr || *report == nullptr, FALSE);
    IbnmTransactionPrivate *priv = ibnm_transaction_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        IbnmHost *host = priv->host.get();
        auto deadline = ibnm::hostDeadlinePlatform(host);
        auto &platform = deadline ? *deadline : ibnm::hostPlatform(host);
        return ibnm::apply::underActivationLock(host, platform, false, report,
                                                [&]() -> ibnm::Result<ibnm::activation::Report> {
                                                    return priv->log.undo(platform);
                                                });
    });
}
