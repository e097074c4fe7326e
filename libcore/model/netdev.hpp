// SPDX-License-Identifier: LGPL-2.1-or-later
// Facts of any netdev, each stated once: the MTU range the kernel accepts
// for an Ethernet NIC or a bond, when it accepts a route through a gateway
// (with what NetworkManager adds first so that it does), and the DNS
// configuration NetworkManager gives systemd-resolved for a link. Profile
// rules and the planner ask these; the simulated host states the kernel's
// behaviour on its own.
//
// Sources: the kernel's net/core/dev.c (dev_validate_mtu()),
// net/ethernet/eth.c (ether_setup()), drivers/net/bonding/bond_main.c
// (bond_setup()), net/ipv4/fib_semantics.c (fib_check_nh()),
// net/ipv6/route.c (ip6_validate_gw()); NetworkManager 1.42's
// src/core/nm-l3-config-data.c and src/core/dns/nm-dns-systemd-resolved.c;
// ../shared/FACTS.md, which records the kernel lab's checks of both.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"

#include <optional>
#include <string>
#include <vector>

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

// --- routes -----------------------------------------------------------------------

// Whether the kernel takes a route through `gateway` on a netdev that has
// `addresses` ("192.0.2.10/24") and the routes `routes`: the gateway must be
// on the subnet of one of the addresses (its prefix route) or of a route
// without gateway through the netdev (fib_check_nh() looks the gateway up
// as a link-scope destination of the device; ip6_validate_gw() does the
// same for IPv6 and takes any link-local gateway, fe80::/10). Otherwise
// ENETUNREACH ("Nexthop has invalid gateway").
bool gatewayOnLink(const std::string &gateway, const std::vector<std::string> &addresses,
                   const std::vector<Route> &routes);

// The routes NetworkManager 1.42 configures for `routes` on a device whose
// addresses are `addresses`, in the order it needs them: for a route whose
// gateway is not on link (gatewayOnLink() with the profile's addresses and
// its routes without gateway), a copy of the route to the gateway alone
// (/32 or /128, no gateway, the route's metric) first
// (nm_l3_config_data_add_dependent_onlink_routes(), nm-l3-config-data.c),
// so that the default route through a gateway outside every subnet of the
// profile succeeds (checked in the kernel lab's guest, FACTS.md). The same
// host route serves every route through that gateway with that metric.
std::vector<Route> withOnlinkRoutes(const std::vector<std::string> &addresses, const std::vector<Route> &routes);

// --- DNS ----------------------------------------------------------------------------

// NetworkManager 1.42 gives a connection's DNS to systemd-resolved per link
// (src/core/dns/nm-dns-systemd-resolved.c, prepare_one_interface()): the
// servers of its IPv4 setting, then of its IPv6 one, in one SetLinkDNS call,
// and their search domains in one SetLinkDomains call ("~example.com" is a
// routing-only domain); a family whose method is disabled gives none, and
// RevertLink gives the link back when it goes. Without NetworkManager ibnm
// gives the same to systemd-resolved where it runs (Platform::setLinkDns);
// where it does not, nothing applies them and `ibnm check` says so. What
// resolved then holds for the link: each value once, in that order.
LinkDns resolvedLinkDns(const std::vector<std::string> &servers4, const std::vector<std::string> &servers6,
                        const std::vector<std::string> &search4, const std::vector<std::string> &search6);

} // namespace ibnm::model
