// SPDX-License-Identifier: LGPL-2.1-or-later
// One side of an `ibnm rdma test` connection on librdmacm: the event channel
// and ids, the queue pair and its memory, every wait bounded and
// cancellable. rdma-test.cpp runs the exchange over it.
//
// The QP is made with ibv_create_qp() and moved through its states here, as
// librdmacm's rdma_create_qp(), rdma_accept() and the handling of
// RDMA_CM_EVENT_CONNECT_RESPONSE do (librdmacm/cma.c: ucma_init_conn_qp(),
// ucma_modify_qp_rtr(), ucma_modify_qp_rts()), so that the ready-to-receive
// step can take another source GID (--gid-index, a profile's RoCE mode) and
// ToS than RDMA-CM chose; iWARP QPs are moved by the kernel's iw_cm.
#pragma once

#include "libcore/platform/rdma-test.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibnm::platform {

// CLOCK_MONOTONIC in nanoseconds.
uint64_t monotonicNs();

class RdmaTestSession {
public:
    explicit RdmaTestSession(const RdmaTestSpec &spec) : spec_(spec) {}
    RdmaTestSession(const RdmaTestSession &) = delete;
    RdmaTestSession &operator=(const RdmaTestSession &) = delete;

    // The event channel, non-blocking (so that every wait can be bounded).
    Status open();
    rdma_event_channel *channel() const { return channel_.get(); }
    // The id of the connection (the client's, or the one a listener accepted).
    rdma_cm_id *id() const { return id_.get(); }
    void adoptId(rdma_cm_id *id) { id_.reset(id); }
    rdma_cm_id *listenId() const { return listenId_.get(); }
    void adoptListenId(rdma_cm_id *id) { listenId_.reset(id); }

    // The next RDMA-CM event, within `timeoutMs` (negative: until cancelled);
    // the time-out's error says what was awaited.
    Result<RdmaCmEventPtr> nextEvent(int64_t timeoutMs, const std::string &awaited);

    // The PD, CQ and QP on the id's device, the control slots (`slotSize`
    // bytes each) and, when writeSize > 0, the buffer RDMA writes use; the
    // QP in INIT with every receive slot posted.
    Status createQp(size_t slotSize, size_t writeSize);
    // INIT (again, with the access the connection allows), RTR and RTS from
    // rdma_init_qp_attr(), the RTR step with `sgidIndex` and `tos` when set.
    Status readyQp(std::optional<unsigned> sgidIndex, std::optional<unsigned> tos);
    ibv_qp *qp() const { return qp_.get(); }
    bool iwarp() const;

    // Sends `bytes` (at most the slot size); counts it until its completion.
    Status send(const std::vector<uint8_t> &bytes);
    // A ping of `size` bytes.
    Status sendPing(size_t size);
    // One RDMA write of the whole buffer to `address`/`rkey`. `signaled`:
    // it completes with a work completion, which stands for the unsignaled
    // writes before it too (writesCompleted()), as ib_write_bw's CQ
    // moderation does.
    Status postWrite(uint64_t address, uint32_t rkey, bool signaled);
    unsigned unsignaledWrites() const { return unsignaled_; }
    // The writes a write's completion stands for.
    static unsigned writesCompleted(const ibv_wc &wc) { return unsigned(wc.wr_id & 0xffffffff); }
    // The next completion within `timeoutMs`; a receive's slot is posted
    // again once the caller is done with recvData() of it (nextCompletion
    // does it on its next call). An error status is an error here. Busy
    // polling, as ibv_rc_pingpong and ib_write_bw do, where time counts;
    // `sleep`: on the completion channel, leaving the CPU to the peer and
    // the kernel (a wait through the other side's writes).
    Result<ibv_wc> nextCompletion(int64_t timeoutMs, const std::string &awaited, bool sleep = false);
    // The bytes a receive completion delivered (valid until the next call).
    const uint8_t *recvData(const ibv_wc &wc) const;
    unsigned outstandingSends() const { return sends_; }
    unsigned outstandingWrites() const { return writes_; }
    unsigned writeDepth() const { return writeDepth_; }
    size_t writeSize() const { return writeBuffer_.size(); }
    uint64_t writeAddress() const { return reinterpret_cast<uintptr_t>(writeBuffer_.data()); }
    uint32_t writeRkey() const { return writeMr_ ? writeMr_->rkey : 0; }

    // An error for a wait that was cancelled, or that ran out of time.
    bool cancelled() const { return spec_.cancelled && spec_.cancelled(); }
    static Error cancelledError();
    Error timedOut(const std::string &awaited, int64_t timeoutMs) const;

    enum WrId : uint64_t { kSendWr = 1ull << 32, kWriteWr = 2ull << 32, kRecvWr = 3ull << 32 };

private:
    Status postRecv(size_t slot);
    Status postSendSlot(size_t length);
    Status modify(ibv_qp_state state, std::optional<unsigned> sgidIndex, std::optional<unsigned> tos);
    Error completionError(const ibv_wc &wc) const;
    // Polls the CQ into polled_; false when it had nothing.
    Result<bool> pollCq();
    // Waits on the completion channel for up to `ms` (re-arming the CQ).
    Status sleepOnCq(int ms);

    const RdmaTestSpec &spec_;
    // Released in the reverse order: the QP before its memory, CQ and PD,
    // those before their id, the ids before their channel.
    RdmaEventChannelPtr channel_;
    RdmaCmIdPtr listenId_;
    RdmaCmIdPtr id_;
    IbvPdPtr pd_;
    IbvCompChannelPtr completionChannel_;
    IbvCqPtr cq_;
    std::vector<uint8_t> slots_; // receive slots, then one send slot
    IbvMrPtr slotsMr_;
    std::vector<uint8_t> writeBuffer_;
    IbvMrPtr writeMr_;
    IbvQpPtr qp_;

    size_t slotSize_ = 0;
    size_t recvSlots_ = 0;
    unsigned writeDepth_ = 0;
    unsigned sends_ = 0, writes_ = 0, unsignaled_ = 0;
    std::optional<size_t> repost_; // the receive slot to post again
    std::vector<ibv_wc> polled_;   // completions polled, not yet returned
    size_t next_ = 0;
};

} // namespace ibnm::platform
