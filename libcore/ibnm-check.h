/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "ibnm-finding.h"
#include "ibnm-inventory.h"
#include "ibnm-profile.h"

G_BEGIN_DECLS

GPtrArray *ibnm_check_profiles(GPtrArray *profiles, IbnmInventory *inventory);
GPtrArray *ibnm_check_profiles_standalone(GPtrArray *profiles, IbnmInventory *inventory, gboolean standalone);
char **ibnm_check_opensm_partitions(GPtrArray *profiles, IbnmInventory *inventory);
gboolean ibnm_check_reload_inventory(IbnmInventory *inventory, GPtrArray *profiles, GError **error);

G_END_DECLS
