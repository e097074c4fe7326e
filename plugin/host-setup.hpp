// SPDX-License-Identifier: LGPL-2.1-or-later
// What the programs NetworkManager runs (the dispatcher hook, nm-ibnm-service)
// share: the host they work on and where their log goes, given by their
// installed main() (this machine) or by the tests' own programs (a simulated
// host from plugin/test-config.hpp); the installed programs have no test
// switch.
#pragma once

#include "libcore/ibnm-host.h"

#include <glib.h>

#include <cstdio>
#include <string>

namespace ibnm::plugin {

struct HostSetup {
    // The host to work on (a new reference, or nullptr with `error` set).
    IbnmHost *(*newHost)(const void *data, GError **error) = nullptr;
    const void *data = nullptr;
    std::string log;        // a copy of the log, appended to ("" for none)
    unsigned timeoutMs = 0; // 0: the program's own
};

// The copy of the log that HostSetup::log names, open (appended to) in
// `target` while this lives, then closed and `target` cleared.
class LogCopy {
public:
    LogCopy(const HostSetup &setup, FILE *&target);
    ~LogCopy();
    LogCopy(const LogCopy &) = delete;
    LogCopy &operator=(const LogCopy &) = delete;

private:
    FILE *&target_;
};

// This machine's host: the installed programs' HostSetup::newHost.
IbnmHost *systemHost(const void *data, GError **error);

// Removes the variables NetworkManager's environment could carry that would
// point libibnm at another host (IBNM_SIMULATE, IBNM_SYSFS_ROOT, ...).
void dropHostEnvironment();

// A log line's text with control characters and backslashes escaped (a
// profile id or interface name must not forge a line or drive a terminal);
// UTF-8 text is kept.
std::string escapeLogText(const char *text);

} // namespace ibnm::plugin
