// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection show`: the profiles as nmcli lists them, and one profile's
// settings with their values.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/connection.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace ibnm::cli {

namespace {

std::string formatValue(NMSetting *setting, GParamSpec *pspec)
{
    GValue v = G_VALUE_INIT;
    g_value_init(&v, pspec->value_type);
    g_object_get_property(G_OBJECT(setting), pspec->name, &v);
    std::string out;
    GType t = pspec->value_type;
    if (t == G_TYPE_STRING) {
        out = g_value_get_string(&v) ? g_value_get_string(&v) : "";
    } else if (t == G_TYPE_BOOLEAN) {
        out = g_value_get_boolean(&v) ? "yes" : "no";
    } else if (t == G_TYPE_STRV) {
        if (auto **sv = static_cast<char **>(g_value_get_boxed(&v))) {
            CharPtr j(g_strjoinv(",", sv));
            out = j.get();
        }
    } else if (G_TYPE_IS_ENUM(t)) {
        GEnumClass *k = static_cast<GEnumClass *>(g_type_class_ref(t));
        GEnumValue *ev = g_enum_get_value(k, g_value_get_enum(&v));
        out = ev ? ev->value_nick : std::to_string(g_value_get_enum(&v));
        g_type_class_unref(k);
    } else if (G_TYPE_IS_FLAGS(t)) {
        out = std::to_string(g_value_get_flags(&v));
    } else if (NM_IS_SETTING_IP_CONFIG(setting) && std::strcmp(pspec->name, NM_SETTING_IP_CONFIG_ADDRESSES) == 0) {
        auto *ip = NM_SETTING_IP_CONFIG(setting);
        for (guint i = 0; i < nm_setting_ip_config_get_num_addresses(ip); i++) {
            NMIPAddress *a = nm_setting_ip_config_get_address(ip, i);
            out += (i ? ", " : "") + std::string(nm_ip_address_get_address(a)) + "/" +
                   std::to_string(nm_ip_address_get_prefix(a));
        }
    } else if (NM_IS_SETTING_IP_CONFIG(setting) && std::strcmp(pspec->name, NM_SETTING_IP_CONFIG_ROUTES) == 0) {
        auto *ip = NM_SETTING_IP_CONFIG(setting);
        for (guint i = 0; i < nm_setting_ip_config_get_num_routes(ip); i++) {
            NMIPRoute *r = nm_setting_ip_config_get_route(ip, i);
            out += (i ? ", " : "") + std::string(nm_ip_route_get_dest(r)) + "/" +
                   std::to_string(nm_ip_route_get_prefix(r));
            if (nm_ip_route_get_next_hop(r))
                out += std::string(" ") + nm_ip_route_get_next_hop(r);
        }
    } else if (t == G_TYPE_HASH_TABLE) {
        if (auto *h = static_cast<GHashTable *>(g_value_get_boxed(&v))) {
            std::vector<std::string> items;
            GHashTableIter it;
            gpointer k, val;
            g_hash_table_iter_init(&it, h);
            while (g_hash_table_iter_next(&it, &k, &val))
                items.push_back(std::string(static_cast<char *>(k)) + "=" + static_cast<char *>(val));
            std::sort(items.begin(), items.end());
            for (size_t i = 0; i < items.size(); i++)
                out += (i ? "," : "") + items[i];
        }
    } else if (g_value_type_transformable(t, G_TYPE_STRING)) {
        GValue s = G_VALUE_INIT;
        g_value_init(&s, G_TYPE_STRING);
        g_value_transform(&v, &s);
        out = g_value_get_string(&s) ? g_value_get_string(&s) : "";
        g_value_unset(&s);
    }
    g_value_unset(&v);
    return out;
}

void addSettings(Record &r, NMConnection *c)
{
    guint n = 0;
    CharPtr list(reinterpret_cast<char *>(nm_connection_get_settings(c, &n)));
    auto **settings = reinterpret_cast<NMSetting **>(list.get());
    for (guint i = 0; i < n; i++) {
        NMSetting *s = settings[i];
        if (NM_IS_SETTING_USER(s)) {
            // ibnm's [user] keys are properties of their own: rdma.link-type...
            for (const char *const *k = nm_setting_user_get_keys(NM_SETTING_USER(s), nullptr); k && *k; k++)
                r.add(*k, nm_setting_user_get_data(NM_SETTING_USER(s), *k));
            continue;
        }
        guint np = 0;
        GParamSpec **props = g_object_class_list_properties(G_OBJECT_GET_CLASS(s), &np);
        for (guint p = 0; p < np; p++) {
            if (!(props[p]->flags & G_PARAM_READABLE) || std::strcmp(props[p]->name, "name") == 0)
                continue;
            std::string v = formatValue(s, props[p]);
            r.add(std::string(nm_setting_get_name(s)) + "." + props[p]->name, v.empty() ? Cell() : Cell(v));
        }
        g_free(props);
    }
    addSecondarySettings(r, c);
}

// Where each stored profile is active (nullptr: nowhere), in the order of
// `all`: NetworkManager's active connections, else (standalone mode) the
// profiles `connection up` brought up whose interface is still up as they
// describe (ibnm_apply_get_active_devices()).
std::vector<Cell> activeDevices(Context &ctx, IbnmSettings *s, GPtrArray *all)
{
    std::vector<Cell> out(all->len);
    if (g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") == 0) {
        for (guint i = 0; i < all->len; i++) {
            const char *dev = ibnm_settings_get_active_device(
                s, ibnm_profile_get_uuid(static_cast<IbnmProfile *>(g_ptr_array_index(all, i))));
            if (dev)
                out[i] = dev;
        }
        return out;
    }
    // Standalone: what ibnm's own `up` brought up and is still as it made it.
    if (ctx.host() == nullptr)
        return out;
    PtrArray connections = allConnections(s);
    ErrorPtr err;
    PtrArray devices(ibnm_apply_get_active_devices(ctx.host(), connections.get(), connections.get(), Out(err)));
    if (!devices) {
        std::fprintf(stderr, _("Warning: %s\n"), err->message);
        return out;
    }
    for (guint i = 0; i < devices->len && i < out.size(); i++)
        if (auto *d = static_cast<const char *>(g_ptr_array_index(devices.get(), i)))
            out[i] = d;
    return out;
}

std::string typeShortName(const std::string &type)
{
    return ibnm_connection_type_get_short_name(type.c_str());
}

// ACTIVE and STATE: nmcli's words, translated in tables (terse output and
// -g show them as they are, as nmcli's).
[[maybe_unused]] const char *const kShowWords[] = {N_("yes"),       N_("no"),           N_("activating"),
                                                   N_("activated"), N_("deactivating"), N_("deactivated")};

std::string translated(const std::string &word)
{
    return _(word.c_str());
}

// nmcli's STATE of an active profile: the nick of NetworkManager's
// NMActiveConnectionState (activating, activated...).
Cell activeStateWord(IbnmSettings *s, const char *uuid)
{
    NMActiveConnectionState state = ibnm_settings_get_active_state(s, uuid);
    if (state == NM_ACTIVE_CONNECTION_STATE_UNKNOWN)
        return {};
    auto *k = static_cast<GEnumClass *>(g_type_class_ref(NM_TYPE_ACTIVE_CONNECTION_STATE));
    GEnumValue *v = g_enum_get_value(k, state);
    Cell word = v ? Cell(v->value_nick) : Cell();
    g_type_class_unref(k);
    return word;
}

} // namespace

int cmdShow(Context &ctx, const Args &argsIn)
{
    // nmcli's options of `connection show`: --active (-a), --show-secrets
    // (-s; ibnm's profiles hold no secrets), before the IDs.
    Args args;
    bool activeOnly = false;
    for (size_t i = 0; i < argsIn.size(); i++) {
        const std::string &a = argsIn[i];
        if (args.empty() && (a == "--active" || a == "-a"))
            activeOnly = true;
        else if (args.empty() && (a == "--show-secrets" || a == "-s"))
            continue;
        else if (args.empty() && a == "--order")
            return usageError(_(kConnectionUsage), _("option '%s' is not supported"), a.c_str());
        else
            args.push_back(a);
    }
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    if (!args.empty()) {
        size_t i = 0;
        NMConnection *c = findOrComplain(s, takeId(args, i, true));
        if (!c)
            return notFoundStatus(s);
        if (i < args.size())
            return usageError(_(kConnectionUsage), _("argument '%s' not understood"), args[i].c_str());
        Record r("connection");
        CharPtr title(g_strdup_printf(_("Connection profile details (%s)"), nm_connection_get_id(c)));
        r.setTitle(title.get());
        addSettings(r, c);
        return r.print(ctx);
    }
    PtrArray all = allProfiles(s);
    // TYPE: tables show nmcli's short name (ethernet), terse output the type.
    // nmcli's columns in nmcli's order (ACTIVE, STATE and ACTIVE-PATH from
    // NetworkManager's active connections; standalone, an active profile is
    // "activated" and has no D-Bus path).
    Table t("connections", {{"NAME"},
                            {"UUID"},
                            {"TYPE", true, typeShortName},
                            {"ACTIVE", false, translated},
                            {"DEVICE"},
                            {"STATE", false, translated},
                            {"ACTIVE-PATH", false},
                            {"FILENAME", false}});
    t.setTitle(activeOnly ? _("NetworkManager active profiles") : _("NetworkManager connection profiles"));
    // FILENAME is not shown by default: then it costs nothing.
    bool files = t.shows(ctx, "FILENAME");
    std::vector<Cell> devices(all->len);
    bool nm = g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") == 0;
    // Standalone, whether a profile is active is whether it has a device
    // (below): asked whatever the fields, since it decides the order.
    if (activeOnly || !nm || t.shows(ctx, "DEVICE") || t.shows(ctx, "ACTIVE") || t.shows(ctx, "STATE"))
        devices = activeDevices(ctx, s, all.get());
    // nmcli's default order (--order active:name:path): active profiles
    // first, each part by name (the store lists them by name).
    // Active: NetworkManager has an active connection for it (which may
    // have no device yet), or standalone, ibnm's `up` brought it up.
    std::vector<bool> active(all->len);
    for (guint i = 0; i < all->len; i++) {
        const char *uuid = ibnm_profile_get_uuid(static_cast<IbnmProfile *>(g_ptr_array_index(all.get(), i)));
        active[i] = nm ? ibnm_settings_get_active_path(s, uuid) != nullptr : bool(devices[i]);
    }
    std::vector<guint> order;
    for (int a = 1; a >= 0; a--)
        for (guint i = 0; i < all->len; i++)
            if (active[i] == bool(a) && (a || !activeOnly))
                order.push_back(i);
    // NetworkManager's active profiles in nmcli's order.
    if (nm) {
        auto rank = [&](guint i) {
            return ibnm_settings_get_active_rank(
                s, ibnm_profile_get_uuid(static_cast<IbnmProfile *>(g_ptr_array_index(all.get(), i))));
        };
        auto firstInactive = std::find_if(order.begin(), order.end(), [&](guint i) { return !active[i]; });
        std::stable_sort(order.begin(), firstInactive, [&](guint x, guint y) { return rank(x) < rank(y); });
    }
    for (guint i : order) {
        auto *p = static_cast<IbnmProfile *>(g_ptr_array_index(all.get(), i));
        const char *uuid = ibnm_profile_get_uuid(p);
        const char *file = files ? ibnm_settings_get_filename(s, uuid) : nullptr;
        Cell state = !active[i] ? Cell() : nm ? activeStateWord(s, uuid) : Cell("activated");
        t.add({ibnm_profile_get_id(p), uuid, ibnm_profile_get_connection_type(p), Cell(active[i] ? "yes" : "no"),
               devices[i], state, nm ? cell(ibnm_settings_get_active_path(s, uuid)) : Cell(),
               file ? Cell(file) : Cell()});
    }
    return t.print(ctx);
}

} // namespace ibnm::cli
