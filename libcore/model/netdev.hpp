// SPDX-License-Identifier: LGPL-2.1-or-later
// Facts of any netdev, each stated once: the MTU range the kernel accepts
// for an Ethernet NIC or a bond. Profile rules and the planner ask these;
// the simulated host states the kernel's behaviour on its own.
//
// Sources: the kernel's net/core/dev.c (dev_validate_mtu()),
// net/ethernet/eth.c (ether_setup()), drivers/net/bonding/bond_main.c
// (bond_setup()); ../shared/FACTS.md, which records the kernel lab's check.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"

#include <optional>
#include <string>

namespace ibnm::model {

// --- MTU ------------------------------------------------------------------------

// ETH_MIN_MTU: the min_mtu ether_setup() gives Ethernet NICs and bonds.
inline constexpr unsigned kEthMinMtu = 68;
// ETH_MAX_MTU: a bond's max_mtu (bond_setup()); a NIC's is its driver's
// (IFLA_MAX_MTU, Netdev::maxMtu).
inline constexpr unsigned kBondMaxMtu = 65535;

// dev_validate_mtu() refuses an MTU below the device's min_mtu ("mtu less
// than device minimum") or above its max_mtu ("mtu greater than device
// maximum") with EINVAL; checked in the kernel lab for an Ethernet NIC and a
// bond (FACTS.md). NetworkManager 1.42 stores such a profile and, activating
// it, logs the kernel's refusal and leaves the MTU as it was; ibnm refuses
// it before anything changes (docs/differences-from-nmcli.md). `max`:
// nullopt when unknown. IBNM_ERROR_INVALID_PROPERTY (errno EINVAL) naming
// `ifname`, without the property (callers add it).
Status linkMtuAccepted(const std::string &ifname, unsigned mtu, std::optional<unsigned> max);

} // namespace ibnm::model
