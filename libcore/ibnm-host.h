/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * IbnmHostKind:
 * @IBNM_HOST_KIND_SYSTEM: this machine (/sys, netlink, verbs)
 * @IBNM_HOST_KIND_SYSFS_DUMP: a sysfs tree taken elsewhere, read only
 * @IBNM_HOST_KIND_SIMULATED: a simulated host from a host description file
 *
 * What an #IbnmHost is.
 *
 * Since: 0.1
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
 *
 * Since: 0.1
 */
#define IBNM_TYPE_HOST (ibnm_host_get_type())
G_DECLARE_FINAL_TYPE(IbnmHost, ibnm_host, IBNM, HOST, GObject)

/**
 * IBNM_HOST_KIND:
 *
 * The name of the #IbnmHost:kind property.
 *
 * Since: 0.1
 */
#define IBNM_HOST_KIND "kind"
/**
 * IBNM_HOST_LOCATION:
 *
 * The name of the #IbnmHost:location property.
 *
 * Since: 0.1
 */
#define IBNM_HOST_LOCATION "location"

/**
 * IBNM_HOST_SYSFS_ROOT:
 *
 * The name of the #IbnmHost:sysfs-root property.
 *
 * Since: 0.1
 */
#define IBNM_HOST_SYSFS_ROOT "sysfs-root"

IbnmHost *ibnm_host_new_system(void);
IbnmHost *ibnm_host_new_sysfs_dump(const char *root, GError **error);

IbnmHostKind ibnm_host_get_kind(IbnmHost *self);
const char *ibnm_host_get_location(IbnmHost *self);
const char *ibnm_host_get_runtime_dir(IbnmHost *self);
char *ibnm_host_get_state_digest(IbnmHost *self, GError **error);
void ibnm_host_set_deadline(IbnmHost *self, gint64 deadline);
gint64 ibnm_host_get_deadline(IbnmHost *self);
void ibnm_host_set_lock_wait(IbnmHost *self, gint seconds);
gint ibnm_host_get_lock_wait(IbnmHost *self);

G_END_DECLS
