// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/i18n.hpp"

#include <libintl.h>

#include <cstdlib>

namespace ibnm {

const char *bindTextDomain()
{
    static const char *dir = [] {
        // IBNM_LOCALEDIR: catalogues not yet installed (the tests use it).
        // Every copy of this code in a process (the program, libibnm.so,
        // the modules) binds the domain to the same directory, so loading
        // one does not take the program's catalogues away.
        const char *env = std::getenv("IBNM_LOCALEDIR");
        const char *d = env && *env ? env : LOCALEDIR;
        bindtextdomain(GETTEXT_PACKAGE, d);
        bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
        return d;
    }();
    return dir;
}

namespace {
// Bind once at load time, as libnm does, so even the first message a caller
// sees is translated.
[[maybe_unused]] const char *const bound = bindTextDomain();
} // namespace

} // namespace ibnm
