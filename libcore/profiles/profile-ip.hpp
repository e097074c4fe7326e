// SPDX-License-Identifier: LGPL-2.1-or-later
// What a profile asks of IP that both the rules of `ibnm check`
// (profile-rules-host.cpp) and the desired state of `up`
// (libcore/activation/desired.cpp) read: its DNS, and whether standalone
// ibnm can address it. Read here once, so that the rules need nothing of
// activation/.
#pragma once

#include "libcore/model/host.hpp"

#include <NetworkManager.h>

#include <string>

namespace ibnm::profiles {

// The DNS servers and search domains a profile gives its link
// (model::resolvedLinkDns of ipv4.dns, ipv6.dns, ipv4.dns-search,
// ipv6.dns-search; a disabled family gives none). `property`: the first of
// those properties that is set, for messages.
model::LinkDns dnsOf(NMConnection *c, std::string *property = nullptr);

// Why standalone ibnm cannot bring up an IPoIB profile addressed by DHCP
// (NetworkManager's client sends the client identifier of the port GUID,
// model::dhcpClientId; ibnm has no client): the planner's error, and the
// warning of `connection add` (rules::checkStandaloneDhcp).
std::string dhcpRefusal();
// Whether `c` is such a profile where it is not a bond port: IPv4 method
// automatic (or no [ipv4], which NetworkManager makes automatic).
bool wantsDhcp(NMConnection *c);

} // namespace ibnm::profiles
