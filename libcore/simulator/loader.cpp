// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/simulator/loader.hpp"

#include "libcore/ibnm-error.h"
#include "libcore/support/i18n.hpp"

#include "libcore/ibnm-host.h"

#include <gmodule.h>

#include <dlfcn.h>

#include <string>

namespace ibnm::simulator {

namespace {

// libibnm-simulator.la's -version-info 0:0:0 gives this soname. The dynamic
// linker's search finds it: uninstalled, through the libtool wrapper's
// LD_LIBRARY_PATH (it sits beside libibnm.so in libcore/.libs); installed,
// beside the libibnm.so this process uses (the full CLI module, uninstalled,
// has no wrapper to set the path), or in the library directory, which is
// tried last by its full name.
constexpr const char *kSoname = "libibnm-simulator.so.0";

template <typename Fn>
bool symbol(GModule *module, const char *name, Fn *out)
{
    gpointer p = nullptr;
    if (!g_module_symbol(module, name, &p) || p == nullptr)
        return false;
    *out = reinterpret_cast<Fn>(p);
    return true;
}

} // namespace

const Api *load(GError **error)
{
    static Api api{};
    static bool loaded = false;
    if (loaded)
        return &api;
    GModule *module = g_module_open(kSoname, GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL));
    std::string why = module ? "" : g_module_error();
    Dl_info info{};
    if (module == nullptr && dladdr(reinterpret_cast<void *>(&ibnm_host_get_type), &info) && info.dli_fname) {
        g_autofree char *dir = g_path_get_dirname(info.dli_fname);
        g_autofree char *path = g_build_filename(dir, kSoname, nullptr);
        if (g_file_test(path, G_FILE_TEST_EXISTS))
            module = g_module_open(path, GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL));
    }
    if (module == nullptr) {
        std::string path = std::string(LIBDIR) + "/" + kSoname;
        module = g_module_open(path.c_str(), GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL));
    }
    if (module == nullptr) {
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED,
                    _("cannot load the simulator (%s): %s; is ibnm installed with it?"), kSoname, why.c_str());
        return nullptr;
    }
    if (!symbol(module, "ibnm_simulator_new_host", &api.newHost) ||
        !symbol(module, "ibnm_simulator_reset", &api.reset) ||
        !symbol(module, "ibnm_simulator_add_faults", &api.addFaults)) {
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED, _("the simulator (%s) lacks its entry points"),
                    kSoname);
        g_module_close(module);
        return nullptr;
    }
    g_module_make_resident(module);
    loaded = true;
    return &api;
}

} // namespace ibnm::simulator
