// SPDX-License-Identifier: LGPL-2.1-or-later
// What the host-wide policy files hold, in one place: the memlock limits for
// group rdma and the udev rules naming IPoIB ports by the last 8 bytes of
// their address (for base profiles with both mac-address and
// interface-name). Settings writes them (settings/host-files.hpp); the
// presence rule of `ibnm check` names the rules file and a profile's port
// GUID (profile-rules-presence.cpp).
#pragma once

#include <NetworkManager.h>

#include <string>
#include <vector>

namespace ibnm::hostfiles {

inline constexpr const char *kMemlockPolicyPath = "/etc/security/limits.d/90-ibnm-rdma-memlock.conf";
inline constexpr const char *kUdevRulesPath = "/etc/udev/rules.d/70-ibnm-persistent-ipoib.rules";
std::string memlockPolicy();
std::string udevRules(const std::vector<NMConnection *> &profiles);
// The port GUID by which those rules name `profile`'s interface (the last
// 8 bytes of its mac-address, "00:02:c9:03:00:31:78:51"), or "" when the
// profile gets no rule.
std::string udevRulePortGuid(NMConnection *profile);

} // namespace ibnm::hostfiles
