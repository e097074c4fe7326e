// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmIpoibInterface: an IPoIB network interface and the RDMA port it runs on (read-only).
#include "config.h"

#include "libcore/ibnm-inventory-types.h"

#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/support/gobject.hpp"

#include <string>

using namespace ibnm::inventory;

// --- IbnmIpoibInterface ---------------------------------------------------------------------

struct _IbnmIpoibInterface {
    GObject parent_instance;
};

struct IbnmIpoibInterfacePrivate {
    ibnm::model::IpoibNetdev ipoib_;
    std::string dhcpClientId_;
    std::string rdmaDevice_;
    unsigned rdmaPort_ = 0;
    bool up_ = false;
};

IBNM_DEFINE_FINAL_TYPE(IbnmIpoibInterface, ibnm_ipoib_interface, G_TYPE_OBJECT)

static const Prop<IbnmIpoibInterface> ipoibProps[] = {
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_NAME, ibnm_ipoib_interface_get_name),
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_PARENT, ibnm_ipoib_interface_get_parent),
    uintProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_P_KEY, ibnm_ipoib_interface_get_p_key),
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_TRANSPORT_MODE, ibnm_ipoib_interface_get_transport_mode),
    boolProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_UMCAST, ibnm_ipoib_interface_get_umcast),
    uintProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_MTU, ibnm_ipoib_interface_get_mtu),
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_MAC_ADDRESS, ibnm_ipoib_interface_get_mac_address),
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_PORT_GUID, ibnm_ipoib_interface_get_port_guid),
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_DHCP_CLIENT_ID, ibnm_ipoib_interface_get_dhcp_client_id),
    strProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_RDMA_DEVICE, ibnm_ipoib_interface_get_rdma_device),
    uintProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_RDMA_PORT, ibnm_ipoib_interface_get_rdma_port),
    boolProp<IbnmIpoibInterface>(IBNM_IPOIB_INTERFACE_UP, ibnm_ipoib_interface_get_up),
};

static void ibnm_ipoib_interface_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(ipoibProps, o, id, v, ps);
}

static void ibnm_ipoib_interface_class_init_impl(IbnmIpoibInterfaceClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_ipoib_interface_get_property;
    installProps(G_OBJECT_CLASS(klass), ipoibProps);
}

#define IPOIB_OR(self, fallback)                                                                       \
    g_return_val_if_fail(IBNM_IS_IPOIB_INTERFACE(self), fallback);                                  \
    const auto &ib = ibnm_ipoib_interface_priv(self)->ipoib_

/**
 * IbnmIpoibInterface:name:
 *
 * The interface name.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_name:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:name property.
 *
 * Returns: (transfer none): the interface name.
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_name(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, nullptr);
    return ib.name.c_str();
}

/**
 * IbnmIpoibInterface:parent:
 *
 * The parent of a P_Key child.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_parent:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:parent property.
 *
 * Returns: (transfer none) (nullable): the parent of a P_Key child.
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_parent(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, nullptr);
    return nullIfEmpty(ib.parent);
}

/**
 * IbnmIpoibInterface:p-key:
 *
 * The P_Key as the kernel shows it (0x8000 set).
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_p_key:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:p-key property.
 *
 * Returns: the P_Key as the kernel shows it (0x8000 set).
 *
 * Since: 0.1
 */
guint ibnm_ipoib_interface_get_p_key(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, 0);
    return ib.pkey;
}

/**
 * IbnmIpoibInterface:transport-mode:
 *
 * "datagram" or "connected".
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_transport_mode:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:transport-mode property.
 *
 * Returns: (transfer none): "datagram" or "connected".
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_transport_mode(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, nullptr);
    return ibnm::model::modeName(ib.mode);
}

/**
 * IbnmIpoibInterface:umcast:
 *
 * Whether the interface accepts multicast from non-members of the multicast
 * group (the umcast sysfs attribute).
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_umcast:
 * @self: an #IbnmIpoibInterface
 *
 * Gets the #IbnmIpoibInterface:umcast property.
 *
 * Returns: %TRUE when umcast is on.
 *
 * Since: 0.1
 */
gboolean ibnm_ipoib_interface_get_umcast(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, FALSE);
    return ib.umcast;
}

/**
 * IbnmIpoibInterface:mtu:
 *
 * The interface's MTU in bytes, as the kernel reports it.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_mtu:
 * @self: an #IbnmIpoibInterface
 *
 * Gets the #IbnmIpoibInterface:mtu property.
 *
 * Returns: the MTU in bytes.
 *
 * Since: 0.1
 */
guint ibnm_ipoib_interface_get_mtu(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, 0);
    return ib.mtu;
}

/**
 * IbnmIpoibInterface:mac-address:
 *
 * The 20-byte hardware address.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_mac_address:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:mac-address property.
 *
 * Returns: (transfer none) (nullable): the 20-byte hardware address.
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_mac_address(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, nullptr);
    return nullIfEmpty(ib.address);
}

/**
 * IbnmIpoibInterface:port-guid:
 *
 * Its last 8 bytes, "0002:c903:0031:7851".
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_port_guid:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:port-guid property.
 *
 * Returns: (transfer none) (nullable): its last 8 bytes, "0002:c903:0031:7851".
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_port_guid(IbnmIpoibInterface *self)
{
    IPOIB_OR(self, nullptr);
    return nullIfEmpty(ib.portGuid);
}

/**
 * IbnmIpoibInterface:dhcp-client-id:
 *
 * The DHCP client identifier the interface's DHCP clients send (NVIDIA's form: ff:00:00:00:00:00:02:00:00:02:c9:00 and the port GUID), for host reservations in dhcpd or Kea.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_dhcp_client_id:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:dhcp-client-id property.
 *
 * Returns: (transfer none) (nullable): the DHCP client identifier the
 *   interface's DHCP clients send (NVIDIA's form: ff:00:00:00:00:00:02:00:00:02:c9:00
 *   and the port GUID), for host reservations in dhcpd or Kea.
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_dhcp_client_id(IbnmIpoibInterface *self)
{
    g_return_val_if_fail(IBNM_IS_IPOIB_INTERFACE(self), nullptr);
    return nullIfEmpty(ibnm_ipoib_interface_priv(self)->dhcpClientId_);
}

/**
 * IbnmIpoibInterface:rdma-device:
 *
 * The RDMA device behind it.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_rdma_device:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:rdma-device property.
 *
 * Returns: (transfer none) (nullable): the RDMA device behind it.
 *
 * Since: 0.1
 */
const char *ibnm_ipoib_interface_get_rdma_device(IbnmIpoibInterface *self)
{
    g_return_val_if_fail(IBNM_IS_IPOIB_INTERFACE(self), nullptr);
    return nullIfEmpty(ibnm_ipoib_interface_priv(self)->rdmaDevice_);
}

/**
 * IbnmIpoibInterface:rdma-port:
 *
 * The RDMA port number behind it, 0 when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_rdma_port:
 * @self: the object
 *
 * Gets the #IbnmIpoibInterface:rdma-port property.
 *
 * Returns: the RDMA port number behind it, 0 when unknown.
 *
 * Since: 0.1
 */
guint ibnm_ipoib_interface_get_rdma_port(IbnmIpoibInterface *self)
{
    g_return_val_if_fail(IBNM_IS_IPOIB_INTERFACE(self), 0);
    return ibnm_ipoib_interface_priv(self)->rdmaPort_;
}

/**
 * IbnmIpoibInterface:up:
 *
 * Whether the interface is administratively up (IFF_UP, `ip link set DEV
 * up`), as the kernel reported it at the inventory's last reload.
 *
 * Since: 0.1
 */
/**
 * ibnm_ipoib_interface_get_up:
 * @self: an #IbnmIpoibInterface
 *
 * Gets the #IbnmIpoibInterface:up property.
 *
 * Returns: %TRUE when the interface is up.
 *
 * Since: 0.1
 */
gboolean ibnm_ipoib_interface_get_up(IbnmIpoibInterface *self)
{
    g_return_val_if_fail(IBNM_IS_IPOIB_INTERFACE(self), FALSE);
    return ibnm_ipoib_interface_priv(self)->up_;
}

// --- constructor ------------------------------------------------------------------------------

namespace ibnm {

IbnmIpoibInterface *ipoibInterfaceNew(const model::IpoibNetdev &ipoib, const model::Host &host)
{
    IbnmIpoibInterface *obj = IBNM_IPOIB_INTERFACE(g_object_new(IBNM_TYPE_IPOIB_INTERFACE, nullptr));
    auto *priv = ibnm_ipoib_interface_priv(obj);
    priv->ipoib_ = ipoib;
    priv->dhcpClientId_ = model::dhcpClientId(ipoib.address);
    if (const auto *n = host.findNetdev(ipoib.name)) {
        priv->rdmaDevice_ = n->rdmaDevice;
        priv->rdmaPort_ = n->rdmaPort;
        priv->up_ = n->up;
    }
    return obj;
}

} // namespace ibnm
