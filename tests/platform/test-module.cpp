// SPDX-License-Identifier: LGPL-2.1-or-later
// Stand-ins for ibnm-linux.so, opened by the loader (linux-loader.cpp) in
// tests/platform/linux-platform-test.cpp with openLinuxPlatform(options,
// path). counting-module.so forwards to the build's ibnm-linux.so and counts
// the platforms it makes, each slowly, so that threads racing for the first
// one overlap. other-build-module.so (IBNM_TEST_OTHER_BUILD) is the same but
// says it is of another build of this version: the same PACKAGE_VERSION, a
// Platform interface laid out otherwise (kModuleAbi with another layout
// fingerprint), which the loader must refuse before it makes anything.
#include "config.h"

#include <gmodule.h>

#include <cstdint>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

struct RealModule {
    const char *(*version)() = nullptr;
    uint64_t (*abi)() = nullptr;
    void *(*newPlatform)(const void *) = nullptr;
};

// The build's module (IBNM_LINUX_MODULE), opened once; its entry points
// null when it cannot be opened (every call then fails, which the test says).
const RealModule &real()
{
    static const RealModule r = [] {
        RealModule m;
        GModule *module = g_module_open(IBNM_LINUX_MODULE, GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL));
        gpointer p = nullptr;
        if (module && g_module_symbol(module, "ibnm_linux_module_version", &p))
            m.version = reinterpret_cast<const char *(*)()>(p);
        if (module && g_module_symbol(module, "ibnm_linux_module_abi", &p))
            m.abi = reinterpret_cast<uint64_t (*)()>(p);
        if (module && g_module_symbol(module, "ibnm_linux_platform_new", &p))
            m.newPlatform = reinterpret_cast<void *(*)(const void *)>(p);
        return m;
    }();
    return r;
}

std::atomic<unsigned> made{0};

} // namespace

extern "C" G_MODULE_EXPORT const char *ibnm_linux_module_version(void)
{
    return real().version ? real().version() : "(the build's ibnm-linux.so could not be opened)";
}

extern "C" G_MODULE_EXPORT uint64_t ibnm_linux_module_abi(void)
{
    uint64_t abi = real().abi ? real().abi() : 0;
#ifdef IBNM_TEST_OTHER_BUILD
    abi ^= 1; // the same interface version, another layout
#endif
    return abi;
}

extern "C" G_MODULE_EXPORT void *ibnm_linux_platform_new(const void *options)
{
    made++;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return real().newPlatform ? real().newPlatform(options) : nullptr;
}

// How many platforms ibnm_linux_platform_new() was asked for.
extern "C" G_MODULE_EXPORT unsigned ibnm_test_platforms_made(void)
{
    return made;
}
