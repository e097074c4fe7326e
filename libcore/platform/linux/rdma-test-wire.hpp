// SPDX-License-Identifier: LGPL-2.1-or-later
// The messages of `ibnm rdma test` between its two sides (version 1): pure
// encoders and decoders, tested against golden bytes.
//
// Every message starts with an 8-byte header: "IBRT", the version (1), the
// type, and the whole message's length (big-endian u16); numbers are
// big-endian. The client's Connect travels as rdma_connect()'s private data
// (InfiniBand and RoCE allow 56 bytes there) and a refusal as the listener's
// rdma_reject() private data, so that either side can refuse the other
// before a queue pair carries anything; the rest are SENDs on the
// connection: Hello (each side's path and the buffer the other writes to),
// Done (the end of one side's writes, with what they moved) and Report (the
// client's figures, for the listener to show too). A decoder takes the
// header's length, not the buffer's (rdma_cm pads private data with zeros),
// and ignores bytes past what it knows.
#pragma once

#include "libcore/model/rdma.hpp"
#include "libcore/platform/rdma-test.hpp"
#include "libcore/support/result.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ibnm::platform::wire {

inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kHeaderSize = 8;
// The largest message this version sends (a Hello with four 63-byte strings).
inline constexpr size_t kMaxMessage = 512;
// The most private data rdma_connect() may carry on InfiniBand and RoCE
// (RDMA_PS_TCP: 56 bytes, rdma_connect(3)) and rdma_reject() (148).
inline constexpr size_t kMaxConnectData = 56;
inline constexpr size_t kMaxRejectData = 148;

enum class Type : uint8_t { Connect = 1, Reject = 2, Hello = 3, Done = 4, Report = 5 };

using Bytes = std::vector<uint8_t>;

struct Connect {
    bool bidirectional = false;
    uint32_t count = 0;
    uint16_t pingSize = 0;
    uint32_t writeSize = 0;
    uint32_t durationMs = 0;
};

// Why a listener refused a client; `value` is what the refusal names (the
// version the listener speaks, the largest size it takes).
enum class RejectReason : uint8_t { Version = 1, PingSize = 2, WriteSize = 3, Resources = 4 };
struct Reject {
    RejectReason reason = RejectReason::Resources;
    uint32_t value = 0;
};

struct Hello {
    model::RdmaPath path;
    uint64_t bufferAddress = 0; // the buffer the peer's RDMA writes go to
    uint32_t rkey = 0;
    uint32_t bufferLength = 0;
};

struct Done {
    BandwidthFigure moved; // bytes 0: that side wrote nothing
};

struct Report {
    std::optional<LatencySummary> latency;
    std::optional<BandwidthFigure> toListener;
};

Bytes encode(const Connect &m);
Bytes encode(const Reject &m);
Bytes encode(const Hello &m);
Bytes encode(const Done &m);
Bytes encode(const Report &m);

// The type of the message in `data` (its header checked: "IBRT", version,
// a length within `size`); IBNM_ERROR_PARSE naming what is wrong.
Result<Type> messageType(const uint8_t *data, size_t size);
// Whether `data` starts with this protocol's magic, whatever its version:
// a refusal that carries none came from rdma_cm itself, not from a listener.
bool hasMagic(const uint8_t *data, size_t size);

Result<Connect> decodeConnect(const uint8_t *data, size_t size);
Result<Reject> decodeReject(const uint8_t *data, size_t size);
Result<Hello> decodeHello(const uint8_t *data, size_t size);
Result<Done> decodeDone(const uint8_t *data, size_t size);
Result<Report> decodeReport(const uint8_t *data, size_t size);

} // namespace ibnm::platform::wire
