// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-version.h"

const char *ibnm_get_version(void)
{
    return PACKAGE_VERSION;
}
