// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA secondaries (ibnm-secondary.h): their vpn.data is parsed by the code
// that parses the [user] keys (profiles/user-keys.cpp), and applied on the
// base device by the planner and engine of every apply.
#include "config.h"

#include "libcore/ibnm-secondary.h"

#include "libcore/model/rdma.hpp"
#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

static_assert(std::string_view(IBNM_SECONDARY_SERVICE_TYPE) == ibnm::userkeys::kVpnServiceType);

/**
 * ibnm_connection_is_secondary:
 * @connection: a profile
 *
 * Whether @connection is an RDMA secondary: a VPN profile whose
 * vpn.service-type is %IBNM_SECONDARY_SERVICE_TYPE.
 *
 * Returns: %TRUE for an RDMA secondary
 *
 * Since: 0.1
 */
gboolean ibnm_connection_is_secondary(NMConnection *connection)
{
    g_return_val_if_fail(NM_IS_CONNECTION(connection), FALSE);
    return ibnm::userkeys::isSecondary(connection);
}

/**
 * ibnm_secondary_verify:
 * @connection: an RDMA secondary
 * @error: return location for a #GError
 *
 * Checks the settings in the vpn.data of @connection as ibnm reads the same
 * keys in [user] (ibnm-keyfile(5)), with the same parser: every item must be
 * one of the rdma.* keys with a value it takes.
 *
 * Returns: %TRUE when every item parses; %FALSE with @error naming the first
 *   key that does not (or saying that @connection is no RDMA secondary)
 *
 * Since: 0.1
 */
gboolean ibnm_secondary_verify(NMConnection *connection, GError **error)
{
    g_return_val_if_fail(NM_IS_CONNECTION(connection), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        if (!ibnm::userkeys::isSecondary(connection))
            return ibnm::Error(IBNM_ERROR_INVALID_PROPERTY,
                               ibnm::strprintf(_("not an RDMA secondary: a VPN profile of the service %s"),
                                               IBNM_SECONDARY_SERVICE_TYPE))
                .withProperty("vpn.service-type");
        auto options = ibnm::userkeys::parse(connection);
        if (!options)
            return std::move(options).error();
        return {};
    });
}

/**
 * ibnm_secondary_new_on_device:
 * @secondary: an RDMA secondary
 * @interface_name: the interface of its base profile's device
 * @error: return location for a #GError
 *
 * The profile to apply for @secondary active on @interface_name: a copy of
 * it whose connection.interface-name is @interface_name, which the planner
 * resolves as any profile with rdma.* keys (ibnm_apply_up() with
 * %IBNM_APPLY_FLAGS_RDMA_ONLY).
 *
 * Returns: (transfer full) (nullable): the copy; %NULL with @error set when
 *   @secondary is no RDMA secondary, its settings do not parse or
 *   @interface_name is no valid interface name
 *
 * Since: 0.1
 */
NMConnection *ibnm_secondary_new_on_device(NMConnection *secondary, const char *interface_name, GError **error)
{
    g_return_val_if_fail(NM_IS_CONNECTION(secondary), nullptr);
    g_return_val_if_fail(interface_name != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    if (!ibnm_secondary_verify(secondary, error))
        return nullptr;
    if (!nm_utils_is_valid_iface_name(interface_name, nullptr)) {
        g_set_error(error, IBNM_ERROR, IBNM_ERROR_INVALID_ARGUMENT, _("'%s' is not a valid interface name"),
                    interface_name);
        return nullptr;
    }
    NMConnection *copy = nm_simple_connection_new_clone(secondary);
    g_object_set(nm_connection_get_setting_connection(copy), NM_SETTING_CONNECTION_INTERFACE_NAME, interface_name,
                 nullptr);
    return copy;
}

/**
 * ibnm_secondary_find_bases:
 * @secondary: an RDMA secondary
 * @profiles: (element-type NM.Connection): the profiles to look in
 *
 * The base profiles of @secondary: those of @profiles whose
 * connection.secondaries lists its UUID (NetworkManager activates it on
 * their device once they are up).
 *
 * Returns: (transfer container) (element-type NM.Connection): the base
 *   profiles, in the order of @profiles
 *
 * Since: 0.1
 */
GPtrArray *ibnm_secondary_find_bases(NMConnection *secondary, GPtrArray *profiles)
{
    g_return_val_if_fail(NM_IS_CONNECTION(secondary), nullptr);
    g_return_val_if_fail(profiles != nullptr, nullptr);
    GPtrArray *out = g_ptr_array_new();
    const char *uuid = nm_connection_get_uuid(secondary);
    if (uuid == nullptr)
        return out;
    for (guint i = 0; i < profiles->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(profiles, i));
        NMSettingConnection *sc = nm_connection_get_setting_connection(c);
        guint n = sc ? nm_setting_connection_get_num_secondaries(sc) : 0;
        for (guint j = 0; j < n; j++)
            if (g_strcmp0(nm_setting_connection_get_secondary(sc, j), uuid) == 0) {
                g_ptr_array_add(out, c);
                break;
            }
    }
    return out;
}

/**
 * ibnm_soft_link_type_supports_roce_mode:
 * @type: a soft RDMA link type
 * @mode: a RoCE version
 *
 * Whether the kernel takes @mode as the RDMA-CM default RoCE mode of a soft
 * link of @type: rxe does RoCE v2 only, siw's RDMA-CM takes v1 only (the
 * kernel lab's findings, libcore/model/rdma.cpp).
 *
 * Returns: %TRUE when the kernel accepts it
 *
 * Since: 0.1
 */
gboolean ibnm_soft_link_type_supports_roce_mode(IbnmSoftLinkType type, IbnmRoceMode mode)
{
    auto t = type == IBNM_SOFT_LINK_TYPE_RXE ? ibnm::model::SoftLinkType::Rxe : ibnm::model::SoftLinkType::Siw;
    auto m = mode == IBNM_ROCE_MODE_V1 ? ibnm::model::RoceMode::V1 : ibnm::model::RoceMode::V2;
    return ibnm::model::roceModeSupported(t, ibnm::model::LinkLayer::Ethernet, m);
}
