// SPDX-License-Identifier: LGPL-2.1-or-later
// The messages of `ibnm rdma test` (rdma-test-wire.hpp), version 1, against
// golden bytes: a change of the layout changes these bytes, and with them
// the version both sides must speak.
#include "config.h"

#include "libcore/platform/linux/rdma-test-wire.hpp"

#include <gtest/gtest.h>

using namespace ibnm;
using namespace ibnm::platform;
using namespace ibnm::platform::wire;

namespace {

Bytes hex(const char *text)
{
    Bytes out;
    for (const char *p = text; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        out.push_back(uint8_t(std::stoi(std::string(p, 2), nullptr, 16)));
        p += 2;
    }
    return out;
}

} // namespace

TEST(RdmaTestWire, ConnectGoldenBytes)
{
    Connect m;
    m.bidirectional = true;
    m.count = 1000;
    m.pingSize = 64;
    m.writeSize = 65536;
    m.durationMs = 1500;
    //               "IBRT"    v1 type len    flags rsv ping  count     write     duration
    Bytes golden = hex("49425254 01 01 0018 01 00 0040 000003e8 00010000 000005dc");
    EXPECT_EQ(encode(m), golden);
    EXPECT_LE(golden.size(), kMaxConnectData);
    auto back = decodeConnect(golden.data(), golden.size());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_TRUE(back->bidirectional);
    EXPECT_EQ(back->count, 1000u);
    EXPECT_EQ(back->pingSize, 64u);
    EXPECT_EQ(back->writeSize, 65536u);
    EXPECT_EQ(back->durationMs, 1500u);
}

TEST(RdmaTestWire, RdmaCmPaddingAfterTheMessageIsIgnored)
{
    // InfiniBand and RoCE hand the listener all 56 bytes of the REQ's
    // private data, zeros after the client's.
    Bytes padded = encode(Connect{false, 7, 32, 4096, 0});
    padded.resize(kMaxConnectData, 0);
    auto back = decodeConnect(padded.data(), padded.size());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back->count, 7u);
    EXPECT_FALSE(back->bidirectional);
}

TEST(RdmaTestWire, RejectGoldenBytes)
{
    Bytes golden = hex("49425254 01 02 0010 02 000000 00001000");
    EXPECT_EQ(encode(Reject{RejectReason::PingSize, 4096}), golden);
    auto back = decodeReject(golden.data(), golden.size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->reason, RejectReason::PingSize);
    EXPECT_EQ(back->value, 4096u);
}

TEST(RdmaTestWire, HelloGoldenBytesCarryThePath)
{
    Hello m;
    m.path.address = "198.51.100.1";
    m.path.device = "rxe0";
    m.path.port = 1;
    m.path.netdev = "ra";
    m.path.protocol = model::RdmaProtocol::RoceV2;
    m.path.gidIndex = 1;
    m.path.gid = "fe80";
    m.path.tos = 106;
    m.path.pathMtu = 1024;
    m.bufferAddress = 0x00007f0012345000ull;
    m.rkey = 0x1234;
    m.bufferLength = 65536;
    Bytes golden = hex("49425254 01 03 003a"
                       "01 03 07 6a 0001 0400 00001234 00010000 00007f0012345000"
                       "0c 3139382e35312e3130302e31" // "198.51.100.1"
                       "04 72786530"                 // "rxe0"
                       "02 7261"                     // "ra"
                       "04 66653830");               // "fe80"
    EXPECT_EQ(encode(m), golden);
    auto back = decodeHello(golden.data(), golden.size());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back->path.address, "198.51.100.1");
    EXPECT_EQ(back->path.device, "rxe0");
    EXPECT_EQ(back->path.port, 1u);
    EXPECT_EQ(back->path.netdev, "ra");
    EXPECT_EQ(back->path.protocol, model::RdmaProtocol::RoceV2);
    EXPECT_EQ(back->path.gidIndex, 1u);
    EXPECT_EQ(back->path.gid, "fe80");
    EXPECT_EQ(back->path.tos, 106u);
    EXPECT_EQ(back->path.pathMtu, 1024u);
    EXPECT_EQ(back->bufferAddress, 0x00007f0012345000ull);
    EXPECT_EQ(back->rkey, 0x1234u);
    EXPECT_EQ(back->bufferLength, 65536u);
}

TEST(RdmaTestWire, HelloWithoutGidToSOrMtuSaysSo)
{
    // iWARP: no GID index, no ToS or MTU of the QP.
    Hello m;
    m.path.device = "siw0";
    m.path.port = 1;
    m.path.protocol = model::RdmaProtocol::Iwarp;
    Bytes bytes = encode(m);
    EXPECT_EQ(bytes[10], 0) << "flags";
    auto back = decodeHello(bytes.data(), bytes.size());
    ASSERT_TRUE(back.ok());
    EXPECT_FALSE(back->path.gidIndex);
    EXPECT_FALSE(back->path.tos);
    EXPECT_FALSE(back->path.pathMtu);
    EXPECT_EQ(back->path.protocol, model::RdmaProtocol::Iwarp);
    EXPECT_EQ(back->path.address, "");
}

TEST(RdmaTestWire, DoneAndReportGoldenBytes)
{
    Bytes done = hex("49425254 01 04 0018 0000000040000000 00000000000f4240");
    EXPECT_EQ(encode(Done{BandwidthFigure{1ull << 30, 1000000}}), done);
    auto d = decodeDone(done.data(), done.size());
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->moved.bytes, 1ull << 30);
    EXPECT_EQ(d->moved.usec, 1000000u);

    Report r;
    r.latency = LatencySummary{3, 1000, 2000, 3000, 3000, 2000};
    Bytes report = hex("49425254 01 05 0048 01 000000 00000003"
                       "00000000000003e8 00000000000007d0 0000000000000bb8 0000000000000bb8 00000000000007d0"
                       "0000000000000000 0000000000000000");
    EXPECT_EQ(encode(r), report);
    auto back = decodeReport(report.data(), report.size());
    ASSERT_TRUE(back.ok());
    ASSERT_TRUE(back->latency);
    EXPECT_EQ(back->latency->count, 3u);
    EXPECT_EQ(back->latency->medianNs, 2000u);
    EXPECT_EQ(back->latency->meanNs, 2000u);
    EXPECT_FALSE(back->toListener);
}

TEST(RdmaTestWire, AnotherVersionIsNamed)
{
    Bytes m = encode(Connect{false, 1, 64, 64, 0});
    m[4] = 2;
    auto back = decodeConnect(m.data(), m.size());
    ASSERT_FALSE(back.ok());
    EXPECT_EQ(back.error().code(), IBNM_ERROR_NOT_SUPPORTED);
    EXPECT_NE(back.error().message().find("version 2"), std::string::npos) << back.error().message();
    EXPECT_TRUE(hasMagic(m.data(), m.size()));
}

TEST(RdmaTestWire, MalformedMessagesAreRefused)
{
    Bytes m = encode(Done{BandwidthFigure{1, 2}});
    // Cut short: the header says 24 bytes.
    EXPECT_EQ(decodeDone(m.data(), m.size() - 1).error().code(), IBNM_ERROR_PARSE);
    // Another message's type.
    EXPECT_EQ(decodeHello(m.data(), m.size()).error().code(), IBNM_ERROR_PARSE);
    // Not ours at all: rdma_cm's zeros, another program's bytes.
    Bytes zeros(56, 0);
    EXPECT_FALSE(hasMagic(zeros.data(), zeros.size()));
    EXPECT_EQ(decodeConnect(zeros.data(), zeros.size()).error().code(), IBNM_ERROR_PARSE);
    EXPECT_FALSE(messageType(nullptr, 0).ok());
    // A header whose length is shorter than the body it must hold.
    Bytes shortHello = encode(Hello{});
    shortHello[7] = 12;
    EXPECT_EQ(decodeHello(shortHello.data(), shortHello.size()).error().code(), IBNM_ERROR_PARSE);
    // A string that runs past the message.
    Bytes hello = encode(Hello{});
    hello[32] = 200;
    EXPECT_EQ(decodeHello(hello.data(), hello.size()).error().code(), IBNM_ERROR_PARSE);
}

TEST(RdmaTestWire, LongStringsAreCutAtTheLimit)
{
    Hello m;
    m.path.device = std::string(100, 'x');
    Bytes bytes = encode(m);
    EXPECT_LE(bytes.size(), kMaxMessage);
    auto back = decodeHello(bytes.data(), bytes.size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->path.device, std::string(63, 'x'));
}
