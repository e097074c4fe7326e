// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-host-monitor.h"

#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"

#include <memory>

struct _IbnmHostMonitor {
    GObject parent_instance;
};

struct IbnmHostMonitorPrivate {
    ibnm::GObjectPtr<IbnmHost> host_;
    std::unique_ptr<ibnm::platform::ChangeWatch> watch_;
};

IBNM_DEFINE_FINAL_TYPE(IbnmHostMonitor, ibnm_host_monitor, G_TYPE_OBJECT)

static_assert(unsigned(IBNM_HOST_CHANGE_LINKS) == ibnm::platform::kChangeLinks &&
              unsigned(IBNM_HOST_CHANGE_ADDRESSES) == ibnm::platform::kChangeAddresses &&
              unsigned(IBNM_HOST_CHANGE_RDMA_DEVICES) == ibnm::platform::kChangeRdmaDevices &&
              unsigned(IBNM_HOST_CHANGE_PORTS) == ibnm::platform::kChangePorts &&
              unsigned(IBNM_HOST_CHANGE_GID_TABLES) == ibnm::platform::kChangeGidTables);

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

GType ibnm_host_change_flags_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GFlagsValue values[] = {
            {IBNM_HOST_CHANGE_NONE, "IBNM_HOST_CHANGE_NONE", "none"},
            {IBNM_HOST_CHANGE_LINKS, "IBNM_HOST_CHANGE_LINKS", "links"},
            {IBNM_HOST_CHANGE_ADDRESSES, "IBNM_HOST_CHANGE_ADDRESSES", "addresses"},
            {IBNM_HOST_CHANGE_RDMA_DEVICES, "IBNM_HOST_CHANGE_RDMA_DEVICES", "rdma-devices"},
            {IBNM_HOST_CHANGE_PORTS, "IBNM_HOST_CHANGE_PORTS", "ports"},
            {IBNM_HOST_CHANGE_GID_TABLES, "IBNM_HOST_CHANGE_GID_TABLES", "gid-tables"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_flags_register_static(g_intern_static_string("IbnmHostChangeFlags"), values));
    }
    return type;
}

static void ibnm_host_monitor_class_init_impl(IbnmHostMonitorClass *klass)
{
    /**
     * IbnmHostMonitor::changed:
     * @monitor: the monitor
     * @changes: what changed, #IbnmHostChangeFlags
     *
     * Emitted on the thread-default main context of ibnm_host_monitor_new()
     * after the host changed: once for a burst of the kernel's events, or
     * when a reading of what the kernel does not announce differs from the
     * last one (ibnm_host_monitor_get_polled()).
     *
     * Since: 0.1
     */
    signals[SIGNAL_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, nullptr,
                                           nullptr, nullptr, G_TYPE_NONE, 1, IBNM_TYPE_HOST_CHANGE_FLAGS);
}

/**
 * ibnm_host_monitor_new:
 * @host: the host to watch
 * @error: return location for a #GError
 *
 * Starts watching @host on the thread-default main context: on this machine
 * the kernel's rtnetlink, RDMA netlink and uevent announcements, and a
 * reading once a second of what none announces (the RDMA ports' states); a
 * simulated host is read again five times a second. The watch ends when the
 * monitor is finalized.
 *
 * Returns: (transfer full) (nullable): the monitor, or %NULL when the host
 *   cannot be watched
 *
 * Since: 0.1
 */
IbnmHostMonitor *ibnm_host_monitor_new(IbnmHost *host, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    auto *self = static_cast<IbnmHostMonitor *>(g_object_new(IBNM_TYPE_HOST_MONITOR, nullptr));
    auto *priv = ibnm_host_monitor_priv(self);
    priv->host_ = ibnm::GObjectPtr<IbnmHost>::retain(host);
    gboolean ok = ibnm::guard(error, [&]() -> ibnm::Status {
        // The watch lives no longer than the monitor: `self` outlives it.
        auto watch = ibnm::hostPlatform(host).watchChanges(
            g_main_context_get_thread_default(), [self](unsigned changes) {
                g_signal_emit(self, signals[SIGNAL_CHANGED], 0, changes);
            });
        if (!watch)
            return std::move(watch).error();
        priv->watch_ = std::move(watch).value();
        return {};
    });
    if (!ok) {
        g_object_unref(self);
        return nullptr;
    }
    return self;
}

/**
 * ibnm_host_monitor_get_notified:
 * @self: the monitor
 *
 * Gets what the host announces itself (the kernel's events): those changes
 * are reported as they happen.
 *
 * Returns: the changes that are announced
 *
 * Since: 0.1
 */
IbnmHostChangeFlags ibnm_host_monitor_get_notified(IbnmHostMonitor *self)
{
    g_return_val_if_fail(IBNM_IS_HOST_MONITOR(self), IBNM_HOST_CHANGE_NONE);
    auto &watch = ibnm_host_monitor_priv(self)->watch_;
    return watch ? IbnmHostChangeFlags(watch->notified()) : IBNM_HOST_CHANGE_NONE;
}

/**
 * ibnm_host_monitor_get_polled:
 * @self: the monitor
 *
 * Gets what nothing announces, which the monitor reads again every
 * ibnm_host_monitor_get_poll_interval() milliseconds.
 *
 * Returns: the changes found by reading again
 *
 * Since: 0.1
 */
IbnmHostChangeFlags ibnm_host_monitor_get_polled(IbnmHostMonitor *self)
{
    g_return_val_if_fail(IBNM_IS_HOST_MONITOR(self), IBNM_HOST_CHANGE_NONE);
    auto &watch = ibnm_host_monitor_priv(self)->watch_;
    return watch ? IbnmHostChangeFlags(watch->polled()) : IBNM_HOST_CHANGE_NONE;
}

/**
 * ibnm_host_monitor_get_poll_interval:
 * @self: the monitor
 *
 * Gets how often what nothing announces is read again.
 *
 * Returns: milliseconds between two readings, 0 when nothing is read again
 *
 * Since: 0.1
 */
guint ibnm_host_monitor_get_poll_interval(IbnmHostMonitor *self)
{
    g_return_val_if_fail(IBNM_IS_HOST_MONITOR(self), 0);
    auto &watch = ibnm_host_monitor_priv(self)->watch_;
    return watch && watch->polled() ? watch->pollMs() : 0;
}
