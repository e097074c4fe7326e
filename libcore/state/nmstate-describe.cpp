// SPDX-License-Identifier: LGPL-2.1-or-later
// describe(): the stored infiniband, bond and ethernet profiles as an
// nmstate document of the schema plan() reads (nmstate.cpp).
#include "config.h"

#include "libcore/state/nmstate.hpp"
#include "libcore/state/nmstate-private.hpp"

#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

namespace ibnm::state {

namespace {

JsonNode *ipNode(NMConnection *c, bool v6)
{
    NMSettingIPConfig *ip = v6 ? nm_connection_get_setting_ip6_config(c) : nm_connection_get_setting_ip4_config(c);
    if (!ip)
        return nullptr;
    const char *method = nm_setting_ip_config_get_method(ip);
    JsonBuilderPtr b(json_builder_new());
    json_builder_begin_object(b.get());
    bool off = g_strcmp0(method, "disabled") == 0 || g_strcmp0(method, "ignore") == 0;
    json_builder_set_member_name(b.get(), "enabled");
    json_builder_add_boolean_value(b.get(), !off);
    if (!off) {
        bool automatic = g_strcmp0(method, "auto") == 0 || g_strcmp0(method, "dhcp") == 0;
        json_builder_set_member_name(b.get(), "dhcp");
        json_builder_add_boolean_value(b.get(), automatic);
        if (v6) {
            json_builder_set_member_name(b.get(), "autoconf");
            json_builder_add_boolean_value(b.get(), automatic);
        }
        json_builder_set_member_name(b.get(), "address");
        json_builder_begin_array(b.get());
        for (guint i = 0; i < nm_setting_ip_config_get_num_addresses(ip); i++) {
            NMIPAddress *a = nm_setting_ip_config_get_address(ip, i);
            json_builder_begin_object(b.get());
            json_builder_set_member_name(b.get(), "ip");
            json_builder_add_string_value(b.get(), nm_ip_address_get_address(a));
            json_builder_set_member_name(b.get(), "prefix-length");
            json_builder_add_int_value(b.get(), nm_ip_address_get_prefix(a));
            json_builder_end_object(b.get());
        }
        json_builder_end_array(b.get());
    }
    json_builder_end_object(b.get());
    return json_builder_get_root(b.get());
}

} // namespace

JsonNodePtr describe(const std::vector<NMConnection *> &stored, const std::set<std::string> *active)
{
    JsonBuilderPtr b(json_builder_new());
    json_builder_begin_object(b.get());
    json_builder_set_member_name(b.get(), "interfaces");
    json_builder_begin_array(b.get());
    for (NMConnection *c : stored) {
        const char *type = nm_connection_get_connection_type(c);
        std::string t = g_strcmp0(type, NM_SETTING_WIRED_SETTING_NAME) == 0 ? "ethernet" : type ? type : "";
        if (!kTypes.count(t))
            continue;
        const char *ifname = nm_connection_get_interface_name(c);
        // nmstate names interfaces; a profile without one is matched by id.
        std::string name = ifname ? ifname : nm_connection_get_id(c);
        json_builder_begin_object(b.get());
        json_builder_set_member_name(b.get(), "name");
        json_builder_add_string_value(b.get(), name.c_str());
        json_builder_set_member_name(b.get(), "type");
        json_builder_add_string_value(b.get(), t.c_str());
        bool up = active == nullptr || active->count(nm_connection_get_uuid(c)) > 0;
        json_builder_set_member_name(b.get(), "state");
        json_builder_add_string_value(b.get(), up ? "up" : "down");
        guint32 mtu = 0;
        if (auto *ib = nm_connection_get_setting_infiniband(c))
            mtu = nm_setting_infiniband_get_mtu(ib);
        else if (auto *w = nm_connection_get_setting_wired(c))
            mtu = nm_setting_wired_get_mtu(w);
        if (mtu) {
            json_builder_set_member_name(b.get(), "mtu");
            json_builder_add_int_value(b.get(), mtu);
        }
        if (auto *ib = nm_connection_get_setting_infiniband(c); ib && t == "infiniband") {
            json_builder_set_member_name(b.get(), "infiniband");
            json_builder_begin_object(b.get());
            if (const char *parent = nm_setting_infiniband_get_parent(ib)) {
                json_builder_set_member_name(b.get(), "base-iface");
                json_builder_add_string_value(b.get(), parent);
            }
            if (int pkey = nm_setting_infiniband_get_p_key(ib); pkey >= 0) {
                json_builder_set_member_name(b.get(), "pkey");
                json_builder_add_string_value(b.get(), strprintf("0x%04x", unsigned(pkey)).c_str());
            }
            if (const char *mode = nm_setting_infiniband_get_transport_mode(ib)) {
                json_builder_set_member_name(b.get(), "mode");
                json_builder_add_string_value(b.get(), mode);
            }
            json_builder_end_object(b.get());
        }
        if (auto *bond = nm_connection_get_setting_bond(c)) {
            json_builder_set_member_name(b.get(), "link-aggregation");
            json_builder_begin_object(b.get());
            json_builder_set_member_name(b.get(), "mode");
            const char *mode = nm_setting_bond_get_option_by_name(bond, "mode");
            json_builder_add_string_value(b.get(), mode ? mode : "balance-rr");
            json_builder_set_member_name(b.get(), "options");
            json_builder_begin_object(b.get());
            for (guint i = 0; i < nm_setting_bond_get_num_options(bond); i++) {
                const char *k = nullptr, *v = nullptr;
                nm_setting_bond_get_option(bond, i, &k, &v);
                if (g_strcmp0(k, "mode") == 0)
                    continue;
                json_builder_set_member_name(b.get(), k);
                json_builder_add_string_value(b.get(), v);
            }
            json_builder_end_object(b.get());
            json_builder_set_member_name(b.get(), "port");
            json_builder_begin_array(b.get());
            for (NMConnection *p : stored) {
                NMSettingConnection *sc = nm_connection_get_setting_connection(p);
                const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
                if (master && (master == name || g_strcmp0(master, nm_connection_get_uuid(c)) == 0)) {
                    const char *pn = nm_connection_get_interface_name(p);
                    json_builder_add_string_value(b.get(), pn ? pn : nm_connection_get_id(p));
                }
            }
            json_builder_end_array(b.get());
            json_builder_end_object(b.get());
        }
        for (bool v6 : {false, true}) {
            if (JsonNode *ip = ipNode(c, v6)) {
                json_builder_set_member_name(b.get(), v6 ? "ipv6" : "ipv4");
                json_builder_add_value(b.get(), ip);
            }
        }
        if (auto *user = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER))) {
            bool open = false;
            for (const auto &k : userkeys::keys()) {
                std::string key(k.name);
                const char *v = nm_setting_user_get_data(user, key.c_str());
                if (!v)
                    continue;
                if (!open) {
                    json_builder_set_member_name(b.get(), kExtensionKey);
                    json_builder_begin_object(b.get());
                    open = true;
                }
                json_builder_set_member_name(b.get(), key.substr(key.find('.') + 1).c_str());
                json_builder_add_string_value(b.get(), v);
            }
            if (open)
                json_builder_end_object(b.get());
        }
        json_builder_end_object(b.get());
    }
    json_builder_end_array(b.get());
    json_builder_end_object(b.get());
    return JsonNodePtr(json_builder_get_root(b.get()));
}


} // namespace ibnm::state
