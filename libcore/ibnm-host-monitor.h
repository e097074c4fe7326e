/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

#include "ibnm-host.h"

G_BEGIN_DECLS

/**
 * IbnmHostChangeFlags:
 * @IBNM_HOST_CHANGE_NONE: nothing
 * @IBNM_HOST_CHANGE_LINKS: a network interface was created, removed,
 *   renamed, set up or down (rtnetlink)
 * @IBNM_HOST_CHANGE_ADDRESSES: an IP address was added or removed (RoCE GID
 *   entries follow them)
 * @IBNM_HOST_CHANGE_RDMA_DEVICES: an RDMA device was registered or removed,
 *   or a network interface attached to or detached from a port
 * @IBNM_HOST_CHANGE_PORTS: the state of an RDMA port changed
 * @IBNM_HOST_CHANGE_GID_TABLES: a GID table may have changed: announced
 *   again half a second after a link, an address or an RDMA device changed,
 *   as the kernel updates RoCE GID entries from a work queue after it has
 *   announced the change they follow
 *
 * What changed on a host, as #IbnmHostMonitor::changed reports it.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/ {
    IBNM_HOST_CHANGE_NONE = 0,
    IBNM_HOST_CHANGE_LINKS = 1 << 0,
    IBNM_HOST_CHANGE_ADDRESSES = 1 << 1,
    IBNM_HOST_CHANGE_RDMA_DEVICES = 1 << 2,
    IBNM_HOST_CHANGE_PORTS = 1 << 3,
    IBNM_HOST_CHANGE_GID_TABLES = 1 << 4,
} IbnmHostChangeFlags;

#define IBNM_TYPE_HOST_CHANGE_FLAGS (ibnm_host_change_flags_get_type())
GType ibnm_host_change_flags_get_type(void);

/**
 * IbnmHostMonitor:
 *
 * Watches a host for the changes an #IbnmInventory would show, as the
 * kernel announces them: its #IbnmHostMonitor::changed signal says what
 * changed, for the caller to read the host again (ibnm_inventory_reload()).
 *
 * Since: 0.1
 */
#define IBNM_TYPE_HOST_MONITOR (ibnm_host_monitor_get_type())
G_DECLARE_FINAL_TYPE(IbnmHostMonitor, ibnm_host_monitor, IBNM, HOST_MONITOR, GObject)

IbnmHostMonitor *ibnm_host_monitor_new(IbnmHost *host, GError **error);
IbnmHostChangeFlags ibnm_host_monitor_get_notified(IbnmHostMonitor *self);
IbnmHostChangeFlags ibnm_host_monitor_get_polled(IbnmHostMonitor *self);
guint ibnm_host_monitor_get_poll_interval(IbnmHostMonitor *self);

G_END_DECLS
