// SPDX-License-Identifier: LGPL-2.1-or-later
// Where ibnm's loadable modules are (ibnm-linux.so, ibnm-cli.so): the
// directories of $IBNM_MODULE_PATH (colon-separated, searched in order, as
// GStreamer's GST_PLUGIN_PATH), then the installed directory. Nothing of the
// build tree is compiled in: the tests, `make demo` and `make bench` name the
// build tree's module directories in IBNM_MODULE_PATH (Makefile.am), and the
// dispatcher hook, which runs with NetworkManager's environment, removes it.
#pragma once

#include <string>

namespace ibnm {

// The file `name` in the first directory of $IBNM_MODULE_PATH that has it,
// else `installedDir`/`name` (whether or not it exists: opening it says why
// it cannot be used).
std::string modulePath(const char *name, const char *installedDir);

} // namespace ibnm
