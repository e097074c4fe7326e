// SPDX-License-Identifier: LGPL-2.1-or-later
// What Platform::runRdmaTest() takes and gives (`ibnm rdma test`): one
// RDMA-CM connection between a listener and a client, a ping-pong of small
// messages (latency), RDMA writes for a time (bandwidth), and the path each
// side took, as the side itself reports it. The Linux platform runs it on
// librdmacm (platform/linux/rdma-test*.cpp); a simulated host or a sysfs tree
// has no data path and refuses it.
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/model/rdma-path.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::platform {

// The listener's port when none is given ("ibnm" on a phone's keypad);
// rdma_cm's TCP port space (RDMA_PS_TCP), as rping's 7174 and ucmatose's 7471.
inline constexpr unsigned kRdmaTestDefaultPort = 4266;
// The largest ping and RDMA write the listener accepts.
inline constexpr unsigned kRdmaTestMaxPingSize = 4096;
inline constexpr unsigned kRdmaTestMaxWriteSize = 16u << 20;

struct RdmaTestSpec {
    bool listen = false;
    // The peer (client), or the address to listen on ("": every address).
    std::string address;
    unsigned port = kRdmaTestDefaultPort;
    // Client: the local address to leave from ("": the route's choice).
    std::string sourceAddress;
    // The local netdev whose address to use when no address names it
    // (a profile's interface).
    std::string interface;
    // Client: what to measure (the listener takes the client's values).
    unsigned count = 1000;      // ping-pongs; 0: no latency test
    unsigned pingSize = 64;     // bytes
    unsigned writeSize = 65536; // bytes of each RDMA write
    unsigned durationMs = 1000; // of each direction's writes; 0: no bandwidth test
    bool bidirectional = false; // also the listener's writes to the client
    // Overrides of what RDMA-CM would choose: ToS, the QP's source GID (by
    // index, or of a type on the local netdev).
    std::optional<unsigned> tos;
    std::optional<unsigned> gidIndex;
    std::optional<model::GidType> gidType;
    // The bound of every wait (address and route resolution, connection,
    // each message and completion); the listener's wait for its client is
    // bounded by acceptTimeoutMs (0: until cancelled).
    unsigned timeoutMs = 10000;
    unsigned acceptTimeoutMs = 0;
    // Polled while waiting: true ends the test (IBNM_ERROR_FAILED, "cancelled").
    std::function<bool()> cancelled;
    // Called once the listener listens (from the thread running the test).
    std::function<void()> listening;
};

// Round-trip times of the ping-pong, in nanoseconds.
struct LatencySummary {
    unsigned count = 0;
    uint64_t minNs = 0, medianNs = 0, p99Ns = 0, maxNs = 0;
    uint64_t meanNs = 0; // what ibv_rc_pingpong's usec/iter is
};

// The nearest-rank percentiles of `samples` (sorted here): median is the
// ceil(n/2)-th smallest, p99 the ceil(0.99 n)-th; and the mean.
inline LatencySummary summarizeLatency(std::vector<uint64_t> samples)
{
    LatencySummary s;
    if (samples.empty())
        return s;
    std::sort(samples.begin(), samples.end());
    size_t n = samples.size();
    auto rank = [n](unsigned percent) { return (n * percent + 99) / 100 - 1; };
    s.count = unsigned(n);
    s.minNs = samples.front();
    s.medianNs = samples[rank(50)];
    s.p99Ns = samples[rank(99)];
    s.maxNs = samples.back();
    uint64_t sum = 0;
    for (uint64_t v : samples)
        sum += v;
    s.meanNs = sum / n;
    return s;
}

// What one side's RDMA writes moved: bytes in microseconds, from the first
// post to the last completion.
struct BandwidthFigure {
    uint64_t bytes = 0;
    uint64_t usec = 0;
};

struct RdmaTestOutcome {
    bool listener = false;
    model::RdmaPath local;
    model::RdmaPath peer; // as the peer reported it
    unsigned pingSize = 0, writeSize = 0;
    std::optional<LatencySummary> latency;     // measured by the client
    std::optional<BandwidthFigure> toListener; // the client's writes
    std::optional<BandwidthFigure> toClient;   // the listener's writes
};

} // namespace ibnm::platform
