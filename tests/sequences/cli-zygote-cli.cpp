// SPDX-License-Identifier: LGPL-2.1-or-later
// What cli-zygote.c calls: the CLI's run() (cli/libibnm-cli.la, the objects
// cli/ibnm links) and, once before the first fork, the text domain and the
// simulator's library, so that no child opens it again.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/pager.hpp"
#include "libcore/simulator/loader.hpp"
#include "libcore/support/i18n.hpp"

extern "C" int zygote_prepare(void);
extern "C" int zygote_run_cli(int argc, char **argv);

int zygote_prepare(void)
{
    // As cli/ibnm's main() (each child sets its locale).
    ibnm::bindTextDomain();
    textdomain(GETTEXT_PACKAGE);
    GError *error = nullptr;
    if (ibnm::simulator::load(&error) == nullptr) {
        g_printerr("cli-zygote: %s\n", error->message);
        g_error_free(error);
        return -1;
    }
    return 0;
}

int zygote_run_cli(int argc, char **argv)
{
    int rc = ibnm::cli::run(argc, argv);
    ibnm::cli::endPagedOutput();
    return rc;
}
