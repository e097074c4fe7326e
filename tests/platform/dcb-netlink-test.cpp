// SPDX-License-Identifier: LGPL-2.1-or-later
// DCB netlink (dcbnl) messages against golden bytes written by hand from
// the kernel's uapi <linux/netlink.h>, <linux/rtnetlink.h> and
// <linux/dcbnl.h>: RTM_GETDCB = 78, struct dcbmsg { __u8 dcb_family; __u8
// cmd; __u16 dcb_pad; }, DCB_CMD_IEEE_GET = 21, DCB_ATTR_IFNAME = 1,
// DCB_ATTR_IEEE = 13 (nested: DCB_ATTR_IEEE_PFC = 2, struct ieee_pfc of 136
// bytes: pfc_cap, pfc_en, mbc, pad, __u16 delay, pad to 8, __u64
// requests[8], __u64 indications[8]), DCB_ATTR_DCBX = 14. No DCB device
// exists here: this is what iproute2's `dcb pfc show dev eth2` exchanges.
// Host byte order; these bytes are little-endian.
#include "config.h"

#include "libcore/platform/linux/dcb-netlink.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include <netlink/msg.h>

namespace {

namespace dcb = ibnm::platform::dcb;

std::vector<uint8_t> bytesOf(nl_msg *msg)
{
    const nlmsghdr *h = nlmsg_hdr(msg);
    const auto *p = reinterpret_cast<const uint8_t *>(h);
    return std::vector<uint8_t>(p, p + h->nlmsg_len);
}

// dcb pfc show dev eth2
const std::vector<uint8_t> kIeeeGetEth2 = {
    // nlmsghdr: len 32, type 78 (RTM_GETDCB), flags REQUEST (1), seq 0, pid 0
    0x20, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET (21), pad
    0x00, 0x15, 0x00, 0x00,
    // DCB_ATTR_IFNAME (1) "eth2\0" + 3 pad
    0x09, 0x00, 0x01, 0x00, 'e', 't', 'h', '2', 0x00, 0x00, 0x00, 0x00,
};

// The kernel's answer (dcbnl_ieee_fill) with PFC: pfc_cap 8, pfc_en as given.
std::vector<uint8_t> answer(uint8_t pfcEn, bool withPfc = true)
{
    std::vector<uint8_t> m = {
        // nlmsghdr, length patched below; type 78, flags 0, seq 1, pid 0
        0x00, 0x00, 0x00, 0x00, 0x4e, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x15, 0x00, 0x00,
        0x09, 0x00, 0x01, 0x00, 'e', 't', 'h', '2', 0x00, 0x00, 0x00, 0x00,
    };
    if (withPfc) {
        // DCB_ATTR_IEEE (13), nested: len 4 + 140
        const std::vector<uint8_t> nest = {0x90, 0x00, 0x0d, 0x00,
                                           // DCB_ATTR_IEEE_PFC (2), len 4 + 136
                                           0x8c, 0x00, 0x02, 0x00,
                                           // pfc_cap 8, pfc_en, mbc 0, pad, delay 0, pad to 8
                                           0x08, pfcEn, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
        m.insert(m.end(), nest.begin(), nest.end());
        m.insert(m.end(), 128, 0x00); // requests[8], indications[8]
    } else {
        // DCB_ATTR_IEEE with only an empty DCB_ATTR_IEEE_APP_TABLE (3)
        const std::vector<uint8_t> nest = {0x08, 0x00, 0x0d, 0x00, 0x04, 0x00, 0x03, 0x00};
        m.insert(m.end(), nest.begin(), nest.end());
    }
    // DCB_ATTR_DCBX (14) u8 DCB_CAP_DCBX_HOST|VER_IEEE (0x0c) + 3 pad
    const std::vector<uint8_t> dcbx = {0x05, 0x00, 0x0e, 0x00, 0x0c, 0x00, 0x00, 0x00};
    m.insert(m.end(), dcbx.begin(), dcbx.end());
    m[0] = uint8_t(m.size());
    m[1] = uint8_t(m.size() >> 8);
    return m;
}

const nlmsghdr *hdr(const std::vector<uint8_t> &bytes)
{
    return reinterpret_cast<const nlmsghdr *>(bytes.data());
}

TEST(DcbNetlink, EncodesIeeeGetAsDcbPfcShow)
{
    auto msg = dcb::encodeIeeeGet("eth2");
    ASSERT_TRUE(msg.ok()) << msg.error().toString();
    EXPECT_EQ(bytesOf(msg->get()), kIeeeGetEth2);
}

TEST(DcbNetlink, RefusesNoOrTooLongInterfaceName)
{
    EXPECT_FALSE(dcb::encodeIeeeGet("").ok());
    EXPECT_FALSE(dcb::encodeIeeeGet("sixteen-chars-xx").ok());
}

TEST(DcbNetlink, DecodesPfcEnabledBitmap)
{
    auto only3 = answer(0x08);
    auto pfc = dcb::decodeIeeePfc(hdr(only3), only3.size());
    ASSERT_TRUE(pfc.ok()) << pfc.error().toString();
    ASSERT_TRUE(pfc->has_value());
    EXPECT_EQ(**pfc, 0x08);
    auto three4 = answer(0x18);
    pfc = dcb::decodeIeeePfc(hdr(three4), three4.size());
    ASSERT_TRUE(pfc.ok());
    EXPECT_EQ(**pfc, 0x18);
}

TEST(DcbNetlink, NoPfcAttributeIsUnknownNotOff)
{
    auto bytes = answer(0, false);
    auto pfc = dcb::decodeIeeePfc(hdr(bytes), bytes.size());
    ASSERT_TRUE(pfc.ok()) << pfc.error().toString();
    EXPECT_FALSE(pfc->has_value());
}

TEST(DcbNetlink, ErrorAnswerKeepsItsErrno)
{
    // NLMSG_ERROR (2), error -95 (EOPNOTSUPP: no dcbnl_ops), then the request's header.
    std::vector<uint8_t> bytes = {0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0xa1, 0xff, 0xff, 0xff};
    bytes.insert(bytes.end(), kIeeeGetEth2.begin(), kIeeeGetEth2.begin() + 16);
    auto pfc = dcb::decodeIeeePfc(hdr(bytes), bytes.size());
    ASSERT_FALSE(pfc.ok());
    EXPECT_EQ(pfc.error().errnum(), EOPNOTSUPP);
}

TEST(DcbNetlink, RefusesTruncatedPfcAndOtherMessages)
{
    auto bytes = answer(0x08);
    // DCB_ATTR_IEEE_PFC of 8 bytes instead of 136: lengths patched, PFC cut.
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + 32 + 4 + 4 + 8);
    cut[32] = 16;      // DCB_ATTR_IEEE len
    cut[36] = 12;      // DCB_ATTR_IEEE_PFC len
    cut[0] = uint8_t(cut.size());
    cut[1] = 0;
    auto pfc = dcb::decodeIeeePfc(hdr(cut), cut.size());
    ASSERT_FALSE(pfc.ok());
    EXPECT_NE(pfc.error().toString().find("DCB_ATTR_IEEE_PFC"), std::string::npos) << pfc.error().toString();
    auto request = kIeeeGetEth2;
    request[4] = 0x10; // RTM_NEWLINK
    EXPECT_FALSE(dcb::decodeIeeePfc(hdr(request), request.size()).ok());
    EXPECT_FALSE(dcb::decodeIeeePfc(hdr(bytes), 12).ok()); // shorter than a header
}

} // namespace
