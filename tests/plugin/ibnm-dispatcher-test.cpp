// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook as the tests run it (tests/plugin/dispatcher-test.cpp,
// the NetworkManager labs): the installed hook's work (plugin/dispatcher.cpp)
// on the simulated host, fault rules, log copy and time-out that a key file
// named by `--test-config FILE` before the arguments gives
// (plugin/test-config.hpp). Never installed.
#include "config.h"

#include "libcore/support/i18n.hpp"
#include "plugin/dispatcher.hpp"
#include "plugin/test-config.hpp"

#include <clocale>
#include <cstdio>

#include <syslog.h>

int main(int argc, char **argv)
{
    ibnm::plugin::dropHostEnvironment();
    std::setlocale(LC_ALL, "");
    ibnm::bindTextDomain();
    openlog("ibnm-dispatcher", LOG_PID, LOG_DAEMON);
    ibnm::plugin::TestConfig config;
    GError *error = nullptr;
    if (!ibnm::plugin::takeTestConfig(argc, argv, config, &error)) {
        std::fprintf(stderr, "ibnm-dispatcher-test: %s\n", error->message);
        g_error_free(error);
        return 2;
    }
    return ibnm::plugin::runDispatcher(argc, argv, ibnm::plugin::setupFor(config));
}
