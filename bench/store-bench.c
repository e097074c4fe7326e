/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profile store: loads every keyfile of DIR with ibnm_settings_load() and
 * validates them all together with ibnm_check_profiles() against the host
 * of the sysfs tree SYSFS_ROOT (the inventory benchmark's tree).
 * usage: store-bench DIR SYSFS_ROOT
 * Prints "profiles=N findings=F errors=E warnings=W load_s=... check_s=...
 * total_s=... maxrss_kb=..." on one line. */
#include "config.h"

#include "ibnm.h"
#include "ibnm-settings.h"

#include <stdio.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR SYSFS_ROOT\n", argv[0]);
        return 2;
    }
    GError *error = NULL;
    gint64 t0 = g_get_monotonic_time();
    IbnmSettings *settings = ibnm_settings_new_keyfile(argv[1]);
    if (!ibnm_settings_load(settings, &error)) {
        fprintf(stderr, "load: %s\n", error->message);
        return 1;
    }
    GPtrArray *connections = ibnm_settings_get_connections(settings);
    gint64 t1 = g_get_monotonic_time();

    IbnmHost *host = ibnm_host_new_sysfs_dump(argv[2], &error);
    if (host == NULL) {
        fprintf(stderr, "host: %s\n", error->message);
        return 1;
    }
    IbnmInventory *inventory = ibnm_inventory_new(host);
    if (!ibnm_inventory_reload(inventory, &error)) {
        fprintf(stderr, "inventory: %s\n", error->message);
        return 1;
    }
    gint64 t2 = g_get_monotonic_time();
    GPtrArray *findings = ibnm_check_profiles(connections, inventory, IBNM_CHECK_FLAGS_NONE);
    gint64 t3 = g_get_monotonic_time();

    guint errors = 0, warnings = 0;
    for (guint i = 0; i < findings->len; i++) {
        IbnmFinding *f = g_ptr_array_index(findings, i);
        if (ibnm_finding_get_severity(f) == IBNM_SEVERITY_ERROR)
            errors++;
        else if (ibnm_finding_get_severity(f) == IBNM_SEVERITY_WARNING)
            warnings++;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("profiles=%u findings=%u errors=%u warnings=%u load_s=%.6f inventory_s=%.6f check_s=%.6f "
           "total_s=%.6f maxrss_kb=%ld\n",
           connections->len, findings->len, errors, warnings, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6,
           ((t1 - t0) + (t3 - t2)) / 1e6, ru.ru_maxrss);
    g_ptr_array_unref(findings);
    g_ptr_array_unref(connections);
    g_object_unref(inventory);
    g_object_unref(host);
    g_object_unref(settings);
    return 0;
}
