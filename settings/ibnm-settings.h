/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* IbnmSettings: where profiles live. One API over two backends: the keyfile
 * store (NetworkManager's keyfiles in a directory, written by libibnm when
 * NetworkManager does not run) and NetworkManager itself over D-Bus (libnm's
 * NMClient, so NetworkManager stays the owner of its profiles). */
#pragma once

#include <gio/gio.h>
#include <NetworkManager.h>

G_BEGIN_DECLS


/**
 * IbnmSettingsBackend:
 * @IBNM_SETTINGS_BACKEND_KEYFILE: NetworkManager's keyfiles in a directory,
 *   read and written by libibnm (NetworkManager does not run)
 * @IBNM_SETTINGS_BACKEND_NETWORKMANAGER: NetworkManager's profiles over
 *   D-Bus (libnm's #NMClient)
 * @IBNM_SETTINGS_BACKEND_AUTO: NetworkManager if it runs, else the keyfiles
 *
 * Where an #IbnmSettings keeps its profiles.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_SETTINGS_BACKEND_KEYFILE,
    IBNM_SETTINGS_BACKEND_NETWORKMANAGER,
    IBNM_SETTINGS_BACKEND_AUTO,
} IbnmSettingsBackend;

#define IBNM_TYPE_SETTINGS_BACKEND (ibnm_settings_backend_get_type())
GType ibnm_settings_backend_get_type(void);

/**
 * IbnmSettingsMatch:
 * @IBNM_SETTINGS_MATCH_ANY: as nmcli without a selector word: the UUID,
 *   else the id, else the D-Bus path, else the file name
 * @IBNM_SETTINGS_MATCH_ID: connection.id (nmcli's `id`)
 * @IBNM_SETTINGS_MATCH_UUID: connection.uuid (nmcli's `uuid`)
 * @IBNM_SETTINGS_MATCH_FILENAME: the file the profile is stored in, its
 *   full path or base name (nmcli's `filename`)
 * @IBNM_SETTINGS_MATCH_PATH: the profile's D-Bus object path in
 *   NetworkManager, or the number that ends it (nmcli's `path`)
 * @IBNM_SETTINGS_MATCH_ACTIVE_PATH: the D-Bus object path of the profile's
 *   active connection in NetworkManager, or the number that ends it
 *   (nmcli's `apath`)
 *
 * What ibnm_settings_find_by() compares a value with. The D-Bus paths are
 * NetworkManager's: a keyfile store has none, and nothing matches them.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_SETTINGS_MATCH_ANY,
    IBNM_SETTINGS_MATCH_ID,
    IBNM_SETTINGS_MATCH_UUID,
    IBNM_SETTINGS_MATCH_FILENAME,
    IBNM_SETTINGS_MATCH_PATH,
    IBNM_SETTINGS_MATCH_ACTIVE_PATH,
} IbnmSettingsMatch;

#define IBNM_TYPE_SETTINGS_MATCH (ibnm_settings_match_get_type())
GType ibnm_settings_match_get_type(void);

/**
 * IbnmSettings:
 *
 * The profile store. Created with g_object_new() (or from a binding) it is
 * the keyfile store of #IbnmSettings:keyfile-dir; with
 * #IbnmSettings:backend set to NetworkManager or auto it must be
 * initialized with g_initable_init() (the constructors here do it).
 *
 * Since: 0.1
 */
#define IBNM_TYPE_SETTINGS (ibnm_settings_get_type())
G_DECLARE_FINAL_TYPE(IbnmSettings, ibnm_settings, IBNM, SETTINGS, GObject)

/**
 * IBNM_SETTINGS_DEFAULT_KEYFILE_DIR:
 *
 * Where NetworkManager keeps its keyfiles.
 *
 * Since: 0.1
 */
#define IBNM_SETTINGS_DEFAULT_KEYFILE_DIR "/etc/NetworkManager/system-connections"

/**
 * IBNM_SETTINGS_BACKEND:
 *
 * The name of the #IbnmSettings:backend property.
 *
 * Since: 0.1
 */
#define IBNM_SETTINGS_BACKEND "backend"
/**
 * IBNM_SETTINGS_KEYFILE_DIR:
 *
 * The name of the #IbnmSettings:keyfile-dir property.
 *
 * Since: 0.1
 */
#define IBNM_SETTINGS_KEYFILE_DIR "keyfile-dir"
/**
 * IBNM_SETTINGS_READ_ONLY:
 *
 * The #IbnmSettings:read-only property.
 *
 * Since: 0.1
 */
#define IBNM_SETTINGS_READ_ONLY "read-only"
/**
 * IBNM_KEYFILE_LOCK_FILE:
 *
 * The name of the lock file ibnm keeps in a keyfile directory while it
 * changes the store (hidden, never read as a profile; every writer records
 * itself in it).
 *
 * Since: 0.1
 */
#define IBNM_KEYFILE_LOCK_FILE ".ibnm.lock"
/**
 * IBNM_KEYFILE_MAX_SIZE:
 *
 * The size in bytes of the largest keyfile ibnm reads (1 MiB); a larger one is
 * refused, naming it.
 *
 * Since: 0.1
 */
#define IBNM_KEYFILE_MAX_SIZE (1024 * 1024)

IbnmSettings *ibnm_settings_new_keyfile(const char *dir);
IbnmSettings *ibnm_settings_new_networkmanager(GError **error);
IbnmSettings *ibnm_settings_new_auto(const char *keyfile_dir, GError **error);

const char *ibnm_settings_get_backend_name(IbnmSettings *self);
const char *ibnm_settings_get_keyfile_dir(IbnmSettings *self);
void ibnm_settings_set_required_owner(IbnmSettings *self, guint uid);

gboolean ibnm_settings_load(IbnmSettings *self, GError **error);
gboolean ibnm_settings_reload(IbnmSettings *self, GError **error);
gboolean ibnm_settings_watch(IbnmSettings *self, GError **error);
gboolean ibnm_settings_lock_for_update(IbnmSettings *self, GError **error);
void ibnm_settings_set_lock_wait(IbnmSettings *self, gint seconds);
GPtrArray *ibnm_settings_get_connections(IbnmSettings *self);
const char *const *ibnm_settings_get_load_warnings(IbnmSettings *self);
const char *const *ibnm_settings_get_unreadable_files(IbnmSettings *self);
NMConnection *ibnm_settings_find(IbnmSettings *self, const char *id_uuid_or_filename);
NMConnection *ibnm_settings_find_by(IbnmSettings *self, IbnmSettingsMatch match, const char *value);
GPtrArray *ibnm_settings_get_related(IbnmSettings *self, NMConnection *connection, const char *const *names);
const char *ibnm_settings_get_filename(IbnmSettings *self, const char *uuid);
const char *ibnm_settings_get_active_device(IbnmSettings *self, const char *uuid);
NMActiveConnectionState ibnm_settings_get_active_state(IbnmSettings *self, const char *uuid);
const char *ibnm_settings_get_active_path(IbnmSettings *self, const char *uuid);
int ibnm_settings_get_active_rank(IbnmSettings *self, const char *uuid);

gboolean ibnm_settings_activate(IbnmSettings *self, const char *uuid, const char *ifname, guint timeout_s,
                                char **out_active_path, char **out_device, char **out_note, GError **error);
char **ibnm_settings_deactivate(IbnmSettings *self, const char *uuid, guint timeout_s, GError **error);

gboolean ibnm_settings_add(IbnmSettings *self, NMConnection *connection, char **out_path, GError **error);
void ibnm_settings_begin_batch(IbnmSettings *self);
gboolean ibnm_settings_commit_batch(IbnmSettings *self, GError **error);
void ibnm_settings_abort_batch(IbnmSettings *self);
gboolean ibnm_settings_update(IbnmSettings *self, NMConnection *connection, GError **error);
gboolean ibnm_settings_delete(IbnmSettings *self, const char *uuid, GError **error);

char *ibnm_keyfile_to_data(NMConnection *connection, GError **error);
NMConnection *ibnm_keyfile_from_data(const char *data, const char *filename, GError **error);
NMConnection *ibnm_keyfile_read(const char *path, guint required_owner, GError **error);
char *ibnm_keyfile_create_filename(const char *id);

NMConnection *ibnm_ifcfg_import(const char *path, GError **error);

G_END_DECLS
