// SPDX-License-Identifier: LGPL-2.1-or-later
// Small string helpers shared by libcore.
#pragma once

#include <glib.h>

#include <string>

namespace ibnm {

// printf into a std::string (for translated messages with arguments:
// strprintf(_("'%s' is not valid"), v.c_str())).
std::string strprintf(const char *format, ...) G_GNUC_PRINTF(1, 2);

} // namespace ibnm
