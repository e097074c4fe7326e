// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/profiles/profile-ip.hpp"

#include "libcore/model/netdev.hpp"
#include "libcore/support/i18n.hpp"

#include <initializer_list>
#include <vector>

namespace ibnm::profiles {

std::string dhcpRefusal()
{
    return _("automatic (DHCP) addressing on IPoIB is done by NetworkManager, and ibnm has no DHCP "
             "client: bring the profile up with 'nmcli connection up', or set ipv4.method to "
             "manual, link-local or disabled");
}

bool wantsDhcp(NMConnection *c)
{
    if (!nm_connection_is_type(c, NM_SETTING_INFINIBAND_SETTING_NAME))
        return false;
    auto *ip4 = NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c));
    const char *m4 = ip4 ? nm_setting_ip_config_get_method(ip4) : nullptr;
    return m4 == nullptr || g_strcmp0(m4, "auto") == 0;
}

model::LinkDns dnsOf(NMConnection *c, std::string *property)
{
    std::vector<std::string> servers[2], search[2];
    const char *names[2][2] = {{"ipv4.dns", "ipv4.dns-search"}, {"ipv6.dns", "ipv6.dns-search"}};
    std::string first;
    int family = 0;
    for (NMSettingIPConfig *ip : {NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c)),
                                  NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip6_config(c))}) {
        int f = family++;
        if (ip == nullptr || g_strcmp0(nm_setting_ip_config_get_method(ip), "disabled") == 0)
            continue;
        for (guint i = 0; i < nm_setting_ip_config_get_num_dns(ip); i++)
            servers[f].emplace_back(nm_setting_ip_config_get_dns(ip, i));
        for (guint i = 0; i < nm_setting_ip_config_get_num_dns_searches(ip); i++)
            search[f].emplace_back(nm_setting_ip_config_get_dns_search(ip, i));
    }
    for (int f = 0; f < 2 && first.empty(); f++)
        if (!servers[f].empty())
            first = names[f][0];
    for (int f = 0; f < 2 && first.empty(); f++)
        if (!search[f].empty())
            first = names[f][1];
    if (property)
        *property = first;
    return model::resolvedLinkDns(servers[0], servers[1], search[0], search[1]);
}

} // namespace ibnm::profiles
