// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/bond.hpp"

#include "libcore/model/ipoib.hpp"

#include <NetworkManager.h>

namespace ibnm::model {

std::string bondModeName(const std::string &value)
{
    if (value.empty())
        return "balance-rr";
    int mode = nm_utils_bond_mode_string_to_int(value.c_str());
    const char *name = mode >= 0 ? nm_utils_bond_mode_int_to_string(mode) : nullptr;
    return name ? name : "";
}

std::string failOverMacName(const std::string &value)
{
    // bonding's fail_over_mac option table (bond_options.c), as NetworkManager
    // keeps the value as written.
    static const char *const names[] = {"none", "active", "follow"};
    if (value.empty())
        return names[0];
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++)
        if (value == names[i] || value == std::to_string(i))
            return names[i];
    return {};
}

bool ipoibBondModeSupported(const std::string &mode)
{
    return mode == "active-backup";
}

std::string failOverMacAfterIpoibEnslave(const std::string &configured, bool bondHasPorts)
{
    std::string name = failOverMacName(configured);
    if (!bondHasPorts)
        return "active";
    return name;
}

Result<unsigned> portMtuAtEnslave(unsigned bondMtu, IpoibMode portMode, const Port *port)
{
    return effectiveMtu(bondMtu, portMode, port);
}

} // namespace ibnm::model
