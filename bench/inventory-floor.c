/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The measured design for issue 17's read-only start-up: the inventory part
 * of `ibnm device status` (ibnm_inventory_reload() of the host
 * IBNM_SYSFS_ROOT names, then the devices and IPoIB interfaces counted),
 * built from the same libibnm code but linked without libnm
 * (-Wl,--as-needed drops it: nothing of the inventory calls libnm).
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
    IbnmHost *host = ibnm_host_new_sysfs_dump(root);
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
