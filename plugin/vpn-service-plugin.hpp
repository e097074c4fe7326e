// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm's NetworkManager VPN service (plugin/vpn-service-plugin.cpp), run by
// the installed nm-ibnm-service on this machine and by the tests' own
// program (tests/plugin/nm-ibnm-service-test.cpp) on a simulated host.
#pragma once

#include "plugin/host-setup.hpp"

namespace ibnm::plugin {

// The service for argv (`--bus-name NAME`), on the host `setup` gives,
// until NetworkManager stops it: the process's exit status.
int runVpnService(int argc, char **argv, const HostSetup &setup);

} // namespace ibnm::plugin
