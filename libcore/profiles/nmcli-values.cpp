// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli's reading of value texts, as the property setters use it: the three
// ways a value is refused, words matched by unique prefix, booleans,
// numbers, lists, and the connection type names of `type`.
#include "config.h"

#include "libcore/profiles/nmcli-args-private.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <cerrno>
#include <cstring>
#include <string_view>

namespace ibnm::nmcli {

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

const char *typeShortName(const char *type)
{
    if (type == nullptr)
        return nullptr;
    for (const auto &t : typeNames())
        if (t.name == type && !t.alias.empty())
            return t.alias.data();
    return type;
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
} // namespace ibnm::nmcli
