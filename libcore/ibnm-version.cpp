// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-version.h"

/**
 * ibnm_get_version:
 *
 * Gets the version of the libibnm loaded at run time, which may be newer than
 * #IBNM_VERSION_STRING of the headers a program was built with.
 *
 * Returns: (transfer none): the version, as "0.1.0"; a static string.
 *
 * Since: 0.1
 */
const char *ibnm_get_version(void)
{
    return PACKAGE_VERSION;
}
