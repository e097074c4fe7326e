/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The inventory part of `ibnm device status` alone (ibnm_inventory_reload()
 * of the host IBNM_SYSFS_ROOT names, then the devices and IPoIB interfaces
 * counted), linked as cli/ibnm is (issue 17): with the libnm-free inventory
 * code, no libnm.
 * bench/run-bench times it next to the read-only commands.
 * usage: IBNM_SYSFS_ROOT=DIR inventory-floor
 * Prints "devices=N ipoib=M". */
#include "config.h"

#include "ibnm-host.h"
#include "ibnm-inventory.h"

#include <stdio.h>

int main(void)
{
    const char *root = g_getenv("IBNM_SYSFS_ROOT");
    if (root == NULL) {
        fprintf(stderr, "IBNM_SYSFS_ROOT is not set\n");
        return 2;
    }
    GError *error = NULL;
    IbnmHost *host = ibnm_host_new_sysfs_dump(root, &error);
    if (host == NULL) {
        fprintf(stderr, "%s\n", error->message);
        return 1;
    }
    IbnmInventory *inventory = ibnm_inventory_new(host);
    if (!ibnm_inventory_reload(inventory, &error)) {
        fprintf(stderr, "%s\n", error->message);
        return 1;
    }
    GPtrArray *devices = ibnm_inventory_get_devices(inventory);
    GPtrArray *ipoib = ibnm_inventory_get_ipoib_interfaces(inventory);
    printf("devices=%u ipoib=%u\n", devices->len, ipoib->len);
    g_ptr_array_unref(devices);
    g_ptr_array_unref(ipoib);
    g_object_unref(inventory);
    g_object_unref(host);
    return 0;
}
