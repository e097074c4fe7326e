// SPDX-License-Identifier: LGPL-2.1-or-later
// Two readings of a host compared in what activation changes and undoes:
// how a rollback is checked (engine.cpp's rollback(), ibnm apply's), by
// reading the host back rather than trusting the undo steps' success.
#pragma once

#include "libcore/model/host.hpp"

#include <string>
#include <vector>

namespace ibnm::activation {

// What differs between `before` and `after`, one line per object and
// property, for people ("mlx4_ib0.8002: absent, was present", "mlx4_ib0:
// MTU 65520, was 2044"); empty when nothing does. Compared: which links,
// bonds and soft RDMA links exist, a link's MTU, state, controller,
// addresses and routes, an IPoIB link's mode, P_Key, parent and umcast, a
// bond's mode, ports, primary, miimon and fail_over_mac, a soft link's type
// and netdev, an RDMA port's default RoCE mode and ToS, traffic class, its
// rules and TTL, a device's roce_enable. Not compared: what the kernel gives
// anew to an object created again (ifindex, the QPN in an IPoIB address) or
// changes by itself (port state and rate, GIDs, a bond's active port).
std::vector<std::string> hostDifferences(const model::Host &before, const model::Host &after);

// `host` with only the objects named in `objects`: links, bonds and soft
// RDMA links by name, RDMA devices by name or by one of their ports
// ("mlx5_0/1"). What a set of steps touched (their StepRecord::object),
// to compare after undoing them long after they ran, when the rest of the
// host may have changed for other reasons.
model::Host restrictedTo(const model::Host &host, const std::vector<std::string> &objects);

} // namespace ibnm::activation
