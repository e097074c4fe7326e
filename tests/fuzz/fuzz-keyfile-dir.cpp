// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile directory reader (settings/keyfile-backend.cpp, through
// libnm's keyfile parser): the input is one or more keyfiles separated by a
// line "----", stored 0600 in a scratch store and loaded. Every profile it
// loads must write and read back.
#include "config.h"

#include "settings/keyfile-backend.hpp"
#include "settings/keyfile-codec.hpp"
#include "tests/fuzz/fuzz-util.hpp"

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ibnm;
    if (fuzz::mayLoadJansson(fuzz::asText(data, size)))
        return 0;
    fuzz::ScratchDir dir;
    auto files = fuzz::split(fuzz::asText(data, size), "\n----\n");
    for (size_t i = 0; i < files.size() && i < 8; i++) {
        std::string path = dir.path() + "/p" + std::to_string(i) + ".nmconnection";
        if (g_file_set_contents(path.c_str(), files[i].data(), gssize(files[i].size()), nullptr))
            g_chmod(path.c_str(), 0600);
    }
    settings::KeyfileBackend store(dir.path());
    store.setRequiredOwner(getuid());
    if (!store.load().ok())
        return 0;
    for (const auto &p : store.profiles()) {
        auto text = settings::keyfileToData(p.connection.get());
        if (!text.ok())
            continue;
        auto back = settings::keyfileFromData(*text, "/fuzz.nmconnection");
        IBNM_FUZZ_ASSERT(back.ok(), "a loaded profile's keyfile reads back: " + (back.ok() ? "" : back.error().toString()));
    }
    return 0;
}
