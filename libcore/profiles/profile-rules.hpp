// SPDX-License-Identifier: LGPL-2.1-or-later
// The rules ibnm checks IPoIB profiles with, beyond building them:
//   1. NetworkManager's verify() (same property prefixes),
//   2. the host: MTU against the IB link and broadcast group, connected mode
//      support, the port's P_Key table, limited membership, child names,
//   3. bonds of IPoIB ports,
//   4. across profiles: duplicate children, parents that exist nowhere,
//   5. ibnm's [user] options that the kernel refuses together (an rxe link
//      with RoCE v1).
// Each rule is a function over plain data returning findings; the public
// ibnm_check_profiles() wraps them in IbnmFinding objects. The planner's
// verdict (rule 6) is activation's: libcore/activation/check.hpp joins it to
// these rules, for `ibnm check` and `up` alike.
#pragma once

#include "libcore/ibnm-error.h"
#include "libcore/ibnm-finding.h"
#include "libcore/model/host.hpp"
#include "libcore/support/shared-text.hpp"

#include <NetworkManager.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace ibnm::rules {

struct Finding {
    // The profile, the property ("infiniband.mtu") and the hint (translated,
    // may be empty) are shared: the thousands of findings of a large check
    // repeat a few of each.
    SharedText profileId;
    SharedText property;
    IbnmSeverity severity = IBNM_SEVERITY_INFO;
    std::string message;  // translated, prefixed with the property by make()
    SharedText hint;
    // Of an error: what up would fail with. IBNM_ERROR_NOT_FOUND on a
    // warning: the profile's interface is not there yet (rule 7), and `up`
    // fails until it is.
    IbnmError code = IBNM_ERROR_INVALID_PROPERTY;
    // The ids of the other profiles a rule looked at to find this: a bond's
    // ports, the profile that claims the same name (IbnmFinding:related-profiles).
    std::vector<std::string> related;

    bool operator==(const Finding &o) const
    {
        return profileId == o.profileId && property == o.property && severity == o.severity &&
               message == o.message && hint == o.hint;
    }
};

// Rule 1: NetworkManager's verify(), the first error as a finding.
std::vector<Finding> checkNetworkManager(NMConnection *profile);

// Rule 2: one profile against the host; `host` nullptr means no inventory.
std::vector<Finding> checkHost(NMConnection *profile, const model::Host *host);

// Rule 3: bonds and their ports (all profiles, for looking up the peers).
// `context`: every known profile, where a port's bond profile is looked up
// (nullptr: `profiles`).
std::vector<Finding> checkBonds(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                const std::vector<NMConnection *> *context = nullptr);

// Rule 4: conflicts and missing parents across profiles.
// RoCE LAG (model::roceLags): a bond profile whose mode or ports would take
// a bond that now backs mlx5_bond_<n> out of LAG mode is a warning: the
// driver splits the bonded RDMA device, with its GIDs and settings.
std::vector<Finding> checkRoceLag(const std::vector<NMConnection *> &profiles, const model::Host &host,
                                  const std::vector<NMConnection *> *context);

std::vector<Finding> checkAcross(const std::vector<NMConnection *> &profiles, const model::Host *host);

// Rule 5: combinations of ibnm's [user] options that no host accepts.
// (Rule 7, an interface the host lacks yet, is checkRules()'s: profile-rules-private.hpp.)
std::vector<Finding> checkOptions(NMConnection *profile);

// Rule 5b: an Ethernet interface's or a bond's MTU outside what the kernel
// takes (model::linkMtuAccepted: below 68, a bond's above 65535), whatever
// the host: an error naming the property that holds it.
std::vector<Finding> checkLinkMtu(NMConnection *profile);

// Rule 5c (standalone, with a host): a profile's DNS servers and search
// domains (ipv4.dns, ...), which ibnm gives systemd-resolved: where it does
// not run nothing applies them, a warning naming the property; where the
// host was read without asking, an info.
std::vector<Finding> checkDns(NMConnection *profile, const model::Host *host, bool standalone);
// Without a host and without NetworkManager: an IPoIB profile addressed by
// DHCP, which standalone `up` refuses (profiles::dhcpRefusal()): a warning,
// since NetworkManager activates it.
std::vector<Finding> checkStandaloneDhcp(NMConnection *profile, const model::Host *host, bool standalone);
// Whether checking `profile` asks systemd-resolved's state
// (model::Host::resolver): it gives DNS to its own interface.
bool needsResolver(NMConnection *profile);

// Rule 6, what the planner refuses, is activation::checkPlan()'s
// (libcore/activation/check.hpp): the rules here need nothing of activation/.

// Rule 7: RDMA secondaries (VPN profiles of nm-ibnm-service): one that no
// profile lists in connection.secondaries (looked up in `context`, else
// `profiles`) or whose base names no interface, and base profiles that carry
// rdma.* keys in [user] as well as an RDMA secondary. Each secondary planned
// on the device of each base is activation::checkProfiles()'s.
std::vector<Finding> checkSecondaries(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                      const std::vector<NMConnection *> *context = nullptr);
// The profiles of `all` that list the RDMA secondary `secondary` in
// connection.secondaries, in the order of `all`.
std::vector<NMConnection *> secondaryBases(NMConnection *secondary, const std::vector<NMConnection *> &all);
// The interface NetworkManager activates the base profile `base` on, where
// its secondaries are provisioned: its interface name, else the IPoIB port of
// its MAC address on `host`; "" when neither.
std::string baseNetdev(NMConnection *base, const model::Host *host);

// Whether the rules and the planner, checking `profiles` against `host` as
// read without the GID tables (model::Host::withGidTables false), could ask
// for the RDMA device of a netdev that only the GID tables map: one that
// has none and that a profile names (interface, parent, master), or a
// bond (RoCE LAG) or an IPoIB interface (found by a profile's MAC) without one.
bool needsGidTables(const std::vector<NMConnection *> &profiles, const model::Host &host);

// `f` as the IbnmFinding ibnm_check_profiles() returns: the object
// g_object_new() with its construct properties makes (profile-id, property,
// severity, message, hint, related-profiles; an empty hint or list is none),
// its text moved in instead of copied through GValues
// (libcore/ibnm-finding.cpp).
IbnmFinding *newFinding(Finding &&f);

// Every rule above, errors first, then warnings, then info; stable within a
// severity. Not the planner's verdict: `ibnm check` and `up` ask
// activation::checkProfiles(), which adds it. `waiting` (with a host): the
// profiles whose interface the host lacks yet (rule 7), whose plan is left
// out of that verdict. `presence`: rule 7's findings (checkPresence()),
// when the caller has them already (it needed `waiting` first); they take
// rule 7's place.
std::vector<Finding> checkRules(const std::vector<NMConnection *> &profiles, const model::Host *host,
                                const std::vector<NMConnection *> *context = nullptr, bool standalone = false,
                                std::unordered_set<NMConnection *> *waiting = nullptr,
                                std::vector<Finding> *presence = nullptr);

} // namespace ibnm::rules
