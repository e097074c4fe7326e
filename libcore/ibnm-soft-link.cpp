// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmSoftLink: a soft RDMA link (rxe or siw) over a netdev (read-only).
#include "config.h"

#include "libcore/ibnm-inventory-types.h"

#include "libcore/model/rdma.hpp"
#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/support/gobject.hpp"

using namespace ibnm::inventory;

// --- IbnmSoftLink ------------------------------------------------------------------------------

struct _IbnmSoftLink {
    GObject parent_instance;
};

struct IbnmSoftLinkPrivate {
    ibnm::model::SoftLink link_;
};

IBNM_DEFINE_FINAL_TYPE(IbnmSoftLink, ibnm_soft_link, G_TYPE_OBJECT)

static const Prop<IbnmSoftLink> softLinkProps[] = {
    strProp<IbnmSoftLink>(IBNM_SOFT_LINK_NAME, ibnm_soft_link_get_name),
    strProp<IbnmSoftLink>(IBNM_SOFT_LINK_LINK_TYPE, ibnm_soft_link_get_link_type),
    strProp<IbnmSoftLink>(IBNM_SOFT_LINK_NETDEV, ibnm_soft_link_get_netdev),
};

static void ibnm_soft_link_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(softLinkProps, o, id, v, ps);
}

static void ibnm_soft_link_class_init_impl(IbnmSoftLinkClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_soft_link_get_property;
    installProps(G_OBJECT_CLASS(klass), softLinkProps);
}

/**
 * IbnmSoftLink:name:
 *
 * "rxe0".
 *
 * Since: 0.1
 */
/**
 * ibnm_soft_link_get_name:
 * @self: the object
 *
 * Gets the #IbnmSoftLink:name property.
 *
 * Returns: (transfer none): "rxe0".
 *
 * Since: 0.1
 */
const char *ibnm_soft_link_get_name(IbnmSoftLink *self)
{
    g_return_val_if_fail(IBNM_IS_SOFT_LINK(self), nullptr);
    return ibnm_soft_link_priv(self)->link_.name.c_str();
}

/**
 * IbnmSoftLink:link-type:
 *
 * "rxe" or "siw".
 *
 * Since: 0.1
 */
/**
 * ibnm_soft_link_get_link_type:
 * @self: the object
 *
 * Gets the #IbnmSoftLink:link-type property.
 *
 * Returns: (transfer none): "rxe" or "siw".
 *
 * Since: 0.1
 */
const char *ibnm_soft_link_get_link_type(IbnmSoftLink *self)
{
    g_return_val_if_fail(IBNM_IS_SOFT_LINK(self), nullptr);
    return ibnm::model::softLinkTypeName(ibnm_soft_link_priv(self)->link_.type);
}

/**
 * IbnmSoftLink:netdev:
 *
 * The netdev it runs over.
 *
 * Since: 0.1
 */
/**
 * ibnm_soft_link_get_netdev:
 * @self: the object
 *
 * Gets the #IbnmSoftLink:netdev property.
 *
 * Returns: (transfer none): the netdev it runs over.
 *
 * Since: 0.1
 */
const char *ibnm_soft_link_get_netdev(IbnmSoftLink *self)
{
    g_return_val_if_fail(IBNM_IS_SOFT_LINK(self), nullptr);
    return ibnm_soft_link_priv(self)->link_.netdev.c_str();
}

// --- constructor ------------------------------------------------------------------------------

namespace ibnm {

IbnmSoftLink *softLinkNew(const model::SoftLink &link)
{
    IbnmSoftLink *obj = IBNM_SOFT_LINK(g_object_new(IBNM_TYPE_SOFT_LINK, nullptr));
    ibnm_soft_link_priv(obj)->link_ = link;
    return obj;
}

} // namespace ibnm
