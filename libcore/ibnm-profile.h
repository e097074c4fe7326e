/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>
#include <NetworkManager.h>

G_BEGIN_DECLS


/**
 * IbnmProfile:
 *
 * An InfiniBand (IPoIB), IPoIB-bond or bond-port profile. The profile IS a
 * libnm NMConnection: every getter reads through libnm, nothing is stored
 * twice. ibnm's own options (`rdma.*`, `ipoib.*`) live in the connection's
 * [user] setting (NMSettingUser).
 *
 * Since: 0.1
 */
#define IBNM_TYPE_PROFILE (ibnm_profile_get_type())
G_DECLARE_FINAL_TYPE(IbnmProfile, ibnm_profile, IBNM, PROFILE, GObject)

/**
 * IBNM_PROFILE_CONNECTION:
 *
 * The name of the #IbnmProfile:connection property.
 *
 * Since: 0.1
 */
#define IBNM_PROFILE_CONNECTION "connection"

IbnmProfile *ibnm_profile_new(NMConnection *connection);
IbnmProfile *ibnm_profile_new_from_args(const char *const *argv, GError **error);
gboolean ibnm_profile_modify_from_args(IbnmProfile *profile, const char *const *argv, GError **error);
IbnmProfile *ibnm_profile_new_from_args_full(const char *const *argv, char ***masters, GError **error);
gboolean ibnm_profile_modify_from_args_full(IbnmProfile *profile, const char *const *argv, char ***masters,
                                            GError **error);

NMConnection *ibnm_profile_get_connection(IbnmProfile *profile);

const char *ibnm_profile_get_id(IbnmProfile *profile);
const char *ibnm_profile_get_uuid(IbnmProfile *profile);
const char *ibnm_profile_get_connection_type(IbnmProfile *profile);
const char *ibnm_connection_type_get_short_name(const char *type);
const char *ibnm_profile_get_interface_name(IbnmProfile *profile);
const char *ibnm_profile_get_transport_mode(IbnmProfile *profile);
guint32 ibnm_profile_get_mtu(IbnmProfile *profile);
int ibnm_profile_get_p_key(IbnmProfile *profile);
const char *ibnm_profile_get_parent(IbnmProfile *profile);
const char *ibnm_profile_get_mac_address(IbnmProfile *profile);
char *ibnm_profile_dup_port_guid(IbnmProfile *profile);
const char *ibnm_profile_get_master(IbnmProfile *profile);
const char *ibnm_profile_get_slave_type(IbnmProfile *profile);

const char *ibnm_profile_get_user_option(IbnmProfile *profile, const char *key);
gboolean ibnm_profile_set_user_option(IbnmProfile *profile, const char *key, const char *value, GError **error);

gboolean ibnm_profile_verify(IbnmProfile *profile, GError **error);

gboolean ibnm_connection_has_ibnm_keys(NMConnection *connection);

G_END_DECLS
