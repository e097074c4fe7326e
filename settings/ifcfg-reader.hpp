// SPDX-License-Identifier: LGPL-2.1-or-later
// Import of Red Hat ifcfg files (network-scripts) of TYPE=InfiniBand, with
// the values NetworkManager's ifcfg-rh plugin reads from them.
#pragma once

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"
#include "settings/shell-vars.hpp"

#include <NetworkManager.h>

#include <string>

namespace ibnm::settings {

// Builds the NetworkManager profile of an ifcfg file of TYPE=InfiniBand.
Result<GObjectPtr<NMConnection>> importIfcfg(const ShellVars &vars);
Result<GObjectPtr<NMConnection>> importIfcfgFile(const std::string &path);

} // namespace ibnm::settings
