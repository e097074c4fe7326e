// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli's words for `connection add` and `connection modify`: which
// settings a profile may carry, the property table, the aliases (`type`,
// `ifname`, `p-key`, ...), ibnm's [user] keys, and the defaults of a new
// profile. The values are parsed by nmcli-values.cpp and set by
// nmcli-setters.cpp.
#include "config.h"

#include "libcore/model/ipoib.hpp"
#include "libcore/profiles/nmcli-args-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

namespace ibnm::nmcli {

namespace {

// Settings a profile of `type` may carry (nmcli's list, restricted to what
// ibnm handles), in nmcli's order; aliases are looked up in this order.
std::vector<std::string_view> allowedSettings(NMConnection *c)
{
    std::vector<std::string_view> s = {NM_SETTING_CONNECTION_SETTING_NAME};
    const char *type = nm_connection_get_connection_type(c);
    std::string_view t = type ? type : "";
    if (t == NM_SETTING_INFINIBAND_SETTING_NAME)
        s.push_back(NM_SETTING_INFINIBAND_SETTING_NAME);
    else if (t == NM_SETTING_BOND_SETTING_NAME) {
        s.push_back(NM_SETTING_BOND_SETTING_NAME);
        s.push_back(NM_SETTING_WIRED_SETTING_NAME);
    } else if (t == NM_SETTING_WIRED_SETTING_NAME)
        s.push_back(NM_SETTING_WIRED_SETTING_NAME);
    else if (t == NM_SETTING_VPN_SETTING_NAME)
        s.push_back(NM_SETTING_VPN_SETTING_NAME);
    NMSettingConnection *sc = nm_connection_get_setting_connection(c);
    const char *slaveType = sc ? nm_setting_connection_get_slave_type(sc) : nullptr;
    if (slaveType == nullptr) {
        s.push_back(NM_SETTING_IP4_CONFIG_SETTING_NAME);
        s.push_back(NM_SETTING_IP6_CONFIG_SETTING_NAME);
    } else if (g_strcmp0(slaveType, NM_SETTING_BOND_SETTING_NAME) == 0) {
        s.push_back(NM_SETTING_BOND_PORT_SETTING_NAME);
    }
    return s;
}
struct PropertyRule {
    std::string_view property; // setting.property
    Setter set;
};
const PropertyRule kProperties[] = {
    {"connection.type", setType},
    {"connection.id", setString},
    {"connection.uuid", setString},
    {"connection.interface-name", setString},
    {"connection.master", setString},
    {"connection.slave-type", setSlaveType},
    {"infiniband.mac-address", setHwaddr<20>},
    {"infiniband.mtu", setMtu},
    {"infiniband.transport-mode", setTransportMode},
    {"infiniband.p-key", setPkey},
    {"infiniband.parent", setString},
    {"802-3-ethernet.mac-address", setHwaddr<6>},
    {"802-3-ethernet.mtu", setMtu},
    {"bond.options", setBondOptions},
    {"vpn.service-type", setVpnType},
    {"vpn.data", setVpnData},
    {"ipv4.method", setIpMethod},
    {"ipv4.addresses", setAddresses},
    {"ipv4.gateway", setGateway},
    {"ipv4.routes", setRoutes},
    {"ipv4.dns", setDns},
    {"ipv4.dns-search", setDnsSearch},
    {"ipv6.method", setIpMethod},
    {"ipv6.addresses", setAddresses},
    {"ipv6.gateway", setGateway},
    {"ipv6.routes", setRoutes},
    {"ipv6.dns", setDns},
    {"ipv6.dns-search", setDnsSearch},
};

// nmcli's `master` word (not connection.master) refuses an empty value.
Status setMasterAlias(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (value.empty())
        return badValue(property, _("master is required"));
    if (ctx.masters)
        ctx.masters->push_back(value);
    return setString(ctx, s, property, op, value);
}

struct Alias {
    std::string_view word;
    std::string_view property; // setting.property; "bond.<option>" for bond options
    Setter set = nullptr;      // nullptr: the property's own setter
};
const Alias kAliases[] = {
    {"type", "connection.type"},
    {"con-name", "connection.id"},
    {"ifname", "connection.interface-name"},
    {"master", "connection.master", setMasterAlias},
    {"slave-type", "connection.slave-type"},
    {"autoconnect", "connection.autoconnect"},
    {"mac", "infiniband.mac-address"},
    {"mtu", "infiniband.mtu"},
    {"transport-mode", "infiniband.transport-mode"},
    {"p-key", "infiniband.p-key"},
    {"parent", "infiniband.parent"},
    {"mac", "802-3-ethernet.mac-address"},
    {"mtu", "802-3-ethernet.mtu"},
    {"mode", "bond.mode"},
    {"primary", "bond.primary"},
    {"miimon", "bond.miimon"},
    {"downdelay", "bond.downdelay"},
    {"updelay", "bond.updelay"},
    {"arp-interval", "bond.arp-interval"},
    {"arp-ip-target", "bond.arp-ip-target"},
    {"lacp-rate", "bond.lacp-rate"},
    {"ip4", "ipv4.addresses", setIpAlias},
    {"gw4", "ipv4.gateway"},
    {"ip6", "ipv6.addresses", setIpAlias},
    {"gw6", "ipv6.gateway"},
    {"vpn-type", "vpn.service-type"},
};

// A bond alias sets one option: "mode active-backup" is bond.options mode=active-backup.
Status setBondAlias(Ctx &, NMSetting *s, const std::string &option, Op op, const std::string &value)
{
    std::string name = option;
    std::replace(name.begin(), name.end(), '-', '_');
    const std::string property = "bond.options";
    if (auto st = onlySet(option, op); !st)
        return st;
    if (value.empty()) {
        nm_setting_bond_remove_option(NM_SETTING_BOND(s), name.c_str());
        return {};
    }
    if (auto st = checkBondOption(property, name, strip(value)); !st)
        return st;
    nm_setting_bond_add_option(NM_SETTING_BOND(s), name.c_str(), strip(value).c_str());
    return {};
}

std::string settingName(std::string_view name)
{
    if (name == "ethernet")
        return NM_SETTING_WIRED_SETTING_NAME;
    return std::string(name);
}

Status setUserKey(Ctx &ctx, const std::string &key, Op op, const std::string &value)
{
    if (op == Op::Add)
        return badWord(key, _("'+' is not allowed for a key with one value"));
    bool remove = op == Op::Remove || value.empty();
    // An RDMA secondary keeps them in vpn.data.
    if (userkeys::isSecondary(ctx.connection))
        return userkeys::set(ctx.connection, key, remove ? nullptr : value.c_str());
    if (!remove)
        if (auto st = userkeys::validate(key, value); !st)
            return st;
    if (!userkeys::find(key))
        return userkeys::validate(key, value);
    if (remove && nm_connection_get_setting(ctx.connection, NM_TYPE_SETTING_USER) == nullptr)
        return {};
    auto *user = NM_SETTING_USER(ensureSetting(ctx.connection, NM_SETTING_USER_SETTING_NAME));
    GErrorPtr err;
    if (!nm_setting_user_set_data(user, key.c_str(), remove ? nullptr : value.c_str(), outPtr(err)))
        return badValue(key, err->message);
    userkeys::dropEmptyUserSetting(ctx.connection);
    return {};
}

Status applyOne(Ctx &ctx, const std::string &word, const std::string &value)
{
    Op op = Op::Set;
    std::string w = word;
    if (!w.empty() && (w[0] == '+' || w[0] == '-')) {
        op = w[0] == '+' ? Op::Add : Op::Remove;
        w.erase(0, 1);
    }

    if (userkeys::isIbnmKey(w))
        return setUserKey(ctx, w, op, value);

    auto allowed = allowedSettings(ctx.connection);
    auto isAllowed = [&](std::string_view setting) {
        return std::find(allowed.begin(), allowed.end(), setting) != allowed.end();
    };

    auto dot = w.find('.');
    if (dot == std::string::npos) {
        for (const auto &a : kAliases) {
            if (a.word != w)
                continue;
            std::string property(a.property);
            std::string setting = property.substr(0, property.find('.'));
            if (!isAllowed(setting))
                continue;
            ctx.settingCreated = nm_connection_get_setting_by_name(ctx.connection, setting.c_str()) == nullptr;
            NMSetting *s = ensureSetting(ctx.connection, setting.c_str());
            if (setting == NM_SETTING_BOND_SETTING_NAME)
                return setBondAlias(ctx, s, std::string(a.word), op, value);
            Setter set = a.set;
            for (const auto &p : kProperties)
                if (set == nullptr && p.property == a.property)
                    set = p.set;
            return (set ? set : setGeneric)(ctx, s, property, op, value);
        }
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("invalid <setting>.<property> '%s'"), w.c_str()));
    }

    std::string setting = settingName(std::string_view(w).substr(0, dot));
    std::string property = setting + w.substr(dot);
    if (nm_setting_lookup_type(setting.c_str()) == G_TYPE_INVALID)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("invalid <setting>.<property> '%s'"), w.c_str()));
    if (!isAllowed(setting)) {
        std::vector<std::string_view> names(allowed.begin(), allowed.end());
        return Error(IBNM_ERROR_INVALID_ARGUMENT,
                     strprintf(_("invalid or not allowed setting '%s': '%s' not among [%s]"), setting.c_str(),
                               setting.c_str(), join(names).c_str()));
    }
    NMSetting *s = ensureSetting(ctx.connection, setting.c_str());
    for (const auto &p : kProperties)
        if (p.property == property)
            return p.set(ctx, s, property, op, value);
    return setGeneric(ctx, s, property, op, value);
}

Status applyAll(Ctx &ctx, const std::vector<std::string> &args)
{
    for (size_t i = 0; i < args.size(); i += 2) {
        if (i + 1 >= args.size())
            return Error(IBNM_ERROR_INVALID_ARGUMENT, strprintf(_("value is missing for '%s'"), args[i].c_str()));
        if (auto st = applyOne(ctx, args[i], args[i + 1]); !st)
            return st;
    }
    if (!ctx.deferred.empty())
        return ctx.deferred.front().second;
    return {};
}

// nmcli's default id: "<type>-<ifname>", "bond-slave-<ifname>" for a bond port.
std::string defaultId(NMConnection *c)
{
    NMSettingConnection *sc = nm_connection_get_setting_connection(c);
    std::string stem = nm_setting_connection_get_connection_type(sc);
    if (stem == NM_SETTING_WIRED_SETTING_NAME)
        stem = "ethernet";
    if (const char *slaveType = nm_setting_connection_get_slave_type(sc))
        stem = std::string(slaveType) + "-slave";
    if (const char *ifname = nm_setting_connection_get_interface_name(sc))
        return stem + "-" + ifname;
    return stem;
}

Status normalize(NMConnection *c)
{
    // libnm 1.42 sets a GError twice inside nm_connection_normalize() when
    // it clamps an [infiniband] MTU above 65520, and GLib warns. Clamp first,
    // exactly as its _normalize_infiniband_mtu() does, so it has nothing to do.
    if (auto *ib = nm_connection_get_setting_infiniband(c); ib && nm_setting_infiniband_get_mtu(ib) > model::kConnectedMtuMax)
        g_object_set(ib, NM_SETTING_INFINIBAND_MTU, model::kConnectedMtuMax, nullptr);
    if (nm_connection_normalize(c, nullptr, nullptr, nullptr))
        return {};
    return verify(c);
}

// A setting the words of connectionUnchangedBy() name, with the GObject
// properties they may write.
struct Named {
    std::string setting;
    std::vector<std::string> properties;
};

void addNamed(std::vector<Named> &named, std::string setting, std::string property)
{
    auto it = std::find_if(named.begin(), named.end(), [&](const Named &n) { return n.setting == setting; });
    if (it == named.end()) {
        named.push_back({std::move(setting), {}});
        it = named.end() - 1;
    }
    if (std::find(it->properties.begin(), it->properties.end(), property) == it->properties.end())
        it->properties.push_back(std::move(property));
}

// The settings and properties `word` may write, as applyOne() finds them (an
// alias: every setting it may stand for); false when it names no property
// (applyOne() refuses it).
bool addNamedBy(const std::string &word, std::vector<Named> &named)
{
    std::string_view w = word;
    if (!w.empty() && (w[0] == '+' || w[0] == '-'))
        w.remove_prefix(1);
    if (userkeys::isIbnmKey(w)) {
        addNamed(named, NM_SETTING_USER_SETTING_NAME, NM_SETTING_USER_DATA);
        return true;
    }
    if (auto dot = w.find('.'); dot != std::string_view::npos) {
        addNamed(named, settingName(w.substr(0, dot)), std::string(w.substr(dot + 1)));
        return true;
    }
    bool found = false;
    for (const auto &a : kAliases) {
        if (a.word != w)
            continue;
        auto at = a.property.find('.');
        std::string setting(a.property.substr(0, at));
        bool bond = setting == NM_SETTING_BOND_SETTING_NAME;
        addNamed(named, setting, bond ? NM_SETTING_BOND_OPTIONS : std::string(a.property.substr(at + 1)));
        found = true;
    }
    return found;
}

using Writes = std::vector<std::pair<GObject *, GParamSpec *>>;

void recordNotify(GObject *object, GParamSpec *pspec, gpointer data)
{
    static_cast<Writes *>(data)->emplace_back(object, pspec);
}

// Whether `a` and `b` hold the same value of `pspec`: true only where
// nm_connection_compare(EXACT) then finds the property equal (it compares
// what the values serialize to, and addresses with their attributes);
// nullopt for a type not compared here (then ask nm_setting_diff()).
std::optional<bool> sameValue(NMSetting *a, NMSetting *b, GParamSpec *pspec)
{
    if (NM_IS_SETTING_IP_CONFIG(a) && g_strcmp0(pspec->name, NM_SETTING_IP_CONFIG_ADDRESSES) == 0) {
        auto *x = NM_SETTING_IP_CONFIG(a), *y = NM_SETTING_IP_CONFIG(b);
        guint n = nm_setting_ip_config_get_num_addresses(x);
        if (n != nm_setting_ip_config_get_num_addresses(y))
            return false;
        for (guint i = 0; i < n; i++)
            if (nm_ip_address_cmp_full(nm_setting_ip_config_get_address(x, i), nm_setting_ip_config_get_address(y, i),
                                       NM_IP_ADDRESS_CMP_FLAGS_WITH_ATTRS) != 0)
                return false;
        return true;
    }
    GType t = pspec->value_type;
    bool plain = t == G_TYPE_STRING || t == G_TYPE_BOOLEAN || t == G_TYPE_INT || t == G_TYPE_UINT ||
                 t == G_TYPE_INT64 || t == G_TYPE_UINT64 || G_TYPE_IS_ENUM(t) || G_TYPE_IS_FLAGS(t);
    if (!plain && t != G_TYPE_STRV)
        return std::nullopt;
    GValue x = G_VALUE_INIT, y = G_VALUE_INIT;
    g_value_init(&x, t);
    g_value_init(&y, t);
    g_object_get_property(G_OBJECT(a), pspec->name, &x);
    g_object_get_property(G_OBJECT(b), pspec->name, &y);
    bool same;
    if (plain) {
        same = g_param_values_cmp(pspec, &x, &y) == 0;
    } else {
        static const gchar *const empty[] = {nullptr};
        auto *sx = static_cast<const gchar *const *>(g_value_get_boxed(&x));
        auto *sy = static_cast<const gchar *const *>(g_value_get_boxed(&y));
        same = g_strv_equal(sx ? sx : empty, sy ? sy : empty);
    }
    g_value_unset(&x);
    g_value_unset(&y);
    return same;
}

} // namespace

Result<GObjectPtr<NMConnection>> connectionAdd(const std::vector<std::string> &args, std::vector<std::string> *masters)
{
    auto connection = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    ensureSetting(connection.get(), NM_SETTING_CONNECTION_SETTING_NAME);
    Ctx ctx{connection.get(), true};
    ctx.masters = masters;
    if (auto st = applyAll(ctx, args); !st)
        return std::move(st).error();
    NMSettingConnection *sc = nm_connection_get_setting_connection(connection.get());
    if (nm_setting_connection_get_connection_type(sc) == nullptr)
        return Error(IBNM_ERROR_INVALID_ARGUMENT, _("'type' argument is required"));
    // nmcli names a bond without ifname nm-bond (unique_master_iface_ifname();
    // offline, no other profile takes the name).
    if (nm_setting_connection_get_interface_name(sc) == nullptr &&
        g_strcmp0(nm_setting_connection_get_connection_type(sc), NM_SETTING_BOND_SETTING_NAME) == 0)
        g_object_set(sc, NM_SETTING_CONNECTION_INTERFACE_NAME, "nm-bond", nullptr);
    if (nm_setting_connection_get_id(sc) == nullptr)
        g_object_set(sc, NM_SETTING_CONNECTION_ID, defaultId(connection.get()).c_str(), nullptr);

    // nmcli gives a bond port its [bond-port] setting.
    if (g_strcmp0(nm_setting_connection_get_slave_type(sc), NM_SETTING_BOND_SETTING_NAME) == 0)
        ensureSetting(connection.get(), NM_SETTING_BOND_PORT_SETTING_NAME);
    if (nm_setting_connection_get_uuid(sc) == nullptr) {
        GCharPtr uuid(nm_utils_uuid_generate());
        g_object_set(sc, NM_SETTING_CONNECTION_UUID, uuid.get(), nullptr);
    }
    if (auto st = normalize(connection.get()); !st)
        return std::move(st).error();
    return connection;
}

Result<GObjectPtr<NMConnection>> connectionModified(NMConnection *connection, const std::vector<std::string> &args,
                                                    std::vector<std::string> *masters)
{
    auto copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(connection));
    Ctx ctx{copy.get(), false};
    ctx.masters = masters;
    if (auto st = applyAll(ctx, args); !st)
        return std::move(st).error();
    if (auto st = normalize(copy.get()); !st)
        return std::move(st).error();
    return copy;
}

Status connectionModify(NMConnection *connection, const std::vector<std::string> &args,
                        std::vector<std::string> *masters)
{
    auto copy = connectionModified(connection, args, masters);
    if (!copy)
        return std::move(copy).error();
    nm_connection_replace_settings_from_connection(connection, copy->get());
    return {};
}

// Sound because every setter reads and writes only the property its word
// names (and the grammar reads the connection's type and port type, which
// the shadow holds): the same words on a clone of `connection` then write
// the same values, which equal the profile's, so the clone is the profile,
// and normalizing a normalized profile leaves it so. What it cannot prove
// (a setting added or removed, a property written that no word names, an
// error) answers false.
bool connectionUnchangedBy(NMConnection *connection, const std::vector<std::string> &args)
{
    std::vector<Named> named;
    addNamed(named, NM_SETTING_CONNECTION_SETTING_NAME, NM_SETTING_CONNECTION_TYPE);
    addNamed(named, NM_SETTING_CONNECTION_SETTING_NAME, NM_SETTING_CONNECTION_SLAVE_TYPE);
    for (size_t i = 0; i < args.size(); i += 2)
        if (!addNamedBy(args[i], named))
            return false;
    struct Shadowed {
        NMSetting *original;
        NMSetting *copy; // held by `ref` too: a word may remove it from the shadow
        std::vector<GParamSpec *> properties;
        GObjectPtr<NMSetting> ref;
    };
    std::vector<Shadowed> shadowed;
    Writes written; // outlives the handlers that point to it
    auto shadow = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    for (const auto &n : named) {
        NMSetting *original = nm_connection_get_setting_by_name(connection, n.setting.c_str());
        if (original == nullptr)
            continue; // a word that names it creates it: seen below
        auto copy = GObjectPtr<NMSetting>::adopt(NM_SETTING(g_object_new(G_OBJECT_TYPE(original), nullptr)));
        Shadowed s{original, copy.get(), {}, GObjectPtr<NMSetting>::retain(copy.get())};
        for (const auto &name : n.properties) {
            GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(original), name.c_str());
            if (pspec == nullptr || (pspec->flags & G_PARAM_READWRITE) != G_PARAM_READWRITE ||
                (pspec->flags & G_PARAM_CONSTRUCT_ONLY))
                return false;
            GValue v = G_VALUE_INIT;
            g_value_init(&v, pspec->value_type);
            g_object_get_property(G_OBJECT(original), pspec->name, &v);
            g_object_set_property(G_OBJECT(copy.get()), pspec->name, &v);
            g_value_unset(&v);
            s.properties.push_back(pspec);
        }
        nm_connection_add_setting(shadow.get(), NM_SETTING(g_object_ref(copy.get())));
        g_signal_connect(copy.get(), "notify", G_CALLBACK(recordNotify), &written);
        shadowed.push_back(std::move(s));
    }
    Ctx ctx{shadow.get(), false};
    bool applied = applyAll(ctx, args).ok();
    for (const auto &s : shadowed)
        g_signal_handlers_disconnect_by_data(s.copy, &written);
    if (!applied)
        return false;
    // No setting added or removed.
    guint count = 0;
    g_free(nm_connection_get_settings(shadow.get(), &count));
    if (count != shadowed.size())
        return false;
    for (const auto &s : shadowed)
        if (nm_connection_get_setting_by_name(shadow.get(), nm_setting_get_name(s.copy)) != s.copy)
            return false;
    // Only named properties written ...
    for (const auto &w : written) {
        auto s = std::find_if(shadowed.begin(), shadowed.end(),
                              [&](const Shadowed &x) { return G_OBJECT(x.copy) == w.first; });
        if (s == shadowed.end() ||
            std::none_of(s->properties.begin(), s->properties.end(),
                         [&](GParamSpec *p) { return g_strcmp0(p->name, w.second->name) == 0; }))
            return false;
    }
    // ... and each as the profile has it.
    for (const auto &s : shadowed) {
        bool diffed = false;
        GHashTable *diff = nullptr;
        for (GParamSpec *p : s.properties) {
            auto same = sameValue(s.copy, s.original, p);
            if (!same && !diffed) {
                diffed = true;
                nm_setting_diff(s.copy, s.original, NM_SETTING_COMPARE_FLAG_EXACT, FALSE, &diff);
            }
            if (same ? !*same : (diff && g_hash_table_contains(diff, p->name))) {
                if (diff)
                    g_hash_table_unref(diff);
                return false;
            }
        }
        if (diff)
            g_hash_table_unref(diff);
    }
    return true;
}

} // namespace ibnm::nmcli
