// SPDX-License-Identifier: LGPL-2.1-or-later
// The C++ side of IbnmInventory, for the rest of libcore (profile rules,
// activation): the snapshot behind the GObject.
#pragma once

#include "libcore/ibnm-inventory.h"
#include "libcore/model/host.hpp"

#include <functional>

namespace ibnm {

// The host as last loaded (empty before the first successful reload).
const model::Host &inventoryHost(IbnmInventory *inventory);

// ibnm_inventory_reload() that reads the GID tables only when `needed`
// says so of the host read without them (Platform::readHostWithoutGidTables;
// a platform that read them anyway is not asked): then the host is read
// again whole, so that the result is ibnm_inventory_reload()'s.
// `withResolver`: also systemd-resolved's state (Platform::readResolver(),
// model::Host::resolver; left unknown when it cannot be read).
gboolean inventoryReloadGidTablesIf(IbnmInventory *inventory,
                                    const std::function<bool(const model::Host &)> &needed, GError **error,
                                    bool withResolver = false);
// The same, with `adjust` (may be empty) given the host as read (and its
// resolver state) before it is kept.
gboolean inventoryReloadGidTablesIf(IbnmInventory *inventory,
                                    const std::function<bool(const model::Host &)> &needed,
                                    const std::function<void(model::Host &)> &adjust, GError **error,
                                    bool withResolver = false);

// An inventory holding `host` (no platform behind it): for rules, tests and
// snapshots taken elsewhere.
IbnmInventory *inventoryNewFromHost(model::Host host);

} // namespace ibnm
