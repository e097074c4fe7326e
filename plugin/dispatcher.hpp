// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook's work (plugin/dispatcher.cpp), run by the installed
// ibnm-dispatcher on this machine and by the tests' own program
// (tests/plugin/ibnm-dispatcher-test.cpp) on a simulated host.
#pragma once

#include "plugin/host-setup.hpp"

namespace ibnm::plugin {

// The hook for argv ($1 interface, $2 action) and NetworkManager's
// environment, on the host `setup` gives: its exit status.
int runDispatcher(int argc, char **argv, const HostSetup &setup);

} // namespace ibnm::plugin
