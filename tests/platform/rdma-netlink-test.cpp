// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA netlink (NLDEV) messages against golden bytes written by hand from
// <linux/netlink.h> and <rdma/rdma_netlink.h>: type RDMA_NL_GET_TYPE(
// RDMA_NL_NLDEV = 5, cmd) = (5 << 10) + cmd, no family header. Host byte
// order; these bytes are little-endian.
#include "config.h"

#include "libcore/platform/linux/rdma-netlink.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

namespace rdma = ibnm::platform::rdma;
using ibnm::model::SoftLinkType;

std::vector<uint8_t> bytesOf(nl_msg *msg)
{
    const nlmsghdr *h = nlmsg_hdr(msg);
    const auto *p = reinterpret_cast<const uint8_t *>(h);
    return std::vector<uint8_t>(p, p + h->nlmsg_len);
}

// rdma link add rxe0 type rxe netdev dummy0
const std::vector<uint8_t> kNewLinkRxe = {
    // nlmsghdr: len 48, type 0x1403 (NEWLINK), flags REQUEST|ACK (0x5), seq 0, pid 0
    0x30, 0x00, 0x00, 0x00, 0x03, 0x14, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // RDMA_NLDEV_ATTR_DEV_NAME (2) "rxe0\0" + 3 pad
    0x09, 0x00, 0x02, 0x00, 'r', 'x', 'e', '0', 0x00, 0x00, 0x00, 0x00,
    // RDMA_NLDEV_ATTR_LINK_TYPE (65) "rxe\0"
    0x08, 0x00, 0x41, 0x00, 'r', 'x', 'e', 0x00,
    // RDMA_NLDEV_ATTR_NDEV_NAME (51) "dummy0\0" + 1 pad
    0x0b, 0x00, 0x33, 0x00, 'd', 'u', 'm', 'm', 'y', '0', 0x00, 0x00,
};

// rdma link add siw0 type siw netdev veth0
const std::vector<uint8_t> kNewLinkSiw = {
    0x30, 0x00, 0x00, 0x00, 0x03, 0x14, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x09, 0x00, 0x02, 0x00, 's', 'i', 'w', '0', 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x41, 0x00, 's', 'i', 'w', 0x00,
    // "veth0\0" + 2 pad
    0x0a, 0x00, 0x33, 0x00, 'v', 'e', 't', 'h', '0', 0x00, 0x00, 0x00,
};

// rdma link delete of device index 3
const std::vector<uint8_t> kDelLink = {
    0x18, 0x00, 0x00, 0x00, 0x04, 0x14, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // RDMA_NLDEV_ATTR_DEV_INDEX (1) u32 3
    0x08, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00,
};

// GET dump: REQUEST|DUMP (0x301), no attributes.
const std::vector<uint8_t> kGetDump = {
    0x10, 0x00, 0x00, 0x00, 0x01, 0x14, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
// PORT_GET dump of device index 2: the kernel needs DEV_INDEX.
const std::vector<uint8_t> kPortGetDump = {
    0x18, 0x00, 0x00, 0x00, 0x05, 0x14, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
};

TEST(RdmaNetlink, MessageTypeIsNldevShiftedByTen)
{
    EXPECT_EQ(rdma::nldevType(1), 0x1401);
    EXPECT_EQ(rdma::nldevType(3), 0x1403);
    EXPECT_EQ(rdma::nldevType(5), 0x1405);
}

TEST(RdmaNetlink, EncodesNewLinkGoldenBytes)
{
    auto rxe = rdma::encodeNewLink("rxe0", SoftLinkType::Rxe, "dummy0");
    ASSERT_TRUE(rxe.ok()) << rxe.error().toString();
    EXPECT_EQ(bytesOf(rxe->get()), kNewLinkRxe);
    auto siw = rdma::encodeNewLink("siw0", SoftLinkType::Siw, "veth0");
    ASSERT_TRUE(siw.ok()) << siw.error().toString();
    EXPECT_EQ(bytesOf(siw->get()), kNewLinkSiw);
}

TEST(RdmaNetlink, EncodesDelLinkAndDumpsGoldenBytes)
{
    auto del = rdma::encodeDelLink(3);
    ASSERT_TRUE(del.ok());
    EXPECT_EQ(bytesOf(del->get()), kDelLink);
    auto get = rdma::encodeGetDump();
    ASSERT_TRUE(get.ok());
    EXPECT_EQ(bytesOf(get->get()), kGetDump);
    auto port = rdma::encodePortGetDump(2);
    ASSERT_TRUE(port.ok());
    EXPECT_EQ(bytesOf(port->get()), kPortGetDump);
}

// The kernel's answer to a GET dump for rxe0 (index 1): NLM_F_MULTI (0x2).
// The u64 node GUID is preceded by RDMA_NLDEV_ATTR_PAD (24) when the kernel
// needs to align it (nla_put_u64_64bit), as here.
const std::vector<uint8_t> kDeviceAnswer = {
    // len 88, type 0x1401, flags MULTI, seq 7, pid 0x1234
    0x58, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
    // DEV_INDEX (1) u32 1
    0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
    // DEV_NAME (2) "rxe0"
    0x09, 0x00, 0x02, 0x00, 'r', 'x', 'e', '0', 0x00, 0x00, 0x00, 0x00,
    // PAD (24), empty
    0x04, 0x00, 0x18, 0x00,
    // NODE_GUID (6) u64 0x848141fffe42b4c5
    0x0c, 0x00, 0x06, 0x00, 0xc5, 0xb4, 0x42, 0xfe, 0xff, 0x41, 0x81, 0x84,
    // FW_VERSION (5) "" (rxe has none)
    0x05, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
    // DEV_NODE_TYPE (14) u8 1 (RDMA_NODE_IB_CA)
    0x05, 0x00, 0x0e, 0x00, 0x01, 0x00, 0x00, 0x00,
    // DEV_PROTOCOL (67) "roce"
    0x09, 0x00, 0x43, 0x00, 'r', 'o', 'c', 'e', 0x00, 0x00, 0x00, 0x00,
    // an attribute the decoder does not know: PORT_INDEX (3) u32 1 (the port count)
    0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
};

// The answer to a PORT_GET dump for siw0 port 1 over veth0 (ifindex 3).
const std::vector<uint8_t> kPortAnswer = {
    // len 80
    0x50, 0x00, 0x00, 0x00, 0x05, 0x14, 0x02, 0x00, 0x08, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
    0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x09, 0x00, 0x02, 0x00, 's', 'i', 'w', '0', 0x00, 0x00, 0x00, 0x00,
    // PORT_INDEX (3) u32 1
    0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
    // PORT_STATE (12) u8 4 (ACTIVE), PORT_PHYS_STATE (13) u8 5 (LinkUp)
    0x05, 0x00, 0x0c, 0x00, 0x04, 0x00, 0x00, 0x00,
    0x05, 0x00, 0x0d, 0x00, 0x05, 0x00, 0x00, 0x00,
    // NDEV_INDEX (50) u32 3, NDEV_NAME (51) "veth0"
    0x08, 0x00, 0x32, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x0a, 0x00, 0x33, 0x00, 'v', 'e', 't', 'h', '0', 0x00, 0x00, 0x00,
};

TEST(RdmaNetlink, DecodesADeviceAnswer)
{
    auto d = rdma::decodeDevice(reinterpret_cast<const nlmsghdr *>(kDeviceAnswer.data()));
    ASSERT_TRUE(d.ok()) << d.error().toString();
    EXPECT_EQ(d->index, 1u);
    EXPECT_EQ(d->name, "rxe0");
    ASSERT_TRUE(d->nodeGuid.has_value());
    EXPECT_EQ(*d->nodeGuid, 0x848141fffe42b4c5ull);
    EXPECT_EQ(d->fwVersion, std::optional<std::string>(""));
    EXPECT_EQ(d->nodeType, std::optional<uint8_t>(1));
    EXPECT_EQ(d->protocol, std::optional<std::string>("roce"));
}

TEST(RdmaNetlink, DecodesAPortAnswer)
{
    auto p = rdma::decodePort(reinterpret_cast<const nlmsghdr *>(kPortAnswer.data()));
    ASSERT_TRUE(p.ok()) << p.error().toString();
    EXPECT_EQ(p->deviceIndex, 2u);
    EXPECT_EQ(p->deviceName, "siw0");
    EXPECT_EQ(p->port, 1u);
    EXPECT_EQ(p->state, std::optional<uint8_t>(4));
    EXPECT_EQ(p->physState, std::optional<uint8_t>(5));
    EXPECT_EQ(p->netdevIndex, std::optional<uint32_t>(3));
    EXPECT_EQ(p->netdevName, std::optional<std::string>("veth0"));
}

TEST(RdmaNetlink, RejectsMalformedAnswers)
{
    struct Case {
        const char *what;
        size_t offset;
        uint8_t value;
        const char *mentions;
    } cases[] = {
        // PORT_INDEX with a 2-byte payload
        {"short port index", 36, 0x06, "RDMA_NLDEV_ATTR_PORT_INDEX"},
        // NDEV_NAME without its terminating NUL
        {"unterminated name", 77, 'x', "RDMA_NLDEV_ATTR_NDEV_NAME"},
        // a device answer's type on a port answer
        {"wrong type", 4, 0x01, "nlmsg_type"},
    };
    for (const auto &c : cases) {
        auto bytes = kPortAnswer;
        bytes[c.offset] = c.value;
        auto p = rdma::decodePort(reinterpret_cast<const nlmsghdr *>(bytes.data()));
        ASSERT_FALSE(p.ok()) << c.what;
        EXPECT_EQ(p.error().code(), IBNM_ERROR_PARSE) << c.what;
        EXPECT_NE(p.error().toString().find(c.mentions), std::string::npos) << c.what << ": " << p.error().toString();
    }
}

// A device answer whose u64 NODE_GUID carries 4 bytes, and one whose u32
// DEV_INDEX carries 8: libnl's policy (the type's size, at least and at
// most) refuses both, and the error names the attribute.
const std::vector<uint8_t> kDeviceAnswerTruncatedGuid = {
    // len 44, type 0x1401, flags MULTI, seq 7, pid 0x1234
    0x2c, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
    // DEV_INDEX (1) u32 1
    0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
    // DEV_NAME (2) "rxe0"
    0x09, 0x00, 0x02, 0x00, 'r', 'x', 'e', '0', 0x00, 0x00, 0x00, 0x00,
    // NODE_GUID (6), truncated to its low 4 bytes
    0x08, 0x00, 0x06, 0x00, 0xc5, 0xb4, 0x42, 0xfe,
};
const std::vector<uint8_t> kDeviceAnswerLongIndex = {
    // len 40
    0x28, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00, 0x07, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
    // DEV_INDEX (1) with 8 bytes
    0x0c, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // DEV_NAME (2) "rxe0"
    0x09, 0x00, 0x02, 0x00, 'r', 'x', 'e', '0', 0x00, 0x00, 0x00, 0x00,
};

TEST(RdmaNetlink, RefusesAnAttributeOfTheWrongSize)
{
    struct Case {
        const std::vector<uint8_t> *bytes;
        const char *mentions;
    } cases[] = {
        {&kDeviceAnswerTruncatedGuid, "RDMA_NLDEV_ATTR_NODE_GUID"},
        {&kDeviceAnswerLongIndex, "RDMA_NLDEV_ATTR_DEV_INDEX"},
    };
    for (const auto &c : cases) {
        ASSERT_EQ(c.bytes->size(), c.bytes->at(0)) << c.mentions;
        auto d = rdma::decodeDevice(reinterpret_cast<const nlmsghdr *>(c.bytes->data()));
        ASSERT_FALSE(d.ok()) << c.mentions;
        EXPECT_EQ(d.error().code(), IBNM_ERROR_PARSE);
        EXPECT_NE(d.error().toString().find(c.mentions), std::string::npos) << d.error().toString();
    }
    // The same message with the whole GUID decodes.
    auto whole = kDeviceAnswerTruncatedGuid;
    whole[0] = 0x30;
    whole[36] = 0x0c;
    for (uint8_t b : {0xff, 0x41, 0x81, 0x84})
        whole.push_back(b);
    auto d = rdma::decodeDevice(reinterpret_cast<const nlmsghdr *>(whole.data()));
    ASSERT_TRUE(d.ok()) << d.error().toString();
    EXPECT_EQ(d->nodeGuid, std::optional<uint64_t>(0x848141fffe42b4c5ull));
}

TEST(RdmaNetlink, DeviceAnswerNeedsIndexAndName)
{
    // Drop DEV_NAME by turning it into an unknown attribute type (99).
    auto bytes = kDeviceAnswer;
    bytes[26] = 99;
    auto d = rdma::decodeDevice(reinterpret_cast<const nlmsghdr *>(bytes.data()));
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().code(), IBNM_ERROR_PARSE);
}

} // namespace
