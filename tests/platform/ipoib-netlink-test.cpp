// SPDX-License-Identifier: LGPL-2.1-or-later
// IPoIB rtnetlink messages against golden bytes written by hand from the
// kernel's uapi (<linux/netlink.h>, <linux/rtnetlink.h>, <linux/if_link.h>).
// Netlink is host byte order; these bytes are little-endian (x86, arm64).
#include "config.h"

#include "libcore/platform/linux/ipoib-netlink.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using ibnm::model::IpoibMode;
using ibnm::platform::ipoib::LinkRequest;
namespace ipoib = ibnm::platform::ipoib;

// ip link add link <ifindex 2> name ib0.8001 type ipoib pkey 0x8001 mode datagram umcast 0
const std::vector<uint8_t> kNewLinkFull = {
    // nlmsghdr: len 100, RTM_NEWLINK (16), REQUEST|ACK|EXCL|CREATE (0x605), seq 0, pid 0
    0x64, 0x00, 0x00, 0x00, 0x10, 0x00, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // ifinfomsg: family AF_UNSPEC, type 0, index 0, flags 0, change 0
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // IFLA_LINK (5), u32 2
    0x08, 0x00, 0x05, 0x00, 0x02, 0x00, 0x00, 0x00,
    // IFLA_IFNAME (3), "ib0.8001\0", padded to 4
    0x0d, 0x00, 0x03, 0x00, 'i', 'b', '0', '.', '8', '0', '0', '1', 0x00, 0x00, 0x00, 0x00,
    // IFLA_LINKINFO (18) with NLA_F_NESTED (0x8000), 44 bytes
    0x2c, 0x00, 0x12, 0x80,
    //   IFLA_INFO_KIND (1), "ipoib\0", padded
    0x0a, 0x00, 0x01, 0x00, 'i', 'p', 'o', 'i', 'b', 0x00, 0x00, 0x00,
    //   IFLA_INFO_DATA (2) with NLA_F_NESTED, 28 bytes
    0x1c, 0x00, 0x02, 0x80,
    //     IFLA_IPOIB_PKEY (1), u16 0x8001
    0x06, 0x00, 0x01, 0x00, 0x01, 0x80, 0x00, 0x00,
    //     IFLA_IPOIB_MODE (2), u16 IPOIB_MODE_DATAGRAM (0)
    0x06, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
    //     IFLA_IPOIB_UMCAST (3), u16 0
    0x06, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
};

// ip link add link <ifindex 7> name ib1.0002 type ipoib pkey 0x0002 mode connected umcast 1
const std::vector<uint8_t> kNewLinkConnected = {
    0x64, 0x00, 0x00, 0x00, 0x10, 0x00, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x05, 0x00, 0x07, 0x00, 0x00, 0x00,
    0x0d, 0x00, 0x03, 0x00, 'i', 'b', '1', '.', '0', '0', '0', '2', 0x00, 0x00, 0x00, 0x00,
    0x2c, 0x00, 0x12, 0x80,
    0x0a, 0x00, 0x01, 0x00, 'i', 'p', 'o', 'i', 'b', 0x00, 0x00, 0x00,
    0x1c, 0x00, 0x02, 0x80,
    0x06, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
    // IPOIB_MODE_CONNECTED (1)
    0x06, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x06, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
};

// Only the P_Key: no IFLA_IFNAME, no mode or umcast.
const std::vector<uint8_t> kNewLinkPkeyOnly = {
    // len 68
    0x44, 0x00, 0x00, 0x00, 0x10, 0x00, 0x05, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00,
    // IFLA_LINKINFO, 28 bytes: kind (12) + data (12)
    0x1c, 0x00, 0x12, 0x80,
    0x0a, 0x00, 0x01, 0x00, 'i', 'p', 'o', 'i', 'b', 0x00, 0x00, 0x00,
    0x0c, 0x00, 0x02, 0x80,
    0x06, 0x00, 0x01, 0x00, 0xff, 0x7f, 0x00, 0x00,
};

struct Case {
    const char *name;
    LinkRequest request;
    const std::vector<uint8_t> *golden;
};

std::vector<Case> cases()
{
    LinkRequest full;
    full.ifname = "ib0.8001";
    full.parentIfindex = 2;
    full.pkey = 0x8001;
    full.mode = IpoibMode::Datagram;
    full.umcast = false;
    LinkRequest connected;
    connected.ifname = "ib1.0002";
    connected.parentIfindex = 7;
    connected.pkey = 0x0002;
    connected.mode = IpoibMode::Connected;
    connected.umcast = true;
    LinkRequest pkeyOnly;
    pkeyOnly.parentIfindex = 3;
    pkeyOnly.pkey = 0x7fff;
    return {{"datagram", full, &kNewLinkFull},
            {"connected", connected, &kNewLinkConnected},
            {"pkey-only", pkeyOnly, &kNewLinkPkeyOnly}};
}

TEST(IpoibNetlink, EncodesGoldenBytes)
{
    for (const auto &c : cases()) {
        auto msg = ipoib::encodeNewLink(c.request);
        ASSERT_TRUE(msg.ok()) << c.name << ": " << msg.error().toString();
        EXPECT_EQ(ipoib::messageBytes(msg->get()), *c.golden) << c.name;
    }
}

TEST(IpoibNetlink, DecodesGoldenBytes)
{
    for (const auto &c : cases()) {
        auto bytes = *c.golden;
        auto r = ipoib::decodeLink(reinterpret_cast<const nlmsghdr *>(bytes.data()));
        ASSERT_TRUE(r.ok()) << c.name << ": " << r.error().toString();
        EXPECT_EQ(r->ifname, c.request.ifname) << c.name;
        EXPECT_EQ(r->parentIfindex, c.request.parentIfindex) << c.name;
        EXPECT_EQ(r->pkey, c.request.pkey) << c.name;
        EXPECT_EQ(r->mode, c.request.mode) << c.name;
        EXPECT_EQ(r->umcast, c.request.umcast) << c.name;
    }
}

TEST(IpoibNetlink, RejectsAPkeyOfTheWrongSize)
{
    auto bytes = kNewLinkFull;
    // IFLA_IPOIB_PKEY with a 4-byte payload instead of 2 (len 8).
    bytes[76] = 0x08;
    auto r = ipoib::decodeLink(reinterpret_cast<const nlmsghdr *>(bytes.data()));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), IBNM_ERROR_PARSE);
    EXPECT_NE(r.error().toString().find("IFLA_IPOIB_PKEY"), std::string::npos) << r.error().toString();
}

// libnl's policy (netlink-policy.hpp) refuses a truncated u32 and a name
// without its NUL, and the error names the attribute.
TEST(IpoibNetlink, RejectsATruncatedLinkAndAnUnterminatedName)
{
    struct Case {
        size_t offset;
        uint8_t value;
        const char *mentions;
    } cases[] = {
        {32, 0x06, "IFLA_LINK"},  // a 2-byte payload (the next attribute stays at 40)
        {52, 'x', "IFLA_IFNAME"}, // "ib0.8001x", no NUL
    };
    for (const auto &c : cases) {
        auto bytes = kNewLinkFull;
        bytes[c.offset] = c.value;
        auto r = ipoib::decodeLink(reinterpret_cast<const nlmsghdr *>(bytes.data()));
        ASSERT_FALSE(r.ok()) << c.mentions;
        EXPECT_EQ(r.error().code(), IBNM_ERROR_PARSE);
        EXPECT_NE(r.error().toString().find(c.mentions), std::string::npos) << r.error().toString();
    }
}

TEST(IpoibNetlink, RejectsAnotherKind)
{
    auto bytes = kNewLinkFull;
    memcpy(&bytes[64], "vlan\0\0", 6);
    auto r = ipoib::decodeLink(reinterpret_cast<const nlmsghdr *>(bytes.data()));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("IFLA_INFO_KIND"), std::string::npos) << r.error().toString();
}

TEST(IpoibNetlink, RejectsAnUnknownMode)
{
    auto bytes = kNewLinkFull;
    bytes[88] = 0x02; // IFLA_IPOIB_MODE value 2
    auto r = ipoib::decodeLink(reinterpret_cast<const nlmsghdr *>(bytes.data()));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("IFLA_IPOIB_MODE"), std::string::npos) << r.error().toString();
}

TEST(IpoibNetlink, RejectsAnotherMessageType)
{
    auto bytes = kNewLinkFull;
    bytes[4] = 0x11; // RTM_DELLINK
    auto r = ipoib::decodeLink(reinterpret_cast<const nlmsghdr *>(bytes.data()));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), IBNM_ERROR_PARSE);
}

} // namespace
