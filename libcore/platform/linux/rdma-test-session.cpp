// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/rdma-test-session.hpp"

#include "libcore/platform/linux/rdma-test-wire.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <time.h>

namespace ibnm::platform {

namespace {

// Receive slots kept posted: enough for the few control messages in flight
// and for a ping that arrives before its slot is posted again.
constexpr size_t kRecvSlots = 16;
// RDMA writes in flight (ib_write_bw's default tx depth), fewer where the
// device's queues are shorter.
constexpr unsigned kMaxWriteDepth = 128;
// Sends in flight besides the writes: a few control messages, a ping.
constexpr unsigned kSendSlack = 8;
// How often a busy poll looks at the clock and for a cancellation.
constexpr unsigned kPollsPerCheck = 64;
// The longest a wait sleeps before it looks for a cancellation.
constexpr int kCancelCheckMs = 100;

Error platformError(int errnum, const char *call)
{
    return Error::fromErrno(errnum, call, IBNM_ERROR_PLATFORM);
}

// rdma_init_qp_attr() masks bits 21-24 for RoCE on an InfiniBand port
// (ucma_modify_qp_rtr(): "Workaround for rdma_ucm kernel bug").
constexpr int kRoceOnlyAttrMask = 0xe00000;

} // namespace

uint64_t monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

Error RdmaTestSession::cancelledError()
{
    return Error(IBNM_ERROR_FAILED, _("the RDMA test was cancelled"));
}

Error RdmaTestSession::timedOut(const std::string &awaited, int64_t timeoutMs) const
{
    return Error(IBNM_ERROR_TIMED_OUT,
                 strprintf(_("%s did not come within %.1f s"), awaited.c_str(), double(timeoutMs) / 1000.0));
}

Status RdmaTestSession::open()
{
    errno = 0;
    channel_.reset(rdma_create_event_channel());
    if (!channel_) {
        int e = errno ? errno : ENODEV;
        // librdmacm opens /dev/infiniband/rdma_cm, which rdma_ucm provides
        // (librdmacm asks the kernel for it over RDMA netlink, which loads
        // it where it can: still missing, it could not be loaded).
        if (!g_file_test("/dev/infiniband/rdma_cm", G_FILE_TEST_EXISTS))
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         _("the kernel's RDMA connection manager is not loaded (no /dev/infiniband/rdma_cm): load it "
                           "with 'modprobe rdma_ucm'"),
                         e);
        // ucma_init(): no verbs device at all.
        if (e == ENODEV)
            return Error(IBNM_ERROR_NOT_FOUND,
                         _("there is no RDMA device on this host: 'ibnm rdma link show' lists them; a profile with "
                           "rdma.link-type makes a soft one"),
                         e);
        return Error(IBNM_ERROR_NOT_SUPPORTED, strprintf(_("RDMA-CM cannot be used: %s"), g_strerror(e)), e);
    }
    int flags = fcntl(channel_->fd, F_GETFL);
    if (flags < 0 || fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return platformError(errno, "fcntl");
    return {};
}

Result<RdmaCmEventPtr> RdmaTestSession::nextEvent(int64_t timeoutMs, const std::string &awaited)
{
    const uint64_t start = monotonicNs();
    for (;;) {
        rdma_cm_event *event = nullptr;
        if (rdma_get_cm_event(channel_.get(), &event) == 0)
            return RdmaCmEventPtr(event);
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return platformError(errno, "rdma_get_cm_event");
        if (cancelled())
            return cancelledError();
        int slice = kCancelCheckMs;
        if (timeoutMs >= 0) {
            int64_t left = timeoutMs - int64_t((monotonicNs() - start) / 1000000);
            if (left <= 0)
                return timedOut(awaited, timeoutMs);
            slice = int(std::min<int64_t>(left, kCancelCheckMs));
        }
        pollfd p{channel_->fd, POLLIN, 0};
        if (poll(&p, 1, slice) < 0 && errno != EINTR)
            return platformError(errno, "poll");
    }
}

bool RdmaTestSession::iwarp() const
{
    return id_ && id_->verbs && id_->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
}

Status RdmaTestSession::createQp(size_t slotSize, size_t writeSize)
{
    ibv_context *verbs = id_->verbs;
    ibv_device_attr dev{};
    if (int e = ibv_query_device(verbs, &dev); e != 0)
        return platformError(e, "ibv_query_device");
    unsigned maxWr = unsigned(std::max(dev.max_qp_wr, int(kRecvSlots + 2 * kSendSlack)));
    writeDepth_ = std::min(kMaxWriteDepth, maxWr - kSendSlack);
    slotSize_ = slotSize;
    recvSlots_ = kRecvSlots;
    pd_.reset(ibv_alloc_pd(verbs));
    if (!pd_)
        return platformError(errno, "ibv_alloc_pd");
    completionChannel_.reset(ibv_create_comp_channel(verbs));
    if (!completionChannel_)
        return platformError(errno, "ibv_create_comp_channel");
    int flags = fcntl(completionChannel_->fd, F_GETFL);
    if (flags < 0 || fcntl(completionChannel_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return platformError(errno, "fcntl");
    unsigned sendWr = writeDepth_ + kSendSlack;
    cq_.reset(ibv_create_cq(verbs, int(sendWr + recvSlots_), nullptr, completionChannel_.get(), 0));
    if (!cq_)
        return platformError(errno, "ibv_create_cq");
    slots_.assign((recvSlots_ + 1) * slotSize_, 0);
    slotsMr_.reset(ibv_reg_mr(pd_.get(), slots_.data(), slots_.size(), IBV_ACCESS_LOCAL_WRITE));
    if (!slotsMr_)
        return platformError(errno, "ibv_reg_mr");
    if (writeSize > 0) {
        writeBuffer_.assign(writeSize, 0x5a);
        writeMr_.reset(ibv_reg_mr(pd_.get(), writeBuffer_.data(), writeBuffer_.size(),
                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
        if (!writeMr_)
            return platformError(errno, "ibv_reg_mr");
    }
    ibv_qp_init_attr init{};
    init.send_cq = cq_.get();
    init.recv_cq = cq_.get();
    init.cap.max_send_wr = sendWr;
    init.cap.max_recv_wr = unsigned(recvSlots_);
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.qp_type = IBV_QPT_RC;
    qp_.reset(ibv_create_qp(pd_.get(), &init));
    if (!qp_)
        return platformError(errno, "ibv_create_qp");
    if (auto st = modify(IBV_QPS_INIT, std::nullopt, std::nullopt); !st)
        return st;
    for (size_t i = 0; i < recvSlots_; i++)
        if (auto st = postRecv(i); !st)
            return st;
    return {};
}

Status RdmaTestSession::modify(ibv_qp_state state, std::optional<unsigned> sgidIndex, std::optional<unsigned> tos)
{
    ibv_qp_attr attr{};
    int mask = 0;
    attr.qp_state = state;
    if (rdma_init_qp_attr(id_.get(), &attr, &mask) != 0)
        return platformError(errno, "rdma_init_qp_attr");
    if (state == IBV_QPS_RTR) {
        ibv_port_attr port{};
        if (ibv_query_port(id_->verbs, id_->port_num, &port) == 0 && port.link_layer == IBV_LINK_LAYER_INFINIBAND)
            mask &= INT_MAX ^ kRoceOnlyAttrMask;
        if (attr.ah_attr.is_global && sgidIndex)
            attr.ah_attr.grh.sgid_index = uint8_t(*sgidIndex);
        if (attr.ah_attr.is_global && tos)
            attr.ah_attr.grh.traffic_class = uint8_t(*tos);
    }
    if (int e = ibv_modify_qp(qp_.get(), &attr, mask); e != 0)
        return platformError(e, "ibv_modify_qp");
    return {};
}

Status RdmaTestSession::readyQp(std::optional<unsigned> sgidIndex, std::optional<unsigned> tos)
{
    for (ibv_qp_state state : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS})
        if (auto st = modify(state, sgidIndex, tos); !st)
            return std::move(st).withContext(state == IBV_QPS_RTR ? _("moving the queue pair to ready-to-receive")
                                                                  : _("moving the queue pair to its next state"));
    return {};
}

Status RdmaTestSession::postRecv(size_t slot)
{
    ibv_sge sge{reinterpret_cast<uintptr_t>(slots_.data() + slot * slotSize_), uint32_t(slotSize_), slotsMr_->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = kRecvWr | slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr *bad = nullptr;
    if (int e = ibv_post_recv(qp_.get(), &wr, &bad); e != 0)
        return platformError(e, "ibv_post_recv");
    return {};
}

Status RdmaTestSession::postSendSlot(size_t length)
{
    ibv_sge sge{reinterpret_cast<uintptr_t>(slots_.data() + recvSlots_ * slotSize_), uint32_t(length),
                slotsMr_->lkey};
    ibv_send_wr wr{};
    wr.wr_id = kSendWr;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    ibv_send_wr *bad = nullptr;
    if (int e = ibv_post_send(qp_.get(), &wr, &bad); e != 0)
        return platformError(e, "ibv_post_send");
    sends_++;
    return {};
}

Status RdmaTestSession::send(const std::vector<uint8_t> &bytes)
{
    // The send slot is free again once its last send completed.
    while (sends_ > 0)
        if (auto wc = nextCompletion(spec_.timeoutMs, _("the completion of a send")); !wc)
            return std::move(wc).error();
    std::memcpy(slots_.data() + recvSlots_ * slotSize_, bytes.data(), std::min(bytes.size(), slotSize_));
    return postSendSlot(std::min(bytes.size(), slotSize_));
}

Status RdmaTestSession::sendPing(size_t size)
{
    // A ping's bytes do not matter: the slot is reused while a send is in flight.
    return postSendSlot(std::min(size, slotSize_));
}

Status RdmaTestSession::postWrite(uint64_t address, uint32_t rkey, bool signaled)
{
    ibv_sge sge{writeAddress(), uint32_t(writeBuffer_.size()), writeMr_->lkey};
    ibv_send_wr wr{};
    wr.wr_id = kWriteWr | (signaled ? unsignaled_ + 1 : 0);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    wr.wr.rdma.remote_addr = address;
    wr.wr.rdma.rkey = rkey;
    ibv_send_wr *bad = nullptr;
    if (int e = ibv_post_send(qp_.get(), &wr, &bad); e != 0)
        return platformError(e, "ibv_post_send");
    writes_++;
    unsignaled_ = signaled ? 0 : unsignaled_ + 1;
    return {};
}

Result<bool> RdmaTestSession::pollCq()
{
    polled_.resize(16);
    int n = ibv_poll_cq(cq_.get(), int(polled_.size()), polled_.data());
    if (n < 0)
        return platformError(EIO, "ibv_poll_cq");
    polled_.resize(size_t(n));
    next_ = 0;
    return n > 0;
}

Status RdmaTestSession::sleepOnCq(int ms)
{
    if (int e = ibv_req_notify_cq(cq_.get(), 0); e != 0)
        return platformError(e, "ibv_req_notify_cq");
    // A completion that came before the request raises no event.
    auto got = pollCq();
    if (!got || *got)
        return got ? Status() : std::move(got).error();
    pollfd p{completionChannel_->fd, POLLIN, 0};
    if (poll(&p, 1, ms) < 0 && errno != EINTR)
        return platformError(errno, "poll");
    ibv_cq *cq = nullptr;
    void *context = nullptr;
    if (ibv_get_cq_event(completionChannel_.get(), &cq, &context) == 0)
        ibv_ack_cq_events(cq, 1);
    return {};
}

Result<ibv_wc> RdmaTestSession::nextCompletion(int64_t timeoutMs, const std::string &awaited, bool sleep)
{
    if (repost_) {
        size_t slot = *repost_;
        repost_.reset();
        if (auto st = postRecv(slot); !st)
            return std::move(st).error();
    }
    const uint64_t start = monotonicNs();
    for (unsigned polls = 0; next_ >= polled_.size(); polls++) {
        if (auto got = pollCq(); !got)
            return std::move(got).error();
        else if (*got)
            break;
        if (!sleep && polls % kPollsPerCheck != 0)
            continue;
        if (cancelled())
            return cancelledError();
        int64_t left = timeoutMs - int64_t((monotonicNs() - start) / 1000000);
        if (left <= 0)
            return timedOut(awaited, timeoutMs);
        if (sleep) {
            if (auto st = sleepOnCq(int(std::min<int64_t>(left, kCancelCheckMs))); !st)
                return std::move(st).error();
            if (next_ < polled_.size())
                break;
        }
    }
    ibv_wc wc = polled_[next_++];
    uint64_t kind = wc.wr_id & ~uint64_t(0xffffffff);
    if (kind == kSendWr)
        sends_--;
    else if (kind == kWriteWr)
        writes_ -= writesCompleted(wc);
    else if (kind == kRecvWr && wc.status == IBV_WC_SUCCESS)
        repost_ = size_t(wc.wr_id & 0xffffffff);
    if (wc.status != IBV_WC_SUCCESS)
        return completionError(wc);
    return wc;
}

const uint8_t *RdmaTestSession::recvData(const ibv_wc &wc) const
{
    return slots_.data() + (wc.wr_id & 0xffffffff) * slotSize_;
}

Error RdmaTestSession::completionError(const ibv_wc &wc) const
{
    // A flush follows the error that moved the QP to the error state, or the
    // peer's disconnection.
    if (wc.status == IBV_WC_RETRY_EXC_ERR)
        return Error(IBNM_ERROR_PLATFORM,
                     _("the peer stopped answering: the queue pair gave up retrying (transport retry counter "
                       "exceeded)"));
    if (wc.status == IBV_WC_WR_FLUSH_ERR)
        return Error(IBNM_ERROR_PLATFORM, _("the queue pair was flushed: the connection broke off"));
    return Error(IBNM_ERROR_PLATFORM,
                 strprintf(_("the queue pair failed: %s (completion status %d)"), ibv_wc_status_str(wc.status),
                           int(wc.status)));
}

} // namespace ibnm::platform
