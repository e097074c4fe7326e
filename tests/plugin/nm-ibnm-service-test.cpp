// SPDX-License-Identifier: LGPL-2.1-or-later
// nm-ibnm-service as the tests run it (tests/plugin/vpn-dbus-test.cpp, the
// NetworkManager lab): the installed service's work
// (plugin/vpn-service-plugin.cpp) on the simulated host, fault rules, log
// copy and time-out that a key file named by `--test-config FILE` before the
// arguments gives (plugin/test-config.hpp). Never installed.
#include "config.h"

#include "libcore/support/i18n.hpp"
#include "plugin/test-config.hpp"
#include "plugin/vpn-service-plugin.hpp"

#include <clocale>
#include <cstdio>
#include <libintl.h>

int main(int argc, char **argv)
{
    ibnm::plugin::dropHostEnvironment();
    std::setlocale(LC_ALL, "");
    ibnm::bindTextDomain();
    textdomain(GETTEXT_PACKAGE);
    ibnm::plugin::TestConfig config;
    GError *error = nullptr;
    if (!ibnm::plugin::takeTestConfig(argc, argv, config, &error)) {
        std::fprintf(stderr, "nm-ibnm-service-test: %s\n", error->message);
        g_error_free(error);
        return 2;
    }
    return ibnm::plugin::runVpnService(argc, argv, ibnm::plugin::setupFor(config));
}
