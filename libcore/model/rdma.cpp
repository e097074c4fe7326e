// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/rdma.hpp"

namespace ibnm::model {

const char *softLinkTypeName(SoftLinkType type)
{
    return type == SoftLinkType::Rxe ? "rxe" : "siw";
}

const char *roceModeName(RoceMode mode)
{
    return mode == RoceMode::V1 ? "IB/RoCE v1" : "RoCE v2";
}

std::string defaultSoftLinkName(SoftLinkType type, const std::string &netdev)
{
    std::string name = std::string(softLinkTypeName(type)) + "_" + netdev;
    if (name.size() > 63)
        name.resize(63);
    return name;
}

bool roceModeSupported(std::optional<SoftLinkType> softLink, LinkLayer linkLayer, RoceMode mode)
{
    // rxe: the kernel refuses "IB/RoCE v1" (kernel lab, KernelRefusalOfRoceV1RollsBackTheLink);
    // siw: "RoCE v2" (platform contract SiwRefusesRoceV2).
    if (softLink)
        return *softLink == SoftLinkType::Rxe ? mode == RoceMode::V2 : mode == RoceMode::V1;
    if (linkLayer != LinkLayer::Ethernet)
        return mode == RoceMode::V1;
    return true;
}

bool hasTrafficClassFiles(const Device &device)
{
    return device.driver == "mlx5_core";
}

bool isIpv4MappedGid(const std::string &gid)
{
    return gid.rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0;
}

std::optional<unsigned> gidIndexFor(const Port &port, GidType type, bool ipv6, const std::string &netdev)
{
    std::string want = netdev;
    if (want.empty())
        for (const auto &g : port.gids)
            if (g.index == 0)
                want = g.netdev;
    for (const auto &g : port.gids) {
        if (g.type != type || g.netdev != want || g.gid.find_first_not_of("0:") == std::string::npos)
            continue;
        bool v4 = isIpv4MappedGid(g.gid);
        bool linkLocal = g.gid.rfind("fe80:", 0) == 0;
        if (ipv6 ? (!v4 && !linkLocal) : v4)
            return g.index;
    }
    return std::nullopt;
}

const SoftLink *findSoftLink(const Host &host, const std::string &name)
{
    for (const auto &l : host.softLinks)
        if (l.name == name)
            return &l;
    return nullptr;
}

} // namespace ibnm::model
