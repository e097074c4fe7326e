/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define IBNM_TYPE_INVENTORY (ibnm_inventory_get_type())
G_DECLARE_FINAL_TYPE(IbnmInventory, ibnm_inventory, IBNM, INVENTORY, GObject)

/** Property name of #IbnmInventory:sysfs-root. */
#define IBNM_INVENTORY_SYSFS_ROOT "sysfs-root"

IbnmInventory *ibnm_inventory_new(const char *sysfs_root);
const char *ibnm_inventory_get_sysfs_root(IbnmInventory *self);
gboolean ibnm_inventory_reload(IbnmInventory *self, GError **error);
const char *const *ibnm_inventory_get_device_names(IbnmInventory *self);

G_END_DECLS
