// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/strings.hpp"

#include "libcore/support/raii.hpp"

#include <cstdarg>
#include <cstdio>

namespace ibnm {

std::string strprintf(const char *format, ...)
{
    // Most texts fit the stack buffer: formatted once, one allocation (the
    // string's); a longer one is formatted again into the string.
    char buf[256];
    va_list ap;
    va_start(ap, format);
    va_list again;
    va_copy(again, ap);
    int n = std::vsnprintf(buf, sizeof buf, format, ap);
    va_end(ap);
    std::string out;
    if (n >= 0 && static_cast<size_t>(n) < sizeof buf) {
        out.assign(buf, static_cast<size_t>(n));
    } else if (n >= 0) {
        out.resize(static_cast<size_t>(n));
        std::vsnprintf(out.data(), out.size() + 1, format, again);
    } else {
        GCharPtr s(g_strdup_vprintf(format, again)); // as GLib formats what libc refuses
        out = s ? s.get() : "";
    }
    va_end(again);
    return out;
}

} // namespace ibnm
