/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * IbnmHostKind:
 * @IBNM_HOST_KIND_SYSTEM: this machine (/sys, netlink, verbs)
 * @IBNM_HOST_KIND_SYSFS_DUMP: a sysfs tree taken elsewhere, read only
 * @IBNM_HOST_KIND_SIMULATED: a simulated host from a host description file
 */
typedef enum {
    IBNM_HOST_KIND_SYSTEM,
    IBNM_HOST_KIND_SYSFS_DUMP,
    IBNM_HOST_KIND_SIMULATED,
} IbnmHostKind;

#define IBNM_TYPE_HOST_KIND (ibnm_host_kind_get_type())
GType ibnm_host_kind_get_type(void);

/**
 * IbnmHost:
 *
 * The machine ibnm reads and changes: this one, a sysfs dump, or a
 * simulated host (see examples/hosts/README.md).
 */
#define IBNM_TYPE_HOST (ibnm_host_get_type())
G_DECLARE_FINAL_TYPE(IbnmHost, ibnm_host, IBNM, HOST, GObject)

/** Property name of #IbnmHost:kind. */
#define IBNM_HOST_KIND "kind"
/** Property name of #IbnmHost:location. */
#define IBNM_HOST_LOCATION "location"

IbnmHost *ibnm_host_new_system(void);
IbnmHost *ibnm_host_new_sysfs_dump(const char *root, GError **error);
IbnmHost *ibnm_host_new_simulated(const char *host_file, const char *state_dir, GError **error);
IbnmHost *ibnm_host_new_from_environment(GError **error);

IbnmHostKind ibnm_host_get_kind(IbnmHost *self);
const char *ibnm_host_get_location(IbnmHost *self);
gboolean ibnm_host_reset_simulation(IbnmHost *self, GError **error);
gboolean ibnm_host_add_simulated_faults(IbnmHost *self, const char *rules, GError **error);
void ibnm_host_set_deadline(IbnmHost *self, gint64 deadline);
gint64 ibnm_host_get_deadline(IbnmHost *self);

G_END_DECLS
