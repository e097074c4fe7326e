/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define IBNM_MAJOR_VERSION (0)
#define IBNM_MINOR_VERSION (1)
#define IBNM_MICRO_VERSION (0)
#define IBNM_VERSION_STRING "0.1.0"

#define IBNM_CHECK_VERSION(major, minor, micro)                                   \
    (IBNM_MAJOR_VERSION > (major) ||                                              \
     (IBNM_MAJOR_VERSION == (major) && IBNM_MINOR_VERSION > (minor)) ||           \
     (IBNM_MAJOR_VERSION == (major) && IBNM_MINOR_VERSION == (minor) &&           \
      IBNM_MICRO_VERSION >= (micro)))

const char *ibnm_get_version(void);

G_END_DECLS
