// SPDX-License-Identifier: LGPL-2.1-or-later
// The host description format of the simulated host (a GLib key file; see
// examples/hosts/README.md). The same format holds the simulation's state:
// formatHostDescription() writes everything parseHostDescription() reads.
//
// Errors are IBNM_ERROR_PARSE and name the place: "FILE:LINE: [port mlx4_0/1]
// active-mtu: expected a number, got “x”".
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/result.hpp"
#include "libcore/simulator/fake-platform.hpp"

#include <optional>
#include <string>

namespace ibnm::platform {

Result<FakeState> parseHostDescription(const std::string &text, const std::string &fileName);
Result<FakeState> loadHostDescription(const std::string &path);
// The bytes of a host description or state file (errors: ENOENT, EACCES, EIO).
Result<std::string> readHostDescriptionText(const std::string &path);
std::string formatHostDescription(const FakeState &state);

// Whether `id` can name an object in a host description and read back as
// itself ("[netdev ID]", "[bond ID]"): UTF-8 without "[", "]" or control
// characters, no blank at either end. The simulated host refuses names it
// could not store.
bool isStorableId(const std::string &id);

// The RDMA device a soft link creates over `netdev` (rxe: "1: CA", rdma_rxe;
// siw: "4: RNIC", siw), with one Ethernet port. Its node GUID is the
// modified EUI-64 of the netdev's MAC, as both drivers make it.
model::Device softLinkDevice(const std::string &name, model::SoftLinkType type, const model::Netdev &netdev);

// The stable, locally administered MAC address the simulated host gives a
// netdev that has none: from its ifindex and a hash of its name.
std::string localMac(unsigned ifindex, const std::string &name);

// "0002:c903:0031:7851" from the last 8 bytes of a 20-byte IPoIB address;
// empty if the address is not one.
std::string portGuidFromIpoibAddress(const std::string &address);

// "198.51.100.0/24 via 192.0.2.254 metric 100" -> model::Route (the
// reverse is model::formatRoute()).
std::optional<model::Route> parseRoute(const std::string &text);

// `route` into `routes` where the kernel lists it: a dump walks the FIB,
// not the order routes were added. IPv4 before IPv6 (two tables). IPv4
// (fib_trie, leaf_walk_rcu()): by destination address, and for one
// address the longer prefix first (fib_insert_alias() keeps a leaf's
// aliases by suffix length), then by metric. IPv6 (fib6_walk_continue():
// left, right, then the node): a more specific prefix before the prefix
// that holds it (the default route last), others by their first differing
// bit; then by metric. Equal otherwise: added after.
void insertRoute(std::vector<model::Route> &routes, model::Route route);

// Text forms shared by the parser and the writer.
const char *linkLayerName(model::LinkLayer l);
const char *roceModeName(model::RoceMode m); // "IB/RoCE v1", "RoCE v2"
const char *softLinkTypeName(model::SoftLinkType t); // "rxe", "siw"

} // namespace ibnm::platform
