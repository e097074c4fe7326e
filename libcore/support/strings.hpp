// SPDX-License-Identifier: LGPL-2.1-or-later
// Small string helpers shared by libcore.
#pragma once

#include <glib.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ibnm {

// printf into a std::string (for translated messages with arguments:
// strprintf(_("'%s' is not valid"), v.c_str())).
std::string strprintf(const char *format, ...) G_GNUC_PRINTF(1, 2);

// Whether `v` holds `s`.
inline bool contains(const std::vector<std::string> &v, const std::string &s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace ibnm
