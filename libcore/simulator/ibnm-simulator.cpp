// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/runtime-dir.h"

#include "libcore/simulator/ibnm-simulator.h"

#include "libcore/ibnm-host-private.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/files.hpp"
#include "libcore/support/i18n.hpp"

#include <memory>
#include <string>

namespace ibnm {

namespace {

// The FakePlatform of a host from ibnm_simulator_new_host(), which the host
// owns (it lives as long as the host): the simulator keeps its own pointer
// on the host rather than asking libibnm for its platform.
GQuark fakePlatformQuark()
{
    return g_quark_from_static_string("ibnm-simulator-fake-platform");
}

} // namespace

platform::FakePlatform *hostFakePlatform(IbnmHost *host)
{
    return static_cast<platform::FakePlatform *>(g_object_get_qdata(G_OBJECT(host), fakePlatformQuark()));
}

} // namespace ibnm

/**
 * ibnm_simulator_new_host:
 * @host_file: a host description (examples/hosts/README.md)
 * @state_dir: (nullable): where the simulation keeps its state between
 *   processes; %NULL means "@host_file.state" beside the file
 * @error: return location for a #GError
 *
 * Opens a simulated host that behaves like the kernel would on the machine
 * @host_file describes; its changes persist in @state_dir.
 *
 * Returns: (transfer full) (nullable): the simulated host, or %NULL with
 *   @error set (the file's errors name FILE:LINE).
 *
 * Since: 0.1
 */
IbnmHost *ibnm_simulator_new_host(const char *host_file, const char *state_dir, GError **error)
{
    g_return_val_if_fail(host_file != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    IbnmHost *host = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        std::string dir = state_dir ? state_dir : ibnm::platform::FakePlatform::defaultStateDir(host_file);
        auto fake = ibnm::platform::FakePlatform::open(host_file, dir);
        if (!fake.ok())
            return std::move(fake).error();
        // The host owns the platform from here on.
        ibnm::platform::FakePlatform *platform = std::move(fake).value().release();
        host = ibnm_host_new_for_platform_private(platform, IBNM_HOST_KIND_SIMULATED, host_file, dir.c_str());
        g_object_set_qdata(G_OBJECT(host), ibnm::fakePlatformQuark(), platform);
        return {};
    });
    return host;
}

/**
 * ibnm_simulator_reset:
 * @host: a host from ibnm_simulator_new_host()
 * @error: return location for a #GError
 *
 * Forgets every change made to a simulated host (deletes its state) so it
 * is again as its host file describes it, as after a reboot: no profile is
 * active any more. Fails with
 * %IBNM_ERROR_NOT_SUPPORTED on a host that is not simulated.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean ibnm_simulator_reset(IbnmHost *host, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        auto *fake = ibnm::hostFakePlatform(host);
        if (fake == nullptr)
            return ibnm::Error(IBNM_ERROR_NOT_SUPPORTED, _("only a simulated host can be reset"));
        if (auto st = fake->reset(); !st.ok())
            return st;
        // The /etc files settings wrote for this host (its state too), and
        // its active connections (a reset is a reboot: /run is empty again).
        const char *dir = ibnm_host_get_runtime_dir(host);
        if (dir == nullptr)
            return ibnm::Status();
        for (const char *records : {IBNM_ACTIVE_RECORDS_SUBDIR, IBNM_HOOK_RECORDS_SUBDIR})
            if (auto st = ibnm::removeTree(std::string(dir) + "/" + records); !st.ok())
                return st;
        return ibnm::removeTree(ibnm::simulatedHostFilesRoot(dir));
    });
}

/**
 * ibnm_simulator_add_faults:
 * @host: a host from ibnm_simulator_new_host()
 * @rules: fault rules, in the syntax of IBNM_FAKE_FAIL
 *   ("op=addSoftLink,nth=1,errno=EBUSY;...", examples/hosts/README.md)
 * @error: return location for a #GError
 *
 * Makes operations of a simulated host fail, for tests of error paths that
 * cannot take the rules from the environment (the dispatcher hook). Fails
 * with %IBNM_ERROR_NOT_SUPPORTED on a host that is not simulated.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean ibnm_simulator_add_faults(IbnmHost *host, const char *rules, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(rules != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        auto *fake = ibnm::hostFakePlatform(host);
        if (fake == nullptr)
            return ibnm::Error(IBNM_ERROR_NOT_SUPPORTED, _("only a simulated host takes injected faults"));
        auto parsed = ibnm::platform::parseFaultRules(rules);
        if (!parsed.ok())
            return std::move(parsed).error();
        fake->addFaults(std::move(parsed).value());
        return {};
    });
}
