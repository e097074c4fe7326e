// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-check.h"

#include "libcore/internal/inventory-private.hpp"
#include "libcore/internal/profile-rules.hpp"

#include <exception>
#include <vector>

/**
 * ibnm_check_profiles:
 * @profiles: (element-type IbnmProfile): the profiles to check together
 * @inventory: (nullable): the host to check them against; without it the host
 *   rules report one info finding per IPoIB profile
 *
 * Runs every rule: NetworkManager's verify(), the host rules, the bond rules,
 * the rules across profiles and those of ibnm's own options (an rxe link with
 * RoCE v1, a siw link with RoCE v2).
 *
 * Returns: (transfer full) (element-type IbnmFinding): the findings, errors
 *   first, then warnings, then information.
 */
GPtrArray *ibnm_check_profiles(GPtrArray *profiles, IbnmInventory *inventory)
{
    g_return_val_if_fail(profiles != nullptr, nullptr);
    g_return_val_if_fail(inventory == nullptr || IBNM_IS_INVENTORY(inventory), nullptr);
    GPtrArray *result = g_ptr_array_new_with_free_func(g_object_unref);
    try {
        std::vector<NMConnection *> connections;
        for (guint i = 0; i < profiles->len; i++) {
            auto *p = static_cast<IbnmProfile *>(g_ptr_array_index(profiles, i));
            g_return_val_if_fail(IBNM_IS_PROFILE(p), result);
            connections.push_back(static_cast<NMConnection *>(ibnm_profile_get_connection(p)));
        }
        const ibnm::model::Host *host = inventory ? &ibnm::inventoryHost(inventory) : nullptr;
        for (const auto &f : ibnm::rules::checkAll(connections, host))
            g_ptr_array_add(result, ibnm_finding_new(f.profileId.c_str(), f.property.c_str(), f.severity,
                                                     f.message.c_str(), f.hint.empty() ? nullptr : f.hint.c_str()));
    } catch (const std::bad_alloc &) {
        g_error("libibnm: out of memory");
    } catch (const std::exception &e) {
        g_critical("ibnm_check_profiles: %s", e.what());
    }
    return result;
}
