// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/strings.hpp"

#include "libcore/support/raii.hpp"

#include <cstdarg>

namespace ibnm {

std::string strprintf(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    GCharPtr s(g_strdup_vprintf(format, ap));
    va_end(ap);
    return s.get();
}

} // namespace ibnm
