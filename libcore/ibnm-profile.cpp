// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-profile.h"

#include "libcore/model/ipoib.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/profiles/nmcli-args.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/profiles/user-keys.hpp"

#include <NetworkManager.h>

#include <string>
#include <vector>

struct _IbnmProfile {
    GObject parent_instance;
};

struct IbnmProfilePrivate {
    ibnm::GObjectPtr<NMConnection> connection_;
};

enum { PROP_0, PROP_CONNECTION, N_PROPS };
static GParamSpec *props[N_PROPS];

IBNM_DEFINE_FINAL_TYPE(IbnmProfile, ibnm_profile, G_TYPE_OBJECT)

static void ibnm_profile_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_profile_priv(object);
    switch (prop_id) {
    case PROP_CONNECTION: {
        auto *c = static_cast<NMConnection *>(g_value_get_object(value));
        priv->connection_ = c ? ibnm::GObjectPtr<NMConnection>::retain(c)
                              : ibnm::GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_profile_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_profile_priv(object);
    switch (prop_id) {
    case PROP_CONNECTION:
        g_value_set_object(value, priv->connection_.get());
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_profile_class_init_impl(IbnmProfileClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->set_property = ibnm_profile_set_property;
    object_class->get_property = ibnm_profile_get_property;

    props[PROP_CONNECTION] =
        g_param_spec_object(IBNM_PROFILE_CONNECTION, nullptr, nullptr, NM_TYPE_CONNECTION,
                            GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS |
                                        G_PARAM_EXPLICIT_NOTIFY));
    g_object_class_install_properties(object_class, N_PROPS, props);
}

namespace {

NMConnection *conn(IbnmProfile *self)
{
    return ibnm_profile_priv(self)->connection_.get();
}

NMSettingConnection *sCon(IbnmProfile *self)
{
    return nm_connection_get_setting_connection(conn(self));
}

NMSettingInfiniband *sIb(IbnmProfile *self)
{
    return nm_connection_get_setting_infiniband(conn(self));
}

std::vector<std::string> toVector(const char *const *argv)
{
    std::vector<std::string> v;
    for (; argv && *argv; argv++)
        v.emplace_back(*argv);
    return v;
}

} // namespace

/**
 * ibnm_profile_new:
 * @connection: (nullable): the connection; NULL for an empty one
 *
 * Wraps a libnm connection as a profile, without copying it: changes
 * through either are seen by both.
 *
 * Returns: (transfer full): a profile sharing @connection (a reference is taken).
 *
 * Since: 0.1
 */
IbnmProfile *ibnm_profile_new(NMConnection *connection)
{
    g_return_val_if_fail(connection == nullptr || NM_IS_CONNECTION(connection), nullptr);
    return IBNM_PROFILE(g_object_new(IBNM_TYPE_PROFILE, IBNM_PROFILE_CONNECTION, connection, nullptr));
}

/**
 * ibnm_profile_new_from_args:
 * @argv: (array zero-terminated=1): the arguments of `nmcli connection add`,
 *   e.g. `type infiniband con-name ib0 ifname ib0 transport-mode Connected`
 * @error: return location for a #GError naming the word or property at fault
 *
 * Builds a profile as `nmcli connection add` would (NetworkManager's defaults,
 * normalized); ibnm's `rdma.*`/`ipoib.*` keys are accepted as properties.
 *
 * Returns: (transfer full): the profile, or NULL with @error set.
 *
 * Since: 0.1
 */
IbnmProfile *ibnm_profile_new_from_args(const char *const *argv, GError **error)
{
    return ibnm_profile_new_from_args_full(argv, nullptr, error);
}

namespace {

char **toStrv(const std::vector<std::string> &words)
{
    char **out = g_new0(char *, words.size() + 1);
    for (size_t i = 0; i < words.size(); i++)
        out[i] = g_strdup(words[i].c_str());
    return out;
}

} // namespace

/**
 * ibnm_profile_new_from_args_full:
 * @argv: (array zero-terminated=1): the arguments of `nmcli connection add`
 * @masters: (out) (optional) (array zero-terminated=1) (transfer full): the
 *   value of each `master` word parsed, in order, also when a later word is
 *   refused; nmcli warns about each one that names no existing profile
 *   ("Warning: master='bond0' doesn't refer to any existing profile.")
 * @error: return location for a #GError naming the word or property at fault
 *
 * As ibnm_profile_new_from_args(), telling also which controllers the
 * arguments named, so that the caller can compare them with its profiles.
 *
 * Returns: (transfer full): the profile, or NULL with @error set.
 *
 * Since: 0.1
 */
IbnmProfile *ibnm_profile_new_from_args_full(const char *const *argv, char ***masters, GError **error)
{
    g_return_val_if_fail(argv != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    IbnmProfile *profile = nullptr;
    std::vector<std::string> named;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto c = ibnm::nmcli::connectionAdd(toVector(argv), &named);
        if (!c)
            return std::move(c).error();
        profile = ibnm_profile_new(c->get());
        return {};
    });
    if (masters)
        *masters = toStrv(named);
    return profile;
}

/**
 * ibnm_profile_modify_from_args:
 * @profile: an #IbnmProfile
 * @argv: (array zero-terminated=1): the arguments of `nmcli connection modify`
 *   after the profile's name
 * @error: return location for a #GError naming the word or property at fault
 *
 * Changes the profile as `nmcli connection modify` would; on error it is unchanged.
 *
 * Returns: %TRUE on success; %FALSE with @error set when a word or value is
 *   refused or the result does not verify
 *
 * Since: 0.1
 */
gboolean ibnm_profile_modify_from_args(IbnmProfile *self, const char *const *argv, GError **error)
{
    return ibnm_profile_modify_from_args_full(self, argv, nullptr, error);
}

/**
 * ibnm_profile_modify_from_args_full:
 * @profile: an #IbnmProfile
 * @argv: (array zero-terminated=1): the arguments of `nmcli connection modify`
 *   after the profile's name
 * @masters: (out) (optional) (array zero-terminated=1) (transfer full): the
 *   value of each `master` word parsed, in order, also when a later word is
 *   refused (as ibnm_profile_new_from_args_full())
 * @error: return location for a #GError naming the word or property at fault
 *
 * As ibnm_profile_modify_from_args(), telling also which controllers the
 * arguments named.
 *
 * Returns: %TRUE on success; %FALSE with @error set, @profile unchanged
 *
 * Since: 0.1
 */
gboolean ibnm_profile_modify_from_args_full(IbnmProfile *self, const char *const *argv, char ***masters,
                                            GError **error)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), FALSE);
    g_return_val_if_fail(argv != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    std::vector<std::string> named;
    gboolean ok =
        ibnm::guard(error, [&]() { return ibnm::nmcli::connectionModify(conn(self), toVector(argv), &named); });
    if (masters)
        *masters = toStrv(named);
    return ok;
}

/**
 * IbnmProfile:connection:
 *
 * The NMConnection the profile is.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_connection:
 * @profile: the object
 *
 * Gets the #IbnmProfile:connection property.
 *
 * Returns: (transfer none): the NMConnection the profile is.
 *
 * Since: 0.1
 */
NMConnection *ibnm_profile_get_connection(IbnmProfile *self)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), nullptr);
    return conn(self);
}

#define IBNM_CON_GETTER(fn, nmfn)                                                                             \
    const char *ibnm_profile_get_##fn(IbnmProfile *self)                                                      \
    {                                                                                                         \
        g_return_val_if_fail(IBNM_IS_PROFILE(self), nullptr);                                                 \
        NMSettingConnection *s = sCon(self);                                                                  \
        return s ? nm_setting_connection_get_##nmfn(s) : nullptr;                                             \
    }
#define IBNM_IB_GETTER(fn)                                                                                    \
    const char *ibnm_profile_get_##fn(IbnmProfile *self)                                                      \
    {                                                                                                         \
        g_return_val_if_fail(IBNM_IS_PROFILE(self), nullptr);                                                 \
        NMSettingInfiniband *s = sIb(self);                                                                   \
        return s ? nm_setting_infiniband_get_##fn(s) : nullptr;                                               \
    }

/**
 * ibnm_profile_get_id:
 * @profile: an #IbnmProfile
 *
 * Gets `connection.id` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the profile's name (connection.id),
 *   or %NULL when unset or the profile has no such setting; owned by the
 *   connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_uuid:
 * @profile: an #IbnmProfile
 *
 * Gets `connection.uuid` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the profile's UUID (connection.uuid),
 *   or %NULL when unset or the profile has no such setting; owned by the
 *   connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_connection_type:
 * @profile: an #IbnmProfile
 *
 * Gets `connection.type` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the connection type ("infiniband",
 *   "bond", ...), as libnm names it (connection.type), or %NULL when unset or
 *   the profile has no such setting; owned by the connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_interface_name:
 * @profile: an #IbnmProfile
 *
 * Gets `connection.interface-name` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the interface the profile is bound to
 *   (connection.interface-name), or %NULL when unset or the profile has no
 *   such setting; owned by the connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_master:
 * @profile: an #IbnmProfile
 *
 * Gets `connection.master` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the controller (bond) of a port
 *   profile, by interface name or UUID (connection.master), or %NULL when
 *   unset or the profile has no such setting; owned by the connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_slave_type:
 * @profile: an #IbnmProfile
 *
 * Gets `connection.slave-type` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the controller type of a port profile
 *   ("bond") (connection.slave-type), or %NULL when unset or the profile has
 *   no such setting; owned by the connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_transport_mode:
 * @profile: an #IbnmProfile
 *
 * Gets `infiniband.transport-mode` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the IPoIB transport mode, "datagram"
 *   or "connected" (infiniband.transport-mode), or %NULL when unset or the
 *   profile has no such setting; owned by the connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_parent:
 * @profile: an #IbnmProfile
 *
 * Gets `infiniband.parent` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the parent interface of a P_Key child
 *   (infiniband.parent), or %NULL when unset or the profile has no such
 *   setting; owned by the connection.
 *
 * Since: 0.1
 */
/**
 * ibnm_profile_get_mac_address:
 * @profile: an #IbnmProfile
 *
 * Gets `infiniband.mac-address` of the profile's connection.
 *
 * Returns: (transfer none) (nullable): the 20-byte IPoIB hardware address
 *   the profile is bound to (infiniband.mac-address), or %NULL when unset or
 *   the profile has no such setting; owned by the connection.
 *
 * Since: 0.1
 */
/* The getters return (transfer none) (nullable) strings owned by the connection. */
IBNM_CON_GETTER(id, id)
IBNM_CON_GETTER(uuid, uuid)
IBNM_CON_GETTER(connection_type, connection_type)
IBNM_CON_GETTER(interface_name, interface_name)
IBNM_CON_GETTER(master, master)
IBNM_CON_GETTER(slave_type, slave_type)
IBNM_IB_GETTER(transport_mode)
IBNM_IB_GETTER(parent)
IBNM_IB_GETTER(mac_address)

/**
 * ibnm_connection_type_get_short_name:
 * @type: (nullable): a connection type ("802-3-ethernet")
 *
 * Gives the short name nmcli shows for a connection type.
 *
 * Returns: (transfer none) (nullable): the type as nmcli shows it in tables
 *   ("ethernet" for "802-3-ethernet", "wifi" for "802-11-wireless"); other
 *   types are their own short name, and %NULL stays %NULL.
 *
 * Since: 0.1
 */
const char *ibnm_connection_type_get_short_name(const char *type)
{
    return ibnm::nmcli::typeShortName(type);
}

/**
 * ibnm_profile_dup_port_guid:
 * @profile: an #IbnmProfile
 *
 * Gets the port GUID the profile is bound to, from its hardware address.
 *
 * Returns: (transfer full) (nullable): the port GUID of the profile's 20-byte
 *   mac-address ("00:02:c9:03:00:31:78:51", its last 8 bytes, the only stable
 *   part, as NetworkManager matches it), or %NULL without one; free with
 *   g_free().
 *
 * Since: 0.1
 */
char *ibnm_profile_dup_port_guid(IbnmProfile *self)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), nullptr);
    const char *mac = ibnm_profile_get_mac_address(self);
    std::string guid = mac ? ibnm::model::portGuidBytes(mac) : "";
    return guid.empty() ? nullptr : g_strdup(guid.c_str());
}

/**
 * ibnm_profile_get_mtu:
 * @profile: the object
 *
 * Gets `infiniband.mtu` of the profile's connection, in bytes.
 *
 * Returns: the [infiniband] MTU; 0 = automatic or no [infiniband].
 *
 * Since: 0.1
 */
guint32 ibnm_profile_get_mtu(IbnmProfile *self)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), 0);
    NMSettingInfiniband *s = sIb(self);
    return s ? nm_setting_infiniband_get_mtu(s) : 0;
}

/**
 * ibnm_profile_get_p_key:
 * @profile: the object
 *
 * Gets `infiniband.p-key` of the profile's connection.
 *
 * Returns: the P_Key as configured (no 0x8000 forced), -1 for none.
 *
 * Since: 0.1
 */
int ibnm_profile_get_p_key(IbnmProfile *self)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), -1);
    NMSettingInfiniband *s = sIb(self);
    return s ? nm_setting_infiniband_get_p_key(s) : -1;
}

/**
 * ibnm_profile_get_user_option:
 * @profile: an #IbnmProfile
 * @key: a [user] key, e.g. `rdma.link-type`
 *
 * Gets one of the [user] options of the profile (NMSettingUser), where
 * ibnm keeps its own settings; of an RDMA secondary (a VPN profile of
 * ibnm's service, nm-ibnm-service), the item of its vpn.data.
 *
 * Returns: (transfer none) (nullable): the value, NULL when unset.
 *
 * Since: 0.1
 */
const char *ibnm_profile_get_user_option(IbnmProfile *self, const char *key)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), nullptr);
    g_return_val_if_fail(key != nullptr, nullptr);
    return ibnm::userkeys::get(conn(self), key);
}

/**
 * ibnm_profile_set_user_option:
 * @profile: an #IbnmProfile
 * @key: a [user] key; ibnm's own (`rdma.*`, `ipoib.*`) are validated
 * @value: (nullable): the value, NULL to remove the key
 * @error: return location for a #GError
 *
 * Sets or removes one of the [user] options of the profile; of an RDMA
 * secondary, an item of its vpn.data, which takes ibnm's rdma.* keys only.
 *
 * Returns: %TRUE, or %FALSE with @error naming the key when the key or
 *   value is not valid.
 *
 * Since: 0.1
 */
gboolean ibnm_profile_set_user_option(IbnmProfile *self, const char *key, const char *value, GError **error)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), FALSE);
    g_return_val_if_fail(key != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status { return ibnm::userkeys::set(conn(self), key, value); });
}

/**
 * ibnm_connection_has_ibnm_keys:
 * @connection: a profile
 *
 * Whether @connection carries ibnm's keys in its `[user]` setting (`rdma.*`,
 * `ipoib.*`, ibnm-keyfile(5)): what NetworkManager's dispatcher hook of
 * ibnm acts on; it leaves every other profile alone.
 *
 * Returns: %TRUE when at least one of its user data keys is ibnm's
 *
 * Since: 0.1
 */
gboolean ibnm_connection_has_ibnm_keys(NMConnection *connection)
{
    g_return_val_if_fail(NM_IS_CONNECTION(connection), FALSE);
    auto *u = reinterpret_cast<NMSettingUser *>(nm_connection_get_setting(connection, NM_TYPE_SETTING_USER));
    guint n = 0;
    const char *const *keys = u ? nm_setting_user_get_keys(u, &n) : nullptr;
    for (guint i = 0; i < n; i++)
        if (ibnm::userkeys::isIbnmKey(keys[i]))
            return TRUE;
    return FALSE;
}

/**
 * ibnm_profile_verify:
 * @profile: an #IbnmProfile
 * @error: return location for a #GError
 *
 * NetworkManager's own checks (rule 1): what nm_connection_verify() enforces,
 * the first error prefixed with its `setting.property`.
 *
 * Returns: %TRUE when the profile verifies; %FALSE with @error set
 *   otherwise
 *
 * Since: 0.1
 */
gboolean ibnm_profile_verify(IbnmProfile *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_PROFILE(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() { return ibnm::nmcli::verify(conn(self)); });
}
