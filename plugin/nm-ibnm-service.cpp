// SPDX-License-Identifier: LGPL-2.1-or-later
// nm-ibnm-service: ibnm's NetworkManager VPN service as NetworkManager starts
// it, on this machine (plugin/vpn-service-plugin.cpp says what it does). It
// takes no test switch and nothing from the environment that would point it
// at another host.
#include "config.h"

#include "libcore/support/i18n.hpp"
#include "plugin/vpn-service-plugin.hpp"

#include <clocale>
#include <libintl.h>

int main(int argc, char **argv)
{
    ibnm::plugin::dropHostEnvironment();
    std::setlocale(LC_ALL, "");
    ibnm::bindTextDomain();
    textdomain(GETTEXT_PACKAGE);
    ibnm::plugin::HostSetup setup;
    setup.newHost = ibnm::plugin::systemHost;
    return ibnm::plugin::runVpnService(argc, argv, setup);
}
