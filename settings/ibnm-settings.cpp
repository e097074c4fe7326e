// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmSettings (ibnm-settings.h): the store of profiles, over the keyfile
// or the NetworkManager backend. Profiles as text without a store are
// ibnm-file-formats.cpp.
#include "config.h"

#include "settings/ibnm-settings.h"

#include <NetworkManager.h>
#include <gio/gio.h>

#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "settings/keyfile-backend.hpp"
#include "settings/settings-private.hpp"
#include "settings/nm-backend.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

struct _IbnmSettings {
    GObject parent_instance;
};

struct IbnmSettingsPrivate {
    std::unique_ptr<ibnm::settings::Backend> backend_;
    // Set when backend_ is the keyfile store (borrowed from backend_).
    ibnm::settings::KeyfileBackend *keyfile_ = nullptr;
    // The construct-only properties.
    IbnmSettingsBackend kind_ = IBNM_SETTINGS_BACKEND_KEYFILE;
    std::string keyfileDir_ = IBNM_SETTINGS_DEFAULT_KEYFILE_DIR;
    bool readOnly_ = false;
    // ibnm_settings_set_lock_wait(), kept for a keyfile backend made later.
    int lockWait_ = 90;
    // NULL-terminated view of the backend's warnings.
    std::vector<const char *> warningsView_{nullptr};
    std::vector<const char *> unreadableView_{nullptr};
    // UUID -> position in backend_->profiles(), built at the first lookup
    // after a change, so that a lookup per profile (`connection show`'s
    // FILENAME column) stays linear in all. Cleared by every change.
    std::unordered_map<std::string, size_t> byUuid_;
    // ibnm_settings_watch(): destroyed before backend_, which it watches.
    std::unique_ptr<ibnm::settings::StoreWatch> watch_;
};

enum { PROP_0, PROP_BACKEND, PROP_KEYFILE_DIR, PROP_READ_ONLY, N_PROPS };
static GParamSpec *props[N_PROPS];
enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void ibnm_settings_initable_iface_init(GInitableIface *iface);

IBNM_DEFINE_TYPE_FULL(IbnmSettings, ibnm_settings, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                      G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, ibnm_settings_initable_iface_init))

GType ibnm_settings_backend_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {IBNM_SETTINGS_BACKEND_KEYFILE, "IBNM_SETTINGS_BACKEND_KEYFILE", "keyfile"},
            {IBNM_SETTINGS_BACKEND_NETWORKMANAGER, "IBNM_SETTINGS_BACKEND_NETWORKMANAGER", "networkmanager"},
            {IBNM_SETTINGS_BACKEND_AUTO, "IBNM_SETTINGS_BACKEND_AUTO", "auto"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static(g_intern_static_string("IbnmSettingsBackend"), values));
    }
    return type;
}

GType ibnm_settings_match_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {IBNM_SETTINGS_MATCH_ANY, "IBNM_SETTINGS_MATCH_ANY", "any"},
            {IBNM_SETTINGS_MATCH_ID, "IBNM_SETTINGS_MATCH_ID", "id"},
            {IBNM_SETTINGS_MATCH_UUID, "IBNM_SETTINGS_MATCH_UUID", "uuid"},
            {IBNM_SETTINGS_MATCH_FILENAME, "IBNM_SETTINGS_MATCH_FILENAME", "filename"},
            {IBNM_SETTINGS_MATCH_PATH, "IBNM_SETTINGS_MATCH_PATH", "path"},
            {IBNM_SETTINGS_MATCH_ACTIVE_PATH, "IBNM_SETTINGS_MATCH_ACTIVE_PATH", "apath"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static(g_intern_static_string("IbnmSettingsMatch"), values));
    }
    return type;
}

static void ibnm_settings_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_settings_priv(object);
    switch (prop_id) {
    case PROP_BACKEND:
        g_value_set_enum(value, priv->kind_);
        break;
    case PROP_KEYFILE_DIR:
        g_value_set_string(value, priv->keyfileDir_.c_str());
        break;
    case PROP_READ_ONLY:
        g_value_set_boolean(value, priv->readOnly_);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_settings_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_settings_priv(object);
    switch (prop_id) {
    case PROP_BACKEND:
        priv->kind_ = IbnmSettingsBackend(g_value_get_enum(value));
        break;
    case PROP_KEYFILE_DIR: {
        const char *dir = g_value_get_string(value);
        priv->keyfileDir_ = dir ? dir : IBNM_SETTINGS_DEFAULT_KEYFILE_DIR;
        break;
    }
    case PROP_READ_ONLY:
        priv->readOnly_ = g_value_get_boolean(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

namespace {

void useBackend(IbnmSettingsPrivate *priv, std::unique_ptr<ibnm::settings::Backend> backend)
{
    priv->keyfile_ = dynamic_cast<ibnm::settings::KeyfileBackend *>(backend.get());
    if (priv->keyfile_) {
        priv->keyfile_->setLockWait(priv->lockWait_);
        priv->keyfile_->setReadOnly(priv->readOnly_);
    }
    priv->backend_ = std::move(backend);
}

} // namespace

// The keyfile store cannot fail to open, so it is there once constructed
// (g_object_new from a binding included); NetworkManager's backend is
// opened by g_initable_init().
static void ibnm_settings_constructed(GObject *object)
{
    G_OBJECT_CLASS(ibnm_settings_parent_class)->constructed(object);
    auto *priv = ibnm_settings_priv(object);
    if (priv->kind_ == IBNM_SETTINGS_BACKEND_KEYFILE)
        useBackend(priv, std::make_unique<ibnm::settings::KeyfileBackend>(priv->keyfileDir_));
}

static gboolean ibnm_settings_initable_init(GInitable *initable, GCancellable *, GError **error)
{
    auto *priv = ibnm_settings_priv(initable);
    if (priv->backend_)
        return TRUE;
    return ibnm::guard(error, [&]() -> ibnm::Status {
        if (priv->kind_ == IBNM_SETTINGS_BACKEND_AUTO && !ibnm::settings::networkManagerRunning()) {
            useBackend(priv, std::make_unique<ibnm::settings::KeyfileBackend>(priv->keyfileDir_));
            return {};
        }
        auto backend = ibnm::settings::NetworkManagerBackend::connect();
        if (!backend)
            return std::move(backend).error();
        useBackend(priv, std::move(*backend));
        return {};
    });
}

static void ibnm_settings_initable_iface_init(GInitableIface *iface)
{
    iface->init = ibnm_settings_initable_init;
}

static void ibnm_settings_class_init_impl(IbnmSettingsClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->get_property = ibnm_settings_get_property;
    object_class->set_property = ibnm_settings_set_property;
    object_class->constructed = ibnm_settings_constructed;
    /**
     * IbnmSettings::changed:
     * @settings: the settings
     *
     * Emitted, after ibnm_settings_watch(), on its thread-default main
     * context when the stored profiles changed (a profile added, modified or
     * deleted, by this process or another); ibnm_settings_reload() reads
     * them. A change may be announced more than once.
     *
     * Since: 0.1
     */
    signals[SIGNAL_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, nullptr,
                                           nullptr, nullptr, G_TYPE_NONE, 0);
    /**
     * IbnmSettings:backend:
     *
     * Where the profiles live (construct-only).
     *
     * Since: 0.1
     */
    props[PROP_BACKEND] = g_param_spec_enum(
        IBNM_SETTINGS_BACKEND, nullptr, nullptr, IBNM_TYPE_SETTINGS_BACKEND, IBNM_SETTINGS_BACKEND_KEYFILE,
        GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
    /**
     * IbnmSettings:keyfile-dir:
     *
     * The keyfile directory (construct-only); %NULL means
     * %IBNM_SETTINGS_DEFAULT_KEYFILE_DIR.
     *
     * Since: 0.1
     */
    props[PROP_KEYFILE_DIR] = g_param_spec_string(
        IBNM_SETTINGS_KEYFILE_DIR, nullptr, nullptr, IBNM_SETTINGS_DEFAULT_KEYFILE_DIR,
        GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
    /**
     * IbnmSettings:read-only:
     *
     * The profiles are only read (construct-only): nothing changes them
     * and the store is not written (ibnm_settings_lock_for_update(), _add(),
     * _update(), _delete() and batches are caller mistakes). The keyfile
     * store then keeps less of each profile: its #NMConnection does not
     * emit #NMConnection::changed (libnm connects a handler to each of its
     * settings for that: 10,000 profiles hold 8 MB of them), which
     * `ibnm check` needs not.
     *
     * Since: 0.1
     */
    props[PROP_READ_ONLY] =
        g_param_spec_boolean(IBNM_SETTINGS_READ_ONLY, nullptr, nullptr, FALSE,
                             GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
    g_object_class_install_properties(object_class, N_PROPS, props);
}

namespace {

void refreshWarnings(IbnmSettingsPrivate *priv)
{
    priv->warningsView_.clear();
    for (const auto &w : priv->backend_->warnings())
        priv->warningsView_.push_back(w.c_str());
    priv->warningsView_.push_back(nullptr);
    priv->unreadableView_.clear();
    for (const auto &f : priv->backend_->unreadable())
        priv->unreadableView_.push_back(f.c_str());
    priv->unreadableView_.push_back(nullptr);
}

void profilesChanged(IbnmSettingsPrivate *priv)
{
    priv->byUuid_.clear();
}

// After the backend read the store again (`s`: whether it could): the
// profiles and warnings are the new ones, also after an error.
ibnm::Status storeRead(IbnmSettingsPrivate *priv, ibnm::Status s)
{
    profilesChanged(priv);
    refreshWarnings(priv);
    return s;
}

const ibnm::settings::StoredProfile *findByUuid(IbnmSettingsPrivate *priv, const char *uuid)
{
    if (priv->backend_->partial())
        if (auto found = priv->backend_->findPartial(IBNM_SETTINGS_MATCH_UUID, uuid))
            return *found;
    const auto &profiles = priv->backend_->profiles();
    if (priv->byUuid_.empty() && !profiles.empty()) {
        priv->byUuid_.reserve(profiles.size());
        for (size_t i = 0; i < profiles.size(); i++)
            if (const char *u = nm_connection_get_uuid(profiles[i].connection.get()))
                priv->byUuid_.emplace(u, i); // the first of equal UUIDs, as a scan finds
    }
    auto it = priv->byUuid_.find(uuid);
    return it == priv->byUuid_.end() ? nullptr : &profiles[it->second];
}

bool matchesId(const ibnm::settings::StoredProfile &p, const char *key)
{
    return g_strcmp0(nm_connection_get_id(p.connection.get()), key) == 0;
}

// `path` is the D-Bus object path `key` names: the path itself, or (when
// `number` is allowed, nmcli's `path N` and `apath N`) the number that ends
// it (nmcli's nmc_find_connection(), nm_utils_dbus_path_get_last_component()).
bool matchesDbusPath(const char *path, const char *key, bool number)
{
    if (path == nullptr || *path == '\0')
        return false;
    if (g_strcmp0(path, key) == 0)
        return true;
    const char *last = std::strrchr(path, '/');
    return number && last && g_strcmp0(last + 1, key) == 0;
}

bool matchesFilename(const ibnm::settings::StoredProfile &p, const char *key)
{
    if (p.filename.empty())
        return false;
    if (p.filename == key)
        return true;
    ibnm::GCharPtr base(g_path_get_basename(p.filename.c_str()));
    return g_strcmp0(base.get(), key) == 0;
}

} // namespace

/**
 * ibnm_settings_new_keyfile:
 * @dir: (nullable): the keyfile directory; NULL means
 *   %IBNM_SETTINGS_DEFAULT_KEYFILE_DIR
 *
 * The keyfile store: profiles are NetworkManager keyfiles in @dir, read and
 * written as NetworkManager does. Nothing is read until ibnm_settings_load().
 *
 * Returns: (transfer full): the settings
 *
 * Since: 0.1
 */
IbnmSettings *ibnm_settings_new_keyfile(const char *dir)
{
    return IBNM_SETTINGS(g_object_new(IBNM_TYPE_SETTINGS, IBNM_SETTINGS_KEYFILE_DIR, dir, nullptr));
}

/**
 * ibnm_settings_new_networkmanager:
 * @error: return location for a #GError
 *
 * Profiles owned by NetworkManager, through its D-Bus API (libnm's
 * #NMClient) on a private connection to the system bus.
 *
 * Returns: (transfer full) (nullable): the settings, or NULL with @error
 *   set if NetworkManager does not run on the system bus
 *
 * Since: 0.1
 */
IbnmSettings *ibnm_settings_new_networkmanager(GError **error)
{
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    return IBNM_SETTINGS(g_initable_new(IBNM_TYPE_SETTINGS, nullptr, error, IBNM_SETTINGS_BACKEND,
                                        IBNM_SETTINGS_BACKEND_NETWORKMANAGER, nullptr));
}

/**
 * ibnm_settings_new_auto:
 * @keyfile_dir: (nullable): the keyfile directory used when NetworkManager
 *   does not run; NULL means %IBNM_SETTINGS_DEFAULT_KEYFILE_DIR
 * @error: return location for a #GError
 *
 * NetworkManager's D-Bus API if NetworkManager owns its name on the system
 * bus, else the keyfile store.
 *
 * Returns: (transfer full) (nullable): the settings
 *
 * Since: 0.1
 */
IbnmSettings *ibnm_settings_new_auto(const char *keyfile_dir, GError **error)
{
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    return IBNM_SETTINGS(g_initable_new(IBNM_TYPE_SETTINGS, nullptr, error, IBNM_SETTINGS_BACKEND,
                                        IBNM_SETTINGS_BACKEND_AUTO, IBNM_SETTINGS_KEYFILE_DIR, keyfile_dir, nullptr));
}

/**
 * ibnm_settings_get_backend_name:
 * @self: the settings
 *
 * Gets the name of the store in use, after ibnm_settings_new_auto() chose one.
 *
 * Returns: (transfer none): "keyfile" or "networkmanager"
 *
 * Since: 0.1
 */
const char *ibnm_settings_get_backend_name(IbnmSettings *self)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    return ibnm_settings_priv(self)->backend_->name();
}

/**
 * ibnm_settings_get_keyfile_dir:
 * @self: the settings
 *
 * Gets the #IbnmSettings:keyfile-dir property.
 *
 * Returns: (nullable): the keyfile directory of the keyfile store, NULL
 *   for the NetworkManager backend
 *
 * Since: 0.1
 */
const char *ibnm_settings_get_keyfile_dir(IbnmSettings *self)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    auto *priv = ibnm_settings_priv(self);
    return priv->keyfile_ ? priv->keyfile_->dir().c_str() : nullptr;
}

/**
 * ibnm_settings_set_required_owner:
 * @self: the settings
 * @uid: the owner keyfiles must have
 *
 * The keyfile store loads only files owned by @uid (root, 0, by default, as
 * NetworkManager). Meant for tests and private stores; has no effect on the
 * NetworkManager backend.
 *
 * Since: 0.1
 */
void ibnm_settings_set_required_owner(IbnmSettings *self, guint uid)
{
    g_return_if_fail(IBNM_IS_SETTINGS(self));
    g_return_if_fail(ibnm_settings_priv(self)->backend_ != nullptr); // g_initable_init() not run
    auto *priv = ibnm_settings_priv(self);
    if (priv->keyfile_)
        priv->keyfile_->setRequiredOwner(uid_t(uid));
}

/**
 * ibnm_settings_load:
 * @self: the settings
 * @error: return location for a #GError
 *
 * Reads every profile. A file or profile that cannot be used (insecure
 * owner or permissions, syntax, a bad ibnm [user] value) is skipped and
 * reported by ibnm_settings_get_load_warnings(); only a store that cannot be
 * read at all is an error.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
gboolean ibnm_settings_load(IbnmSettings *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, FALSE); // g_initable_init() not run
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    return ibnm::guard(error, [&]() { return storeRead(priv, priv->backend_->load()); });
}

/**
 * ibnm_settings_reload:
 * @self: the settings
 * @error: return location for a #GError
 *
 * Same as ibnm_settings_load(): reads the store again.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
gboolean ibnm_settings_reload(IbnmSettings *self, GError **error)
{
    return ibnm_settings_load(self, error);
}

/**
 * ibnm_settings_watch:
 * @self: the settings
 * @error: return location for a #GError
 *
 * Starts watching the store on the thread-default main context: the keyfile
 * directory through inotify (#GFileMonitor), NetworkManager through its
 * D-Bus signals. #IbnmSettings::changed is emitted after each change until
 * @self is finalized. Watching twice is watching once.
 *
 * Returns: TRUE on success
 *
 * Since: 0.1
 */
gboolean ibnm_settings_watch(IbnmSettings *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    g_return_val_if_fail(priv->backend_ != nullptr, FALSE); // g_initable_init() not run
    if (priv->watch_)
        return TRUE;
    return ibnm::guard(error, [&]() -> ibnm::Status {
        // The watch lives no longer than `self` (priv->watch_).
        auto watch = priv->backend_->watch([self] { g_signal_emit(self, signals[SIGNAL_CHANGED], 0); });
        if (!watch)
            return std::move(watch).error();
        priv->watch_ = std::move(watch).value();
        return {};
    });
}

/**
 * ibnm_settings_get_unreadable_files:
 * @self: the settings
 *
 * The files of the keyfile store the last load could not open for lack of
 * permission (a non-root user and root's 0600 keyfiles): a profile not
 * found may be in one of them, which is a permission problem, not an
 * unknown profile.
 *
 * Returns: (transfer none) (array zero-terminated=1): the paths
 */
const char *const *ibnm_settings_get_unreadable_files(IbnmSettings *self)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    return ibnm_settings_priv(self)->unreadableView_.data();
}

/**
 * ibnm_settings_lock_for_update:
 * @self: the settings
 * @error: return location for a #GError
 *
 * Takes the store's write lock, held until @self is finalized, and reads
 * the store again (as ibnm_settings_load()). Call it before a
 * read-modify-write: another process that changes the store waits, so two
 * adds of one name or two modifications of one profile are not
 * interleaved. The keyfile store's lock is the file ".ibnm.lock" in its
 * directory (0600, the user's: no other user can hold it); taking it
 * completes the change of a writer that was killed and removes its
 * temporary files. While another process holds it, this waits as long as
 * ibnm_settings_set_lock_wait() says, then fails with
 * %IBNM_ERROR_TIMED_OUT naming that process. NetworkManager serialises its
 * own changes.
 *
 * Returns: TRUE on success
 */
gboolean ibnm_settings_lock_for_update(IbnmSettings *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(!ibnm_settings_priv(self)->readOnly_, FALSE); // IbnmSettings:read-only
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    return ibnm::guard(error, [&]() { return storeRead(priv, priv->backend_->lockForUpdate()); });
}

/**
 * ibnm_settings_set_lock_wait:
 * @self: the settings
 * @seconds: how long to wait, 0 for not at all, -1 for without a limit
 *
 * Bounds how long ibnm_settings_lock_for_update() (and a change without
 * it, which takes the lock too) waits while another process writes the
 * keyfile store, and how long a load waits while another makes its change
 * visible (a few milliseconds). The default is 90 seconds. No effect on
 * NetworkManager's store.
 *
 * Since: 0.1
 */
void ibnm_settings_set_lock_wait(IbnmSettings *self, gint seconds)
{
    g_return_if_fail(IBNM_IS_SETTINGS(self));
    g_return_if_fail(seconds >= -1);
    auto *priv = ibnm_settings_priv(self);
    priv->lockWait_ = seconds;
    if (priv->keyfile_)
        priv->keyfile_->setLockWait(seconds);
}

/**
 * ibnm_settings_get_connections:
 * @self: the settings
 *
 * Gets the profiles read by the last load or reload.
 *
 * Returns: (transfer container) (element-type NM.Connection): the profiles, in
 *   file-name order (keyfile) or id order (NetworkManager)
 *
 * Since: 0.1
 */
GPtrArray *ibnm_settings_get_connections(IbnmSettings *self)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    auto *priv = ibnm_settings_priv(self);
    GPtrArray *a = g_ptr_array_new_with_free_func(g_object_unref);
    for (const auto &p : priv->backend_->profiles())
        g_ptr_array_add(a, g_object_ref(p.connection.get()));
    return a;
}

/**
 * ibnm_settings_get_load_warnings:
 * @self: the settings
 *
 * Gets what the last load or reload could not read (and skipped).
 *
 * Returns: (transfer none) (array zero-terminated=1): what the last load
 *   skipped, one message per problem, each naming its file or profile
 *
 * Since: 0.1
 */
const char *const *ibnm_settings_get_load_warnings(IbnmSettings *self)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    return ibnm_settings_priv(self)->warningsView_.data();
}

/**
 * ibnm_settings_find:
 * @self: the settings
 * @id_uuid_or_filename: a UUID, an id, or a file name (full path or base name)
 *
 * Looks a profile up the way nmcli does without a selector word:
 * ibnm_settings_find_by() with %IBNM_SETTINGS_MATCH_ANY.
 *
 * Returns: (transfer none) (nullable): the first profile matching by UUID,
 *   else by id, else by D-Bus path, else by file name; %NULL when none
 *   matches. Owned by @self, valid until the next load, reload or change.
 *
 * Since: 0.1
 */
NMConnection *ibnm_settings_find(IbnmSettings *self, const char *id_uuid_or_filename)
{
    return ibnm_settings_find_by(self, IBNM_SETTINGS_MATCH_ANY, id_uuid_or_filename);
}

/**
 * ibnm_settings_find_by:
 * @self: the settings
 * @match: what @value is compared with
 * @value: a UUID, id, file name or D-Bus path, as @match says
 *
 * Looks a profile up the way nmcli does after a selector word
 * (`id`, `uuid`, `filename`, `path`, `apath`): only by what it names.
 *
 * Returns: (transfer none) (nullable): the first profile that matches;
 *   %NULL when none does. Owned by @self, valid until the next load,
 *   reload or change.
 *
 * Since: 0.1
 */
NMConnection *ibnm_settings_find_by(IbnmSettings *self, IbnmSettingsMatch match, const char *value)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    g_return_val_if_fail(value != nullptr, nullptr);
    auto *priv = ibnm_settings_priv(self);
    if (priv->backend_->partial())
        if (auto found = priv->backend_->findPartial(match, value))
            return *found ? (*found)->connection.get() : nullptr;
    bool any = match == IBNM_SETTINGS_MATCH_ANY;
    if (any || match == IBNM_SETTINGS_MATCH_UUID)
        if (const auto *p = findByUuid(priv, value))
            return p->connection.get();
    const auto &profiles = priv->backend_->profiles();
    if (any || match == IBNM_SETTINGS_MATCH_ID)
        for (const auto &p : profiles)
            if (matchesId(p, value))
                return p.connection.get();
    if (any || match == IBNM_SETTINGS_MATCH_PATH)
        for (const auto &p : profiles)
            if (matchesDbusPath(nm_connection_get_path(p.connection.get()), value, !any))
                return p.connection.get();
    if (match == IBNM_SETTINGS_MATCH_ACTIVE_PATH)
        for (const auto &p : profiles)
            if (p.active && matchesDbusPath(p.active->path.c_str(), value, true))
                return p.connection.get();
    if (any || match == IBNM_SETTINGS_MATCH_FILENAME)
        for (const auto &p : profiles)
            if (matchesFilename(p, value))
                return p.connection.get();
    return nullptr;
}

/**
 * ibnm_settings_get_filename:
 * @self: the settings
 * @uuid: a profile's UUID
 *
 * Gets the file a profile is stored in.
 *
 * Returns: (transfer none) (nullable): the keyfile that stores the profile,
 *   %NULL if unknown
 *
 * Since: 0.1
 */
const char *ibnm_settings_get_filename(IbnmSettings *self, const char *uuid)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    g_return_val_if_fail(uuid != nullptr, nullptr);
    const auto *p = findByUuid(ibnm_settings_priv(self), uuid);
    return p == nullptr || p->filename.empty() ? nullptr : p->filename.c_str();
}

/**
 * ibnm_settings_get_active_device:
 * @self: the settings
 * @uuid: a profile's UUID
 *
 * Gets where NetworkManager has a profile active.
 *
 * Returns: (transfer none) (nullable): the interface NetworkManager has the profile active
 *   on (its interfaces, comma-separated as nmcli shows them), as it was at
 *   the last load, activation or deactivation; NULL when it is not active or
 *   has no device yet, or for a store that does not know (keyfiles: ask
 *   ibnm_apply_get_active_devices()); valid until the next load, activation
 *   or deactivation
 *
 * Since: 0.1
 */
const char *ibnm_settings_get_active_device(IbnmSettings *self, const char *uuid)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(uuid != nullptr, nullptr);
    const auto *p = findByUuid(ibnm_settings_priv(self), uuid);
    return p == nullptr || !p->active || p->active->device.empty() ? nullptr : p->active->device.c_str();
}

/**
 * ibnm_settings_get_active_state:
 * @self: the settings
 * @uuid: a profile's UUID
 *
 * Gets the state of a profile's activation in NetworkManager.
 *
 * Returns: the state of the profile's active connection, as it was at the
 *   last load, activation or deactivation; %NM_ACTIVE_CONNECTION_STATE_UNKNOWN
 *   when it is not active, or for a store that does not know (keyfiles)
 *
 * Since: 0.1
 */
NMActiveConnectionState ibnm_settings_get_active_state(IbnmSettings *self, const char *uuid)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), NM_ACTIVE_CONNECTION_STATE_UNKNOWN);
    g_return_val_if_fail(uuid != nullptr, NM_ACTIVE_CONNECTION_STATE_UNKNOWN);
    const auto *p = findByUuid(ibnm_settings_priv(self), uuid);
    return p == nullptr || !p->active ? NM_ACTIVE_CONNECTION_STATE_UNKNOWN : p->active->state;
}

/**
 * ibnm_settings_get_active_path:
 * @self: the settings
 * @uuid: a profile's UUID
 *
 * Gets the D-Bus path of a profile's active connection in NetworkManager.
 *
 * Returns: (transfer none) (nullable): the path of the profile's active
 *   connection, as it was at the last load, activation or deactivation;
 *   %NULL when it is not active, or for a store that does not know
 *   (keyfiles); valid until the next load, activation or deactivation
 *
 * Since: 0.1
 */
const char *ibnm_settings_get_active_path(IbnmSettings *self, const char *uuid)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(uuid != nullptr, nullptr);
    const auto *p = findByUuid(ibnm_settings_priv(self), uuid);
    return p == nullptr || !p->active || p->active->path.empty() ? nullptr : p->active->path.c_str();
}

/**
 * ibnm_settings_get_active_rank:
 * @self: the settings
 * @uuid: a profile's UUID
 *
 * Gets where a profile active in NetworkManager comes among the active
 * profiles in nmcli's `connection show` (activating before activated, then
 * shared, VPN and default connections, more addresses, by name).
 *
 * Returns: the profile's place (0 first), as it was at the last load,
 *   activation or deactivation; -1 when it is not active, or for a store
 *   that does not know (keyfiles)
 *
 * Since: 0.1
 */
int ibnm_settings_get_active_rank(IbnmSettings *self, const char *uuid)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), -1);
    g_return_val_if_fail(uuid != nullptr, -1);
    const auto *p = findByUuid(ibnm_settings_priv(self), uuid);
    return p == nullptr || !p->active ? -1 : p->active->rank;
}

/**
 * ibnm_settings_activate:
 * @self: the settings (NetworkManager's backend)
 * @uuid: the UUID of the profile to activate
 * @ifname: (nullable): the interface to activate it on, or %NULL to let
 *   NetworkManager choose (the profile's interface name, as nmcli does)
 * @timeout_s: how long to wait, in seconds, for NetworkManager to finish
 *   the activation; 0 waits only for NetworkManager to take the request
 *   (nmcli's `--wait 0`)
 * @out_active_path: (out) (optional) (transfer full) (nullable): the D-Bus
 *   path of the active connection once NetworkManager took the request
 *   (set after a later failure too), else %NULL
 * @out_device: (out) (optional) (transfer full) (nullable): the interface
 *   NetworkManager activates the profile on, when known (set after a
 *   failure too), else %NULL
 * @out_note: (out) (optional) (transfer full) (nullable): why the
 *   activation counts as done before it is (nmcli's "master waiting for
 *   slaves": a bond waits for its ports), or %NULL
 * @error: return location for a #GError
 *
 * Asks NetworkManager to activate a profile, as `nmcli connection up` does,
 * and waits until the activation is done or has failed. NetworkManager then
 * owns the activation, and runs its dispatcher scripts (ibnm's hook).
 *
 * Returns: %TRUE when the profile is activated (or, with @timeout_s 0,
 *   NetworkManager took the request); %FALSE with @error set when
 *   NetworkManager refused or failed the activation
 *   (%IBNM_ERROR_ACTIVATION_FAILED, with its reason), the named interface
 *   does not exist (%IBNM_ERROR_NOT_FOUND) or cannot take the profile
 *   (%IBNM_ERROR_NOT_SUPPORTED), @timeout_s passed (%IBNM_ERROR_TIMED_OUT;
 *   the activation goes on), NetworkManager does not run
 *   (%IBNM_ERROR_NOT_RUNNING), or for the keyfile store
 *   (%IBNM_ERROR_NOT_SUPPORTED: ibnm_apply_up() activates without
 *   NetworkManager)
 *
 * Since: 0.1
 */
gboolean ibnm_settings_activate(IbnmSettings *self, const char *uuid, const char *ifname, guint timeout_s,
                                char **out_active_path, char **out_device, char **out_note, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, FALSE); // g_initable_init() not run
    g_return_val_if_fail(uuid != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    auto give = [](char **out, const std::string &v) {
        if (out)
            *out = v.empty() ? nullptr : g_strdup(v.c_str());
    };
    give(out_active_path, {});
    give(out_device, {});
    give(out_note, {});
    return ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::settings::ActivationResult r = priv->backend_->activate(uuid, ifname, timeout_s);
        give(out_active_path, r.activePath);
        give(out_device, r.device);
        give(out_note, r.note);
        if (r.error)
            return std::move(*r.error);
        return {};
    });
}

/**
 * ibnm_settings_deactivate:
 * @self: the settings (NetworkManager's backend)
 * @uuid: the UUID of the profile to deactivate
 * @timeout_s: how long to wait, in seconds, for NetworkManager to finish
 *   the deactivation; 0 waits only for NetworkManager to take the request
 * @error: return location for a #GError
 *
 * Asks NetworkManager to deactivate a profile (each of its active
 * connections), as `nmcli connection down` does, and waits until it is done.
 *
 * Returns: (transfer full) (array zero-terminated=1) (nullable): the D-Bus
 *   paths of the active connections deactivated; %NULL with @error set when
 *   the profile is not active (%IBNM_ERROR_NOT_FOUND; nothing was changed),
 *   NetworkManager refused (its error), @timeout_s passed
 *   (%IBNM_ERROR_TIMED_OUT), NetworkManager does not run
 *   (%IBNM_ERROR_NOT_RUNNING), or for the keyfile store
 *   (%IBNM_ERROR_NOT_SUPPORTED)
 *
 * Since: 0.1
 */
char **ibnm_settings_deactivate(IbnmSettings *self, const char *uuid, guint timeout_s, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    g_return_val_if_fail(uuid != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    auto *priv = ibnm_settings_priv(self);
    char **paths = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto r = priv->backend_->deactivate(uuid, timeout_s);
        if (!r)
            return std::move(r).error();
        GStrvBuilder *b = g_strv_builder_new();
        for (const auto &p : *r)
            g_strv_builder_add(b, p.c_str());
        paths = g_strv_builder_end(b);
        g_strv_builder_unref(b);
        return {};
    });
    return paths;
}

/**
 * ibnm_settings_add:
 * @self: the settings
 * @connection: the profile (not modified; a normalized copy is stored)
 * @out_path: (out) (optional) (transfer full): where it was stored
 * @error: return location for a #GError
 *
 * Stores a new profile: a keyfile written atomically, or a profile added to
 * NetworkManager.
 *
 * Returns: %TRUE on success; %FALSE with @error set when a profile with its
 *   UUID exists already (%IBNM_ERROR_EXISTS), it does not verify, or it
 *   cannot be stored
 *
 * Since: 0.1
 */
gboolean ibnm_settings_add(IbnmSettings *self, NMConnection *connection, char **out_path, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(!ibnm_settings_priv(self)->readOnly_, FALSE); // IbnmSettings:read-only
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, FALSE); // g_initable_init() not run
    g_return_val_if_fail(NM_IS_CONNECTION(connection), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        auto path = priv->backend_->add(connection);
        profilesChanged(priv);
        if (!path)
            return std::move(path).error();
        if (out_path != nullptr)
            *out_path = g_strdup(path->c_str());
        return {};
    });
}

/**
 * ibnm_settings_begin_batch:
 * @self: the settings
 *
 * Makes the changes that follow (ibnm_settings_add(), ibnm_settings_update(),
 * ibnm_settings_delete()) one change of a keyfile store, until
 * ibnm_settings_commit_batch() or ibnm_settings_abort_batch(): the profiles
 * in memory change at once (a later change is checked against them), the
 * files all at the commit through a journal, so that a reader, and the
 * store after a crash of the writer, has all of them or none. The caller
 * holds the store's lock (ibnm_settings_lock_for_update()) throughout.
 * NetworkManager's store changes at each call, as before.
 *
 * Since: 0.1
 */
void ibnm_settings_begin_batch(IbnmSettings *self)
{
    g_return_if_fail(IBNM_IS_SETTINGS(self));
    g_return_if_fail(!ibnm_settings_priv(self)->readOnly_); // IbnmSettings:read-only
    g_return_if_fail(ibnm_settings_priv(self)->backend_ != nullptr); // g_initable_init() not run
    ibnm_settings_priv(self)->backend_->beginBatch();
}

/**
 * ibnm_settings_commit_batch:
 * @self: the settings
 * @error: return location for a #GError
 *
 * Writes the changes made since ibnm_settings_begin_batch(), all of them or
 * none.
 *
 * Returns: %TRUE when they are stored; %FALSE with @error set when they
 *   could not be, none of them written and the profiles in memory as the
 *   files hold them
 *
 * Since: 0.1
 */
gboolean ibnm_settings_commit_batch(IbnmSettings *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(!ibnm_settings_priv(self)->readOnly_, FALSE); // IbnmSettings:read-only
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, FALSE); // g_initable_init() not run
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::Status st = priv->backend_->commitBatch();
        profilesChanged(priv);
        return st;
    });
}

/**
 * ibnm_settings_abort_batch:
 * @self: the settings
 *
 * Drops the changes made since ibnm_settings_begin_batch(): nothing of them
 * is written, and the profiles in memory are as the files hold them
 * (NetworkManager's store, changed at each call, is left as it is: delete
 * or update back what was changed).
 *
 * Since: 0.1
 */
void ibnm_settings_abort_batch(IbnmSettings *self)
{
    g_return_if_fail(IBNM_IS_SETTINGS(self));
    g_return_if_fail(ibnm_settings_priv(self)->backend_ != nullptr); // g_initable_init() not run
    auto *priv = ibnm_settings_priv(self);
    priv->backend_->abortBatch();
    profilesChanged(priv);
}

/**
 * ibnm_settings_update:
 * @self: the settings
 * @connection: the new content of the profile with the same UUID
 * @error: return location for a #GError
 *
 * Replaces a stored profile by @connection.
 *
 * Returns: %TRUE on success; %FALSE with @error set when no profile has its
 *   UUID (%IBNM_ERROR_NOT_FOUND), it does not verify, or it cannot be stored
 *
 * Since: 0.1
 */
gboolean ibnm_settings_update(IbnmSettings *self, NMConnection *connection, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(!ibnm_settings_priv(self)->readOnly_, FALSE); // IbnmSettings:read-only
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, FALSE); // g_initable_init() not run
    g_return_val_if_fail(NM_IS_CONNECTION(connection), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::Status s = priv->backend_->update(connection);
        profilesChanged(priv);
        return s;
    });
}

/**
 * ibnm_settings_delete:
 * @self: the settings
 * @uuid: the UUID of the profile to delete
 * @error: return location for a #GError
 *
 * Deletes a stored profile (its keyfile, or the profile in NetworkManager).
 *
 * Returns: %TRUE on success; %FALSE with @error set when no profile has
 *   that UUID (%IBNM_ERROR_NOT_FOUND) or it cannot be deleted
 *
 * Since: 0.1
 */
gboolean ibnm_settings_delete(IbnmSettings *self, const char *uuid, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), FALSE);
    g_return_val_if_fail(!ibnm_settings_priv(self)->readOnly_, FALSE); // IbnmSettings:read-only
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, FALSE); // g_initable_init() not run
    g_return_val_if_fail(uuid != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_settings_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::Status s = priv->backend_->remove(uuid);
        profilesChanged(priv);
        return s;
    });
}

ibnm::settings::ActivationResult ibnm::settings::Backend::activate(const std::string &, const char *, unsigned)
{
    ActivationResult r;
    r.error = Error(IBNM_ERROR_NOT_SUPPORTED,
                    _("the keyfile store cannot ask NetworkManager to activate a profile: "
                      "NetworkManager does not run"));
    return r;
}

ibnm::Result<std::vector<std::string>> ibnm::settings::Backend::deactivate(const std::string &, unsigned)
{
    return Error(IBNM_ERROR_NOT_SUPPORTED,
                 _("the keyfile store cannot ask NetworkManager to deactivate a profile: NetworkManager does not run"));
}

std::vector<const ibnm::settings::StoredProfile *> ibnm::settings::Backend::related(NMConnection *,
                                                                                  const std::vector<std::string> &)
{
    std::vector<const StoredProfile *> all;
    for (const auto &p : profiles())
        all.push_back(&p);
    return all;
}

/**
 * ibnm_settings_get_related:
 * @self: a loaded #IbnmSettings
 * @connection: (nullable): a profile, stored or about to be
 * @names: (nullable) (array zero-terminated=1): UUIDs, ids or interface names
 *
 * The stored profiles that the rules across profiles compare @connection
 * with (ibnm_check_profiles()): those with its id or UUID, its bond and the
 * bond's ports, its ports, those of its interface, its parent's, the same
 * P_Key child or child name, the same port GUID or soft RDMA link, its
 * secondaries and bases; and those whose UUID, id or interface name is one
 * of @names. Checking @connection together with them finds what checking
 * it with every stored profile finds about it. A keyfile store locked for
 * update (ibnm_settings_lock_for_update()) reads only these, verified
 * against its files through its index (one `connection add` costs about
 * the same with ten thousand profiles as with none); otherwise every
 * profile is returned.
 *
 * Returns: (transfer container) (element-type NM.Connection): the related
 *   profiles, in the store's order
 *
 * Since: 0.1
 */
GPtrArray *ibnm_settings_get_related(IbnmSettings *self, NMConnection *connection, const char *const *names)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(self), nullptr);
    g_return_val_if_fail(ibnm_settings_priv(self)->backend_ != nullptr, nullptr); // g_initable_init() not run
    g_return_val_if_fail(connection == nullptr || NM_IS_CONNECTION(connection), nullptr);
    GPtrArray *a = g_ptr_array_new_with_free_func(g_object_unref);
    try {
        std::vector<std::string> words;
        for (const char *const *n = names; n && *n; n++)
            words.emplace_back(*n);
        for (const auto *p : ibnm_settings_priv(self)->backend_->related(connection, words))
            g_ptr_array_add(a, g_object_ref(p->connection.get()));
    } catch (const std::bad_alloc &) {
        g_error("libibnm: out of memory");
    }
    return a;
}

ibnm::settings::Backend &ibnm::settings::backendOf(IbnmSettings *settings)
{
    return *ibnm_settings_priv(settings)->backend_;
}
