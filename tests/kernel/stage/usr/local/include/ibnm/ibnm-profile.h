/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* libnm's NMConnection, declared without its header so this header needs only
 * GLib; include <NetworkManager.h> to use the connection. */
struct _NMConnection;

/**
 * IbnmProfile:
 *
 * An InfiniBand (IPoIB), IPoIB-bond or bond-port profile. The profile IS a
 * libnm NMConnection: every getter reads through libnm, nothing is stored
 * twice. ibnm's own options (`rdma.*`, `ipoib.*`) live in the connection's
 * [user] setting (NMSettingUser).
 */
#define IBNM_TYPE_PROFILE (ibnm_profile_get_type())
G_DECLARE_FINAL_TYPE(IbnmProfile, ibnm_profile, IBNM, PROFILE, GObject)

/** Property name of #IbnmProfile:connection (NMConnection, construct-only). */
#define IBNM_PROFILE_CONNECTION "connection"

IbnmProfile *ibnm_profile_new(struct _NMConnection *connection);
IbnmProfile *ibnm_profile_new_from_args(const char *const *argv, GError **error);
gboolean ibnm_profile_modify_from_args(IbnmProfile *profile, const char *const *argv, GError **error);

struct _NMConnection *ibnm_profile_get_connection(IbnmProfile *profile);

const char *ibnm_profile_get_id(IbnmProfile *profile);
const char *ibnm_profile_get_uuid(IbnmProfile *profile);
const char *ibnm_profile_get_connection_type(IbnmProfile *profile);
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

G_END_DECLS
