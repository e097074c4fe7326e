// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm-dispatcher: the dispatcher hook as NetworkManager runs it, through
// dispatcher.d/90-ibnm (plugin/90-ibnm.c), on this machine. Its work is in
// plugin/dispatcher.cpp; it takes no test switch and nothing from the
// environment that would point it at another host.
#include "config.h"

#include "libcore/support/i18n.hpp"
#include "plugin/dispatcher.hpp"

#include <clocale>

#include <syslog.h>

int main(int argc, char **argv)
{
    // NetworkManager's environment could carry these: never let the library
    // see them.
    ibnm::plugin::dropHostEnvironment();
    std::setlocale(LC_ALL, "");
    ibnm::bindTextDomain();
    openlog("ibnm-dispatcher", LOG_PID, LOG_DAEMON);
    ibnm::plugin::HostSetup setup;
    setup.newHost = ibnm::plugin::systemHost;
    return ibnm::plugin::runDispatcher(argc, argv, setup);
}
