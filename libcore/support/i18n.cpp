// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/i18n.hpp"

#include <libintl.h>

namespace ibnm {

const char *bindTextDomain()
{
    static const char *dir = [] {
        bindtextdomain(GETTEXT_PACKAGE, LOCALEDIR);
        bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
        return LOCALEDIR;
    }();
    return dir;
}

namespace {
// Bind once at load time, as libnm does, so even the first message a caller
// sees is translated.
[[maybe_unused]] const char *const bound = bindTextDomain();
} // namespace

} // namespace ibnm
