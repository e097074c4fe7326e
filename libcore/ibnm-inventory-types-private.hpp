// SPDX-License-Identifier: LGPL-2.1-or-later
// Constructors of the inventory's read-only objects from the host model.
#pragma once

#include "libcore/ibnm-inventory-types.h"
#include "libcore/model/host.hpp"

namespace ibnm {

IbnmGid *gidNew(const model::Gid &gid);
// The device with its ports; each port lists the netdevs on it.
IbnmRdmaDevice *rdmaDeviceNew(const model::Device &device, const model::Host &host);
IbnmIpoibInterface *ipoibInterfaceNew(const model::IpoibNetdev &ipoib, const model::Host &host);
IbnmSoftLink *softLinkNew(const model::SoftLink &link);

} // namespace ibnm
