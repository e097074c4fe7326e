// SPDX-License-Identifier: LGPL-2.1-or-later
// The ifcfg-rh reader (settings/ifcfg-reader.cpp): the input is an ifcfg
// file. A profile it imports must write a keyfile that reads back.
#include "config.h"

#include "settings/ifcfg-reader.hpp"
#include "settings/keyfile-codec.hpp"
#include "tests/fuzz/fuzz-util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ibnm;
    if (fuzz::mayLoadJansson(fuzz::asText(data, size)))
        return 0;
    auto vars = settings::ShellVars::parse(fuzz::asText(data, size), "/etc/sysconfig/network-scripts/ifcfg-fuzz");
    if (!vars.ok())
        return 0;
    auto c = settings::importIfcfg(*vars);
    if (!c.ok())
        return 0;
    auto text = settings::keyfileToData(c->get());
    if (!text.ok())
        return 0;
    auto back = settings::keyfileFromData(*text, "/fuzz.nmconnection");
    IBNM_FUZZ_ASSERT(back.ok(), "an imported profile's keyfile reads back: " + (back.ok() ? "" : back.error().toString()));
    return 0;
}
