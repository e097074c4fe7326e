// SPDX-License-Identifier: LGPL-2.1-or-later
// The entry points of ibnm-linux.so, the module that holds LinuxPlatform with
// everything it calls in libnl-3, libnl-route-3 and libibverbs (issue 17):
// libibnm and the read-only CLI open it with GModule when they first need
// this machine's kernel (linux-loader.cpp), so that a program that reads only
// a sysfs tree maps none of those libraries. Nothing else is exported.
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"

#include <gmodule.h>

#include <new>

// The ibnm version the module was built with, and its kModuleAbi (the
// Platform interface's version and the layout of what it passes): the
// loader passes C++ objects in and out, so it takes only a module whose
// version and ABI equal its own.
extern "C" G_MODULE_EXPORT const char *ibnm_linux_module_version(void)
{
    return PACKAGE_VERSION;
}

extern "C" G_MODULE_EXPORT uint64_t ibnm_linux_module_abi(void)
{
    return ibnm::platform::kModuleAbi;
}

// A new LinuxPlatform for `options` (an ibnm::platform::LinuxOptions), owned
// by the caller; nullptr when it cannot be made (out of memory).
extern "C" G_MODULE_EXPORT void *ibnm_linux_platform_new(const void *options)
{
    try {
        return ibnm::platform::createLinuxPlatform(*static_cast<const ibnm::platform::LinuxOptions *>(options))
            .release();
    } catch (...) {
        // No exception crosses this C entry point; the loader names the
        // module in its error.
        return nullptr;
    }
}
