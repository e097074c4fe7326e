// SPDX-License-Identifier: LGPL-2.1-or-later
// What only tests give the programs NetworkManager runs (the dispatcher hook,
// nm-ibnm-service), in the tests' own builds of them
// (tests/plugin/ibnm-dispatcher-test.cpp, nm-ibnm-service-test.cpp): a key
// file named by `--test-config FILE` before the arguments, whose [test]
// group names a simulated host, fault rules, a copy of the log and a
// time-out. The installed programs have no such switch.
#pragma once

#include "libcore/ibnm-host.h"
#include "plugin/host-setup.hpp"

#include <glib.h>

#include <string>

namespace ibnm::plugin {

struct TestConfig {
    std::string simulate;      // host description file
    std::string simulateState; // its state directory
    std::string fakeFail;      // fault rules (examples/hosts/README.md)
    std::string log;           // a copy of the log
    unsigned timeoutMs = 0;    // 0: the program's own
};

// Takes `--test-config FILE` off the front of argv (argv[0] kept), reading
// FILE into `config`; false with `error` set when FILE cannot be read.
bool takeTestConfig(int &argc, char **&argv, TestConfig &config, GError **error);

// This machine, or the simulated host the configuration names (loading
// libibnm-simulator only then), with its fault rules.
IbnmHost *hostFor(const TestConfig &config, GError **error);

// The HostSetup of `config` (hostFor() as its host; `config` must outlive it).
HostSetup setupFor(const TestConfig &config);

} // namespace ibnm::plugin
