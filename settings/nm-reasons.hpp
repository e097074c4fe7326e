// SPDX-License-Identifier: LGPL-2.1-or-later
// NetworkManager's state reasons in nmcli's words (translated).
#pragma once

#include <NetworkManager.h>

namespace ibnm::settings {

// Why a device changed state, as nmcli says it (translated).
const char *deviceReasonText(NMDeviceStateReason reason);
// Why an active connection changed state, as nmcli says it (translated).
const char *activeReasonText(NMActiveConnectionStateReason reason);

} // namespace ibnm::settings
