// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "settings/nm-backend.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "settings/keyfile-codec.hpp"
#include "settings/nm-activation.hpp"
#include "settings/nm-client-util.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>

namespace ibnm::settings {

namespace {

constexpr const char *kNmName = "org.freedesktop.NetworkManager";
constexpr int kSettleTimeoutMs = 5000;

// libnm's nm-errors.h lacks extern "C", so NM_SETTINGS_ERROR cannot be
// named from C++; compare the domain by its registered name instead.
bool isSettingsError(const GError *err, int code)
{
    return err != nullptr && err->code == code && g_strcmp0(g_quark_to_string(err->domain), "nm-settings-error-quark") == 0;
}

} // namespace

Error fromNmError(const GError *err, std::string context, IbnmError fallback)
{
    IbnmError code = fallback;
    if (isSettingsError(err, NM_SETTINGS_ERROR_PERMISSION_DENIED) ||
        g_error_matches(err, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED))
        code = IBNM_ERROR_PERMISSION_DENIED;
    else if (isSettingsError(err, NM_SETTINGS_ERROR_INVALID_CONNECTION))
        code = IBNM_ERROR_INVALID_PROPERTY;
    std::string msg = err ? err->message : "unknown error";
    // GDBus prefixes remote errors with "GDBus.Error:<name>: "; drop it.
    if (msg.rfind("GDBus.Error:", 0) == 0) {
        size_t colon = msg.find(": ");
        if (colon != std::string::npos)
            msg = msg.substr(colon + 2);
    }
    Error e(code, msg);
    if (context.empty())
        return e;
    return std::move(e).withContext(std::move(context));
}

namespace {

Result<GObjectPtr<GDBusConnection>> openSystemBus()
{
    GErrorPtr err;
    GCharPtr address(g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nullptr, outPtr(err)));
    if (!address)
        return Error(IBNM_ERROR_NOT_FOUND, err->message);
    auto bus = GObjectPtr<GDBusConnection>::adopt(g_dbus_connection_new_for_address_sync(
        address.get(),
        GDBusConnectionFlags(G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                             G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION),
        nullptr, nullptr, outPtr(err)));
    if (!bus)
        return Error(IBNM_ERROR_NOT_FOUND, err->message).withContext(address.get());
    g_dbus_connection_set_exit_on_close(bus.get(), FALSE);
    return bus;
}

bool nameHasOwner(GDBusConnection *bus)
{
    GVariantPtr reply(g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "NameHasOwner",
                                                  g_variant_new("(s)", kNmName), G_VARIANT_TYPE("(b)"),
                                                  G_DBUS_CALL_FLAGS_NONE, 2000, nullptr, nullptr));
    if (!reply)
        return false;
    gboolean owned = FALSE;
    g_variant_get(reply.get(), "(b)", &owned);
    return owned;
}

std::string describe(NMRemoteConnection *remote)
{
    const char *f = nm_remote_connection_get_filename(remote);
    if (f != nullptr && *f != '\0')
        return f;
    const char *u = nm_connection_get_uuid(NM_CONNECTION(remote));
    return u ? u : nm_object_get_path(NM_OBJECT(remote));
}

std::string storedName(NMRemoteConnection *remote)
{
    const char *f = nm_remote_connection_get_filename(remote);
    return f ? f : "";
}

// nmcli's rank of an activation state (active_connection_get_state_ord()).
int stateOrder(NMActiveConnection *ac)
{
    switch (nm_active_connection_get_state(ac)) {
    case NM_ACTIVE_CONNECTION_STATE_UNKNOWN:
        return 0;
    case NM_ACTIVE_CONNECTION_STATE_DEACTIVATED:
        return 1;
    case NM_ACTIVE_CONNECTION_STATE_DEACTIVATING:
        return 2;
    case NM_ACTIVE_CONNECTION_STATE_ACTIVATING:
        return 3;
    case NM_ACTIVE_CONNECTION_STATE_ACTIVATED:
        return 4;
    }
    return -1;
}

bool sharedMethod(NMActiveConnection *ac, NMSettingIPConfig *(*ip)(NMConnection *), const char *shared)
{
    NMRemoteConnection *c = nm_active_connection_get_connection(ac);
    NMSettingIPConfig *s = c ? ip(NM_CONNECTION(c)) : nullptr;
    return s && g_strcmp0(nm_setting_ip_config_get_method(s), shared) == 0;
}

guint addressCount(NMActiveConnection *ac)
{
    NMIPConfig *v4 = nm_active_connection_get_ip4_config(ac);
    NMIPConfig *v6 = nm_active_connection_get_ip6_config(ac);
    return (v4 ? nm_ip_config_get_addresses(v4)->len : 0) + (v6 ? nm_ip_config_get_addresses(v6)->len : 0);
}

// The number at the end of a D-Bus path (.../Settings/12), for nmcli's
// numeric order of paths.
guint64 pathNumber(NMActiveConnection *ac)
{
    NMRemoteConnection *c = nm_active_connection_get_connection(ac);
    const char *path = c ? nm_connection_get_path(NM_CONNECTION(c)) : nullptr;
    const char *slash = path ? std::strrchr(path, '/') : nullptr;
    return slash ? g_ascii_strtoull(slash + 1, nullptr, 10) : 0;
}

// Whether nmcli's `connection show` lists `a` before `b`: as its
// con_show_get_items_cmp() calls nmc_active_connection_cmp(b, a), a lower
// activation state first (activating before activated: the state is the
// one criterion that function compares the other way round), then shared,
// VPN, default, default6 and more addresses first; then by name and D-Bus
// path (nmcli's default order, active:name:path).
bool activeShownBefore(NMActiveConnection *a, NMActiveConnection *b)
{
    auto key = [](NMActiveConnection *ac) {
        constexpr const char *shared6 = NM_SETTING_IP6_CONFIG_METHOD_SHARED;
        constexpr const char *shared4 = NM_SETTING_IP4_CONFIG_METHOD_SHARED;
        return std::make_tuple(-stateOrder(ac), sharedMethod(ac, nm_connection_get_setting_ip6_config, shared6),
                               sharedMethod(ac, nm_connection_get_setting_ip4_config, shared4),
                               bool(nm_active_connection_get_vpn(ac)), bool(nm_active_connection_get_default(ac)),
                               bool(nm_active_connection_get_default6(ac)), addressCount(ac));
    };
    auto ka = key(a), kb = key(b);
    if (ka != kb)
        return ka > kb;
    const char *ida = nm_active_connection_get_id(a), *idb = nm_active_connection_get_id(b);
    if (int c = g_utf8_collate(ida ? ida : "", idb ? idb : ""); c != 0)
        return c < 0;
    return pathNumber(a) < pathNumber(b);
}

} // namespace

bool networkManagerRunning()
{
    auto bus = openSystemBus();
    if (!bus)
        return false;
    bool owned = nameHasOwner(bus->get());
    g_dbus_connection_close_sync(bus->get(), nullptr, nullptr);
    return owned;
}

Result<std::unique_ptr<NetworkManagerBackend>> NetworkManagerBackend::connect()
{
    std::unique_ptr<NetworkManagerBackend> self(new NetworkManagerBackend());
    auto bus = openSystemBus();
    if (!bus)
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("NetworkManager is not running (no system bus: %s)"), bus.error().message().c_str()));
    self->bus_ = std::move(*bus);
    if (!nameHasOwner(self->bus_.get()))
        return Error(IBNM_ERROR_NOT_FOUND, _("NetworkManager is not running on the system bus"));

    self->context_.reset(g_main_context_new());
    ContextScope scope(self->context_.get());
    GErrorPtr err;
    self->client_ = GObjectPtr<NMClient>::adopt(static_cast<NMClient *>(
        g_initable_new(NM_TYPE_CLIENT, nullptr, outPtr(err), NM_CLIENT_DBUS_CONNECTION, self->bus_.get(), nullptr)));
    if (!self->client_)
        return fromNmError(err.get(), "NetworkManager");
    if (!nm_client_get_nm_running(self->client_.get()))
        return Error(IBNM_ERROR_NOT_FOUND, _("NetworkManager is not running on the system bus"));
    return self;
}

NetworkManagerBackend::~NetworkManagerBackend()
{
    if (client_) {
        ContextScope scope(context_.get());
        // NMClient finishes its teardown on its context: iterate it until
        // the busy watcher is gone, as libnm's documentation asks.
        GObject *watcher = nm_client_get_context_busy_watcher(client_.get());
        gpointer weak = watcher;
        g_object_add_weak_pointer(watcher, &weak);
        profiles_.clear();
        client_.reset();
        iterateUntil(context_.get(), [&] { return weak == nullptr; }, 2000);
        if (weak != nullptr)
            g_object_remove_weak_pointer(static_cast<GObject *>(weak), &weak);
    }
    if (bus_)
        g_dbus_connection_close_sync(bus_.get(), nullptr, nullptr);
}

Status NetworkManagerBackend::load()
{
    ContextScope scope(context_.get());
    // Ask NetworkManager which profiles exist, then let NMClient's cache
    // catch up with that answer (it learns of changes made by others,
    // e.g. nmcli, from signals processed on our context). The signals that
    // came first are handled first: NMClient asks for an updated profile's
    // settings (Settings.Connection.Updated) before ListConnections is
    // sent, so the answer is in by the time that one's is.
    while (g_main_context_iteration(context_.get(), FALSE)) {
    }
    GErrorPtr err;
    GVariantPtr reply(g_dbus_connection_call_sync(
        bus_.get(), kNmName, "/org/freedesktop/NetworkManager/Settings", "org.freedesktop.NetworkManager.Settings",
        "ListConnections", nullptr, G_VARIANT_TYPE("(ao)"), G_DBUS_CALL_FLAGS_NONE, -1, nullptr, outPtr(err)));
    if (!reply)
        return fromNmError(err.get(), "NetworkManager");
    std::set<std::string> wanted;
    {
        GVariantIter *iter = nullptr;
        const char *path = nullptr;
        g_variant_get(reply.get(), "(ao)", &iter);
        while (g_variant_iter_next(iter, "&o", &path))
            wanted.insert(path);
        g_variant_iter_free(iter);
    }
    auto cacheMatches = [&] {
        const GPtrArray *all = nm_client_get_connections(client_.get());
        std::set<std::string> have;
        for (guint i = 0; i < all->len; i++)
            have.insert(nm_object_get_path(NM_OBJECT(all->pdata[i])));
        return have == wanted;
    };
    iterateUntil(context_.get(), cacheMatches, kSettleTimeoutMs);

    std::vector<StoredProfile> profiles;
    std::vector<std::string> warnings;
    const GPtrArray *all = nm_client_get_connections(client_.get());
    for (guint i = 0; i < all->len; i++) {
        auto *remote = NM_REMOTE_CONNECTION(all->pdata[i]);
        auto copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(NM_CONNECTION(remote)));
        if (Status s = validateUserData(copy.get()); !s.ok()) {
            warnings.push_back(std::move(s).withContext(describe(remote)).error().toString());
            continue;
        }
        profiles.push_back(StoredProfile{std::move(copy), storedName(remote), {}});
    }
    std::sort(profiles.begin(), profiles.end(), [](const StoredProfile &a, const StoredProfile &b) {
        return g_strcmp0(nm_connection_get_id(a.connection.get()), nm_connection_get_id(b.connection.get())) < 0;
    });
    profiles_ = std::move(profiles);
    warnings_ = std::move(warnings);
    noteActive();
    return {};
}

// DEVICE, ACTIVE, STATE and the order of `connection show`: where
// NetworkManager has each profile active, from NMClient's active
// connections (as nmcli: get_ac_for_connection(), get_ac_device_string(),
// con_show_get_items_cmp()).
void NetworkManagerBackend::noteActive()
{
    for (auto &p : profiles_)
        p.active.reset();
    std::vector<NMActiveConnection *> ranked;
    const GPtrArray *active = nm_client_get_active_connections(client_.get());
    for (guint i = 0; active && i < active->len; i++)
        ranked.push_back(NM_ACTIVE_CONNECTION(active->pdata[i]));
    std::stable_sort(ranked.begin(), ranked.end(), activeShownBefore);
    for (size_t i = 0; i < ranked.size(); i++) {
        NMActiveConnection *ac = ranked[i];
        const char *uuid = nm_active_connection_get_uuid(ac);
        std::string devices;
        const GPtrArray *devs = nm_active_connection_get_devices(ac);
        for (guint d = 0; devs && d < devs->len; d++)
            if (const char *iface = nm_device_get_iface(NM_DEVICE(devs->pdata[d])))
                devices += (devices.empty() ? "" : ",") + std::string(iface);
        for (auto &p : profiles_) {
            // The first active connection of a profile active more than once.
            if (uuid == nullptr || p.active ||
                g_strcmp0(nm_connection_get_uuid(p.connection.get()), uuid) != 0)
                continue;
            const char *path = nm_object_get_path(NM_OBJECT(ac));
            p.active = std::make_shared<const ActiveInfo>(
                ActiveInfo{devices, path ? path : "", nm_active_connection_get_state(ac), int(i)});
        }
    }
}

ActivationResult NetworkManagerBackend::activate(const std::string &uuid, const char *ifname, unsigned timeoutS)
{
    ActivationResult r = activateProfile(context_.get(), client_.get(), uuid, ifname, timeoutS);
    noteActive();
    return r;
}

Result<std::vector<std::string>> NetworkManagerBackend::deactivate(const std::string &uuid, unsigned timeoutS)
{
    auto r = deactivateProfile(context_.get(), client_.get(), uuid, timeoutS);
    noteActive();
    return r;
}

Result<std::string> NetworkManagerBackend::add(NMConnection *connection)
{
    if (Status s = validateUserData(connection); !s.ok())
        return std::move(s).error();
    auto copy = normalizedCopy(connection);
    if (!copy)
        return std::move(copy).error();
    const char *uuid = nm_connection_get_uuid(copy->get());
    ContextScope scope(context_.get());
    if (nm_client_get_connection_by_uuid(client_.get(), uuid) != nullptr)
        return Error(IBNM_ERROR_EXISTS, strprintf(_("a profile with UUID %s exists already"), uuid));

    AsyncWait w;
    nm_client_add_connection2(client_.get(), nm_connection_to_dbus(copy->get(), NM_CONNECTION_SERIALIZE_ALL),
                              NM_SETTINGS_ADD_CONNECTION2_FLAG_TO_DISK, nullptr, TRUE, nullptr, onReady, &w);
    GErrorPtr err;
    auto remote = GObjectPtr<NMRemoteConnection>::adopt(
        nm_client_add_connection2_finish(client_.get(), waitFor(context_.get(), w), nullptr, outPtr(err)));
    if (!remote)
        return fromNmError(err.get(), "NetworkManager");
    std::string where = storedName(remote.get());
    if (where.empty())
        where = nm_object_get_path(NM_OBJECT(remote.get()));
    profiles_.push_back(StoredProfile{std::move(*copy), storedName(remote.get()), {}});
    return where;
}

Status NetworkManagerBackend::update(NMConnection *connection)
{
    if (Status s = validateUserData(connection); !s.ok())
        return s;
    auto copy = normalizedCopy(connection);
    if (!copy)
        return std::move(copy).error();
    std::string uuid = nm_connection_get_uuid(copy->get());
    ContextScope scope(context_.get());
    auto remote = GObjectPtr<NMRemoteConnection>::retain(nm_client_get_connection_by_uuid(client_.get(), uuid.c_str()));
    if (!remote)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no profile with UUID %s"), uuid.c_str()));

    AsyncWait w;
    nm_remote_connection_update2(remote.get(), nm_connection_to_dbus(copy->get(), NM_CONNECTION_SERIALIZE_ALL),
                                 NM_SETTINGS_UPDATE2_FLAG_TO_DISK, nullptr, nullptr, onReady, &w);
    GErrorPtr err;
    GVariantPtr result(nm_remote_connection_update2_finish(remote.get(), waitFor(context_.get(), w), outPtr(err)));
    if (!result)
        return fromNmError(err.get(), "NetworkManager");
    // NMClient refetches the settings after NetworkManager's "Updated"
    // signal; wait for that so a reload right after sees the change.
    iterateUntil(
        context_.get(),
        [&] {
            return nm_connection_compare(NM_CONNECTION(remote.get()), copy->get(),
                                         NMSettingCompareFlags(NM_SETTING_COMPARE_FLAG_IGNORE_SECRETS |
                                                               NM_SETTING_COMPARE_FLAG_IGNORE_TIMESTAMP));
        },
        kSettleTimeoutMs);
    for (auto &p : profiles_)
        if (uuid == nm_connection_get_uuid(p.connection.get())) {
            p.connection = std::move(*copy);
            p.filename = storedName(remote.get());
            return {};
        }
    profiles_.push_back(StoredProfile{std::move(*copy), storedName(remote.get()), {}});
    return {};
}

Status NetworkManagerBackend::remove(const std::string &uuid)
{
    ContextScope scope(context_.get());
    auto remote = GObjectPtr<NMRemoteConnection>::retain(nm_client_get_connection_by_uuid(client_.get(), uuid.c_str()));
    if (!remote)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("no profile with UUID %s"), uuid.c_str()));
    AsyncWait w;
    nm_remote_connection_delete_async(remote.get(), nullptr, onReady, &w);
    GErrorPtr err;
    if (!nm_remote_connection_delete_finish(remote.get(), waitFor(context_.get(), w), outPtr(err)))
        return fromNmError(err.get(), "NetworkManager");
    iterateUntil(
        context_.get(), [&] { return nm_client_get_connection_by_uuid(client_.get(), uuid.c_str()) == nullptr; },
        kSettleTimeoutMs);
    profiles_.erase(std::remove_if(profiles_.begin(), profiles_.end(),
                                   [&](const StoredProfile &p) {
                                       return uuid == nm_connection_get_uuid(p.connection.get());
                                   }),
                    profiles_.end());
    return {};
}

} // namespace ibnm::settings
