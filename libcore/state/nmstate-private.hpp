// SPDX-License-Identifier: LGPL-2.1-or-later
// What the two halves of the nmstate schema share (libcore/state only, not
// installed): plan() reads a document (nmstate.cpp), describe() writes one
// (nmstate-describe.cpp).
#pragma once

#include <map>
#include <string>

namespace ibnm::state {

// The interface types of the schema, as NetworkManager connection types.
inline const std::map<std::string, std::string> kTypes = {
    {"infiniband", "infiniband"}, {"bond", "bond"}, {"ethernet", "ethernet"}};

} // namespace ibnm::state
