// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm's main(): the locale and text domain, the command (cli/main.cpp's
// run()), then standard output checked as coreutils' close_stdout() does.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/pager.hpp"
#include "libcore/support/i18n.hpp"

#include <cerrno>
#include <clocale>
#include <cstdio>

int main(int argc, char **argv)
{
    std::setlocale(LC_ALL, "");
    ibnm::bindTextDomain();
    textdomain(GETTEXT_PACKAGE);
    int rc = ibnm::cli::run(argc, argv);
    // What the command printed reached standard output, or the command
    // failed: a full disk or a closed pipe (SIGPIPE ignored) is an error,
    // as coreutils' close_stdout() makes it.
    ibnm::cli::endPagedOutput();
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        ibnm::cli::printError(_("could not write the output: %s"), g_strerror(errno ? errno : EIO));
        return rc == ibnm::cli::kExitOk ? ibnm::cli::kExitFailed : rc;
    }
    return rc;
}
