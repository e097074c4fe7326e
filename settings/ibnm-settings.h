/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* IbnmSettings: where profiles live. One API over two backends: the keyfile
 * store (NetworkManager's keyfiles in a directory, written by libibnm when
 * NetworkManager does not run) and NetworkManager itself over D-Bus (libnm's
 * NMClient, so NetworkManager stays the owner of its profiles). */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* libnm's NMConnection, declared without its header so this header needs only
 * GLib (as ibnm-profile.h does); include <NetworkManager.h> to use it. */
struct _NMConnection;

#define IBNM_TYPE_SETTINGS (ibnm_settings_get_type())
G_DECLARE_FINAL_TYPE(IbnmSettings, ibnm_settings, IBNM, SETTINGS, GObject)

/**
 * IBNM_SETTINGS_DEFAULT_KEYFILE_DIR:
 *
 * Where NetworkManager keeps its keyfiles.
 */
#define IBNM_SETTINGS_DEFAULT_KEYFILE_DIR "/etc/NetworkManager/system-connections"

/* The largest keyfile ibnm reads (1 MiB); a larger one is refused, naming it. */
#define IBNM_KEYFILE_MAX_SIZE (1024 * 1024)

IbnmSettings *ibnm_settings_new_keyfile(const char *dir);
IbnmSettings *ibnm_settings_new_networkmanager(GError **error);
IbnmSettings *ibnm_settings_new_auto(const char *keyfile_dir, GError **error);

const char *ibnm_settings_get_backend_name(IbnmSettings *self);
const char *ibnm_settings_get_keyfile_dir(IbnmSettings *self);
void ibnm_settings_set_required_owner(IbnmSettings *self, guint uid);

gboolean ibnm_settings_load(IbnmSettings *self, GError **error);
gboolean ibnm_settings_reload(IbnmSettings *self, GError **error);
gboolean ibnm_settings_lock_for_update(IbnmSettings *self, GError **error);
GPtrArray *ibnm_settings_get_connections(IbnmSettings *self);
const char *const *ibnm_settings_get_load_warnings(IbnmSettings *self);
const char *const *ibnm_settings_get_unreadable_files(IbnmSettings *self);
struct _NMConnection *ibnm_settings_find(IbnmSettings *self, const char *id_uuid_or_filename);
const char *ibnm_settings_get_filename(IbnmSettings *self, const char *uuid);

gboolean ibnm_settings_add(IbnmSettings *self, struct _NMConnection *connection, char **out_path, GError **error);
gboolean ibnm_settings_update(IbnmSettings *self, struct _NMConnection *connection, GError **error);
gboolean ibnm_settings_delete(IbnmSettings *self, const char *uuid, GError **error);

char *ibnm_keyfile_to_data(struct _NMConnection *connection, GError **error);
struct _NMConnection *ibnm_keyfile_from_data(const char *data, const char *filename, GError **error);
char *ibnm_keyfile_create_filename(const char *id);

struct _NMConnection *ibnm_ifcfg_import(const char *path, GError **error);

G_END_DECLS
