// SPDX-License-Identifier: LGPL-2.1-or-later
// The records of a host's active connections (standalone mode: with
// NetworkManager running, NetworkManager keeps its own): ActiveStore, one
// JSON file per activation under the host's runtime directory
// (docs/active-connections.md), and what reads them: IbnmActiveConnection,
// ibnm_apply_get_active_connections() and ibnm_apply_get_active_devices().
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/active.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/runtime-dir.h"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <glib/gstdio.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

using ibnm::activation::ActiveRecord;

namespace ibnm::apply {

namespace {

// A UUID as a file name (runtime-dir.h).
bool recordName(const std::string &name)
{
    return name.find('\0') == std::string::npos && ibnm_is_record_name(name.c_str());
}

} // namespace

ActiveStore::ActiveStore(IbnmHost *host) : host_(host)
{
    if (const char *dir = ibnm_host_get_runtime_dir(host))
        dir_ = std::string(dir) + "/" IBNM_ACTIVE_RECORDS_SUBDIR;
}

std::map<std::string, ActiveRecord> ActiveStore::read() const
{
    std::map<std::string, ActiveRecord> out;
    auto take = [&](const std::string &uuid, const std::string &text, const std::string &what) {
        auto r = activation::parseRecord(text, what);
        if (r.ok() && r->uuid == uuid)
            out.emplace(uuid, std::move(r).value());
    };
    if (dir_.empty()) {
        for (const auto &[uuid, text] : hostMemoryRecords(host_))
            take(uuid, text, uuid);
        return out;
    }
    GDir *d = g_dir_open(dir_.c_str(), 0, nullptr);
    if (d == nullptr)
        return out;
    while (const char *n = g_dir_read_name(d)) {
        std::string path = dir_ + "/" + n;
        GCharPtr text;
        gsize len = 0;
        if (recordName(n) && g_file_get_contents(path.c_str(), outPtr(text), &len, nullptr))
            take(n, std::string(text.get(), len), path);
    }
    g_dir_close(d);
    return out;
}

std::map<std::string, ActiveRecord> ActiveStore::current(const model::Host &host, bool tidy)
{
    // A killed writer's temporary file (save() names its writer) goes with
    // the records it outlived.
    if (tidy && !dir_.empty())
        removeDeadWritersFiles(dir_);
    std::map<std::string, ActiveRecord> out;
    for (auto &[uuid, r] : read()) {
        if (r.state == ActiveRecord::State::Activated) {
            // As NetworkManager: an active connection whose device went
            // (deleted, or the host rebooted) is no more.
            if (activation::gone(r, host)) {
                if (tidy)
                    remove(uuid);
                continue;
            }
            out.emplace(uuid, std::move(r));
            continue;
        }
        // An activation ibnm did not finish: what of it is on the host.
        ActiveRecord left = activation::prune(r, host);
        if (!left.owns()) {
            if (tidy)
                remove(uuid);
            continue;
        }
        if (tidy && activation::formatRecord(left) != activation::formatRecord(r))
            (void)save(left);
        out.emplace(uuid, std::move(left));
    }
    return out;
}

Status ActiveStore::save(const ActiveRecord &record)
{
    std::string text = activation::formatRecord(record);
    if (dir_.empty()) {
        hostMemoryRecords(host_)[record.uuid] = std::move(text);
        return {};
    }
    if (g_mkdir_with_parents(dir_.c_str(), 0755) != 0)
        return Error::fromErrno(errno, dir_);
    // Written whole or not at all: a temporary file renamed over the
    // record. Not fsync()ed: a record is this boot's state (in /run, as
    // NetworkManager's own), void once the host goes down, and three
    // fsyncs a profile made one apply of 1,024 profiles wait 2 s or more
    // where the runtime directory is on a disk (the simulated host's).
    AtomicWriteOptions options;
    options.mode = 0644;
    options.durable = false;
    options.tagWriter = true; // current() removes a killed writer's
    return atomicWriteFile(dir_ + "/" + record.uuid, text, options);
}

void ActiveStore::remove(const std::string &uuid)
{
    if (dir_.empty()) {
        hostMemoryRecords(host_).erase(uuid);
        return;
    }
    g_unlink((dir_ + "/" + uuid).c_str());
}

std::optional<std::string> activeRecordsDigest(IbnmHost *host)
{
    const char *runtime = ibnm_host_get_runtime_dir(host);
    if (runtime == nullptr)
        return std::string("absent");
    std::string dir = std::string(runtime) + "/" IBNM_ACTIVE_RECORDS_SUBDIR;
    GErrorPtr err;
    GDir *d = g_dir_open(dir.c_str(), 0, outPtr(err));
    if (d == nullptr)
        return g_error_matches(err.get(), G_FILE_ERROR, G_FILE_ERROR_NOENT) ? std::optional<std::string>("absent")
                                                                             : std::nullopt;
    // The records only: a writer's temporary file (renamed into place at
    // any moment, or left by a writer that was killed) is none.
    std::vector<std::string> names;
    while (const char *n = g_dir_read_name(d))
        if (recordName(n))
            names.emplace_back(n);
    g_dir_close(d);
    std::sort(names.begin(), names.end());
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    bool ok = true;
    for (const auto &n : names) {
        GCharPtr text;
        gsize len = 0;
        if (!g_file_get_contents((dir + "/" + n).c_str(), outPtr(text), &len, nullptr)) {
            ok = false;
            break;
        }
        std::string head = n + "\n" + std::to_string(len) + "\n";
        g_checksum_update(sum, reinterpret_cast<const guchar *>(head.data()), gssize(head.size()));
        g_checksum_update(sum, reinterpret_cast<const guchar *>(text.get()), gssize(len));
    }
    std::string digest = g_checksum_get_string(sum);
    g_checksum_free(sum);
    if (!ok)
        return std::nullopt;
    return digest;
}

} // namespace ibnm::apply

// --- IbnmActiveConnection -------------------------------------------------------

struct _IbnmActiveConnection {
    GObject parent_instance;
};

struct IbnmActiveConnectionPrivate {
    std::string uuid, id, device;
    NMActiveConnectionState state = NM_ACTIVE_CONNECTION_STATE_UNKNOWN;
};

IBNM_DEFINE_FINAL_TYPE(IbnmActiveConnection, ibnm_active_connection, G_TYPE_OBJECT)

enum { AC_PROP_0, AC_PROP_UUID, AC_PROP_ID, AC_PROP_DEVICE, AC_PROP_STATE, AC_N_PROPS };
static GParamSpec *ac_props[AC_N_PROPS];

static void ibnm_active_connection_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *self = IBNM_ACTIVE_CONNECTION(object);
    switch (prop_id) {
    case AC_PROP_UUID:
        g_value_set_string(value, ibnm_active_connection_get_uuid(self));
        break;
    case AC_PROP_ID:
        g_value_set_string(value, ibnm_active_connection_get_id(self));
        break;
    case AC_PROP_DEVICE:
        g_value_set_string(value, ibnm_active_connection_get_device(self));
        break;
    case AC_PROP_STATE:
        g_value_set_enum(value, ibnm_active_connection_get_state(self));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_active_connection_class_init_impl(IbnmActiveConnectionClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->get_property = ibnm_active_connection_get_property;
    auto flags = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
    /**
     * IbnmActiveConnection:uuid:
     *
     * The UUID of the profile that is active.
     *
     * Since: 0.1
     */
    ac_props[AC_PROP_UUID] = g_param_spec_string(IBNM_ACTIVE_CONNECTION_UUID, nullptr, nullptr, nullptr, flags);
    /**
     * IbnmActiveConnection:id:
     *
     * The id of the profile as it was activated.
     *
     * Since: 0.1
     */
    ac_props[AC_PROP_ID] = g_param_spec_string(IBNM_ACTIVE_CONNECTION_ID, nullptr, nullptr, nullptr, flags);
    /**
     * IbnmActiveConnection:device:
     *
     * The interface the profile is active on.
     *
     * Since: 0.1
     */
    ac_props[AC_PROP_DEVICE] = g_param_spec_string(IBNM_ACTIVE_CONNECTION_DEVICE, nullptr, nullptr, nullptr, flags);
    /**
     * IbnmActiveConnection:state:
     *
     * Whether the activation completed.
     *
     * Since: 0.1
     */
    ac_props[AC_PROP_STATE] =
        g_param_spec_enum(IBNM_ACTIVE_CONNECTION_STATE, nullptr, nullptr, NM_TYPE_ACTIVE_CONNECTION_STATE,
                          NM_ACTIVE_CONNECTION_STATE_UNKNOWN, flags);
    g_object_class_install_properties(object_class, AC_N_PROPS, ac_props);
}

namespace {

IbnmActiveConnection *wrapActive(const ActiveRecord &r)
{
    auto *self = IBNM_ACTIVE_CONNECTION(g_object_new(IBNM_TYPE_ACTIVE_CONNECTION, nullptr));
    auto *p = ibnm_active_connection_priv(self);
    p->uuid = r.uuid;
    p->id = r.id;
    p->device = r.device;
    p->state = r.state == ActiveRecord::State::Activated ? NM_ACTIVE_CONNECTION_STATE_ACTIVATED
                                                         : NM_ACTIVE_CONNECTION_STATE_ACTIVATING;
    return self;
}

// The active connections on the host as read now (no record is changed:
// readers take no lock).
ibnm::Result<std::map<std::string, ActiveRecord>> activeNow(IbnmHost *host)
{
    ibnm::apply::ActiveStore store(host);
    auto all = store.read();
    if (all.empty())
        return all; // nothing to read the host for
    auto snapshot = ibnm::hostPlatform(host).readHost();
    if (!snapshot.ok())
        return std::move(snapshot).error();
    return store.current(*snapshot, false);
}

} // namespace

/**
 * ibnm_active_connection_get_uuid:
 * @self: an #IbnmActiveConnection
 *
 * Gets the UUID of the profile that is active.
 *
 * Returns: (transfer none): the profile's UUID.
 *
 * Since: 0.1
 */
const char *ibnm_active_connection_get_uuid(IbnmActiveConnection *self)
{
    g_return_val_if_fail(IBNM_IS_ACTIVE_CONNECTION(self), nullptr);
    return ibnm_active_connection_priv(self)->uuid.c_str();
}

/**
 * ibnm_active_connection_get_id:
 * @self: an #IbnmActiveConnection
 *
 * Gets the id the profile had when it was activated.
 *
 * Returns: (transfer none): the profile's id.
 *
 * Since: 0.1
 */
const char *ibnm_active_connection_get_id(IbnmActiveConnection *self)
{
    g_return_val_if_fail(IBNM_IS_ACTIVE_CONNECTION(self), nullptr);
    return ibnm_active_connection_priv(self)->id.c_str();
}

/**
 * ibnm_active_connection_get_device:
 * @self: an #IbnmActiveConnection
 *
 * Gets the interface the profile is active on: a P_Key child as the kernel
 * named it, a port found by its GUID, a bond.
 *
 * Returns: (transfer none) (nullable): the interface, or %NULL for an
 *   activation that did not complete (ibnm was stopped midway).
 *
 * Since: 0.1
 */
const char *ibnm_active_connection_get_device(IbnmActiveConnection *self)
{
    g_return_val_if_fail(IBNM_IS_ACTIVE_CONNECTION(self), nullptr);
    auto *p = ibnm_active_connection_priv(self);
    return p->device.empty() ? nullptr : p->device.c_str();
}

/**
 * ibnm_active_connection_get_state:
 * @self: an #IbnmActiveConnection
 *
 * Gets the state of the activation, in NetworkManager's words.
 *
 * Returns: %NM_ACTIVE_CONNECTION_STATE_ACTIVATED, or
 *   %NM_ACTIVE_CONNECTION_STATE_ACTIVATING for an activation that ibnm did
 *   not finish (it was stopped midway): the next ibnm_apply_up() of the
 *   profile completes it, ibnm_apply_down() takes away what it did.
 *
 * Since: 0.1
 */
NMActiveConnectionState ibnm_active_connection_get_state(IbnmActiveConnection *self)
{
    g_return_val_if_fail(IBNM_IS_ACTIVE_CONNECTION(self), NM_ACTIVE_CONNECTION_STATE_UNKNOWN);
    return ibnm_active_connection_priv(self)->state;
}

/**
 * ibnm_apply_get_active_connections:
 * @host: the host to look at
 * @error: return location for a #GError
 *
 * The active connections ibnm_apply_up() made on @host in standalone mode
 * (without NetworkManager, which keeps its own): one per active profile,
 * in the order of their UUIDs. As NetworkManager sees them, an activation
 * whose interface is gone (deleted, or the host rebooted) is no longer
 * active.
 *
 * Returns: (transfer container) (element-type IbnmActiveConnection): the
 *   active connections; %NULL with @error set when the host cannot be read
 *
 * Since: 0.1
 */
GPtrArray *ibnm_apply_get_active_connections(IbnmHost *host, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    GPtrArray *out = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto active = activeNow(host);
        if (!active.ok())
            return std::move(active).error();
        out = g_ptr_array_new_full(guint(active->size()), g_object_unref);
        for (const auto &[uuid, r] : *active)
            g_ptr_array_add(out, wrapActive(r));
        return {};
    });
    return out;
}

/**
 * ibnm_apply_get_active_devices:
 * @host: the host to look at
 * @profiles: (element-type NMConnection): the profiles
 * @all_profiles: (element-type NMConnection) (nullable): unused; kept for
 *   the callers of version 0.1
 * @error: return location for a #GError
 *
 * Where each profile is active on @host in standalone mode (see
 * ibnm_apply_get_active_connections()): the interface of its completed
 * activation.
 *
 * Returns: (transfer container) (element-type utf8): one entry a profile, in
 *   order: the interface name, or %NULL where the profile is not active;
 *   %NULL with @error set when the host cannot be read
 *
 * Since: 0.1
 */
GPtrArray *ibnm_apply_get_active_devices(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles,
                                         GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(profiles != nullptr, nullptr);
    (void)all_profiles;
    GPtrArray *out = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto active = activeNow(host);
        if (!active.ok())
            return std::move(active).error();
        out = g_ptr_array_new_full(profiles->len, g_free);
        for (guint i = 0; i < profiles->len; i++) {
            const char *uuid = nm_connection_get_uuid(NM_CONNECTION(g_ptr_array_index(profiles, i)));
            auto it = uuid ? active->find(uuid) : active->end();
            bool shown = it != active->end() && it->second.state == ActiveRecord::State::Activated &&
                         !it->second.device.empty();
            g_ptr_array_add(out, shown ? g_strdup(it->second.device.c_str()) : nullptr);
        }
        return {};
    });
    return out;
}
