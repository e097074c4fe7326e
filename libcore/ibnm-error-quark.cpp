// SPDX-License-Identifier: LGPL-2.1-or-later
// The IBNM_ERROR domain alone, without the IbnmError enum's GType
// (ibnm-error.cpp): the Linux platform's module (ibnm-linux.so) compiles this
// file for its errors. A second copy of the GType there would register the
// type name "IbnmError" a second time, which GObject refuses, the first time
// module code asked for it; a quark is the same in every copy
// (g_quark_from_static_string() of one string). tests/check-symbols.sh
// checks that the modules register no type.
#include "config.h"

#include "libcore/ibnm-error.h"

/**
 * ibnm_error_quark:
 *
 * The quark of the #IBNM_ERROR domain; use the #IBNM_ERROR macro.
 *
 * Returns: the #GQuark of the libibnm error domain.
 *
 * Since: 0.1
 */
// The macro stringifies the name, spaces included: not formatted.
// clang-format off
G_DEFINE_QUARK(ibnm-error-quark, ibnm_error)
// clang-format on
