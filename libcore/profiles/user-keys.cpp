// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/profiles/user-keys.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/rdma.hpp"

#include <glib.h>

#include <cstdlib>

namespace ibnm::userkeys {

namespace {

// A value the key's parser refuses (nmcli's user-input error, as for
// `infiniband.mtu abc`).
Error badValue(std::string_view key, std::string message)
{
    return Error(IBNM_ERROR_INVALID_VALUE, std::move(message)).withProperty(std::string(key));
}

std::string lower(std::string_view v)
{
    std::string s(v);
    for (auto &c : s)
        c = g_ascii_tolower(c);
    return s;
}

std::optional<unsigned> parseByte(std::string_view value)
{
    std::string s(value);
    if (s.empty() || s.size() > 3)
        return std::nullopt;
    for (char c : s)
        if (!g_ascii_isdigit(c))
            return std::nullopt;
    unsigned long v = std::strtoul(s.c_str(), nullptr, 10);
    if (v > 255)
        return std::nullopt;
    return unsigned(v);
}

std::optional<bool> parseBool(std::string_view v)
{
    std::string s = lower(v);
    if (s == "yes" || s == "true" || s == "1" || s == "on")
        return true;
    if (s == "no" || s == "false" || s == "0" || s == "off")
        return false;
    return std::nullopt;
}

// An RDMA device name as the kernel accepts it (IB_DEVICE_NAME_MAX is 64
// bytes with the NUL; no '/', no whitespace, not "." or "..", and no '%'
// because the kernel would treat it as a format).
bool validLinkName(std::string_view v)
{
    if (v.empty() || v.size() > 63 || v == "." || v == "..")
        return false;
    for (char c : v)
        if (c == '/' || c == '%' || g_ascii_isspace(c) || !g_ascii_isprint(c))
            return false;
    return true;
}

Status checkLinkType(std::string_view key, std::string_view v)
{
    if (!parseLinkType(v))
        return badValue(key, strprintf(_("'%.*s' is not a soft RDMA link type; use 'rxe' or 'siw'"),
                                       int(v.size()), v.data()));
    return {};
}

Status checkLinkName(std::string_view key, std::string_view v)
{
    if (!validLinkName(v))
        return badValue(key, strprintf(_("'%.*s' is not a valid RDMA device name (1-63 printable "
                                          "characters, no '/', '%%' or spaces)"),
                                       int(v.size()), v.data()));
    return {};
}

Status checkRoceMode(std::string_view key, std::string_view v)
{
    if (!parseRoceMode(v))
        return badValue(key, strprintf(_("'%.*s' is not a RoCE version; use 'v1' or 'v2'"), int(v.size()),
                                       v.data()));
    return {};
}

Status checkByte(std::string_view key, std::string_view v)
{
    if (!parseByte(v))
        return badValue(key, strprintf(_("'%.*s' is not an integer from 0 to 255"), int(v.size()), v.data()));
    return {};
}

Status checkTos(std::string_view key, std::string_view v)
{
    if (!parseTos(v))
        return badValue(key, strprintf(_("'%.*s' is neither an integer from 0 to 255 nor 'dscp:N' with N from 0 "
                                          "to 63"),
                                       int(v.size()), v.data()));
    return {};
}

Status checkRules(std::string_view key, std::string_view v)
{
    auto r = parseRules(v);
    if (!r.ok())
        return badValue(key, r.error().message());
    return {};
}

Status checkBool(std::string_view key, std::string_view v)
{
    if (!parseBool(v))
        return badValue(key, strprintf(_("'%.*s' is not a boolean; use 'yes' or 'no'"), int(v.size()),
                                       v.data()));
    return {};
}

} // namespace

// A ToS byte: 0-255, or "dscp:N" (N 0-63) for the DSCP N, which is ToS 4N
// (model/rdma.hpp): what NVIDIA's RoCE page has admins compute by hand.
std::optional<unsigned> parseTos(std::string_view value)
{
    std::string s = lower(value);
    if (g_str_has_prefix(s.c_str(), "dscp:")) {
        guint64 n = 0;
        if (!g_ascii_string_to_unsigned(s.c_str() + 5, 10, 0, model::kMaxDscp, &n, nullptr))
            return std::nullopt;
        return model::tosOfDscp(unsigned(n));
    }
    return parseByte(value);
}

Result<std::vector<model::TcRule>> parseTcRules(const std::vector<std::string> &rules)
{
    std::vector<model::TcRule> out;
    for (const std::string &rule : rules) {
        auto r = model::parseTcRule(rule);
        if (!r.ok())
            return std::move(r).error();
        for (const auto &o : out)
            if (o.sameMatch(*r))
                return Error(IBNM_ERROR_INVALID_VALUE,
                             strprintf(_("two rules match the same addresses ('%s')"), rule.c_str()));
        out.push_back(*r);
    }
    return out;
}

// Rules separated by ';' (each a traffic_class rule, model/rdma.hpp).
Result<std::vector<model::TcRule>> parseRules(std::string_view value)
{
    std::vector<std::string> rules;
    gchar **parts = g_strsplit(std::string(value).c_str(), ";", -1);
    GStrvPtr owned(parts);
    for (gchar **p = parts; p && *p; p++)
        if (*g_strstrip(*p))
            rules.emplace_back(*p);
    if (rules.empty())
        return Error(IBNM_ERROR_INVALID_VALUE, _("no rule given"));
    return parseTcRules(rules);
}

std::optional<model::SoftLinkType> parseLinkType(std::string_view v)
{
    return model::softLinkTypeFromName(lower(v));
}

std::optional<model::RoceMode> parseRoceMode(std::string_view v)
{
    // The short forms are ibnm's; the long ones are what configfs and the
    // seeds write, accepted so a value copied from there works.
    std::string s = lower(v);
    if (s == "v1" || s == "1" || s == "ib/roce v1" || s == "roce v1")
        return model::RoceMode::V1;
    if (s == "v2" || s == "2" || s == "roce v2")
        return model::RoceMode::V2;
    return std::nullopt;
}

const std::vector<KeyInfo> &keys()
{
    static const std::vector<KeyInfo> table = {
        {kLinkType, "rxe|siw", checkLinkType},
        {kLinkName, "NAME", checkLinkName},
        {kRoceMode, "v1|v2", checkRoceMode},
        {kRoceTos, "0-255|dscp:0-63", checkTos},
        {kTrafficClass, "0-255|dscp:0-63", checkTos},
        {kTrafficClassRules, "RULE[;RULE...]", checkRules},
        {kRoceEnable, "yes|no", checkBool},
        {kTtl, "0-255", checkByte},
        {kUmcast, "yes|no", checkBool, false},
    };
    return table;
}

const KeyInfo *find(std::string_view key)
{
    for (const auto &k : keys())
        if (k.name == key)
            return &k;
    return nullptr;
}

namespace {

constexpr std::string_view kRdmaPrefix = "rdma.";

} // namespace

bool isIbnmKey(std::string_view key)
{
    return key.substr(0, kRdmaPrefix.size()) == kRdmaPrefix || key.substr(0, 6) == "ipoib.";
}

bool hasRdmaKey(NMConnection *connection)
{
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    guint n = 0;
    const char *const *keys = user ? nm_setting_user_get_keys(user, &n) : nullptr;
    for (guint i = 0; i < n; i++)
        if (std::string_view(keys[i]).substr(0, kRdmaPrefix.size()) == kRdmaPrefix)
            return true;
    return false;
}

Status validate(std::string_view key, std::string_view value)
{
    return validate(key, value, Store::User);
}

Status validate(std::string_view key, std::string_view value, Store store)
{
    const KeyInfo *k = find(key);
    if (store == Store::VpnData && !(k && k->inSecondary))
        return Error(IBNM_ERROR_INVALID_ARGUMENT,
                     k ? _("not a setting of an RDMA secondary: it configures the IPoIB interface; set it in the "
                           "[user] keys of the base profile")
                       : _("not an RDMA setting of ibnm (vpn.data of an RDMA secondary takes the rdma.* keys "
                           "of ibnm-keyfile(5))"))
            .withProperty(std::string(key));
    if (k)
        return k->validate(key, value);
    if (isIbnmKey(key))
        return Error(IBNM_ERROR_INVALID_ARGUMENT, _("unknown ibnm key")).withProperty(std::string(key));
    return {};
}

Status validateAs(std::string_view key, std::string_view name, std::string_view value)
{
    const KeyInfo *k = find(key);
    g_assert(k != nullptr);
    return k->validate(name, value);
}

namespace {

// One key of `store` into `o`.
Status parseInto(Options &o, std::string_view key, std::string_view value, Store store)
{
    if (Status s = validate(key, value, store); !s.ok())
        return s;
    if (key == kLinkType)
        o.linkType = parseLinkType(value);
    else if (key == kLinkName)
        o.linkName = std::string(value);
    else if (key == kRoceMode)
        o.roceMode = parseRoceMode(value);
    else if (key == kRoceTos)
        o.roceTos = parseTos(value);
    else if (key == kTrafficClass)
        o.trafficClass = parseTos(value);
    else if (key == kTrafficClassRules)
        o.tcRules = *parseRules(value);
    else if (key == kRoceEnable)
        o.roceEnable = parseBool(value);
    else if (key == kTtl)
        o.ttl = parseByte(value);
    else if (key == kUmcast)
        o.umcast = parseBool(value);
    return {};
}

} // namespace

Result<Options> parse(const std::map<std::string, std::string> &data, Store store)
{
    Options o;
    for (const auto &[key, value] : data)
        if (Status s = parseInto(o, key, value, store); !s.ok())
            return std::move(s).error();
    return o;
}

Result<Options> parse(NMConnection *connection)
{
    if (isSecondary(connection))
        return parse(data(connection), Store::VpnData);
    // [user] read in place, in the order libnm gives its keys (sorted, as
    // data()'s map: the first bad one is the error; the test
    // UserKeysSecondary.AProfileParsesAsItsDataMap holds libnm to it):
    // `check` and `up` parse every profile several times, and a map of
    // copies each time was 40 M instructions at 10,000 profiles.
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    guint n = 0;
    const char *const *keys = user ? nm_setting_user_get_keys(user, &n) : nullptr;
    Options o;
    for (guint i = 0; i < n; i++) {
        const char *key = keys[i];
        const char *value = nm_setting_user_get_data(user, key);
        if (Status s = parseInto(o, key, value ? value : "", Store::User); !s.ok())
            return std::move(s).error();
    }
    return o;
}

bool isSecondary(NMConnection *connection)
{
    NMSettingVpn *vpn = nm_connection_get_setting_vpn(connection);
    return vpn && g_strcmp0(nm_setting_vpn_get_service_type(vpn), kVpnServiceType) == 0 &&
           g_strcmp0(nm_connection_get_connection_type(connection), NM_SETTING_VPN_SETTING_NAME) == 0;
}

Store storeOf(NMConnection *connection)
{
    return isSecondary(connection) ? Store::VpnData : Store::User;
}

namespace {

void addItem(const char *key, const char *value, gpointer data)
{
    (*static_cast<std::map<std::string, std::string> *>(data))[key] = value ? value : "";
}

} // namespace

std::map<std::string, std::string> data(NMConnection *connection)
{
    std::map<std::string, std::string> out;
    if (isSecondary(connection)) {
        nm_setting_vpn_foreach_data_item(nm_connection_get_setting_vpn(connection), addItem, &out);
        return out;
    }
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    guint n = 0;
    const char *const *keys = user ? nm_setting_user_get_keys(user, &n) : nullptr;
    for (guint i = 0; i < n; i++)
        addItem(keys[i], nm_setting_user_get_data(user, keys[i]), &out);
    return out;
}

const char *get(NMConnection *connection, std::string_view key)
{
    std::string k(key);
    if (isSecondary(connection))
        return nm_setting_vpn_get_data_item(nm_connection_get_setting_vpn(connection), k.c_str());
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    return user ? nm_setting_user_get_data(user, k.c_str()) : nullptr;
}

Status set(NMConnection *connection, std::string_view key, const char *value)
{
    Store store = storeOf(connection);
    std::string k(key);
    // Removing a key ibnm knows (in vpn.data: an RDMA key) needs no valid
    // value; any other is refused as validate() refuses it.
    const KeyInfo *known = find(key);
    bool removable = known && (store == Store::User || known->inSecondary);
    if (value != nullptr || !removable)
        if (Status s = validate(key, value ? value : "", store); !s.ok())
            return s;
    if (store == Store::VpnData) {
        NMSettingVpn *vpn = nm_connection_get_setting_vpn(connection);
        if (value)
            nm_setting_vpn_add_data_item(vpn, k.c_str(), value);
        else
            nm_setting_vpn_remove_data_item(vpn, k.c_str());
        return {};
    }
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    if (user == nullptr) {
        if (value == nullptr)
            return {};
        user = NM_SETTING_USER(nm_setting_user_new());
        nm_connection_add_setting(connection, NM_SETTING(user));
    }
    GErrorPtr err;
    if (!nm_setting_user_set_data(user, k.c_str(), value, outPtr(err)))
        return Error(IBNM_ERROR_INVALID_PROPERTY, err->message).withContext(k);
    dropEmptyUserSetting(connection);
    return {};
}

void dropEmptyUserSetting(NMConnection *connection)
{
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    guint n = 0;
    if (user != nullptr && (nm_setting_user_get_keys(user, &n), n == 0))
        nm_connection_remove_setting(connection, NM_TYPE_SETTING_USER);
}

std::map<std::string, std::string> format(const Options &o)
{
    std::map<std::string, std::string> m;
    if (o.linkType)
        m[std::string(kLinkType)] = model::softLinkTypeName(*o.linkType);
    if (o.linkName)
        m[std::string(kLinkName)] = *o.linkName;
    if (o.roceMode)
        m[std::string(kRoceMode)] = *o.roceMode == model::RoceMode::V1 ? "v1" : "v2";
    if (o.roceTos)
        m[std::string(kRoceTos)] = std::to_string(*o.roceTos);
    if (o.trafficClass)
        m[std::string(kTrafficClass)] = std::to_string(*o.trafficClass);
    if (!o.tcRules.empty()) {
        std::string rules;
        for (const auto &r : o.tcRules)
            rules += (rules.empty() ? "" : ";") + model::formatTcRule(r);
        m[std::string(kTrafficClassRules)] = rules;
    }
    if (o.roceEnable)
        m[std::string(kRoceEnable)] = *o.roceEnable ? "yes" : "no";
    if (o.ttl)
        m[std::string(kTtl)] = std::to_string(*o.ttl);
    if (o.umcast)
        m[std::string(kUmcast)] = *o.umcast ? "yes" : "no";
    return m;
}

} // namespace ibnm::userkeys
