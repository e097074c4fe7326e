// SPDX-License-Identifier: LGPL-2.1-or-later
// The C++ side of IbnmInventory, for the rest of libcore (profile rules,
// activation): the snapshot behind the GObject.
#pragma once

#include "libcore/ibnm-inventory.h"
#include "libcore/model/host.hpp"

namespace ibnm {

// The host as last loaded (empty before the first successful reload).
const model::Host &inventoryHost(IbnmInventory *inventory);

// An inventory holding `host` (no platform behind it): for rules, tests and
// snapshots taken elsewhere.
IbnmInventory *inventoryNewFromHost(model::Host host);

} // namespace ibnm
