// SPDX-License-Identifier: LGPL-2.1-or-later
// Activating and deactivating a profile through NetworkManager (libnm's
// NMClient), as nmcli 1.42 does it: NetworkManager owns the activation, ibnm
// asks and waits for the outcome.
#pragma once

#include "settings/backend.hpp"

#include <string>
#include <vector>

namespace ibnm::settings {

// Asks NetworkManager to activate the profile `uuid` (on the device named
// `ifname`, else one NetworkManager chooses) and waits until the activation
// is ACTIVATED or has failed, at most `timeoutS` seconds from now (0: only
// until NetworkManager took the request, nmcli's `--wait 0`). Errors:
// IBNM_ERROR_ACTIVATION_FAILED (NetworkManager's reason), IBNM_ERROR_NOT_FOUND
// (no such profile or device), IBNM_ERROR_NOT_SUPPORTED (the device cannot
// take the profile), IBNM_ERROR_TIMED_OUT, IBNM_ERROR_NOT_RUNNING,
// IBNM_ERROR_PERMISSION_DENIED.
ActivationResult activateProfile(GMainContext *ctx, NMClient *client, const std::string &uuid, const char *ifname,
                                 unsigned timeoutS);

// Asks NetworkManager to deactivate every active connection of the profile
// `uuid` and waits until they are deactivated, at most `timeoutS` seconds
// (0: only until NetworkManager took the requests). Returns their D-Bus
// paths. Errors: IBNM_ERROR_NOT_FOUND (the profile is not active),
// IBNM_ERROR_FAILED (NetworkManager refused), IBNM_ERROR_TIMED_OUT,
// IBNM_ERROR_NOT_RUNNING.
Result<std::vector<std::string>> deactivateProfile(GMainContext *ctx, NMClient *client, const std::string &uuid,
                                                   unsigned timeoutS);

} // namespace ibnm::settings
