// SPDX-License-Identifier: LGPL-2.1-or-later
// One side of an RDMA connection, as `ibnm rdma test` reports it (the
// types only: model/rdma.hpp describes a path through a host; the platform's
// RdmaTestOutcome carries two).
#pragma once

#include <optional>
#include <string>

namespace ibnm::model {

// How an RDMA connection travels, as `ibnm rdma test` reports it:
// InfiniBand, RoCE v1 (the "IB/RoCE v1" GID type on an Ethernet port),
// RoCE v2, or iWARP (an RNIC, node type 4, such as siw: its GID type reads
// "IB/RoCE v1" but no GID addresses its packets).
enum class RdmaProtocol { Unknown, InfiniBand, RoceV1, RoceV2, Iwarp };

// One side of an RDMA connection: where its traffic leaves and how.
struct RdmaPath {
    std::string address;              // the IP address rdma_cm bound
    std::string device;               // "rxe0"
    unsigned port = 0;
    std::string netdev;               // empty when unknown
    RdmaProtocol protocol = RdmaProtocol::Unknown;
    std::optional<unsigned> gidIndex; // the QP's source GID (not on iWARP)
    std::string gid;                  // as sysfs prints it; empty when none
    std::optional<unsigned> tos;      // the QP's traffic class (ToS)
    std::optional<unsigned> pathMtu;  // bytes (256..4096)
};

} // namespace ibnm::model
