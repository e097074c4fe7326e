// SPDX-License-Identifier: LGPL-2.1-or-later
// What the library's own code (ibnm_state_apply) may ask of an IbnmSettings
// beyond its C API.
#pragma once

#include "settings/backend.hpp"
#include "settings/ibnm-settings.h"

namespace ibnm::settings {

// The store behind `settings` (for its write batches).
Backend &backendOf(IbnmSettings *settings);

} // namespace ibnm::settings
