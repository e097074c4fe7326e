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
 * @transaction: (out) (optional) (nullable) (transfer full): set whether or
 *   not the apply succeeded: the transaction when it did, %NULL when it
 *   failed (then nothing is left changed to undo)
 *
 * Brings the profiles up as ibnm_apply_up() does (one transaction, undone
 * on failure) and keeps what it changed, with the undo of each change, for
 * ibnm_transaction_undo(). The transaction holds nothing after a dry run or
 * when nothing had to change (ibnm_transaction_get_pending()).
 *
 * As ibnm_apply_up(), returns the report whether or not the apply
 * succeeded, so that a binding (which drops return values and out
 * arguments when a #GError is raised) can read it:
 * ibnm_apply_report_get_success() says whether it did, and
 * ibnm_apply_report_propagate_error() gives the failure as a #GError (a
 * profile that cannot be resolved: the report did not start).
 *
 * Returns: (transfer full): the report of the apply; %NULL only for a wrong
 *   argument (then @transaction is left alone)
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_apply_up_transaction(IbnmHost *host, GPtrArray *profiles, IbnmApplyFlags flags,
                                           IbnmTransaction **transaction)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(profiles != nullptr, nullptr);
    g_return_val_if_fail(transaction == nullptr || *transaction == nullptr, nullptr);
    auto self = ibnm::GObjectPtr<IbnmTransaction>::adopt(
        IBNM_TRANSACTION(g_object_new(IBNM_TYPE_TRANSACTION, nullptr)));
    IbnmTransactionPrivate *priv = ibnm_transaction_priv(self.get());
    priv->host = ibnm::GObjectPtr<IbnmHost>::retain(host);
    IbnmApplyReport *report = ibnm::apply::reportOf([&](IbnmApplyReport **out, GError **error) {
        return ibnm::apply::runProfiles(host, profiles, nullptr, flags, true, out, error, {}, &priv->log);
    });
    if (transaction)
        *transaction = ibnm_apply_report_get_success(report) ? self.release() : nullptr;
    return report;
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
 * The report lists every step undone, in the order undone, and is returned
 * whether or not the undo succeeded: ibnm_apply_report_get_success() is
 * %TRUE when every change was undone (or there was none) and what they
 * touched reads back as it was; otherwise one could not be undone, or an
 * object it touched differs (a side effect an undo missed, or a change made
 * meanwhile by someone else: ibnm_apply_report_get_not_restored() names
 * each), and ibnm_apply_report_propagate_error() gives the failure as a
 * #GError.
 *
 * Returns: (transfer full): the report of the undo; %NULL only for a wrong
 *   argument
 *
 * Since: 0.1
 */
IbnmApplyReport *ibnm_transaction_undo(IbnmTransaction *self)
{
    g_return_val_if_fail(IBNM_IS_TRANSACTION(self), nullptr);
    IbnmTransactionPrivate *priv = ibnm_transaction_priv(self);
    return ibnm::apply::reportOf([&](IbnmApplyReport **report, GError **error) {
        return ibnm::guard(error, [&]() -> ibnm::Status {
            IbnmHost *host = priv->host.get();
            if (host == nullptr) // g_object_new(): it holds nothing
                return {};
            auto deadline = ibnm::hostDeadlinePlatform(host);
            auto &platform = deadline ? *deadline : ibnm::hostPlatform(host);
            return ibnm::apply::underActivationLock(host, platform, false, report,
                                                    [&]() -> ibnm::Result<ibnm::activation::Report> {
                                                        return priv->log.undo(platform);
                                                    });
        });
    });
}
