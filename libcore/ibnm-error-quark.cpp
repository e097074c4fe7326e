// SPDX-License-Identifier: LGPL-2.1-or-later
// The IBNM_ERROR domain (the IbnmError enum's GType is in ibnm-error.cpp).
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
