/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "ibnm-finding.h"
#include "ibnm-inventory.h"
#include "ibnm-profile.h"

G_BEGIN_DECLS

/**
 * IbnmCheckFlags:
 * @IBNM_CHECK_FLAGS_NONE: the profiles are NetworkManager's to activate
 * @IBNM_CHECK_FLAGS_STANDALONE: ibnm activates the profiles itself (no
 *   NetworkManager): what ibnm cannot do alone is an error too, as `up`
 *   refuses it (an IPoIB profile that asks for DHCP)
 *
 * How ibnm_check_profiles() checks.
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_CHECK_FLAGS_NONE = 0,
    IBNM_CHECK_FLAGS_STANDALONE = 1 << 0,
} IbnmCheckFlags;

#define IBNM_TYPE_CHECK_FLAGS (ibnm_check_flags_get_type())
GType ibnm_check_flags_get_type(void);

GPtrArray *ibnm_check_profiles(GPtrArray *profiles, IbnmInventory *inventory, IbnmCheckFlags flags);
char **ibnm_check_opensm_partitions(GPtrArray *profiles, IbnmInventory *inventory);
gboolean ibnm_check_reload_inventory(IbnmInventory *inventory, GPtrArray *profiles, GError **error);

G_END_DECLS
