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

const SoftLink *findSoftLink(const Host &host, const std::string &name)
{
    for (const auto &l : host.softLinks)
        if (l.name == name)
            return &l;
    return nullptr;
}

} // namespace ibnm::model
