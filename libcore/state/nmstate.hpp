// SPDX-License-Identifier: LGPL-2.1-or-later
// nmstate's schema, for what ibnm covers, to and from NetworkManager
// profiles. An `interfaces:` list whose entries have `name`, `type`
// (infiniband, bond, ethernet), `state` (up, down, absent), `mtu`,
// `infiniband: {base-iface, pkey, mode}`, `link-aggregation: {mode,
// options, port}`, `ipv4`/`ipv6: {enabled, dhcp, autoconf, address:
// [{ip, prefix-length}]}`, and ibnm's RDMA keys under the one extension key
// `ibnm-rdma` (`{link-type, link-name, roce-mode, roce-tos, traffic-class,
// ttl, umcast}`, NetworkManager [user] keys rdma.* and ipoib.umcast).
// Anything else is refused, naming it: a key ibnm would silently ignore is
// a desired state that never converges.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"
#include "libcore/state/document.hpp"

#include <NetworkManager.h>

#include <set>
#include <string>
#include <vector>

namespace ibnm::state {

// The extension key under which an interface carries ibnm's RDMA keys.
inline constexpr const char *kExtensionKey = "ibnm-rdma";

// The most interfaces one document may list (each becomes a profile read,
// planned and written in one transaction).
inline constexpr size_t kMaxInterfaces = 65536;

enum class InterfaceState { Up, Down, Absent };
enum class ChangeKind { None, Add, Modify, Delete };

// What the document asks of one interface's profile.
struct Change {
    std::string interface;
    InterfaceState state = InterfaceState::Up;
    ChangeKind kind = ChangeKind::None;
    NMConnection *stored = nullptr;         // borrowed: the profile as stored, if any
    GObjectPtr<NMConnection> desired;       // the profile as it will be (not for Delete)
};

// Compares `root` with the stored profiles. A profile is found by its
// connection.interface-name, else by its id; a new one is named after its
// interface. Properties the document does not name keep their stored values
// (nmstate merges the same way). Errors are prefixed with `filename` and
// `interfaces[N] 'name'` and name the key or property.
Result<std::vector<Change>> plan(JsonNode *root, const std::vector<NMConnection *> &stored,
                                 const std::string &filename);

// The stored infiniband, bond and ethernet profiles as a document of the
// same schema; an interface's state is up when its profile's UUID is in
// `active` (no set: every profile is up). plan() of this document, applied,
// changes nothing.
JsonNodePtr describe(const std::vector<NMConnection *> &stored, const std::set<std::string> *active);

} // namespace ibnm::state
