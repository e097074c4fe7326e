// SPDX-License-Identifier: LGPL-2.1-or-later
// What the host-wide policy files hold: the memlock limits for group rdma
// and the udev rules naming IPoIB ports. Settings writes them
// (settings/host-files.cpp), not the kernel platform.
#include "config.h"

#include "libcore/profiles/host-files.hpp"

#include "libcore/model/ipoib.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>

namespace ibnm::hostfiles {

std::string memlockPolicy()
{
    return "# Written by ibnm. Members of group rdma may pin unlimited memory for RDMA\n"
           "# (libibverbs warns when RLIMIT_MEMLOCK is 32 KiB or less).\n"
           "@rdma    soft    memlock    unlimited\n"
           "@rdma    hard    memlock    unlimited\n";
}

// `value` as one udev rules string (udev(7)): '%' and '$' start a
// substitution, so they are doubled; a '"' or '\\' makes it an e"..." string
// with C escapes (systemd 250 and later), so no value ends the string early
// and adds a key of its own (a name such as 'a",RUN+="x').
namespace {

std::string udevString(const std::string &value)
{
    std::string body;
    bool escaped = false;
    for (char c : value) {
        switch (c) {
        case '%': body += "%%"; break;
        case '$': body += "$$"; break;
        case '"': body += "\\\""; escaped = true; break;
        case '\\': body += "\\\\"; escaped = true; break;
        default: body += c;
        }
    }
    return (escaped ? "e\"" : "\"") + body + "\"";
}

} // namespace

std::string udevRulePortGuid(NMConnection *profile)
{
    // Base IPoIB profiles with both an interface name and a MAC address.
    NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(profile);
    if (ib == nullptr || nm_connection_get_interface_name(profile) == nullptr ||
        nm_setting_infiniband_get_p_key(ib) >= 0)
        return {};
    const char *mac = nm_setting_infiniband_get_mac_address(ib);
    return model::portGuidBytes(mac ? mac : "");
}

std::string udevRules(const std::vector<NMConnection *> &profiles)
{
    std::string out = "# Written by ibnm: persistent names for IPoIB ports, matched by the last 8 bytes\n"
                      "# of the hardware address (the port GUID), as rdma-core's persistent-ipoib.rules.\n";
    std::vector<std::string> lines;
    for (NMConnection *c : profiles) {
        const char *ifname = nm_connection_get_interface_name(c);
        std::string guid = udevRulePortGuid(c);
        if (guid.empty())
            continue;
        lines.push_back(strprintf("ACTION==\"add\", SUBSYSTEM==\"net\", DRIVERS==\"?*\", ATTR{type}==\"32\", "
                                  "ATTR{address}==\"?*%s\", NAME=%s\n",
                                  guid.c_str(), udevString(ifname).c_str()));
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    for (const auto &l : lines)
        out += l;
    return out;
}

} // namespace ibnm::hostfiles
