/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

#include "ibnm-host.h"
#include "ibnm-inventory-types.h"

G_BEGIN_DECLS

/**
 * IbnmInventory:
 *
 * What a host has: RDMA devices with their ports and GIDs, IPoIB
 * interfaces, the netdev <-> RDMA port map, soft RDMA links and the RoCE
 * defaults, as read at the last ibnm_inventory_reload().
 *
 * Since: 0.1
 */
#define IBNM_TYPE_INVENTORY (ibnm_inventory_get_type())
G_DECLARE_FINAL_TYPE(IbnmInventory, ibnm_inventory, IBNM, INVENTORY, GObject)

/**
 * IBNM_INVENTORY_HOST:
 *
 * The name of the #IbnmInventory:host property.
 *
 * Since: 0.1
 */
#define IBNM_INVENTORY_HOST "host"

IbnmInventory *ibnm_inventory_new(IbnmHost *host);
IbnmHost *ibnm_inventory_get_host(IbnmInventory *self);
gboolean ibnm_inventory_reload(IbnmInventory *self, GError **error);
gboolean ibnm_inventory_reload_gid_tables(IbnmInventory *self, GError **error);

const char *const *ibnm_inventory_get_device_names(IbnmInventory *self);
GPtrArray *ibnm_inventory_get_devices(IbnmInventory *self);
IbnmRdmaDevice *ibnm_inventory_find_device(IbnmInventory *self, const char *name);
GPtrArray *ibnm_inventory_get_ipoib_interfaces(IbnmInventory *self);
IbnmIpoibInterface *ibnm_inventory_find_ipoib_interface(IbnmInventory *self, const char *name);
GPtrArray *ibnm_inventory_get_soft_links(IbnmInventory *self);
IbnmRdmaPort *ibnm_inventory_find_port_for_netdev(IbnmInventory *self, const char *netdev);
const char *ibnm_inventory_get_kernel_release(IbnmInventory *self);
gboolean ibnm_inventory_has_rdma_netlink(IbnmInventory *self);
char *ibnm_inventory_get_egress_qos_map(IbnmInventory *self, const char *netdev);
gint ibnm_inventory_get_pfc_enabled(IbnmInventory *self, const char *netdev);

G_END_DECLS
