/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exported under IBNM_PRIVATE for ibnm's CLI only, never installed: what one
 * add, modify or delete checks a profile with (issue 34). */
#pragma once

#include "settings/ibnm-settings.h"

G_BEGIN_DECLS

/* The stored profiles of @self the rules across profiles look at when they
 * check @connection (nullable) together with the store: those of its id and
 * UUID, its bond and the bond's ports, its ports, those of its interface,
 * its parent's, the same P_Key child or child name, the same port GUID or
 * soft RDMA link, its secondaries and bases; and those whose UUID, id or
 * interface name is one of @names (nullable, NULL-terminated). In the
 * store's order, (transfer container). Every profile of the store unless
 * it was locked for update with its index (the keyfile store): then only
 * these are read. Checking @connection with them (ibnm_check_profiles()
 * without an inventory) finds what checking it with every profile finds
 * about it. */
GPtrArray *ibnm_settings_get_related_private(IbnmSettings *self, NMConnection *connection, const char *const *names);

G_END_DECLS
