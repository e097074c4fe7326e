// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated hosts of examples/hosts and what a generator of profiles can
// use on each: shared by the generated tests (agreement-test.cpp, one `up`
// of a random set; tests/sequences/sequence-test.cpp, sequences of commands).
#pragma once

#include "libcore/model/host.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <glib.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ibnm::test {

// The host description of examples/hosts/NAME ("" and a test failure when
// it cannot be read).
inline std::string exampleHost(const std::string &name)
{
    std::string path = srcPath("examples/hosts/" + name);
    char *raw = nullptr;
    EXPECT_TRUE(g_file_get_contents(path.c_str(), &raw, nullptr, nullptr)) << path;
    GCharPtr text(raw);
    return raw ? raw : "";
}

// What a host offers a generator.
struct Names {
    std::vector<std::string> ipoib;    // port interfaces
    std::vector<std::string> macs;     // their addresses
    std::vector<std::string> ethernet; // Ethernet NICs
};

inline Names namesOf(const model::Host &h)
{
    Names n;
    for (const auto &ib : h.ipoib)
        if (ib.parent.empty()) {
            n.ipoib.push_back(ib.name);
            n.macs.push_back(ib.address);
        }
    for (const auto &nd : h.netdevs)
        if (nd.type == 1 && nd.kind.empty())
            n.ethernet.push_back(nd.name);
    return n;
}

} // namespace ibnm::test
