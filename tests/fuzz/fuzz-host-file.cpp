// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated host file (libcore/simulator/fake-host-file.cpp): the input
// is a host description. What it parses, formatted again, parses again.
#include "config.h"

#include "libcore/simulator/fake-host-file.hpp"
#include "tests/fuzz/fuzz-util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ibnm;
    auto st = platform::parseHostDescription(std::string(fuzz::asText(data, size)), "fuzz.host");
    if (!st.ok())
        return 0;
    std::string text = platform::formatHostDescription(*st);
    auto again = platform::parseHostDescription(text, "formatted.host");
    IBNM_FUZZ_ASSERT(again.ok(), "a formatted host reads back: " + (again.ok() ? "" : again.error().toString()));
    return 0;
}
