// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/platform/linux/rdma-test-wire.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <cstring>
#include <string>

namespace ibnm::platform::wire {

namespace {

constexpr uint8_t kMagic[4] = {'I', 'B', 'R', 'T'};
// The strings of a Hello are at most this long (device names are 63 at most:
// IB_DEVICE_NAME_MAX - 1).
constexpr size_t kMaxString = 63;

enum HelloFlags : uint8_t { kHasGidIndex = 1, kHasTos = 2, kHasPathMtu = 4 };
enum ReportFlags : uint8_t { kHasLatency = 1, kHasToListener = 2 };

class Writer {
public:
    explicit Writer(Type type)
    {
        bytes_.assign(kMagic, kMagic + 4);
        bytes_.push_back(kVersion);
        bytes_.push_back(static_cast<uint8_t>(type));
        u16(0); // the length, set by finish()
    }
    void u8(uint8_t v) { bytes_.push_back(v); }
    void u16(uint16_t v) { number(v, 2); }
    void u32(uint32_t v) { number(v, 4); }
    void u64(uint64_t v) { number(v, 8); }
    void str(const std::string &s)
    {
        size_t n = s.size() < kMaxString ? s.size() : kMaxString;
        u8(static_cast<uint8_t>(n));
        bytes_.insert(bytes_.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
    }
    Bytes finish()
    {
        bytes_[6] = static_cast<uint8_t>(bytes_.size() >> 8);
        bytes_[7] = static_cast<uint8_t>(bytes_.size());
        return std::move(bytes_);
    }

private:
    void number(uint64_t v, unsigned width)
    {
        for (unsigned i = width; i-- > 0;)
            bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
    Bytes bytes_;
};

Error malformed(const char *what)
{
    return Error(IBNM_ERROR_PARSE, strprintf(_("the peer's message is not ibnm's RDMA test protocol: %s"), what));
}

// Reads the body of a checked message; a read past its end fails once and
// leaves every later read 0.
class Reader {
public:
    Reader(const uint8_t *data, size_t length) : data_(data), end_(length), pos_(kHeaderSize) {}
    uint8_t u8() { return static_cast<uint8_t>(number(1)); }
    uint16_t u16() { return static_cast<uint16_t>(number(2)); }
    uint32_t u32() { return static_cast<uint32_t>(number(4)); }
    uint64_t u64() { return number(8); }
    void skip(size_t n) { pos_ = take(n) ? pos_ + n : pos_; }
    std::string str()
    {
        size_t n = u8();
        if (!take(n))
            return {};
        std::string s(reinterpret_cast<const char *>(data_ + pos_), n);
        pos_ += n;
        return s;
    }
    bool ok() const { return ok_; }

private:
    bool take(size_t n)
    {
        if (pos_ + n > end_)
            ok_ = false;
        return ok_;
    }
    uint64_t number(unsigned width)
    {
        if (!take(width))
            return 0;
        uint64_t v = 0;
        for (unsigned i = 0; i < width; i++)
            v = (v << 8) | data_[pos_ + i];
        pos_ += width;
        return v;
    }
    const uint8_t *data_;
    size_t end_;
    size_t pos_;
    bool ok_ = true;
};

// The message's length once its header is checked and its type is `want`.
Result<size_t> checked(const uint8_t *data, size_t size, Type want)
{
    auto type = messageType(data, size);
    if (!type)
        return std::move(type).error();
    if (*type != want)
        return malformed(_("a message of another type"));
    return size_t(data[6]) << 8 | data[7];
}

template <typename T>
Result<T> finished(const Reader &r, T value)
{
    if (!r.ok())
        return malformed(_("the message is cut short"));
    return value;
}

} // namespace

bool hasMagic(const uint8_t *data, size_t size)
{
    return data != nullptr && size >= sizeof kMagic && std::memcmp(data, kMagic, sizeof kMagic) == 0;
}

Result<Type> messageType(const uint8_t *data, size_t size)
{
    if (size < kHeaderSize || !hasMagic(data, size))
        return malformed(_("no IBRT header"));
    if (data[4] != kVersion)
        return Error(IBNM_ERROR_NOT_SUPPORTED,
                     strprintf(_("the peer speaks version %u of ibnm's RDMA test protocol, this ibnm version %u: run "
                                 "the same ibnm version on both sides"),
                               unsigned(data[4]), unsigned(kVersion)));
    size_t length = size_t(data[6]) << 8 | data[7];
    if (length < kHeaderSize || length > size)
        return malformed(_("its length does not fit what arrived"));
    if (data[5] < static_cast<uint8_t>(Type::Connect) || data[5] > static_cast<uint8_t>(Type::Report))
        return malformed(_("a message of an unknown type"));
    return static_cast<Type>(data[5]);
}

Bytes encode(const Connect &m)
{
    Writer w(Type::Connect);
    w.u8(m.bidirectional ? 1 : 0);
    w.u8(0);
    w.u16(m.pingSize);
    w.u32(m.count);
    w.u32(m.writeSize);
    w.u32(m.durationMs);
    return w.finish();
}

Result<Connect> decodeConnect(const uint8_t *data, size_t size)
{
    auto length = checked(data, size, Type::Connect);
    if (!length)
        return std::move(length).error();
    Reader r(data, *length);
    Connect m;
    m.bidirectional = (r.u8() & 1) != 0;
    r.skip(1);
    m.pingSize = r.u16();
    m.count = r.u32();
    m.writeSize = r.u32();
    m.durationMs = r.u32();
    return finished(r, m);
}

Bytes encode(const Reject &m)
{
    Writer w(Type::Reject);
    w.u8(static_cast<uint8_t>(m.reason));
    w.u8(0);
    w.u16(0);
    w.u32(m.value);
    return w.finish();
}

Result<Reject> decodeReject(const uint8_t *data, size_t size)
{
    auto length = checked(data, size, Type::Reject);
    if (!length)
        return std::move(length).error();
    Reader r(data, *length);
    Reject m;
    m.reason = static_cast<RejectReason>(r.u8());
    r.skip(3);
    m.value = r.u32();
    return finished(r, m);
}

Bytes encode(const Hello &m)
{
    Writer w(Type::Hello);
    const model::RdmaPath &p = m.path;
    w.u8(static_cast<uint8_t>(p.port));
    w.u8(static_cast<uint8_t>(p.protocol));
    w.u8(static_cast<uint8_t>((p.gidIndex ? kHasGidIndex : 0) | (p.tos ? kHasTos : 0) |
                              (p.pathMtu ? kHasPathMtu : 0)));
    w.u8(static_cast<uint8_t>(p.tos.value_or(0)));
    w.u16(static_cast<uint16_t>(p.gidIndex.value_or(0)));
    w.u16(static_cast<uint16_t>(p.pathMtu.value_or(0)));
    w.u32(m.rkey);
    w.u32(m.bufferLength);
    w.u64(m.bufferAddress);
    w.str(p.address);
    w.str(p.device);
    w.str(p.netdev);
    w.str(p.gid);
    return w.finish();
}

Result<Hello> decodeHello(const uint8_t *data, size_t size)
{
    auto length = checked(data, size, Type::Hello);
    if (!length)
        return std::move(length).error();
    Reader r(data, *length);
    Hello m;
    model::RdmaPath &p = m.path;
    p.port = r.u8();
    uint8_t protocol = r.u8();
    p.protocol = protocol <= static_cast<uint8_t>(model::RdmaProtocol::Iwarp)
                     ? static_cast<model::RdmaProtocol>(protocol)
                     : model::RdmaProtocol::Unknown;
    uint8_t flags = r.u8();
    uint8_t tos = r.u8();
    uint16_t gidIndex = r.u16();
    uint16_t mtu = r.u16();
    if (flags & kHasTos)
        p.tos = tos;
    if (flags & kHasGidIndex)
        p.gidIndex = gidIndex;
    if (flags & kHasPathMtu)
        p.pathMtu = mtu;
    m.rkey = r.u32();
    m.bufferLength = r.u32();
    m.bufferAddress = r.u64();
    p.address = r.str();
    p.device = r.str();
    p.netdev = r.str();
    p.gid = r.str();
    return finished(r, m);
}

Bytes encode(const Done &m)
{
    Writer w(Type::Done);
    w.u64(m.moved.bytes);
    w.u64(m.moved.usec);
    return w.finish();
}

Result<Done> decodeDone(const uint8_t *data, size_t size)
{
    auto length = checked(data, size, Type::Done);
    if (!length)
        return std::move(length).error();
    Reader r(data, *length);
    Done m;
    m.moved.bytes = r.u64();
    m.moved.usec = r.u64();
    return finished(r, m);
}

Bytes encode(const Report &m)
{
    Writer w(Type::Report);
    w.u8(static_cast<uint8_t>((m.latency ? kHasLatency : 0) | (m.toListener ? kHasToListener : 0)));
    w.u8(0);
    w.u16(0);
    LatencySummary l = m.latency.value_or(LatencySummary{});
    w.u32(l.count);
    w.u64(l.minNs);
    w.u64(l.medianNs);
    w.u64(l.p99Ns);
    w.u64(l.maxNs);
    w.u64(l.meanNs);
    BandwidthFigure b = m.toListener.value_or(BandwidthFigure{});
    w.u64(b.bytes);
    w.u64(b.usec);
    return w.finish();
}

Result<Report> decodeReport(const uint8_t *data, size_t size)
{
    auto length = checked(data, size, Type::Report);
    if (!length)
        return std::move(length).error();
    Reader r(data, *length);
    uint8_t flags = r.u8();
    r.skip(3);
    LatencySummary l;
    l.count = r.u32();
    l.minNs = r.u64();
    l.medianNs = r.u64();
    l.p99Ns = r.u64();
    l.maxNs = r.u64();
    l.meanNs = r.u64();
    BandwidthFigure b;
    b.bytes = r.u64();
    b.usec = r.u64();
    Report m;
    if (flags & kHasLatency)
        m.latency = l;
    if (flags & kHasToListener)
        m.toListener = b;
    return finished(r, m);
}

} // namespace ibnm::platform::wire
