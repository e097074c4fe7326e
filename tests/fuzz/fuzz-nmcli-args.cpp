// SPDX-License-Identifier: LGPL-2.1-or-later
// The nmcli argument parser (libcore profiles, `connection add`): the input
// is the argument list, one argument per line. A profile it builds must
// write a keyfile that reads back, or be refused before writing.
#include "config.h"

#include "ibnm-profile.h"
#include "libcore/support/raii.hpp"
#include "settings/keyfile-codec.hpp"
#include "tests/fuzz/fuzz-util.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ibnm;
    if (fuzz::mayLoadJansson(fuzz::asText(data, size)))
        return 0;
    auto args = fuzz::split(fuzz::asText(data, size), "\n");
    if (args.size() > 64)
        return 0;
    std::vector<const char *> argv;
    for (const auto &a : args)
        argv.push_back(a.c_str());
    argv.push_back(nullptr);
    GError *err = nullptr;
    auto profile = GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argv.data(), &err));
    g_clear_error(&err);
    if (!profile)
        return 0;
    auto text = settings::keyfileToData(ibnm_profile_get_connection(profile.get()));
    if (!text.ok())
        return 0;
    auto back = settings::keyfileFromData(*text, "/fuzz.nmconnection");
    IBNM_FUZZ_ASSERT(back.ok(), "an added profile's keyfile reads back: " + (back.ok() ? "" : back.error().toString()));
    return 0;
}
