// SPDX-License-Identifier: LGPL-2.1-or-later
// The model's facts that libnm knows (its bonding mode table, its child
// interface names, its hardware address syntax), apart from the kernel's.
#include "config.h"

#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"

#include "libcore/support/raii.hpp"

#include <NetworkManager.h>

#include <algorithm>

namespace ibnm::model {

std::string bondModeName(const std::string &value)
{
    if (value.empty())
        return "balance-rr";
    int mode = nm_utils_bond_mode_string_to_int(value.c_str());
    const char *name = mode >= 0 ? nm_utils_bond_mode_int_to_string(mode) : nullptr;
    return name ? name : "";
}

std::string nmChildName(const std::string &parent, uint16_t pkey)
{
    auto s = GObjectPtr<NMSettingInfiniband>::adopt(NM_SETTING_INFINIBAND(nm_setting_infiniband_new()));
    g_object_set(s.get(), NM_SETTING_INFINIBAND_PARENT, parent.c_str(), NM_SETTING_INFINIBAND_P_KEY, int(pkey),
                 nullptr);
    // libnm 1.42 returns "<parent>.%04x" whole (and verify() compares
    // interface-name with that); the daemon's nm_net_devname_infiniband()
    // cuts it to 15 characters, as the kernel does.
    const char *name = nm_setting_infiniband_get_virtual_interface_name(s.get());
    return std::string(name ? name : "").substr(0, kIfNameMax);
}

bool sameIpoibPort(const std::string &a, const std::string &b)
{
    // Both must be 20-byte addresses; libnm then compares the last 8 bytes.
    guint8 x[20], y[20];
    if (!nm_utils_hwaddr_aton(a.c_str(), x, sizeof x) || !nm_utils_hwaddr_aton(b.c_str(), y, sizeof y))
        return false;
    return nm_utils_hwaddr_matches(x, sizeof x, y, sizeof y);
}

std::string portGuidBytes(const std::string &address)
{
    guint8 b[20];
    if (!nm_utils_hwaddr_aton(address.c_str(), b, sizeof b))
        return {};
    GCharPtr text(nm_utils_hwaddr_ntoa(b + 12, 8));
    std::string out = text.get();
    std::transform(out.begin(), out.end(), out.begin(), [](char c) { return g_ascii_tolower(c); });
    return out;
}

} // namespace ibnm::model
