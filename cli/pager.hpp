// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli's pager (src/nmcli/common.c nmc_terminal_spawn_pager): long output
// for people on a terminal goes through $PAGER (default `less -FRSXM`:
// quits when it fits one screen, keeps colour, chops long lines), never
// with --no-pager, an empty PAGER, -t/-g/-j, or standard output that is not
// a terminal. And the terminal's width, which tables fit.
#pragma once

#include "cli/cli.hpp"

#include <cstddef>

namespace ibnm::cli {

// Starts the pager once per process when ctx allows it; standard output is
// then its pipe until the process exits (which waits for the pager).
void startPager(const Context &ctx);
// At the end of a command: what is left reaches the pager; a write error
// because the user quit it early is forgotten (nmcli and git say none).
// Each copy of the CLI (the program, the full module) ends its own pager.
void endPagedOutput();
// The columns of the terminal standard output was when the process started
// (read before any pager), 0 when it is no terminal.
size_t terminalColumns();

} // namespace ibnm::cli
