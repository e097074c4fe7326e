// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/model/netdev.hpp"

#include "libcore/support/i18n.hpp"
#include "libcore/support/strings.hpp"

#include <cerrno>

namespace ibnm::model {

Status linkMtuAccepted(const std::string &ifname, unsigned mtu, std::optional<unsigned> max)
{
    if (mtu < kEthMinMtu)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%u is less than the minimum MTU %u; the kernel refuses it"), mtu, kEthMinMtu),
                     EINVAL);
    if (max && mtu > *max)
        return Error(IBNM_ERROR_INVALID_PROPERTY,
                     strprintf(_("%s takes an MTU of at most %u, not %u"), ifname.c_str(), *max, mtu), EINVAL);
    return {};
}

} // namespace ibnm::model
