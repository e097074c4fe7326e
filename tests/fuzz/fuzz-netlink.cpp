// SPDX-License-Identifier: LGPL-2.1-or-later
// The netlink decoders (libcore/platform/linux/rdma-netlink.cpp and
// ipoib-netlink.cpp): the first byte chooses the decoder, the rest is the
// message as the kernel's answer would arrive. As libnl does on receipt,
// nlmsg_len is the number of bytes received.
#include "config.h"

#include "libcore/platform/linux/ipoib-netlink.hpp"
#include "libcore/platform/linux/rdma-netlink.hpp"
#include "tests/fuzz/fuzz-util.hpp"

#include <linux/netlink.h>

#include <cstring>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ibnm::platform;
    if (size < 1 + sizeof(nlmsghdr) || size > 65536)
        return 0;
    size_t len = size - 1;
    // An aligned copy, as a receive buffer is.
    std::unique_ptr<uint64_t[]> buf(new uint64_t[(len + 7) / 8]);
    std::memcpy(buf.get(), data + 1, len);
    auto *h = reinterpret_cast<nlmsghdr *>(buf.get());
    h->nlmsg_len = static_cast<uint32_t>(len);
    switch (data[0] % 3) {
    case 0: (void)rdma::decodeDevice(h); break;
    case 1: (void)rdma::decodePort(h); break;
    default: (void)ipoib::decodeLink(h); break;
    }
    return 0;
}
