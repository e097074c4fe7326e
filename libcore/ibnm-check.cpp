// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-check.h"

#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-apply-private.hpp"
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/model/ipoib.hpp"

#include <NetworkManager.h>

#include <algorithm>
#include <map>
#include <string>

#include <exception>
#include <vector>

G_DEFINE_FLAGS_TYPE(IbnmCheckFlags, ibnm_check_flags,
                    G_DEFINE_ENUM_VALUE(IBNM_CHECK_FLAGS_NONE, "none"),
                    G_DEFINE_ENUM_VALUE(IBNM_CHECK_FLAGS_STANDALONE, "standalone"))

/**
 * ibnm_check_profiles:
 * @profiles: (element-type NM.Connection): the profiles to check together
 * @inventory: (nullable): the host to check them against; without it the host
 *   rules report one info finding per IPoIB profile
 * @flags: how to check: %IBNM_CHECK_FLAGS_STANDALONE when ibnm activates the
 *   profiles itself
 *
 * Runs every rule: NetworkManager's verify(), the host rules, the bond rules,
 * the rules across profiles and those of ibnm's own options (an rxe link with
 * RoCE v1, a siw link with RoCE v2).
 *
 * Returns: (transfer container) (element-type IbnmFinding): the findings, errors
 *   first, then warnings, then information.
 *
 * Since: 0.1
 */
GPtrArray *ibnm_check_profiles(GPtrArray *profiles, IbnmInventory *inventory, IbnmCheckFlags flags)
{
    g_return_val_if_fail(profiles != nullptr, nullptr);
    g_return_val_if_fail(inventory == nullptr || IBNM_IS_INVENTORY(inventory), nullptr);
    GPtrArray *result = g_ptr_array_new_with_free_func(g_object_unref);
    try {
        std::vector<NMConnection *> connections;
        for (guint i = 0; i < profiles->len; i++) {
            auto *c = static_cast<NMConnection *>(g_ptr_array_index(profiles, i));
            g_return_val_if_fail(NM_IS_CONNECTION(c), result);
            connections.push_back(c);
        }
        const ibnm::model::Host *host = inventory ? &ibnm::inventoryHost(inventory) : nullptr;
        auto findings = ibnm::activation::checkProfiles(connections, host, nullptr, (flags & IBNM_CHECK_FLAGS_STANDALONE) != 0);
        // Each finding goes into its object (its shared texts moved, its
        // message copied at its length), and the vector gives back its
        // room as it empties: the objects are made from the last finding
        // to the first, and the vector is shrunk each time half of it is
        // done. The two forms of 10,000 findings are not held at once (the
        // vector alone was 1.7 MB at 10,000 profiles).
        g_ptr_array_set_size(result, static_cast<gint>(findings.size()));
        size_t next = findings.size();
        while (next > 0) {
            g_ptr_array_index(result, next - 1) = ibnm::rules::newFinding(std::move(findings.back()));
            findings.pop_back();
            next--;
            if (next >= 64 && next <= findings.capacity() / 2)
                findings.shrink_to_fit();
        }
    } catch (const std::bad_alloc &) {
        g_error("libibnm: out of memory");
    } catch (const std::exception &e) {
        g_critical("ibnm_check_profiles: %s", e.what());
    }
    return result;
}

/**
 * ibnm_check_reload_inventory:
 * @inventory: an #IbnmInventory with a host
 * @profiles: (element-type NM.Connection): the profiles that will be checked
 *   against it (all of them: the rules look at the whole set)
 * @error: return location for a #GError
 *
 * Reads the host as ibnm_inventory_reload() does, for checking @profiles
 * (ibnm_check_profiles(), ibnm_check_opensm_partitions()): the GID tables
 * are read only when the rules could ask about a netdev whose RDMA device
 * only they show (a netdev the profiles name, a bond or an IPoIB interface
 * without one otherwise), which on a host with many devices is most of what
 * ibnm_inventory_reload() reads. The findings are those of an inventory
 * read by ibnm_inventory_reload(); the ports' GID tables may be empty.
 * Where profiles are active in standalone mode (ibnm_apply_up()), the
 * inventory is the host as ibnm_apply_up() of @profiles would plan on:
 * after the activations it would replace are taken down.
 * When a profile has DNS servers or search domains, it also asks whether
 * systemd-resolved runs (ibnm applies them through it, without
 * NetworkManager), so that ibnm_check_profiles() says where
 * they would not be applied.
 *
 * Returns: %TRUE on success; %FALSE with @error set when the host cannot be
 *   read (the previous contents stay)
 *
 * Since: 0.1
 */
gboolean ibnm_check_reload_inventory(IbnmInventory *inventory, GPtrArray *profiles, GError **error)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(inventory), FALSE);
    g_return_val_if_fail(profiles != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    for (guint i = 0; i < profiles->len; i++)
        g_return_val_if_fail(NM_IS_CONNECTION(g_ptr_array_index(profiles, i)), FALSE);
    // systemd-resolved's state too when a profile has DNS for it (the rules
    // say whether standalone ibnm can apply it).
    bool resolver = false;
    for (guint i = 0; i < profiles->len && !resolver; i++)
        resolver = ibnm::rules::needsResolver(static_cast<NMConnection *>(g_ptr_array_index(profiles, i)));
    // Called inside the reload's guard: what it allocates throws nothing
    // past this C function.
    std::vector<NMConnection *> connections;
    connections.reserve(profiles->len);
    for (guint i = 0; i < profiles->len; i++)
        connections.push_back(static_cast<NMConnection *>(g_ptr_array_index(profiles, i)));
    IbnmHost *owner = ibnm_inventory_get_host(inventory);
    return ibnm::inventoryReloadGidTablesIf(
        inventory,
        [&connections](const ibnm::model::Host &host) { return ibnm::rules::needsGidTables(connections, host); },
        // In standalone mode, the host as `connection up` of the profiles
        // would plan on: after the activations it replaces (of profiles
        // whose settings changed since, and those on devices the profiles
        // take) are taken down, so that check, `up --dry-run` and `up`
        // agree (ibnm-apply-lifecycle.cpp).
        [&connections, owner](ibnm::model::Host &host) {
            if (owner == nullptr)
                return;
            auto replaced = ibnm::apply::replacedBy(owner, host, connections);
            if (!replaced.empty())
                host = ibnm::activation::afterTeardown(host, replaced);
        },
        error, resolver);
}

/**
 * ibnm_check_opensm_partitions:
 * @profiles: (element-type NM.Connection): the profiles whose partitions the
 *   subnet manager must define
 * @inventory: (nullable): the host, for the MTU of ports whose profiles leave
 *   it automatic
 *
 * The OpenSM partitions.conf lines for the P_Keys the IPoIB profiles use:
 * `ipoib`, the `mtu=` code of the IB MTU the profiles' datagram MTU needs
 * (the port's link MTU where the MTU is automatic or the mode connected,
 * 2048 without an inventory), and full membership, which the kernel's
 * children use whatever the profile's P_Key says.
 *
 * Returns: (transfer full): the lines, ready to paste, each with its comment.
 *
 * Since: 0.1
 */
char **ibnm_check_opensm_partitions(GPtrArray *profiles, IbnmInventory *inventory)
{
    g_return_val_if_fail(profiles != nullptr, nullptr);
    g_return_val_if_fail(inventory == nullptr || IBNM_IS_INVENTORY(inventory), nullptr);
    GPtrArray *lines = g_ptr_array_new();
    try {
        const ibnm::model::Host *host = inventory ? &ibnm::inventoryHost(inventory) : nullptr;
        // P_Key (15 bits) -> IB MTU needed, profiles using it.
        std::map<unsigned, std::pair<unsigned, std::string>> partitions;
        for (guint i = 0; i < profiles->len; i++) {
            auto *c = static_cast<NMConnection *>(g_ptr_array_index(profiles, i));
            g_return_val_if_fail(NM_IS_CONNECTION(c), nullptr);
            NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
            if (ib == nullptr)
                continue;
            int pkey = nm_setting_infiniband_get_p_key(ib);
            unsigned key = pkey < 0 ? ibnm::model::kDefaultPartition : ibnm::model::partitionOf(uint16_t(pkey));
            const char *port = pkey < 0 ? nm_connection_get_interface_name(c) : nm_setting_infiniband_get_parent(ib);
            const ibnm::model::Port *rp = host && port ? ibnm::model::portOf(*host, port) : nullptr;
            unsigned need = rp && rp->activeMtu ? *rp->activeMtu : 2048;
            guint32 mtu = nm_setting_infiniband_get_mtu(ib);
            if (mtu && g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "datagram") == 0)
                need = ibnm::model::ibMtuForIpoib(mtu).value_or(4096);
            // The subnet manager makes no group larger than the port's link.
            if (rp && rp->activeMtu)
                need = std::min(need, *rp->activeMtu);
            auto &entry = partitions[key];
            entry.first = std::max(entry.first, need);
            entry.second += (entry.second.empty() ? "" : ", ") + std::string(nm_connection_get_id(c));
        }
        for (const auto &[key, entry] : partitions) {
            std::string name = ibnm::model::opensmPartitionName(uint16_t(key));
            unsigned code = ibnm::model::opensmMtuCode(entry.first).value_or(5);
            g_ptr_array_add(lines, g_strdup(ibnm::strprintf(_("# for %s: IB MTU %u; the kernel's children use full membership"),
                                                            entry.second.c_str(), entry.first)
                                                .c_str()));
            g_ptr_array_add(lines, g_strdup(ibnm::strprintf("%s=0x%04x, ipoib, mtu=%u : ALL=full;", name.c_str(),
                                                            unsigned(ibnm::model::opensmPartitionKey(uint16_t(key))), code)
                                                .c_str()));
        }
    } catch (const std::bad_alloc &) {
        g_error("libibnm: out of memory");
    } catch (const std::exception &e) {
        g_critical("ibnm_check_opensm_partitions: %s", e.what());
    }
    g_ptr_array_add(lines, nullptr);
    return reinterpret_cast<char **>(g_ptr_array_free(lines, FALSE));
}
