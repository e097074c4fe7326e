// SPDX-License-Identifier: LGPL-2.1-or-later
// LinuxPlatform::runRdmaTest(): `ibnm rdma test` on librdmacm. The client
// resolves the peer's address and route, connects with its parameters as
// private data (a listener that cannot take them refuses with its reason),
// then, over one RC queue pair: each side sends its Hello (its path and the
// buffer the other may write to; the client first, as iWARP requires), the
// client times `count` ping-pongs, writes for `durationMs` and sends Done
// (and with `bidirectional` the listener does the same the other way), and
// the client's Report gives the listener the figures. Wire format:
// rdma-test-wire.hpp; resources, waits and QP states: rdma-test-session.hpp.
#include "config.h"

#include "libcore/model/rdma.hpp"
#include "libcore/platform/linux/linux-platform-private.hpp"
#include "libcore/platform/linux/rdma-test-session.hpp"
#include "libcore/platform/linux/rdma-test-wire.hpp"
#include "libcore/platform/linux/sysfs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <netdb.h>

namespace ibnm::platform {

namespace {

// "192.0.2.1", "2001:db8::1"; "" for anything else.
std::string addressText(const sockaddr *sa)
{
    char buf[INET6_ADDRSTRLEN] = "";
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(sa)->sin_addr, buf, sizeof buf);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr, buf, sizeof buf);
    return buf;
}

// rdma_getaddrinfo() of `node` ("" with `passive`: every address).
Result<RdmaAddrinfoPtr> resolveName(const std::string &node, unsigned port, bool passive)
{
    rdma_addrinfo hints{};
    hints.ai_port_space = RDMA_PS_TCP;
    hints.ai_flags = passive ? RAI_PASSIVE : 0;
    std::string service = std::to_string(port);
    rdma_addrinfo *res = nullptr;
    errno = 0;
    int rc = rdma_getaddrinfo(node.empty() ? nullptr : node.c_str(), service.c_str(), &hints, &res);
    RdmaAddrinfoPtr owned(res);
    if (rc != 0 || !owned)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("cannot resolve '%s': %s"), node.c_str(),
                                                     rc == -1 && errno != 0 ? g_strerror(errno) : gai_strerror(rc)));
    return owned;
}

// The ways a peer refuses a client (rdma_reject() with our Reject, or
// RDMA-CM's own answer for a port nobody listens on).
Error rejectionError(const rdma_cm_event &ev, const RdmaTestSpec &spec)
{
    const auto *data = static_cast<const uint8_t *>(ev.param.conn.private_data);
    size_t size = ev.param.conn.private_data_len;
    const char *peer = spec.address.c_str();
    if (wire::hasMagic(data, size)) {
        auto r = wire::decodeReject(data, size);
        if (!r)
            return std::move(r).error();
        switch (r->reason) {
        case wire::RejectReason::Version:
            return Error(IBNM_ERROR_NOT_SUPPORTED,
                         strprintf(_("%s refused the test: it speaks version %u of ibnm's RDMA test protocol, this ibnm "
                                     "version %u"),
                                   peer, r->value, unsigned(wire::kVersion)));
        case wire::RejectReason::PingSize:
            return Error(IBNM_ERROR_INVALID_VALUE,
                         strprintf(_("%s refused the test: it takes pings of 1 to %u bytes"), peer, r->value));
        case wire::RejectReason::WriteSize:
            return Error(IBNM_ERROR_INVALID_VALUE,
                         strprintf(_("%s refused the test: it takes RDMA writes of 1 to %u bytes"), peer, r->value));
        case wire::RejectReason::Resources:
            break;
        }
        return Error(IBNM_ERROR_PLATFORM,
                     strprintf(_("%s refused the test: it could not set up its side (%s)"), peer,
                               g_strerror(int(r->value))));
    }
    if (ev.status == model::kCmRejectInvalidServiceId || ev.status == -ECONNREFUSED)
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(_("nothing listens on %s port %u: start 'ibnm rdma test --listen' there first"), peer,
                               spec.port));
    return Error(IBNM_ERROR_PLATFORM, strprintf(_("%s rejected the connection (reason %d)"), peer, ev.status));
}

// An RDMA-CM event other than the one awaited.
Error eventError(const rdma_cm_event &ev, const RdmaTestSpec &spec)
{
    const char *peer = spec.address.c_str();
    int e = ev.status < 0 ? -ev.status : ev.status;
    switch (ev.event) {
    case RDMA_CM_EVENT_ADDR_ERROR:
        if (e == ENODEV || e == EADDRNOTAVAIL)
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("no RDMA device behind the local address of the route to %s: its netdev has no "
                                     "RDMA link ('ibnm rdma link show')"),
                                   peer),
                         e);
        return Error(IBNM_ERROR_PLATFORM, strprintf(_("address resolution of %s failed: %s"), peer, g_strerror(e)), e);
    case RDMA_CM_EVENT_ROUTE_ERROR:
        return Error(IBNM_ERROR_PLATFORM, strprintf(_("route resolution to %s failed: %s"), peer, g_strerror(e)), e);
    case RDMA_CM_EVENT_REJECTED:
        return rejectionError(ev, spec);
    case RDMA_CM_EVENT_UNREACHABLE:
        return Error(IBNM_ERROR_PLATFORM,
                     strprintf(_("%s is unreachable over RDMA: %s (no RDMA link behind that address, or nothing "
                                 "listens there)"),
                               peer, g_strerror(e)),
                     e);
    case RDMA_CM_EVENT_CONNECT_ERROR:
        return Error(IBNM_ERROR_PLATFORM, strprintf(_("the connection with %s failed: %s"), peer, g_strerror(e)), e);
    case RDMA_CM_EVENT_DISCONNECTED:
        return Error(IBNM_ERROR_PLATFORM, _("the peer disconnected before the test was over"));
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        return Error(IBNM_ERROR_PLATFORM, _("the RDMA device was removed during the test"));
    default:
        break;
    }
    return Error(IBNM_ERROR_PLATFORM, strprintf(_("unexpected RDMA-CM event %s (status %d)"),
                                                rdma_event_str(ev.event), ev.status));
}

// One side of the test.
class RdmaTestSide {
public:
    RdmaTestSide(const RdmaTestSpec &spec, const LinuxOptions &options) : spec_(spec), options_(options), s_(spec) {}

    Result<RdmaTestOutcome> runClient();
    Result<RdmaTestOutcome> runListener();

private:
    Result<model::Host> readHost() const;
    Result<std::string> interfaceAddress(const model::Host &host, int family) const;
    Result<RdmaCmEventPtr> expect(rdma_cm_event_type want, int64_t timeoutMs, const std::string &awaited);
    Status resolve(const model::Host &host);
    Status resolveAddress(sockaddr *src, sockaddr *dst, const std::string &source);
    Status connect(const model::Host &host);
    Status listen(const model::Host &host);
    Status accept();
    Status refuse(wire::RejectReason reason, uint32_t value);
    Result<std::optional<unsigned>> sourceGid(const model::Host &host) const;
    model::RdmaPath localPath(const model::Host &host) const;
    Status sendHello();
    Status receiveHello();
    Result<std::vector<uint8_t>> receive(int64_t timeoutMs, const std::string &awaited, bool sleep);
    Status ping(std::vector<uint64_t> &samples);
    Status pong();
    Result<BandwidthFigure> writeFor(unsigned ms);
    Status sendDone(const BandwidthFigure &moved);
    Result<BandwidthFigure> receiveDone();
    Status finish();

    size_t slotSize() const { return std::max<size_t>(wire::kMaxMessage, params_.pingSize); }
    size_t bufferSize() const { return params_.durationMs > 0 ? params_.writeSize : 0; }

    const RdmaTestSpec &spec_;
    LinuxOptions options_;
    RdmaTestSession s_;
    wire::Connect params_;
    wire::Hello peer_;
    std::optional<unsigned> sgid_;
    RdmaTestOutcome out_;
};

Result<model::Host> RdmaTestSide::readHost() const
{
    // Its own platform: the caller's may serve other threads meanwhile.
    LinuxPlatform reader(options_);
    return reader.readHost();
}

Result<std::string> RdmaTestSide::interfaceAddress(const model::Host &host, int family) const
{
    const model::Netdev *nd = host.findNetdev(spec_.interface);
    if (!nd)
        return Error(IBNM_ERROR_NOT_FOUND, strprintf(_("interface %s does not exist"), spec_.interface.c_str()));
    // An IPv6 link-local address needs a scope, which an address alone does
    // not carry: not those.
    auto pick = [nd](bool v6) -> std::string {
        for (const auto &cidr : nd->addresses) {
            std::string a = cidr.substr(0, cidr.find('/'));
            if ((a.find(':') != std::string::npos) == v6 && a.rfind("fe80:", 0) != 0)
                return a;
        }
        return {};
    };
    std::string a = family == AF_INET6 ? std::string() : pick(false);
    if (a.empty() && family != AF_INET)
        a = pick(true);
    if (a.empty())
        return Error(IBNM_ERROR_NOT_FOUND,
                     strprintf(family == AF_INET6 ? _("interface %s has no global IPv6 address to use")
                                                  : _("interface %s has no address to use (it needs an IPv4 or a "
                                                      "global IPv6 address)"),
                               spec_.interface.c_str()));
    return a;
}

Result<RdmaCmEventPtr> RdmaTestSide::expect(rdma_cm_event_type want, int64_t timeoutMs, const std::string &awaited)
{
    auto ev = s_.nextEvent(timeoutMs, awaited);
    if (!ev)
        return ev;
    if ((*ev)->event != want)
        return eventError(*ev->get(), spec_);
    return ev;
}

// --- connecting ------------------------------------------------------------------

// rdma_resolve_addr(), in attempts of at most kAddressAttemptMs within the
// time-out: the kernel retries a resolution that awaits ARP or ND when the
// neighbour changes, or at the attempt's end (rdma_resolve_ip() in
// drivers/infiniband/core/addr.c), and an answer that came before the
// request was queued wakes nothing: the first resolution after a boot took
// the whole time-out in the kernel lab. rping asks for 2 s each time.
Status RdmaTestSide::resolveAddress(sockaddr *src, sockaddr *dst, const std::string &source)
{
    constexpr int64_t kAddressAttemptMs = 1000;
    const uint64_t start = monotonicNs();
    std::string awaited = strprintf(_("the address resolution of %s"), spec_.address.c_str());
    for (;;) {
        int64_t left = int64_t(spec_.timeoutMs) - int64_t((monotonicNs() - start) / 1000000);
        if (left <= 0)
            return s_.timedOut(awaited, spec_.timeoutMs);
        int64_t attempt = std::min(left, kAddressAttemptMs);
        if (rdma_resolve_addr(s_.id(), src, dst, int(attempt)) != 0)
            return Error::fromErrno(errno, strprintf(_("resolving %s from %s"), spec_.address.c_str(),
                                                     source.empty() ? _("the route's address") : source.c_str()),
                                    IBNM_ERROR_PLATFORM);
        auto ev = s_.nextEvent(attempt + 1000, awaited);
        if (!ev)
            return std::move(ev).error();
        if ((*ev)->event == RDMA_CM_EVENT_ADDR_RESOLVED)
            return {};
        int status = (*ev)->status;
        if ((*ev)->event != RDMA_CM_EVENT_ADDR_ERROR || (status != -ETIMEDOUT && status != -ENODATA))
            return eventError(*ev->get(), spec_);
    }
}

// The client's id, bound to its source, with the peer's address and route resolved.
Status RdmaTestSide::resolve(const model::Host &host)
{
    auto dst = resolveName(spec_.address, spec_.port, false);
    if (!dst)
        return std::move(dst).error();
    std::string source = spec_.sourceAddress;
    if (source.empty() && !spec_.interface.empty()) {
        auto a = interfaceAddress(host, (*dst)->ai_family);
        if (!a)
            return std::move(a).error();
        source = *a;
    }
    RdmaAddrinfoPtr src;
    if (!source.empty()) {
        auto r = resolveName(source, 0, true);
        if (!r)
            return std::move(r).error();
        src = std::move(*r);
    }
    rdma_cm_id *id = nullptr;
    if (rdma_create_id(s_.channel(), &id, nullptr, RDMA_PS_TCP) != 0)
        return Error::fromErrno(errno, "rdma_create_id", IBNM_ERROR_PLATFORM);
    s_.adoptId(id);
    if (spec_.tos) {
        uint8_t tos = uint8_t(*spec_.tos);
        if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof tos) != 0)
            return Error::fromErrno(errno, "rdma_set_option(RDMA_OPTION_ID_TOS)", IBNM_ERROR_PLATFORM);
    }
    if (auto st = resolveAddress(src ? src->ai_src_addr : nullptr, (*dst)->ai_dst_addr, source); !st)
        return st;
    if (rdma_resolve_route(id, int(spec_.timeoutMs)) != 0)
        return Error::fromErrno(errno, "rdma_resolve_route", IBNM_ERROR_PLATFORM);
    if (auto ev = expect(RDMA_CM_EVENT_ROUTE_RESOLVED, spec_.timeoutMs + 1000,
                         strprintf(_("the route resolution to %s"), spec_.address.c_str()));
        !ev)
        return std::move(ev).error();
    return {};
}

// The source GID the QP is to use instead of RDMA-CM's: --gid-index, or the
// entry of the asked type for the GID RDMA-CM resolved (a profile's RoCE
// mode). nullopt: RDMA-CM's.
Result<std::optional<unsigned>> RdmaTestSide::sourceGid(const model::Host &host) const
{
    if (!spec_.gidIndex && !spec_.gidType)
        return std::optional<unsigned>();
    rdma_cm_id *id = s_.id();
    std::string dev = ibv_get_device_name(id->verbs->device);
    std::string where = dev + "/" + std::to_string(id->port_num);
    if (s_.iwarp())
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("%s is iWARP: it has no GID index or RoCE mode to choose"), where.c_str()));
    const model::Device *d = host.findDevice(dev);
    const model::Port *port = nullptr;
    for (size_t i = 0; d && i < d->ports.size(); i++)
        if (d->ports[i].number == id->port_num)
            port = &d->ports[i];
    static const std::vector<model::Gid> kNone;
    std::string gid = sysfs::formatGid(id->route.addr.addr.ibaddr.sgid.raw);
    for (const auto &g : port ? port->gids : kNone) {
        if (spec_.gidIndex && g.index == *spec_.gidIndex)
            return std::optional<unsigned>(g.index);
        if (!spec_.gidIndex && g.type == *spec_.gidType && g.gid == gid)
            return std::optional<unsigned>(g.index);
    }
    if (spec_.gidIndex)
        return Error(IBNM_ERROR_INVALID_VALUE,
                     strprintf(_("GID index %u is not in use on %s ('ibnm rdma gid show %s' lists them)"),
                               *spec_.gidIndex, where.c_str(), dev.c_str()));
    return Error(IBNM_ERROR_NOT_SUPPORTED,
                 strprintf(_("%s has no %s GID for %s: the RoCE mode asked for is not available there"),
                           where.c_str(), model::roceModeName(*spec_.gidType == model::GidType::RoceV2
                                                                  ? model::RoceMode::V2
                                                                  : model::RoceMode::V1),
                           addressText(rdma_get_local_addr(id)).c_str()));
}

Status RdmaTestSide::connect(const model::Host &host)
{
    if (auto st = s_.createQp(slotSize(), bufferSize()); !st)
        return st;
    auto sgid = sourceGid(host);
    if (!sgid)
        return std::move(sgid).error();
    sgid_ = *sgid;
    wire::Bytes request = wire::encode(params_);
    rdma_conn_param param{};
    param.private_data = request.data();
    param.private_data_len = uint8_t(request.size());
    param.qp_num = s_.qp()->qp_num;
    param.retry_count = 7;
    param.rnr_retry_count = 7; // a receive not yet posted again is waited for
    if (rdma_connect(s_.id(), &param) != 0)
        return Error::fromErrno(errno, "rdma_connect", IBNM_ERROR_PLATFORM);
    std::string awaited = strprintf(_("an answer from %s port %u"), spec_.address.c_str(), spec_.port);
    auto ev = s_.nextEvent(spec_.timeoutMs, awaited);
    if (!ev) {
        if (ev.error().code() == IBNM_ERROR_TIMED_OUT)
            return Error(IBNM_ERROR_TIMED_OUT,
                         strprintf(_("no answer from %s port %u within %.1f s: no 'ibnm rdma test --listen' runs "
                                     "there, or no RDMA link is behind that address"),
                                   spec_.address.c_str(), spec_.port, spec_.timeoutMs / 1000.0));
        return std::move(ev).error();
    }
    // InfiniBand and RoCE: the QP is ours to ready before the connection's
    // last message (RTU); iWARP: the kernel readied it.
    if ((*ev)->event == RDMA_CM_EVENT_CONNECT_RESPONSE) {
        if (auto st = s_.readyQp(sgid_, spec_.tos); !st)
            return st;
        if (rdma_establish(s_.id()) != 0)
            return Error::fromErrno(errno, "rdma_establish", IBNM_ERROR_PLATFORM);
        return {};
    }
    if ((*ev)->event == RDMA_CM_EVENT_ESTABLISHED)
        return {};
    return eventError(*ev->get(), spec_);
}

Status RdmaTestSide::listen(const model::Host &host)
{
    std::string address = spec_.address;
    if (address.empty() && !spec_.interface.empty()) {
        auto a = interfaceAddress(host, AF_UNSPEC);
        if (!a)
            return std::move(a).error();
        address = *a;
    }
    auto ai = resolveName(address, spec_.port, true);
    if (!ai)
        return std::move(ai).error();
    rdma_cm_id *id = nullptr;
    if (rdma_create_id(s_.channel(), &id, nullptr, RDMA_PS_TCP) != 0)
        return Error::fromErrno(errno, "rdma_create_id", IBNM_ERROR_PLATFORM);
    s_.adoptListenId(id);
    const char *shownAddress = address.empty() ? "*" : address.c_str();
    if (rdma_bind_addr(id, (*ai)->ai_src_addr) != 0) {
        int e = errno;
        if (e == ENODEV || e == EADDRNOTAVAIL)
            return Error(IBNM_ERROR_NOT_FOUND,
                         strprintf(_("no RDMA device behind %s: its netdev has no RDMA link ('ibnm rdma link show')"),
                                   shownAddress),
                         e);
        return Error::fromErrno(e, strprintf(_("listening on %s port %u"), shownAddress, spec_.port),
                                IBNM_ERROR_PLATFORM);
    }
    if (rdma_listen(id, 1) != 0)
        return Error::fromErrno(errno, strprintf(_("listening on %s port %u"), shownAddress, spec_.port),
                                IBNM_ERROR_PLATFORM);
    if (spec_.listening)
        spec_.listening();
    return {};
}

Status RdmaTestSide::refuse(wire::RejectReason reason, uint32_t value)
{
    wire::Bytes why = wire::encode(wire::Reject{reason, value});
    if (rdma_reject(s_.id(), why.data(), uint8_t(why.size())) != 0)
        return Error::fromErrno(errno, "rdma_reject", IBNM_ERROR_PLATFORM);
    return {};
}

// The listener's side of a connection request: checked, its QP readied,
// accepted.
Status RdmaTestSide::accept()
{
    int64_t wait = spec_.acceptTimeoutMs > 0 ? int64_t(spec_.acceptTimeoutMs) : -1;
    auto ev = expect(RDMA_CM_EVENT_CONNECT_REQUEST, wait, _("a client"));
    if (!ev)
        return std::move(ev).error();
    s_.adoptId((*ev)->id); // acknowledged (end of this function) before destroyed
    const auto *data = static_cast<const uint8_t *>((*ev)->param.conn.private_data);
    auto request = wire::decodeConnect(data, (*ev)->param.conn.private_data_len);
    if (!request) {
        if (wire::hasMagic(data, (*ev)->param.conn.private_data_len))
            (void)refuse(wire::RejectReason::Version, wire::kVersion);
        else
            (void)rdma_reject(s_.id(), nullptr, 0);
        return std::move(request).error().withContext(_("a client was refused"));
    }
    params_ = *request;
    if (params_.pingSize == 0 || params_.pingSize > kRdmaTestMaxPingSize) {
        (void)refuse(wire::RejectReason::PingSize, kRdmaTestMaxPingSize);
        return Error(IBNM_ERROR_INVALID_VALUE, strprintf(_("a client asked for pings of %u bytes: refused"),
                                                         unsigned(params_.pingSize)));
    }
    if (params_.durationMs > 0 && (params_.writeSize == 0 || params_.writeSize > kRdmaTestMaxWriteSize)) {
        (void)refuse(wire::RejectReason::WriteSize, kRdmaTestMaxWriteSize);
        return Error(IBNM_ERROR_INVALID_VALUE,
                     strprintf(_("a client asked for RDMA writes of %u bytes: refused"), params_.writeSize));
    }
    auto host = readHost();
    Status ready = host ? s_.createQp(slotSize(), bufferSize()) : Status(host.error());
    if (ready) {
        auto sgid = sourceGid(*host);
        ready = sgid ? s_.readyQp(sgid_ = *sgid, spec_.tos) : Status(sgid.error());
    }
    if (!ready) {
        (void)refuse(wire::RejectReason::Resources, uint32_t(ready.error().errnum() ? ready.error().errnum() : EIO));
        return ready;
    }
    out_.local = localPath(*host);
    rdma_conn_param param{};
    param.qp_num = s_.qp()->qp_num;
    param.retry_count = 7;
    param.rnr_retry_count = 7;
    if (rdma_accept(s_.id(), &param) != 0)
        return Error::fromErrno(errno, "rdma_accept", IBNM_ERROR_PLATFORM);
    return {};
}

// What this side's QP uses, resolved through the host's GID table.
model::RdmaPath RdmaTestSide::localPath(const model::Host &host) const
{
    rdma_cm_id *id = s_.id();
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    bool queried = ibv_query_qp(s_.qp(), &attr, IBV_QP_AV | IBV_QP_PATH_MTU, &init) == 0;
    std::optional<unsigned> gidIndex;
    if (queried && attr.ah_attr.is_global)
        gidIndex = attr.ah_attr.grh.sgid_index;
    model::RdmaPath p = model::describeRdmaPath(host, ibv_get_device_name(id->verbs->device), id->port_num,
                                                addressText(rdma_get_local_addr(id)), gidIndex);
    // iWARP's QP has no address vector: its ToS and MTU are the TCP stream's.
    if (queried && !s_.iwarp()) {
        if (attr.ah_attr.is_global)
            p.tos = attr.ah_attr.grh.traffic_class;
        if (unsigned mtu = mtuBytes(attr.path_mtu))
            p.pathMtu = mtu;
    }
    return p;
}

// --- the exchange -----------------------------------------------------------------

Result<std::vector<uint8_t>> RdmaTestSide::receive(int64_t timeoutMs, const std::string &awaited, bool sleep)
{
    for (;;) {
        auto wc = s_.nextCompletion(timeoutMs, awaited, sleep);
        if (!wc)
            return std::move(wc).error();
        if (wc->opcode != IBV_WC_RECV)
            continue;
        const uint8_t *data = s_.recvData(*wc);
        return std::vector<uint8_t>(data, data + wc->byte_len);
    }
}

Status RdmaTestSide::sendHello()
{
    wire::Hello hello;
    hello.path = out_.local;
    hello.bufferAddress = s_.writeAddress();
    hello.rkey = s_.writeRkey();
    hello.bufferLength = uint32_t(s_.writeSize());
    return s_.send(wire::encode(hello));
}

Status RdmaTestSide::receiveHello()
{
    auto m = receive(spec_.timeoutMs, _("the peer's Hello"), true);
    if (!m)
        return std::move(m).error();
    auto hello = wire::decodeHello(m->data(), m->size());
    if (!hello)
        return std::move(hello).error();
    peer_ = *hello;
    out_.peer = hello->path;
    return {};
}

Status RdmaTestSide::ping(std::vector<uint64_t> &samples)
{
    samples.reserve(params_.count);
    for (unsigned i = 0; i < params_.count; i++) {
        uint64_t start = monotonicNs();
        if (auto st = s_.sendPing(params_.pingSize); !st)
            return st;
        auto answer = receive(spec_.timeoutMs, _("the answer to a ping"), false);
        if (!answer)
            return std::move(answer).error();
        samples.push_back(monotonicNs() - start);
    }
    return {};
}

Status RdmaTestSide::pong()
{
    for (unsigned i = 0; i < params_.count; i++) {
        auto m = receive(spec_.timeoutMs, _("a ping"), false);
        if (!m)
            return std::move(m).error();
        if (auto st = s_.sendPing(params_.pingSize); !st)
            return st;
    }
    return {};
}

Result<BandwidthFigure> RdmaTestSide::writeFor(unsigned ms)
{
    if (peer_.bufferLength < params_.writeSize)
        return Error(IBNM_ERROR_PARSE, _("the peer's buffer is smaller than the writes"));
    // A completion every kSignalEvery writes, and for the last one the
    // queue holds or the time allows.
    constexpr unsigned kSignalEvery = 16;
    const uint64_t start = monotonicNs(), end = start + uint64_t(ms) * 1000000ull;
    uint64_t last = start, done = 0;
    for (;;) {
        bool more = monotonicNs() < end;
        while (more && s_.outstandingWrites() < s_.writeDepth()) {
            bool full = s_.outstandingWrites() + 1 == s_.writeDepth();
            if (auto st = s_.postWrite(peer_.bufferAddress, peer_.rkey,
                                       full || s_.unsignaledWrites() + 1 >= kSignalEvery);
                !st)
                return std::move(st).error();
            more = monotonicNs() < end;
        }
        // Time is up: one more, signaled, stands for the unsignaled ones.
        if (!more && s_.unsignaledWrites() > 0)
            if (auto st = s_.postWrite(peer_.bufferAddress, peer_.rkey, true); !st)
                return std::move(st).error();
        if (s_.outstandingWrites() == 0)
            break;
        auto wc = s_.nextCompletion(spec_.timeoutMs, _("the completion of an RDMA write"));
        if (!wc)
            return std::move(wc).error();
        if (wc->opcode == IBV_WC_RDMA_WRITE) {
            done += RdmaTestSession::writesCompleted(*wc);
            last = monotonicNs();
        }
    }
    return BandwidthFigure{done * params_.writeSize, (last - start) / 1000};
}

Status RdmaTestSide::sendDone(const BandwidthFigure &moved)
{
    return s_.send(wire::encode(wire::Done{moved}));
}

Result<BandwidthFigure> RdmaTestSide::receiveDone()
{
    auto m = receive(int64_t(params_.durationMs) + spec_.timeoutMs, _("the end of the peer's RDMA writes"), true);
    if (!m)
        return std::move(m).error();
    auto done = wire::decodeDone(m->data(), m->size());
    if (!done)
        return std::move(done).error();
    return done->moved;
}

// The last sends completed, then the connection closed (the other side's
// DISCONNECTED, or ours, within the time-out; a late one changes nothing).
Status RdmaTestSide::finish()
{
    while (s_.outstandingSends() > 0)
        if (auto wc = s_.nextCompletion(spec_.timeoutMs, _("the completion of a send")); !wc)
            return std::move(wc).error();
    (void)rdma_disconnect(s_.id());
    (void)s_.nextEvent(spec_.timeoutMs, "DISCONNECTED");
    return {};
}

Result<RdmaTestOutcome> RdmaTestSide::runClient()
{
    params_.bidirectional = spec_.bidirectional;
    params_.count = spec_.count;
    params_.pingSize = uint16_t(std::min(spec_.pingSize, kRdmaTestMaxPingSize));
    params_.writeSize = spec_.writeSize;
    params_.durationMs = spec_.durationMs;
    out_.pingSize = params_.pingSize;
    out_.writeSize = params_.writeSize;
    auto host = readHost();
    Status st = host ? s_.open() : Status(host.error());
    if (st)
        st = resolve(*host);
    if (st)
        st = connect(*host);
    if (!st)
        return std::move(st).error();
    out_.local = localPath(*host);
    std::vector<uint64_t> samples;
    for (auto step : {&RdmaTestSide::sendHello, &RdmaTestSide::receiveHello})
        if (Status done = (this->*step)(); !done)
            return std::move(done).error();
    if (Status done = ping(samples); !done)
        return std::move(done).error();
    if (params_.count > 0)
        out_.latency = summarizeLatency(std::move(samples));
    if (params_.durationMs > 0) {
        auto moved = writeFor(params_.durationMs);
        if (!moved)
            return std::move(moved).error();
        if (Status sent = sendDone(*moved); !sent)
            return std::move(sent).error();
        out_.toListener = *moved;
    }
    if (params_.durationMs > 0 && params_.bidirectional) {
        auto moved = receiveDone();
        if (!moved)
            return std::move(moved).error();
        out_.toClient = *moved;
    }
    st = s_.send(wire::encode(wire::Report{out_.latency, out_.toListener}));
    if (st)
        st = finish();
    if (!st)
        return std::move(st).error();
    return out_;
}

Result<RdmaTestOutcome> RdmaTestSide::runListener()
{
    out_.listener = true;
    auto host = readHost();
    Status st = host ? s_.open() : Status(host.error());
    if (st)
        st = listen(*host);
    if (st)
        st = accept();
    if (!st)
        return std::move(st).error();
    out_.pingSize = params_.pingSize;
    out_.writeSize = params_.writeSize;
    if (auto ev = expect(RDMA_CM_EVENT_ESTABLISHED, spec_.timeoutMs, _("the client's confirmation")); !ev)
        return std::move(ev).error();
    for (auto step : {&RdmaTestSide::receiveHello, &RdmaTestSide::sendHello, &RdmaTestSide::pong})
        if (Status done = (this->*step)(); !done)
            return std::move(done).error();
    if (params_.durationMs > 0) {
        auto moved = receiveDone();
        if (!moved)
            return std::move(moved).error();
        out_.toListener = *moved;
    }
    if (params_.durationMs > 0 && params_.bidirectional) {
        auto moved = writeFor(params_.durationMs);
        if (!moved)
            return std::move(moved).error();
        if (Status sent = sendDone(*moved); !sent)
            return std::move(sent).error();
        out_.toClient = *moved;
    }
    auto m = receive(spec_.timeoutMs, _("the client's report"), true);
    auto report = m ? wire::decodeReport(m->data(), m->size()) : Result<wire::Report>(m.error());
    if (!report)
        return std::move(report).error();
    out_.latency = report->latency;
    (void)s_.nextEvent(spec_.timeoutMs, "DISCONNECTED");
    return out_;
}

} // namespace

Result<RdmaTestOutcome> LinuxPlatform::runRdmaTest(const RdmaTestSpec &spec)
{
    if (options_.readOnly)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("the host under %s is a sysfs tree read from files: it has no RDMA data path to "
                                 "test"),
                               options_.sysfsRoot.c_str()));
    RdmaTestSide side(spec, options_);
    return spec.listen ? side.runListener() : side.runClient();
}

} // namespace ibnm::platform
