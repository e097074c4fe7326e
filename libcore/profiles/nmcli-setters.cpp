// SPDX-License-Identifier: LGPL-2.1-or-later
// The setters of nmcli's property table: each parses one value text as
// nmcli 1.42 does (src/libnmc-setting/nm-meta-setting-desc.c) and sets one
// libnm property: connection, infiniband, ethernet, IP, bond, and any
// other property by its GParamSpec type.
#include "config.h"

#include "libcore/profiles/nmcli-args-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace ibnm::nmcli {

namespace {

// The property name part of "setting.property".
const char *propName(const std::string &property)
{
    return property.c_str() + property.find('.') + 1;
}

Status resetProperty(NMSetting *s, const char *name)
{
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(s), name);
    g_assert(pspec != nullptr);
    GValue v = G_VALUE_INIT;
    g_value_init(&v, pspec->value_type);
    g_param_value_set_default(pspec, &v);
    g_object_set_property(G_OBJECT(s), name, &v);
    g_value_unset(&v);
    return {};
}
// A property that takes one of `words` (nmcli matches a unique prefix,
// case-insensitively); an empty value resets it.
Status setWord(NMSetting *s, const std::string &property, Op op, const std::string &value, const char *gobjectProp,
               const std::vector<std::string_view> &words)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value.empty())
        return resetProperty(s, gobjectProp);
    auto word = matchWord(property, value, words);
    if (!word)
        return std::move(word).error();
    g_object_set(s, gobjectProp, word->c_str(), nullptr);
    return {};
}
Status setBool(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value.empty())
        return resetProperty(s, propName(property));
    auto b = parseBool(property, value);
    if (!b)
        return std::move(b).error();
    g_object_set(s, propName(property), gboolean(*b), nullptr);
    return {};
}
int familyOf(NMSetting *s)
{
    return NM_IS_SETTING_IP6_CONFIG(s) ? AF_INET6 : AF_INET;
}
Result<NMIPAddress *> parseAddress(const std::string &property, int family, const std::string &text)
{
    std::string addr = text;
    unsigned prefix = family == AF_INET ? 32 : 128;
    if (auto slash = text.find('/'); slash != std::string::npos) {
        addr = text.substr(0, slash);
        auto p = parseUint(text.substr(slash + 1), prefix);
        if (!p || text.size() == slash + 1)
            return badValue(property, strprintf(_("invalid prefix in '%s'"), text.c_str()));
        prefix = unsigned(*p);
    }
    GErrorPtr err;
    NMIPAddress *a = nm_ip_address_new(family, addr.c_str(), prefix, outPtr(err));
    if (a == nullptr)
        return badValue(property, strprintf(_("invalid IP address: %s"), err->message));
    return a;
}

// nmcli's `-property N`: a plain number removes the N-th item (counted
// from 0); an index past the end removes nothing.
std::optional<guint> removalIndex(Op op, const std::string &value)
{
    if (op != Op::Remove)
        return std::nullopt;
    std::string v = strip(value);
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return g_ascii_isdigit(c); }))
        return std::nullopt;
    auto n = parseUint(v, G_MAXUINT32);
    return n ? std::optional<guint>(guint(*n)) : std::nullopt;
}
// Integer properties nmcli reads as names of an enum or flags type (libnm
// declares them int; nmcli's property table, nm-meta-setting-desc.c, names
// the type). Properties declared with an enum or flags type need no entry.
struct IntEnum {
    std::string_view property;
    GType (*type)();
};
const IntEnum kIntEnums[] = {
    {"connection.multi-connect", nm_connection_multi_connect_get_type},
    {"connection.lldp", nm_setting_connection_lldp_get_type},
    {"connection.mdns", nm_setting_connection_mdns_get_type},
    {"connection.llmnr", nm_setting_connection_llmnr_get_type},
    {"connection.dns-over-tls", nm_setting_connection_dns_over_tls_get_type},
    {"connection.mptcp-flags", nm_mptcp_flags_get_type},
    {"802-3-ethernet.wake-on-lan", nm_setting_wired_wake_on_lan_get_type},
    {"ipv4.dhcp-hostname-flags", nm_dhcp_hostname_flags_get_type},
    {"ipv6.dhcp-hostname-flags", nm_dhcp_hostname_flags_get_type},
    {"ipv4.link-local", nm_setting_ip4_link_local_get_type},
    {"ipv6.addr-gen-mode", nm_setting_ip6_config_addr_gen_mode_get_type},
};

// An enum or flags value: a name (nick) or a number, flags also several
// names, as libnm's nm_utils_enum_from_str() reads them. The number is
// checked by verify(), as nmcli leaves it.
Status setEnum(NMSetting *s, const std::string &property, GParamSpec *pspec, GType type, const std::string &value)
{
    std::string v = strip(value);
    int n = 0;
    GCharPtr token;
    bool parsed = !v.empty() && nm_utils_enum_from_str(type, v.c_str(), &n, outPtr(token));
    // nmcli's extra names (its value_infos): a ternary also takes the
    // boolean words, lldp "enable" for enable-rx.
    if (!parsed && type == NM_TYPE_TERNARY) {
        if (auto b = parseBool(property, v)) {
            n = *b ? NM_TERNARY_TRUE : NM_TERNARY_FALSE;
            parsed = true;
        }
    }
    if (!parsed && property == "connection.lldp" && v == "enable") {
        n = NM_SETTING_CONNECTION_LLDP_ENABLE_RX;
        parsed = true;
    }
    if (!parsed) {
        const char **names = nm_utils_enum_get_values(type, G_MININT, G_MAXINT);
        GCharPtr list(names ? g_strjoinv(",", const_cast<char **>(names)) : g_strdup(""));
        g_free(names);
        return badValue(property, strprintf(_("invalid option '%s', use one of [%s]"), value.c_str(), list.get()));
    }
    GValue gv = G_VALUE_INIT;
    g_value_init(&gv, pspec->value_type);
    if (G_IS_PARAM_SPEC_ENUM(pspec))
        g_value_set_enum(&gv, n);
    else if (G_IS_PARAM_SPEC_FLAGS(pspec))
        g_value_set_flags(&gv, guint(n));
    else if (G_IS_PARAM_SPEC_UINT(pspec))
        g_value_set_uint(&gv, guint(n));
    else
        g_value_set_int(&gv, n);
    bool ok = !g_param_value_validate(pspec, &gv);
    if (ok)
        g_object_set_property(G_OBJECT(s), pspec->name, &gv);
    g_value_unset(&gv);
    if (!ok)
        return badValue(property, strprintf(_("'%s' is out of range"), value.c_str()));
    return {};
}
} // namespace

// The setting named `name`, added with nmcli's defaults when missing.
NMSetting *ensureSetting(NMConnection *c, const char *name)
{
    if (NMSetting *s = nm_connection_get_setting_by_name(c, name))
        return s;
    GType type = nm_setting_lookup_type(name);
    g_assert(type != G_TYPE_INVALID);
    auto *s = NM_SETTING(g_object_new(type, nullptr));
    // nmcli's nmc_setting_custom_init(): a new IPoIB profile is datagram.
    if (NM_IS_SETTING_INFINIBAND(s))
        g_object_set(s, NM_SETTING_INFINIBAND_TRANSPORT_MODE, "datagram", nullptr);
    // ... and new IP settings are automatic.
    if (NM_IS_SETTING_IP_CONFIG(s))
        g_object_set(s, NM_SETTING_IP_CONFIG_METHOD, "auto", nullptr);
    nm_connection_add_setting(c, s); // takes the reference
    return s;
}
Status onlySet(const std::string &property, Op op)
{
    if (op == Op::Set)
        return {};
    return badWord(property, _("'+' and '-' are allowed only for properties with several values"));
}
Status setString(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    g_object_set(s, propName(property), value.empty() ? nullptr : value.c_str(), nullptr);
    return {};
}

Status setType(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    std::vector<std::string_view> words;
    for (const auto &t : typeNames()) {
        words.push_back(t.name);
        if (!t.alias.empty())
            words.push_back(t.alias);
    }
    // ibnm's own word `rdma`: an RDMA secondary, a VPN profile of ibnm's
    // service (nm-ibnm-service) whose vpn.data holds the rdma.* keys.
    bool rdma = value == "rdma";
    std::string type = NM_SETTING_VPN_SETTING_NAME;
    if (!rdma) {
        auto word = matchWord(property, value, words);
        if (!word)
            return std::move(word).error();
        type = *word;
    }
    for (const auto &t : typeNames())
        if (t.alias == type)
            type = std::string(t.name);
    const char *old = nm_connection_get_connection_type(ctx.connection);
    // nmcli takes the type a profile has already.
    if (!ctx.adding && (old == nullptr || type != old))
        return notValid(property, _("the type of an existing profile cannot be changed"));
    if (type != NM_SETTING_INFINIBAND_SETTING_NAME && type != NM_SETTING_BOND_SETTING_NAME &&
        type != NM_SETTING_WIRED_SETTING_NAME && type != NM_SETTING_VPN_SETTING_NAME)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("ibnm handles infiniband, bond and ethernet profiles and RDMA secondaries (type "
                                 "rdma), not '%s'"),
                               type.c_str()))
            .withContext(property);
    if (old != nullptr && type != old)
        return notValid(property, _("the type is given twice"));
    g_object_set(s, NM_SETTING_CONNECTION_TYPE, type.c_str(), nullptr);
    NMSetting *typed = ensureSetting(ctx.connection, type.c_str());
    if (rdma)
        return makeSecondary(ctx.connection, typed);
    return {};
}

// An RDMA secondary: ibnm's VPN service, and the ibnm keys given before
// `type rdma` (in [user] then) moved into its vpn.data.
Status makeSecondary(NMConnection *c, NMSetting *vpn)
{
    g_object_set(vpn, NM_SETTING_VPN_SERVICE_TYPE, userkeys::kVpnServiceType, nullptr);
    auto *user = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    if (user == nullptr)
        return {};
    for (const auto &[key, value] : userkeys::data(c)) {
        if (!userkeys::isIbnmKey(key))
            continue;
        if (auto st = userkeys::validate(key, value, userkeys::Store::VpnData); !st)
            return st;
        nm_setting_vpn_add_data_item(NM_SETTING_VPN(vpn), key.c_str(), value.c_str());
        nm_setting_user_set_data(user, key.c_str(), nullptr, nullptr);
    }
    userkeys::dropEmptyUserSetting(c);
    return {};
}

// vpn.service-type (nmcli's `vpn-type`): ibnm handles its own service only.
Status setVpnType(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value != "ibnm" && value != userkeys::kVpnServiceType)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("ibnm handles the VPN type ibnm (%s, RDMA secondaries) only, not '%s'"),
                               userkeys::kVpnServiceType, value.c_str()))
            .withContext(property);
    g_object_set(s, NM_SETTING_VPN_SERVICE_TYPE, userkeys::kVpnServiceType, nullptr);
    return {};
}

// vpn.data: ibnm takes the RDMA keys as words of their own.
Status setVpnData(Ctx &, NMSetting *, const std::string &property, Op, const std::string &)
{
    return badWord(property, _("give the RDMA settings as words of their own (rdma.link-type rxe "
                               "rdma.roce-tos 106 ...): ibnm writes them into vpn.data"));
}
Status setSlaveType(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    return setWord(s, property, op, value, NM_SETTING_CONNECTION_SLAVE_TYPE,
                   {"bond", "bridge", "ovs-bridge", "ovs-port", "team", "vrf"});
}
Status setMtu(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value.empty())
        return resetProperty(s, propName(property));
    // nmcli takes "auto" (exactly so) for 0.
    auto n = value == "auto" ? std::optional<guint64>(0) : parseUint(value, G_MAXUINT32);
    if (!n)
        return badValue(property, strprintf(_("'%s' is not a number between 0 and %u"), value.c_str(), G_MAXUINT32));
    g_object_set(s, propName(property), guint(*n), nullptr);
    return {};
}

template <size_t Length>
Status setHwaddr(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value.empty())
        return resetProperty(s, propName(property));
    guint8 buf[Length];
    if (nm_utils_hwaddr_aton(value.c_str(), buf, Length) == nullptr)
        return badValue(property, Length == 20
                                      ? strprintf(_("'%s' is not a valid InfiniBand hardware address (20 bytes)"),
                                                  value.c_str())
                                      : strprintf(_("'%s' is not a valid Ethernet MAC address"), value.c_str()));
    GCharPtr canonical(nm_utils_hwaddr_ntoa(buf, Length));
    g_object_set(s, propName(property), canonical.get(), nullptr);
    return {};
}

Status setPkey(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value.empty())
        return resetProperty(s, NM_SETTING_INFINIBAND_P_KEY);
    std::optional<gint64> n;
    if (value == "default")
        n = -1;
    else
        n = parseInt(value, 0, -1, G_MAXUINT16);
    if (!n)
        return badValue(property,
                        strprintf(_("'%s' is not a valid P_Key (default, -1 or 0x0001-0xffff)"), value.c_str()));
    g_object_set(s, NM_SETTING_INFINIBAND_P_KEY, int(*n), nullptr);
    return {};
}

Status setTransportMode(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    return setWord(s, property, op, value, NM_SETTING_INFINIBAND_TRANSPORT_MODE, {"datagram", "connected"});
}

Status setIpMethod(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (NM_IS_SETTING_IP6_CONFIG(s))
        return setWord(s, property, op, value, NM_SETTING_IP_CONFIG_METHOD,
                       {"ignore", "auto", "dhcp", "link-local", "manual", "shared", "disabled"});
    return setWord(s, property, op, value, NM_SETTING_IP_CONFIG_METHOD,
                   {"auto", "link-local", "manual", "shared", "disabled"});
}
Status setAddresses(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    auto *ip = NM_SETTING_IP_CONFIG(s);
    if (auto idx = removalIndex(op, value)) {
        if (*idx < nm_setting_ip_config_get_num_addresses(ip))
            nm_setting_ip_config_remove_address(ip, *idx);
        return {};
    }
    std::vector<NMIPAddress *> parsed;
    Status status;
    for (const auto &item : splitList(value, false)) {
        auto a = parseAddress(property, familyOf(s), item);
        if (!a) {
            status = std::move(a).error();
            break;
        }
        parsed.push_back(*a);
    }
    if (status) {
        if (op == Op::Set)
            nm_setting_ip_config_clear_addresses(ip);
        for (auto *a : parsed) {
            if (op == Op::Remove)
                nm_setting_ip_config_remove_address_by_value(ip, a);
            else
                nm_setting_ip_config_add_address(ip, a);
        }
    }
    for (auto *a : parsed)
        nm_ip_address_unref(a);
    return status;
}

namespace {

// One route as nmcli reads it (libnm-client-aux's route parser, nmcli 1.42):
// `ip[/prefix] [next-hop] [metric] [attribute=val]...`; the attributes are
// libnm's (nm_ip_route_get_variant_attribute_spec(): table, src, onlink...).
Result<NMIPRoute *> parseRoute(const std::string &property, int family, const std::string &text)
{
    const char *syntax = _("The valid syntax is: 'ip[/prefix] [next-hop] [metric] [attribute=val]... "
                           "[,ip[/prefix] ...]'.");
    GStrvPtr words(g_strsplit_set(strip(text).c_str(), " \t", -1));
    std::vector<std::string> plain, attributes;
    for (char **w = words.get(); *w; w++) {
        if (**w == '\0')
            continue;
        (std::strchr(*w, '=') ? attributes : plain).push_back(*w);
    }
    if (plain.empty() || plain.size() > 3)
        return badValue(property, syntax);
    std::string dest = plain[0];
    unsigned prefix = family == AF_INET ? 32 : 128;
    if (auto slash = dest.find('/'); slash != std::string::npos) {
        auto p = parseUint(dest.substr(slash + 1), prefix);
        if (!p || dest.size() == slash + 1)
            return badValue(property, strprintf(_("invalid prefix '%s'; <0-%u> allowed."),
                                                dest.substr(slash + 1).c_str(), prefix));
        prefix = unsigned(*p);
        dest.resize(slash);
    }
    if (!nm_utils_ipaddr_valid(family, dest.c_str()))
        return badValue(property, strprintf(_("invalid route: Invalid IPv%c address '%s'. %s"),
                                            family == AF_INET ? '4' : '6', dest.c_str(), syntax));
    std::string hop;
    gint64 metric = -1;
    for (size_t i = 1; i < plain.size(); i++) {
        if (hop.empty() && metric < 0 && nm_utils_ipaddr_valid(family, plain[i].c_str())) {
            hop = plain[i];
        } else if (auto m = parseUint(plain[i], G_MAXUINT32); m && metric < 0) {
            metric = gint64(*m);
        } else {
            return badValue(property, syntax);
        }
    }
    GErrorPtr err;
    NMIPRoute *route = nm_ip_route_new(family, dest.c_str(), prefix, hop.empty() ? nullptr : hop.c_str(), metric,
                                       outPtr(err));
    if (route == nullptr)
        return badValue(property, strprintf(_("invalid route: %s. %s"), err->message, syntax));
    for (const auto &a : attributes) {
        GHashTable *parsed = nm_utils_parse_variant_attributes(a.c_str(), ' ', '=', FALSE,
                                                               nm_ip_route_get_variant_attribute_spec(), outPtr(err));
        if (parsed == nullptr) {
            nm_ip_route_unref(route);
            return badValue(property, strprintf(_("invalid option '%s': %s."), a.c_str(), err->message));
        }
        GHashTableIter it;
        gpointer name, v;
        g_hash_table_iter_init(&it, parsed);
        while (g_hash_table_iter_next(&it, &name, &v)) {
            // libnm 1.42 keeps the values floating in the table, whose
            // destructor unrefs them: owned by the table first, so that
            // the route's reference is one of its own.
            if (g_variant_is_floating(static_cast<GVariant *>(v)))
                g_variant_ref_sink(static_cast<GVariant *>(v));
            nm_ip_route_set_attribute(route, static_cast<const char *>(name), static_cast<GVariant *>(v));
        }
        g_hash_table_unref(parsed);
    }
    return route;
}

} // namespace

// ipv4.routes / ipv6.routes: a list as nmcli takes it (`+`/`-`, `-N`).
Status setRoutes(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    auto *ip = NM_SETTING_IP_CONFIG(s);
    if (auto idx = removalIndex(op, value)) {
        if (*idx < nm_setting_ip_config_get_num_routes(ip))
            nm_setting_ip_config_remove_route(ip, *idx);
        return {};
    }
    std::vector<NMIPRoute *> parsed;
    Status status;
    for (const auto &item : splitList(value, false)) {
        auto r = parseRoute(property, familyOf(s), item);
        if (!r) {
            status = std::move(r).error();
            break;
        }
        parsed.push_back(*r);
    }
    if (status) {
        if (op == Op::Set)
            nm_setting_ip_config_clear_routes(ip);
        for (auto *r : parsed) {
            if (op == Op::Remove)
                nm_setting_ip_config_remove_route_by_value(ip, r);
            else
                nm_setting_ip_config_add_route(ip, r);
        }
    }
    for (auto *r : parsed)
        nm_ip_route_unref(r);
    return status;
}

Status setIpAlias(Ctx &ctx, NMSetting *s, const std::string &property, Op, const std::string &value)
{
    // nmcli 1.42's ip4/ip6 (set_ip4_address()) add addresses whatever the
    // prefix ('+', '-' or none), and an empty value does nothing; when no
    // earlier word made the IP setting, they make it with method manual
    // (so in `add` only; `modify` keeps the method).
    if (strip(value).empty()) {
        if (ctx.settingCreated) // as if the word had not been given
            nm_connection_remove_setting(ctx.connection, G_OBJECT_TYPE(s));
        return {};
    }
    if (ctx.settingCreated)
        g_object_set(s, NM_SETTING_IP_CONFIG_METHOD, "manual", nullptr);
    return setAddresses(ctx, s, property, Op::Add, value);
}

Status setGateway(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (auto st = onlySet(property, op); !st)
        return st;
    std::string v = strip(value);
    // nmcli resets the gateway for an empty value, and refuses one that is
    // only blanks (" ", "\n") as an invalid address.
    if ((!v.empty() || !value.empty()) && !nm_utils_ipaddr_valid(familyOf(s), v.c_str()))
        return badValue(property, strprintf(_("invalid gateway '%s'"), value.c_str()));
    g_object_set(s, NM_SETTING_IP_CONFIG_GATEWAY, v.empty() ? nullptr : v.c_str(), nullptr);
    return {};
}

Status setDns(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    auto *ip = NM_SETTING_IP_CONFIG(s);
    if (auto idx = removalIndex(op, value)) {
        if (*idx < nm_setting_ip_config_get_num_dns(ip))
            nm_setting_ip_config_remove_dns(ip, *idx);
        return {};
    }
    auto items = splitList(value, true);
    // nmcli 1.42 stores any word here and verify() refuses a bad address:
    // a profile that does not verify (after all arguments), not a bad value.
    auto &deferred = ctx.deferred;
    if (op == Op::Set)
        deferred.erase(std::remove_if(deferred.begin(), deferred.end(),
                                      [&](const auto &d) { return d.first == property; }),
                       deferred.end());
    for (const auto &d : items)
        if (!nm_utils_ipaddr_valid(familyOf(s), d.c_str())) {
            if (op != Op::Remove)
                deferred.emplace_back(property, notValid(property, strprintf(_("invalid DNS server '%s'"), d.c_str())));
            return {};
        }
    if (op == Op::Set)
        nm_setting_ip_config_clear_dns(ip);
    for (const auto &d : items) {
        if (op == Op::Remove)
            nm_setting_ip_config_remove_dns_by_value(ip, d.c_str());
        else
            nm_setting_ip_config_add_dns(ip, d.c_str());
    }
    return {};
}

// ipv4.dns-search, ipv6.dns-search: domains, separated by commas or blanks.
Status setDnsSearch(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    auto *ip = NM_SETTING_IP_CONFIG(s);
    if (auto idx = removalIndex(op, value)) {
        if (*idx < nm_setting_ip_config_get_num_dns_searches(ip))
            nm_setting_ip_config_remove_dns_search(ip, *idx);
        return {};
    }
    auto items = splitList(value, true);
    if (op == Op::Set)
        nm_setting_ip_config_clear_dns_searches(ip);
    for (const auto &d : items) {
        if (op == Op::Remove)
            nm_setting_ip_config_remove_dns_search_by_value(ip, d.c_str());
        else
            nm_setting_ip_config_add_dns_search(ip, d.c_str());
    }
    (void)property;
    return {};
}

Status checkBondOption(const std::string &property, const std::string &name, const std::string &value)
{
    if (nm_setting_bond_validate_option(name.c_str(), value.c_str()))
        return {};
    if (name == NM_SETTING_BOND_OPTION_MODE)
        return badValue(property, strprintf(_("'%s' not among [%s]"), value.c_str(),
                                           "balance-rr, active-backup, balance-xor, broadcast, 802.3ad, "
                                           "balance-tlb, balance-alb"));
    return badValue(property, strprintf(_("failed to set bond option \"%s\""), name.c_str()));
}

Status setBondOptions(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    auto *bond = NM_SETTING_BOND(s);
    std::vector<std::pair<std::string, std::string>> options;
    for (const auto &item : splitList(value, false)) {
        auto eq = item.find('=');
        std::string name = strip(item.substr(0, eq));
        std::string v = eq == std::string::npos ? "" : strip(item.substr(eq + 1));
        if (op != Op::Remove) {
            if (eq == std::string::npos)
                return badValue(property, strprintf(_("'%s' is not of the form option=value"), item.c_str()));
            if (auto st = checkBondOption(property, name, v); !st)
                return st;
        }
        options.emplace_back(name, v);
    }
    if (op == Op::Set) {
        while (nm_setting_bond_get_num_options(bond) > 0) {
            const char *name = nullptr;
            nm_setting_bond_get_option(bond, 0, &name, nullptr);
            nm_setting_bond_remove_option(bond, name);
        }
    }
    for (const auto &[name, v] : options) {
        if (op == Op::Remove)
            nm_setting_bond_remove_option(bond, name.c_str());
        else
            nm_setting_bond_add_option(bond, name.c_str(), v.c_str());
    }
    return {};
}
// Any other property: parsed by its GParamSpec type, as nmcli's generic
// setters do for strings, booleans and integers.
Status setGeneric(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    const char *name = propName(property);
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(s), name);
    if (pspec == nullptr || !(pspec->flags & G_PARAM_WRITABLE) || (pspec->flags & G_PARAM_CONSTRUCT_ONLY))
        return badWord(property, _("no such property"));
    if (auto st = onlySet(property, op); !st)
        return st;
    if (value.empty())
        return resetProperty(s, name);
    GType t = pspec->value_type;
    if (t == G_TYPE_STRING)
        return setString(ctx, s, property, op, value);
    if (t == G_TYPE_BOOLEAN)
        return setBool(ctx, s, property, op, value);
    if (G_TYPE_IS_ENUM(t) || G_TYPE_IS_FLAGS(t))
        return setEnum(s, property, pspec, t, value);
    for (const auto &e : kIntEnums)
        if (e.property == property)
            return setEnum(s, property, pspec, e.type(), value);
    GValue v = G_VALUE_INIT;
    g_value_init(&v, t);
    bool ok = true;
    if (G_IS_PARAM_SPEC_INT(pspec)) {
        auto *p = G_PARAM_SPEC_INT(pspec);
        auto n = parseInt(value, 10, p->minimum, p->maximum);
        ok = n.has_value();
        if (ok)
            g_value_set_int(&v, int(*n));
    } else if (G_IS_PARAM_SPEC_UINT(pspec)) {
        auto *p = G_PARAM_SPEC_UINT(pspec);
        auto n = parseUint(value, p->maximum);
        ok = n.has_value() && *n >= p->minimum;
        if (ok)
            g_value_set_uint(&v, guint(*n));
    } else if (G_IS_PARAM_SPEC_INT64(pspec)) {
        auto *p = G_PARAM_SPEC_INT64(pspec);
        auto n = parseInt(value, 10, p->minimum, p->maximum);
        ok = n.has_value();
        if (ok)
            g_value_set_int64(&v, *n);
    } else if (G_IS_PARAM_SPEC_UINT64(pspec)) {
        auto *p = G_PARAM_SPEC_UINT64(pspec);
        auto n = parseUint(value, p->maximum);
        ok = n.has_value() && *n >= p->minimum;
        if (ok)
            g_value_set_uint64(&v, *n);
    } else {
        g_value_unset(&v);
        return Error(IBNM_ERROR_NOT_SUPPORTED, _("ibnm cannot set this property; use nmcli"))
            .withContext(property);
    }
    if (ok)
        g_object_set_property(G_OBJECT(s), name, &v);
    g_value_unset(&v);
    if (!ok)
        return badValue(property, strprintf(_("'%s' is not a valid value"), value.c_str()));
    return {};
}
template Status setHwaddr<20>(Ctx &, NMSetting *, const std::string &, Op, const std::string &);
template Status setHwaddr<6>(Ctx &, NMSetting *, const std::string &, Op, const std::string &);

} // namespace ibnm::nmcli
