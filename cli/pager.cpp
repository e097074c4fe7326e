// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "cli/pager.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ibnm::cli {

namespace {

pid_t gPager = -1;

size_t readColumns()
{
    if (!isatty(STDOUT_FILENO))
        return 0;
    winsize ws{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *env = std::getenv("COLUMNS");
    long n = env ? std::strtol(env, nullptr, 10) : 0;
    return n > 0 ? size_t(n) : 80;
}

// At exit: the last output reaches the pager, which sees the end of its
// input; the shell's prompt comes back when the user leaves it.
void waitForPager()
{
    if (gPager < 0)
        return;
    std::fflush(stdout);
    close(STDOUT_FILENO);
    int status = 0;
    while (waitpid(gPager, &status, 0) < 0 && errno == EINTR) {
    }
    gPager = -1;
}

} // namespace

size_t terminalColumns()
{
    static const size_t columns = readColumns();
    return columns;
}

void endPagedOutput()
{
    if (gPager < 0)
        return;
    std::fflush(stdout);
    // Standard output is the pager's pipe: the only way to fail writing it
    // is that the user quit the pager, which is no error.
    std::clearerr(stdout);
}

void startPager(const Context &ctx)
{
    static bool tried = false;
    const Options &o = ctx.options;
    if (tried || o.noPager || o.mode != OutputMode::Tabular || o.getValues)
        return;
    tried = true;
    terminalColumns(); // the terminal's, before standard output is the pipe
    if (!isatty(STDOUT_FILENO))
        return;
    const char *env = std::getenv("PAGER");
    std::string pager = env ? env : "less -FRSXM";
    if (pager.empty() || pager == "cat")
        return;
    int fds[2];
    if (pipe(fds) != 0)
        return;
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]);
        close(fds[1]);
        // less's own defaults where LESS is unset, as nmcli sets them.
        setenv("LESS", "FRSXM", 0);
        signal(SIGPIPE, SIG_DFL);
        execl("/bin/sh", "sh", "-c", pager.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    // The user may quit the pager before the end: the writes after that
    // fail (EPIPE) instead of killing ibnm, and endPagedOutput() forgets them.
    signal(SIGPIPE, SIG_IGN);
    gPager = pid;
    std::atexit(waitForPager);
}

} // namespace ibnm::cli
