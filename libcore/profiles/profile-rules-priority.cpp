// SPDX-License-Identifier: LGPL-2.1-or-later
// Rule 8: the RoCE priority chain (NVIDIA's RoCE page): a profile's
// rdma.roce-tos gives its RDMA port's RDMA-CM QPs the priority
// model::rocePriorityOfTos() says; tagged frames carry it only when the
// VLAN's egress-qos-map maps it (model::vlanEgressPcp), and RoCE needs it
// lossless: PFC on that priority (model::pfcLossless, read through DCB
// netlink). Warnings: the kernel accepts every ToS.
#include "config.h"

#include "libcore/profiles/profile-rules-private.hpp"

#include "libcore/model/rdma.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

namespace ibnm::rules {

namespace {

// "3;4" of a PFC bitmap, "none" when empty.
std::string pfcPriorities(uint8_t bits)
{
    std::string out;
    for (unsigned p = 0; p <= model::kMaxPriority; p++)
        if (model::pfcLossless(bits, p))
            out += (out.empty() ? "" : ",") + std::to_string(p);
    return out.empty() ? std::string(_("none")) : out;
}

// The Ethernet netdev of the RoCE port behind `ifname` (a VLAN's lower one).
const model::Netdev *roceNetdev(const model::HostIndex &index, const std::string &ifname)
{
    const model::Netdev *nd = index.netdev(ifname);
    if (nd && nd->kind == "vlan")
        nd = index.netdev(nd->link);
    if (nd == nullptr || nd->type != 1 || nd->rdmaDevice.empty() || index.device(nd->rdmaDevice) == nullptr)
        return nullptr;
    return nd;
}

} // namespace

std::vector<Finding> checkRocePriority(NMConnection *profile, const model::Host *host, const model::HostIndex *index)
{
    std::vector<Finding> out;
    auto options = userkeys::parse(profile);
    if (host == nullptr || !options.ok() || !options->roceTos)
        return out;
    const model::Netdev *real = roceNetdev(*index, ifnameOf(profile));
    if (real == nullptr)
        return out;
    const unsigned tos = *options->roceTos;
    const model::RocePriority prio = model::rocePriorityOfTos(tos);
    for (const auto &vlan : host->netdevs) {
        if (vlan.kind != "vlan" || vlan.link != real->name)
            continue;
        unsigned pcp = model::vlanEgressPcp(vlan, prio.pcp);
        if (pcp == prio.pcp)
            continue;
        out.push_back(make(profile, "rdma.roce-tos", IBNM_SEVERITY_WARNING,
                           strprintf(_("ToS %u is RoCE priority %u (SL %u, PCP %u), but the "
                                       "egress-qos-map of the VLAN %s sends priority %u as PCP %u"),
                                     tos, prio.pcp, prio.sl, prio.pcp, vlan.name.c_str(), prio.pcp, pcp),
                           strprintf(_("Map it: nmcli connection modify VLAN-PROFILE vlan.egress-priority-map "
                                       "%u:%u (or ip link set %s type vlan egress-qos-map %u:%u)."),
                                     prio.pcp, prio.pcp, vlan.name.c_str(), prio.pcp, prio.pcp)));
    }
    if (real->pfcEnabled && !model::pfcLossless(*real->pfcEnabled, prio.pcp))
        out.push_back(make(profile, "rdma.roce-tos", IBNM_SEVERITY_WARNING,
                           strprintf(_("ToS %u is RoCE priority %u, which is not lossless on %s: "
                                       "DCB reports PFC on priorities %s"),
                                     tos, prio.pcp, real->name.c_str(), pfcPriorities(*real->pfcEnabled).c_str()),
                           strprintf(_("Enable PFC on priority %u: dcb pfc set dev %s prio-pfc %u:on, and on "
                                       "every switch port in the path."),
                                     prio.pcp, real->name.c_str(), prio.pcp)));
    return out;
}

} // namespace ibnm::rules
