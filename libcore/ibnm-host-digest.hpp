// SPDX-License-Identifier: LGPL-2.1-or-later
// The host's state digest (ibnm-host-digest.cpp).
#pragma once

#include "libcore/ibnm-host.h"
#include "libcore/model/host.hpp"

#include <optional>
#include <string>

namespace ibnm {

// Every field of `h`, each length-prefixed, in a fixed order: two hosts give
// the same text exactly when readHost() returned the same values.
std::string hostCanonicalText(const model::Host &h);

// The digest ibnm_host_get_state_digest() gives for `h` read from `host`,
// with the host's active-connection records as they are now; nullopt when
// those cannot be read.
std::optional<std::string> hostStateDigest(IbnmHost *host, const model::Host &h);
// The same of `h`'s hostCanonicalText().
std::optional<std::string> hostStateDigestOfText(IbnmHost *host, const std::string &canonicalText);

} // namespace ibnm
