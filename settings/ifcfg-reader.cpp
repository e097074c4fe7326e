// SPDX-License-Identifier: LGPL-2.1-or-later
// The import of an ifcfg file of TYPE=InfiniBand (or a bond of them): its
// shell variables (shell-vars.cpp) into a NetworkManager profile, as the
// ifcfg-rh plugin builds it.
#include "config.h"

#include "settings/ifcfg-reader.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

namespace ibnm::settings {

namespace {

Error keyError(const ShellVars &vars, const std::string &key, std::string message)
{
    return Error(IBNM_ERROR_INVALID_PROPERTY, std::move(message))
        .withContext(strprintf("%s:%u: %s", vars.filename().c_str(), vars.line(key), key.c_str()));
}

// strtoll with base 0 (0x.. hex, 0.. octal, else decimal), whole string.
std::optional<long long> parseInt(const std::string &s, long long min, long long max)
{
    if (s.empty())
        return std::nullopt;
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 0);
    while (end != nullptr && isSpace(*end))
        end++;
    if (errno != 0 || end == s.c_str() || *end != '\0' || v < min || v > max)
        return std::nullopt;
    return v;
}

// The classful default prefix NetworkManager uses for IPADDR without PREFIX/NETMASK.
unsigned defaultPrefix(const std::string &ip)
{
    in_addr a {};
    inet_pton(AF_INET, ip.c_str(), &a);
    unsigned first = ntohl(a.s_addr) >> 24;
    if (first < 128)
        return 8;
    if (first < 192)
        return 16;
    return 24;
}

std::string legacyUuid(const std::string &path)
{
    GCharPtr sum(g_compute_checksum_for_string(G_CHECKSUM_MD5, path.c_str(), -1));
    std::string h(sum.get());
    return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
           h.substr(20, 12);
}

Status readIp4Address(const ShellVars &vars, const std::string &suffix, NMSettingIPConfig *s_ip4, bool &any)
{
    auto addr = vars.getNonEmpty("IPADDR" + suffix);
    if (!addr)
        return {};
    if (!nm_utils_ipaddr_valid(AF_INET, addr->c_str()))
        return keyError(vars, "IPADDR" + suffix, strprintf(_("'%s' is not an IPv4 address"), addr->c_str()));
    unsigned prefix = defaultPrefix(*addr);
    if (auto p = vars.getNonEmpty("PREFIX" + suffix)) {
        auto v = parseInt(*p, 0, 32);
        if (!v)
            return keyError(vars, "PREFIX" + suffix, strprintf(_("'%s' is not a prefix length from 0 to 32"), p->c_str()));
        prefix = unsigned(*v);
    } else if (auto m = vars.getNonEmpty("NETMASK" + suffix)) {
        in_addr mask {};
        if (inet_pton(AF_INET, m->c_str(), &mask) != 1)
            return keyError(vars, "NETMASK" + suffix, strprintf(_("'%s' is not an IPv4 netmask"), m->c_str()));
        prefix = nm_utils_ip4_netmask_to_prefix(mask.s_addr);
    }
    GErrorPtr err;
    NMIPAddress *a = nm_ip_address_new(AF_INET, addr->c_str(), prefix, outPtr(err));
    if (a == nullptr)
        return keyError(vars, "IPADDR" + suffix, err->message);
    nm_setting_ip_config_add_address(s_ip4, a);
    nm_ip_address_unref(a);
    any = true;
    return {};
}

Status readIp4(const ShellVars &vars, NMConnection *c)
{
    auto *s_ip4 = NM_SETTING_IP_CONFIG(nm_setting_ip4_config_new());
    nm_connection_add_setting(c, NM_SETTING(s_ip4));

    bool any = false;
    if (Status s = readIp4Address(vars, "", s_ip4, any); !s.ok())
        return s;
    for (int i = 0; i < 256; i++)
        if (Status s = readIp4Address(vars, std::to_string(i), s_ip4, any); !s.ok())
            return s;

    std::string proto = vars.getNonEmpty("BOOTPROTO").value_or("none");
    std::string lower(proto);
    for (auto &ch : lower)
        ch = g_ascii_tolower(ch);
    const char *method = nullptr;
    if (lower == "none" || lower == "static")
        method = any ? NM_SETTING_IP4_CONFIG_METHOD_MANUAL : NM_SETTING_IP4_CONFIG_METHOD_DISABLED;
    else if (lower == "dhcp" || lower == "bootp")
        method = NM_SETTING_IP4_CONFIG_METHOD_AUTO;
    else if (lower == "autoip")
        method = NM_SETTING_IP4_CONFIG_METHOD_LINK_LOCAL;
    else if (lower == "shared")
        method = NM_SETTING_IP4_CONFIG_METHOD_SHARED;
    else
        return keyError(vars, "BOOTPROTO", strprintf(_("unknown value '%s'"), proto.c_str()));
    g_object_set(s_ip4, NM_SETTING_IP_CONFIG_METHOD, method, nullptr);

    if (auto gw = vars.getNonEmpty("GATEWAY"); gw && any) {
        if (!nm_utils_ipaddr_valid(AF_INET, gw->c_str()))
            return keyError(vars, "GATEWAY", strprintf(_("'%s' is not an IPv4 address"), gw->c_str()));
        g_object_set(s_ip4, NM_SETTING_IP_CONFIG_GATEWAY, gw->c_str(), nullptr);
    }
    for (int i = 1; i <= 10; i++) {
        std::string key = "DNS" + std::to_string(i);
        if (auto dns = vars.getNonEmpty(key)) {
            if (!nm_utils_ipaddr_valid(AF_INET, dns->c_str()))
                continue; // IPv6 servers belong to [ipv6]; NetworkManager files them there
            nm_setting_ip_config_add_dns(s_ip4, dns->c_str());
        }
    }
    return {};
}

Status readIp6(const ShellVars &vars, NMConnection *c)
{
    auto *s_ip6 = NM_SETTING_IP_CONFIG(nm_setting_ip6_config_new());
    nm_connection_add_setting(c, NM_SETTING(s_ip6));
    const char *method = NM_SETTING_IP6_CONFIG_METHOD_IGNORE;
    if (vars.getBool("IPV6_DISABLED", false))
        method = NM_SETTING_IP6_CONFIG_METHOD_DISABLED;
    else if (vars.getBool("IPV6INIT", false)) {
        if (vars.getBool("IPV6_AUTOCONF", true))
            method = NM_SETTING_IP6_CONFIG_METHOD_AUTO;
        else if (vars.getBool("DHCPV6C", false))
            method = NM_SETTING_IP6_CONFIG_METHOD_DHCP;
        else
            method = NM_SETTING_IP6_CONFIG_METHOD_MANUAL;
        if (auto a = vars.getNonEmpty("IPV6ADDR")) {
            std::string addr = *a;
            unsigned prefix = 64;
            if (size_t slash = addr.find('/'); slash != std::string::npos) {
                auto p = parseInt(addr.substr(slash + 1), 0, 128);
                if (!p)
                    return keyError(vars, "IPV6ADDR", strprintf(_("'%s' is not an IPv6 address"), a->c_str()));
                prefix = unsigned(*p);
                addr.resize(slash);
            }
            GErrorPtr err;
            NMIPAddress *ip = nm_ip_address_new(AF_INET6, addr.c_str(), prefix, outPtr(err));
            if (ip == nullptr)
                return keyError(vars, "IPV6ADDR", err->message);
            nm_setting_ip_config_add_address(s_ip6, ip);
            nm_ip_address_unref(ip);
        }
        if (auto gw = vars.getNonEmpty("IPV6_DEFAULTGW"))
            g_object_set(s_ip6, NM_SETTING_IP_CONFIG_GATEWAY, gw->c_str(), nullptr);
    }
    g_object_set(s_ip6, NM_SETTING_IP_CONFIG_METHOD, method, nullptr);
    return {};
}

Status readInfiniband(const ShellVars &vars, NMConnection *c)
{
    auto *s_ib = NM_SETTING_INFINIBAND(nm_setting_infiniband_new());
    nm_connection_add_setting(c, NM_SETTING(s_ib));

    if (auto mac = vars.getNonEmpty("HWADDR")) {
        if (!nm_utils_hwaddr_valid(mac->c_str(), INFINIBAND_ALEN))
            return keyError(vars, "HWADDR",
                            strprintf(_("'%s' is not a 20-byte InfiniBand hardware address"), mac->c_str()));
        g_object_set(s_ib, NM_SETTING_INFINIBAND_MAC_ADDRESS, mac->c_str(), nullptr);
    }
    if (auto mtu = vars.getNonEmpty("MTU")) {
        auto v = parseInt(*mtu, 0, 65535);
        if (!v)
            return keyError(vars, "MTU", strprintf(_("'%s' is not an MTU from 0 to 65535"), mtu->c_str()));
        g_object_set(s_ib, NM_SETTING_INFINIBAND_MTU, guint(*v), nullptr);
    }
    g_object_set(s_ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE,
                 vars.getBool("CONNECTED_MODE", false) ? "connected" : "datagram", nullptr);

    if (vars.getBool("PKEY", false)) {
        auto parent = vars.getNonEmpty("PHYSDEV");
        if (!parent)
            return Error(IBNM_ERROR_MISSING_PROPERTY, _("PKEY=yes needs PHYSDEV (the parent interface)"))
                .withContext(vars.filename() + ": PHYSDEV");
        // PKEY_ID_NM is the P_Key exactly as NetworkManager uses it; the
        // initscripts' PKEY_ID always gets the full-membership bit.
        std::string key = vars.get("PKEY_ID_NM") ? "PKEY_ID_NM" : "PKEY_ID";
        auto raw = vars.getNonEmpty(key);
        if (!raw)
            return Error(IBNM_ERROR_MISSING_PROPERTY, _("PKEY=yes needs PKEY_ID"))
                .withContext(vars.filename() + ": PKEY_ID");
        auto id = parseInt(*raw, 0, 0xffff);
        if (!id)
            return keyError(vars, key, strprintf(_("'%s' is not a P_Key from 0x0000 to 0xffff"), raw->c_str()));
        int pkey = int(*id);
        if (key == "PKEY_ID")
            pkey = model::fullMembership(uint16_t(pkey));
        g_object_set(s_ib, NM_SETTING_INFINIBAND_P_KEY, pkey, NM_SETTING_INFINIBAND_PARENT, parent->c_str(), nullptr);
        if (auto dev = vars.getNonEmpty("DEVICE")) {
            const char *expected = nm_setting_infiniband_get_virtual_interface_name(s_ib);
            if (expected != nullptr && *dev != expected)
                return keyError(vars, "DEVICE",
                                strprintf(_("'%s' does not match PHYSDEV and the P_Key (NetworkManager "
                                            "names it '%s')"),
                                          dev->c_str(), expected));
        }
    }
    return {};
}

} // namespace

// A bond (NetworkManager's make_bond_setting() and make_wired_setting()):
// DEVICE is required; BONDING_OPTS is "option=value ..." (an option libnm
// does not take is an error naming it here, where NetworkManager warns and
// drops it); MTU goes to [ethernet].
Status readBond(const ShellVars &vars, NMConnection *c)
{
    if (!vars.getNonEmpty("DEVICE"))
        return Error(IBNM_ERROR_INVALID_PROPERTY, _("DEVICE: a bond needs its interface name (DEVICE=bond0)"))
            .withContext(vars.filename());
    auto *s_bond = NM_SETTING_BOND(nm_setting_bond_new());
    nm_connection_add_setting(c, NM_SETTING(s_bond));
    if (auto opts = vars.getNonEmpty("BONDING_OPTS")) {
        GStrvPtr items(g_strsplit_set(opts->c_str(), " \t", -1));
        for (char **item = items.get(); *item; item++) {
            if (**item == '\0')
                continue;
            const char *eq = std::strchr(*item, '=');
            std::string key = eq ? std::string(*item, size_t(eq - *item)) : std::string(*item);
            std::string value = eq ? std::string(eq + 1) : "";
            if (!eq || !nm_setting_bond_validate_option(key.c_str(), value.c_str()))
                return keyError(vars, "BONDING_OPTS",
                                strprintf(_("'%s' is not a bonding option NetworkManager takes"), *item));
            nm_setting_bond_add_option(s_bond, key.c_str(), value.c_str());
        }
    }
    if (auto mtu = vars.getNonEmpty("MTU")) {
        auto v = parseInt(*mtu, 0, G_MAXUINT32);
        if (!v)
            return keyError(vars, "MTU", strprintf(_("'%s' is not an MTU"), mtu->c_str()));
        auto *s_wired = NM_SETTING(nm_setting_wired_new());
        g_object_set(s_wired, NM_SETTING_WIRED_MTU, guint(*v), nullptr);
        nm_connection_add_setting(c, s_wired);
    }
    return {};
}

Result<GObjectPtr<NMConnection>> importIfcfg(const ShellVars &vars)
{
    const std::string &file = vars.filename();
    auto type = vars.getNonEmpty("TYPE");
    // NetworkManager's ifcfg-rh reader: TYPE=Bond, or BONDING_MASTER=yes, is a bond.
    const bool bond = (type && g_ascii_strcasecmp(type->c_str(), "Bond") == 0) ||
                      (!type && vars.getBool("BONDING_MASTER", false));
    if (!bond && (!type || g_ascii_strcasecmp(type->c_str(), "InfiniBand") != 0))
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("TYPE is '%s'; only TYPE=InfiniBand and TYPE=Bond files can be imported"),
                               type ? type->c_str() : ""))
            .withContext(file);

    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    auto *s_con = NM_SETTING_CONNECTION(nm_setting_connection_new());
    nm_connection_add_setting(c.get(), NM_SETTING(s_con));

    std::string id;
    if (auto name = vars.getNonEmpty("NAME")) {
        id = *name;
    } else {
        GCharPtr base(g_path_get_basename(file.c_str()));
        std::string b = base.get();
        if (b.rfind("ifcfg-", 0) == 0)
            b = b.substr(6);
        id = std::string(bond ? "Bond " : "System ") + b;
    }
    std::string uuid = vars.getNonEmpty("UUID").value_or(legacyUuid(file));
    if (!g_uuid_string_is_valid(uuid.c_str()))
        return keyError(vars, "UUID", strprintf(_("'%s' is not a UUID"), uuid.c_str()));
    g_object_set(s_con, NM_SETTING_CONNECTION_ID, id.c_str(), NM_SETTING_CONNECTION_UUID, uuid.c_str(),
                 NM_SETTING_CONNECTION_TYPE, bond ? NM_SETTING_BOND_SETTING_NAME : NM_SETTING_INFINIBAND_SETTING_NAME,
                 NM_SETTING_CONNECTION_AUTOCONNECT,
                 gboolean(vars.getBool("ONBOOT", true)), nullptr);
    if (auto dev = vars.getNonEmpty("DEVICE"))
        g_object_set(s_con, NM_SETTING_CONNECTION_INTERFACE_NAME, dev->c_str(), nullptr);

    // Port of a bridge, bond or team, checked in NetworkManager's order
    // (make_connection_setting): the first one found is the controller, later
    // ones are ignored. Ports get no IP configuration.
    struct PortKind {
        const char *uuidKey;
        const char *nameKey;
        const char *type;
    };
    static const PortKind kPortKinds[] = {
        {"BRIDGE_UUID", "BRIDGE", NM_SETTING_BRIDGE_SETTING_NAME},
        {"MASTER_UUID", "MASTER", NM_SETTING_BOND_SETTING_NAME},
        {"TEAM_MASTER_UUID", "TEAM_MASTER", NM_SETTING_TEAM_SETTING_NAME},
    };
    std::optional<std::string> master;
    const char *portType = nullptr;
    for (const auto &kind : kPortKinds) {
        auto v = vars.getNonEmpty(kind.uuidKey);
        if (!v)
            v = vars.getNonEmpty(kind.nameKey);
        if (v && !master) {
            master = v;
            portType = kind.type;
        }
    }
    if (master)
        g_object_set(s_con, NM_SETTING_CONNECTION_MASTER, master->c_str(), NM_SETTING_CONNECTION_SLAVE_TYPE, portType,
                     nullptr);
    const bool team = portType != nullptr && g_strcmp0(portType, NM_SETTING_TEAM_SETTING_NAME) == 0;

    if (Status s = bond ? readBond(vars, c.get()) : readInfiniband(vars, c.get()); !s.ok())
        return std::move(s).error();
    if (team) {
        auto *s_tp = NM_SETTING(nm_setting_team_port_new());
        if (auto cfg = vars.getNonEmpty("TEAM_PORT_CONFIG"))
            g_object_set(s_tp, NM_SETTING_TEAM_PORT_CONFIG, cfg->c_str(), nullptr);
        nm_connection_add_setting(c.get(), s_tp);
    }
    if (!master) {
        if (Status s = readIp4(vars, c.get()); !s.ok())
            return std::move(s).error();
        if (Status s = readIp6(vars, c.get()); !s.ok())
            return std::move(s).error();
    }

    GErrorPtr err;
    if (!nm_connection_normalize(c.get(), nullptr, nullptr, outPtr(err)))
        return Error(IBNM_ERROR_INVALID_PROPERTY, err->message).withContext(file);
    return c;
}

Result<GObjectPtr<NMConnection>> importIfcfgFile(const std::string &path)
{
    auto vars = ShellVars::load(path);
    if (!vars)
        return std::move(vars).error();
    return importIfcfg(*vars);
}

} // namespace ibnm::settings
