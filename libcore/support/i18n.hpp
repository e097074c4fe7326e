// SPDX-License-Identifier: LGPL-2.1-or-later
// Translation of user-visible messages: wrap them in _() (or N_() where the
// string is translated later). Debug text is not translated.
#pragma once

#ifndef GETTEXT_PACKAGE
#error "include config.h first"
#endif

#include <glib/gi18n-lib.h>

namespace ibnm {

// Binds the "ibnm" text domain to the installed locale directory, or to
// $IBNM_LOCALEDIR (catalogues not yet installed). The library does this once,
// when it is loaded; a program may call it again harmlessly. Returns the
// directory the domain is bound to.
const char *bindTextDomain();

} // namespace ibnm
