// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmGid: one used entry of an RDMA port's GID table (read-only).
#include "config.h"

#include "libcore/ibnm-inventory-types.h"

#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/strings.hpp"

#include <cstdio>
#include <string>

using namespace ibnm::inventory;

// --- IbnmGid ------------------------------------------------------------------------

struct _IbnmGid {
    GObject parent_instance;
};

struct IbnmGidPrivate {
    ibnm::model::Gid gid_;
    std::string ipv4_;
};

IBNM_DEFINE_FINAL_TYPE(IbnmGid, ibnm_gid, G_TYPE_OBJECT)

static const Prop<IbnmGid> gidProps[] = {
    uintProp<IbnmGid>(IBNM_GID_INDEX, ibnm_gid_get_index),
    strProp<IbnmGid>(IBNM_GID_GID, ibnm_gid_get_gid),
    strProp<IbnmGid>(IBNM_GID_GID_TYPE, ibnm_gid_get_gid_type),
    strProp<IbnmGid>(IBNM_GID_NETDEV, ibnm_gid_get_netdev),
    strProp<IbnmGid>(IBNM_GID_IPV4, ibnm_gid_get_ipv4),
};

static void ibnm_gid_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(gidProps, o, id, v, ps);
}

static void ibnm_gid_class_init_impl(IbnmGidClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_gid_get_property;
    installProps(G_OBJECT_CLASS(klass), gidProps);
}

/**
 * IbnmGid:index:
 *
 * The GID's index in the port's table.
 *
 * Since: 0.1
 */
/**
 * ibnm_gid_get_index:
 * @self: the object
 *
 * Gets the #IbnmGid:index property.
 *
 * Returns: the GID's index in the port's table.
 *
 * Since: 0.1
 */
guint ibnm_gid_get_index(IbnmGid *self)
{
    g_return_val_if_fail(IBNM_IS_GID(self), 0);
    return ibnm_gid_priv(self)->gid_.index;
}

/**
 * IbnmGid:gid:
 *
 * The GID as sysfs prints it.
 *
 * Since: 0.1
 */
/**
 * ibnm_gid_get_gid:
 * @self: the object
 *
 * Gets the #IbnmGid:gid property.
 *
 * Returns: (transfer none): the GID as sysfs prints it.
 *
 * Since: 0.1
 */
const char *ibnm_gid_get_gid(IbnmGid *self)
{
    g_return_val_if_fail(IBNM_IS_GID(self), nullptr);
    return ibnm_gid_priv(self)->gid_.gid.c_str();
}

/**
 * IbnmGid:gid-type:
 *
 * "IB/RoCE v1", "RoCE v2", or NULL when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_gid_get_gid_type:
 * @self: the object
 *
 * Gets the #IbnmGid:gid-type property.
 *
 * Returns: (transfer none) (nullable): "IB/RoCE v1", "RoCE v2", or NULL when
 *   unknown.
 *
 * Since: 0.1
 */
const char *ibnm_gid_get_gid_type(IbnmGid *self)
{
    g_return_val_if_fail(IBNM_IS_GID(self), nullptr);
    switch (ibnm_gid_priv(self)->gid_.type) {
    case ibnm::model::GidType::IbRoceV1:
        return "IB/RoCE v1";
    case ibnm::model::GidType::RoceV2:
        return "RoCE v2";
    case ibnm::model::GidType::Unknown:
        break;
    }
    return nullptr;
}

/**
 * IbnmGid:netdev:
 *
 * The GID's netdev.
 *
 * Since: 0.1
 */
/**
 * ibnm_gid_get_netdev:
 * @self: the object
 *
 * Gets the #IbnmGid:netdev property.
 *
 * Returns: (transfer none) (nullable): the GID's netdev.
 *
 * Since: 0.1
 */
const char *ibnm_gid_get_netdev(IbnmGid *self)
{
    g_return_val_if_fail(IBNM_IS_GID(self), nullptr);
    return nullIfEmpty(ibnm_gid_priv(self)->gid_.netdev);
}

/**
 * IbnmGid:ipv4:
 *
 * "a.b.c.d" for an IPv4-mapped GID (::ffff:a.b.c.d), else NULL.
 *
 * Since: 0.1
 */
/**
 * ibnm_gid_get_ipv4:
 * @self: the object
 *
 * Gets the #IbnmGid:ipv4 property.
 *
 * Returns: (transfer none) (nullable): "a.b.c.d" for an IPv4-mapped GID
 *   (::ffff:a.b.c.d), else NULL.
 *
 * Since: 0.1
 */
const char *ibnm_gid_get_ipv4(IbnmGid *self)
{
    g_return_val_if_fail(IBNM_IS_GID(self), nullptr);
    return nullIfEmpty(ibnm_gid_priv(self)->ipv4_);
}

// --- constructor ------------------------------------------------------------------------------

namespace ibnm {

IbnmGid *gidNew(const model::Gid &gid)
{
    IbnmGid *obj = IBNM_GID(g_object_new(IBNM_TYPE_GID, nullptr));
    auto *priv = ibnm_gid_priv(obj);
    priv->gid_ = gid;
    static const std::string mapped = "0000:0000:0000:0000:0000:ffff:";
    if (gid.gid.compare(0, mapped.size(), mapped) != 0)
        return obj;
    // "c0a8:0001" as the kernel writes it (four hex digit pairs): the bytes
    // without sscanf, which cost more than the rest of the object; any
    // other text goes through sscanf as before.
    const char *t = gid.gid.c_str() + mapped.size();
    unsigned v[4];
    bool plain = gid.gid.size() == mapped.size() + 9 && t[4] == ':';
    for (int i = 0; plain && i < 4; i++) {
        const char *h = t + i * 2 + (i >= 2 ? 1 : 0);
        int hi = g_ascii_xdigit_value(h[0]), lo = g_ascii_xdigit_value(h[1]);
        plain = hi >= 0 && lo >= 0;
        v[i] = static_cast<unsigned>(hi * 16 + lo);
    }
    if (plain)
        priv->ipv4_ = std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]) + "." +
                      std::to_string(v[3]);
    else if (std::sscanf(t, "%2x%2x:%2x%2x", &v[0], &v[1], &v[2], &v[3]) == 4)
        priv->ipv4_ = strprintf("%u.%u.%u.%u", v[0], v[1], v[2], v[3]);
    return obj;
}

} // namespace ibnm
