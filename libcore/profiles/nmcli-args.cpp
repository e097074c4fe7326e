// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/ipoib.hpp"
#include "libcore/profiles/nmcli-args.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace ibnm::nmcli {

namespace {

enum class Op { Set, Add, Remove };

// nmcli refuses arguments in two ways, with two exit statuses: a value the
// property's own parser refuses as it is set, like a word that names nothing
// settable, is a user-input error (2); a profile whose values all parsed but
// which does not verify is a failure (1). The codes keep the two apart.
Error badValue(const std::string &property, std::string message)
{
    return Error(IBNM_ERROR_INVALID_VALUE, std::move(message)).withContext(property);
}

Error notValid(const std::string &property, std::string message)
{
    return Error(IBNM_ERROR_INVALID_PROPERTY, std::move(message)).withContext(property);
}

Error badWord(const std::string &property, std::string message)
{
    return Error(IBNM_ERROR_INVALID_ARGUMENT, std::move(message)).withContext(property);
}

std::string strip(std::string_view v)
{
    size_t b = 0, e = v.size();
    while (b < e && g_ascii_isspace(v[b]))
        b++;
    while (e > b && g_ascii_isspace(v[e - 1]))
        e--;
    return std::string(v.substr(b, e - b));
}

std::string join(const std::vector<std::string_view> &words)
{
    std::string s;
    for (auto w : words) {
        if (!s.empty())
            s += ", ";
        s += w;
    }
    return s;
}

// nmcli's nmc_string_is_valid(): case-insensitive, an exact match wins,
// otherwise a unique prefix.
Result<std::string> matchWord(const std::string &property, const std::string &value,
                              const std::vector<std::string_view> &allowed)
{
    std::vector<std::string_view> hits;
    for (auto a : allowed) {
        if (value.size() == a.size() && g_ascii_strncasecmp(value.c_str(), a.data(), a.size()) == 0)
            return std::string(a);
        if (!value.empty() && value.size() < a.size() &&
            g_ascii_strncasecmp(value.c_str(), a.data(), value.size()) == 0)
            hits.push_back(a);
    }
    if (hits.size() == 1)
        return std::string(hits[0]);
    if (hits.empty())
        return badValue(property, strprintf(_("'%s' not among [%s]"), value.c_str(), join(allowed).c_str()));
    return badValue(property, strprintf(_("'%s' is ambiguous (%s)"), value.c_str(), join(hits).c_str()));
}

// nmcli's nmc_string_to_bool(): "1" and "0", else a unique prefix of one
// of its six words, case-insensitively ("y", "t", "n", "f", "ye"...).
Result<bool> parseBool(const std::string &property, const std::string &value)
{
    std::string v = strip(value);
    if (v == "1" || v == "0")
        return v == "1";
    std::optional<bool> hit;
    int hits = 0;
    for (const char *t : {"true", "yes", "on", "false", "no", "off"}) {
        bool truth = std::string_view(t) == "true" || std::string_view(t) == "yes" || std::string_view(t) == "on";
        if (g_ascii_strcasecmp(v.c_str(), t) == 0)
            return truth;
        if (!v.empty() && v.size() < std::strlen(t) && g_ascii_strncasecmp(v.c_str(), t, v.size()) == 0) {
            hit = truth;
            hits++;
        }
    }
    if (hits == 1)
        return *hit;
    return badValue(property,
                    strprintf(_("'%s' is not valid; use [true, yes, on] or [false, no, off]"), value.c_str()));
}

// _nm_utils_ascii_str_to_int64(): surrounding whitespace allowed, the whole
// rest must be the number, in range.
std::optional<gint64> parseInt(const std::string &value, unsigned base, gint64 min, gint64 max)
{
    std::string v = strip(value);
    if (v.empty())
        return std::nullopt;
    errno = 0;
    char *end = nullptr;
    gint64 n = g_ascii_strtoll(v.c_str(), &end, base);
    if (errno != 0 || end == v.c_str() || *end != '\0' || n < min || n > max)
        return std::nullopt;
    return n;
}

std::optional<guint64> parseUint(const std::string &value, guint64 max)
{
    std::string v = strip(value);
    if (v.empty() || !g_ascii_isdigit(v[0]))
        return std::nullopt;
    errno = 0;
    char *end = nullptr;
    guint64 n = g_ascii_strtoull(v.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || n > max)
        return std::nullopt;
    return n;
}

// The connection types nmcli 1.42 knows, with their aliases, so that prefix
// matching is ambiguous exactly where nmcli's is; ibnm handles three of them.
struct TypeName {
    std::string_view name;
    std::string_view alias; // nmcli's short name, also the default id's stem
};
const std::vector<TypeName> &typeNames()
{
    // nmcli 1.42 matches `type` against every setting it knows (by name or
    // alias, sorted by name: nm_meta_setting_infos), then the three "-slave"
    // pseudo types; so `type eth` is ambiguous (ethernet, ethtool) as there.
    static const std::vector<TypeName> names = {
        {"6lowpan", ""}, {"802-11-olpc-mesh", "olpc-mesh"}, {"802-11-wireless", "wifi"},
        {"802-11-wireless-security", "wifi-sec"}, {"802-1x", ""}, {"802-3-ethernet", "ethernet"}, {"adsl", ""},
        {"bluetooth", ""}, {"bond", ""}, {"bond-port", ""}, {"bridge", ""}, {"bridge-port", ""}, {"cdma", ""},
        {"connection", ""}, {"dcb", ""}, {"dummy", ""}, {"ethtool", ""}, {"generic", ""}, {"gsm", ""},
        {"hostname", ""}, {"infiniband", ""}, {"ip-tunnel", ""}, {"ipv4", ""}, {"ipv6", ""}, {"loopback", ""},
        {"macsec", ""}, {"macvlan", ""}, {"match", ""}, {"ovs-bridge", ""}, {"ovs-dpdk", ""},
        {"ovs-external-ids", ""}, {"ovs-interface", ""}, {"ovs-patch", ""}, {"ovs-port", ""}, {"ppp", ""},
        {"pppoe", ""}, {"proxy", ""}, {"serial", ""}, {"sriov", ""}, {"tc", ""}, {"team", ""}, {"team-port", ""},
        {"tun", ""}, {"user", ""}, {"veth", ""}, {"vlan", ""}, {"vpn", ""}, {"vrf", ""}, {"vxlan", ""},
        {"wifi-p2p", ""}, {"wimax", ""}, {"wireguard", ""}, {"wpan", ""}, {"bond-slave", ""}, {"bridge-slave", ""},
        {"team-slave", ""},
    };
    return names;
}

} // namespace

const char *typeShortName(const char *type)
{
    if (type == nullptr)
        return nullptr;
    for (const auto &t : typeNames())
        if (t.name == type && !t.alias.empty())
            return t.alias.data();
    return type;
}

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

struct Ctx {
    NMConnection *connection;
    bool adding;
    // Whether the setting the current word names was created for it.
    bool settingCreated = false;
    // A value that parses but will not verify (a bad DNS server): reported
    // after every argument has parsed, so that a word or value that does
    // not parse (exit 2) wins, as in nmcli.
    // One a property; a later value that replaces the list drops it.
    std::vector<std::pair<std::string, Error>> deferred;
};

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

using Setter = Status (*)(Ctx &, NMSetting *, const std::string &property, Op, const std::string &value);

Status onlySet(const std::string &property, Op op)
{
    if (op == Op::Set)
        return {};
    return badWord(property, _("'+' and '-' are allowed only for properties with several values"));
}

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
    auto word = matchWord(property, value, words);
    if (!word)
        return std::move(word).error();
    std::string type = *word;
    for (const auto &t : typeNames())
        if (t.alias == type)
            type = std::string(t.name);
    const char *old = nm_connection_get_connection_type(ctx.connection);
    // nmcli takes the type a profile has already.
    if (!ctx.adding && (old == nullptr || type != old))
        return notValid(property, _("the type of an existing profile cannot be changed"));
    if (type != NM_SETTING_INFINIBAND_SETTING_NAME && type != NM_SETTING_BOND_SETTING_NAME &&
        type != NM_SETTING_WIRED_SETTING_NAME)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("ibnm handles infiniband, bond and ethernet profiles, not '%s'"), type.c_str()))
            .withContext(property);
    if (old != nullptr && type != old)
        return notValid(property, _("the type is given twice"));
    g_object_set(s, NM_SETTING_CONNECTION_TYPE, type.c_str(), nullptr);
    ensureSetting(ctx.connection, type.c_str());
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

Status setSlaveType(Ctx &, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    return setWord(s, property, op, value, NM_SETTING_CONNECTION_SLAVE_TYPE,
                   {"bond", "bridge", "ovs-bridge", "ovs-port", "team", "vrf"});
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

int familyOf(NMSetting *s)
{
    return NM_IS_SETTING_IP6_CONFIG(s) ? AF_INET6 : AF_INET;
}

// Splits a list value at commas (and, where `spaces`, whitespace).
std::vector<std::string> splitList(const std::string &value, bool spaces)
{
    std::vector<std::string> items;
    std::string cur;
    auto flush = [&]() {
        std::string t = strip(cur);
        if (!t.empty())
            items.push_back(t);
        cur.clear();
    };
    for (char c : value) {
        if (c == ',' || (spaces && g_ascii_isspace(c)))
            flush();
        else
            cur += c;
    }
    flush();
    return items;
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
    {"ipv4.method", setIpMethod},
    {"ipv4.addresses", setAddresses},
    {"ipv4.gateway", setGateway},
    {"ipv4.dns", setDns},
    {"ipv4.dns-search", setDnsSearch},
    {"ipv6.method", setIpMethod},
    {"ipv6.addresses", setAddresses},
    {"ipv6.gateway", setGateway},
    {"ipv6.dns", setDns},
    {"ipv6.dns-search", setDnsSearch},
};

// nmcli's `master` word (not connection.master) refuses an empty value.
Status setMasterAlias(Ctx &ctx, NMSetting *s, const std::string &property, Op op, const std::string &value)
{
    if (value.empty())
        return badValue(property, _("master is required"));
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

} // namespace

Error verifyError(NMConnection *connection, const GError *error)
{
    std::string message = error->message;
    // libnm 1.42 prefixes some errors with "setting.property", some with the
    // property alone ("p-key: ..."): name the setting everywhere.
    guint n = 0;
    GCharPtr settings(reinterpret_cast<char *>(nm_connection_get_settings(connection, &n)));
    auto **list = reinterpret_cast<NMSetting **>(settings.get());
    for (guint i = 0; i < n; i++) {
        GErrorPtr e;
        bool ok = nm_setting_verify(list[i], connection, outPtr(e));
        if (ok || g_strcmp0(e->message, error->message) != 0)
            continue;
        std::string name = nm_setting_get_name(list[i]);
        auto colon = message.find(": ");
        if (colon != std::string::npos && message.compare(0, name.size() + 1, name + ".") != 0 &&
            message.find_first_of(" .'") > colon &&
            g_object_class_find_property(G_OBJECT_GET_CLASS(list[i]), message.substr(0, colon).c_str()))
            message = name + "." + message;
        break;
    }
    // libnm gives the property only as the text's "setting.property: "
    // prefix: this is the one place that reads it, for Error::property().
    Error out(IBNM_ERROR_INVALID_PROPERTY, std::move(message));
    const std::string &m = out.message();
    auto colon = m.find(": ");
    auto dot = m.find('.');
    if (colon != std::string::npos && dot < colon && m.find(' ') > colon) {
        GCharPtr setting(g_strndup(m.c_str(), dot));
        NMSetting *st = nm_connection_get_setting_by_name(connection, setting.get());
        std::string prop = m.substr(dot + 1, colon - dot - 1);
        if (st && g_object_class_find_property(G_OBJECT_GET_CLASS(st), prop.c_str()))
            out = Error(IBNM_ERROR_INVALID_PROPERTY, m.substr(colon + 2)).withProperty(m.substr(0, colon));
    }
    return out;
}

Status verify(NMConnection *connection)
{
    // libnm 1.42's nm_connection_verify() sets its GError twice for some
    // normalizable errors (an MTU above 65520), which GLib warns about: ask
    // it without an error first, then the settings one by one, in libnm's
    // order, for the reason.
    if (nm_connection_verify(connection, nullptr))
        return {};
    guint n = 0;
    GCharPtr settings(reinterpret_cast<char *>(nm_connection_get_settings(connection, &n)));
    auto **list = reinterpret_cast<NMSetting **>(settings.get());
    for (guint i = 0; i < n; i++) {
        GErrorPtr e;
        bool ok = nm_setting_verify(list[i], connection, outPtr(e));
        if (!ok && e)
            return verifyError(connection, e.get());
    }
    GErrorPtr err;
    bool ok = nm_connection_verify(connection, outPtr(err));
    if (ok || !err)
        return Error(IBNM_ERROR_INVALID_PROPERTY, _("the profile is not valid"));
    return verifyError(connection, err.get());
}

Result<GObjectPtr<NMConnection>> connectionAdd(const std::vector<std::string> &args)
{
    auto connection = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    ensureSetting(connection.get(), NM_SETTING_CONNECTION_SETTING_NAME);
    Ctx ctx{connection.get(), true};
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

Result<GObjectPtr<NMConnection>> connectionModified(NMConnection *connection, const std::vector<std::string> &args)
{
    auto copy = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(connection));
    Ctx ctx{copy.get(), false};
    if (auto st = applyAll(ctx, args); !st)
        return std::move(st).error();
    if (auto st = normalize(copy.get()); !st)
        return std::move(st).error();
    return copy;
}

Status connectionModify(NMConnection *connection, const std::vector<std::string> &args)
{
    auto copy = connectionModified(connection, args);
    if (!copy)
        return std::move(copy).error();
    nm_connection_replace_settings_from_connection(connection, copy->get());
    return {};
}

} // namespace ibnm::nmcli
