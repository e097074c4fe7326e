// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmRdmaDevice: an RDMA device (HCA or soft RoCE/iWARP link) with its ports (read-only).
#include "config.h"

#include "libcore/ibnm-inventory-types.h"

#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/support/gobject.hpp"

#include <string>
#include <vector>

using namespace ibnm::inventory;

// --- IbnmRdmaDevice ------------------------------------------------------------------------

struct _IbnmRdmaDevice {
    GObject parent_instance;
};

struct IbnmRdmaDevicePrivate {
    ibnm::model::Device device_;
    std::string lagBond_;
    std::vector<std::string> lagPorts_;
    std::vector<const char *> lagPortsView_{nullptr};
    ibnm::GPtrArrayPtr ports_ = newObjectArray();
};

IBNM_DEFINE_FINAL_TYPE(IbnmRdmaDevice, ibnm_rdma_device, G_TYPE_OBJECT)

static const Prop<IbnmRdmaDevice> deviceProps[] = {
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_NAME, ibnm_rdma_device_get_name),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_NODE_GUID, ibnm_rdma_device_get_node_guid),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_NODE_TYPE, ibnm_rdma_device_get_node_type),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_FIRMWARE_VERSION, ibnm_rdma_device_get_firmware_version),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_DRIVER, ibnm_rdma_device_get_driver),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_HCA_TYPE, ibnm_rdma_device_get_hca_type),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_BOARD_ID, ibnm_rdma_device_get_board_id),
    boolProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_ENHANCED_IPOIB, ibnm_rdma_device_get_enhanced_ipoib),
    boolProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_CONNECTED_MODE_SUPPORTED,
                             ibnm_rdma_device_get_connected_mode_supported),
    intProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_ROCE_ENABLED, ibnm_rdma_device_get_roce_enabled),
    strProp<IbnmRdmaDevice>(IBNM_RDMA_DEVICE_ROCE_LAG_BOND, ibnm_rdma_device_get_roce_lag_bond),
};

static void ibnm_rdma_device_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(deviceProps, o, id, v, ps);
}

static void ibnm_rdma_device_class_init_impl(IbnmRdmaDeviceClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_rdma_device_get_property;
    installProps(G_OBJECT_CLASS(klass), deviceProps);
}

#define DEVICE_OR(self, fallback)                                                                      \
    g_return_val_if_fail(IBNM_IS_RDMA_DEVICE(self), fallback);                                      \
    const auto &dev = ibnm_rdma_device_priv(self)->device_

/**
 * IbnmRdmaDevice:name:
 *
 * "mlx4_0".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_name:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:name property.
 *
 * Returns: (transfer none): "mlx4_0".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_name(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return dev.name.c_str();
}

/**
 * IbnmRdmaDevice:node-guid:
 *
 * "0002:c903:0031:7850".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_node_guid:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:node-guid property.
 *
 * Returns: (transfer none) (nullable): "0002:c903:0031:7850".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_node_guid(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return nullIfEmpty(dev.nodeGuid);
}

/**
 * IbnmRdmaDevice:node-type:
 *
 * "1: CA", "4: RNIC".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_node_type:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:node-type property.
 *
 * Returns: (transfer none) (nullable): "1: CA", "4: RNIC".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_node_type(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return nullIfEmpty(dev.nodeType);
}

/**
 * IbnmRdmaDevice:firmware-version:
 *
 * Fw_ver.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_firmware_version:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:firmware-version property.
 *
 * Returns: (transfer none) (nullable): fw_ver.
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_firmware_version(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return nullIfEmpty(dev.fwVersion);
}

/**
 * IbnmRdmaDevice:driver:
 *
 * "mlx5_core", "rdma_rxe".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_driver:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:driver property.
 *
 * Returns: (transfer none) (nullable): "mlx5_core", "rdma_rxe".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_driver(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return nullIfEmpty(dev.driver);
}

/**
 * IbnmRdmaDevice:hca-type:
 *
 * "MT4099".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_hca_type:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:hca-type property.
 *
 * Returns: (transfer none) (nullable): "MT4099".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_hca_type(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return nullIfEmpty(dev.hcaType);
}

/**
 * IbnmRdmaDevice:board-id:
 *
 * Board_id.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_board_id:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:board-id property.
 *
 * Returns: (transfer none) (nullable): board_id.
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_board_id(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, nullptr);
    return nullIfEmpty(dev.boardId);
}

/**
 * IbnmRdmaDevice:enhanced-ipoib:
 *
 * Whether IPoIB on it is Enhanced IPoIB (datagram only).
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_enhanced_ipoib:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:enhanced-ipoib property.
 *
 * Returns: whether IPoIB on it is Enhanced IPoIB (datagram only).
 *
 * Since: 0.1
 */
gboolean ibnm_rdma_device_get_enhanced_ipoib(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, FALSE);
    return dev.enhancedIpoib;
}

/**
 * IbnmRdmaDevice:connected-mode-supported:
 *
 * Whether IPoIB connected mode exists.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_connected_mode_supported:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:connected-mode-supported property.
 *
 * Returns: whether IPoIB connected mode exists.
 *
 * Since: 0.1
 */
gboolean ibnm_rdma_device_get_connected_mode_supported(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, FALSE);
    return dev.connectedModeSupported && !dev.enhancedIpoib;
}

/**
 * IbnmRdmaDevice:roce-enabled:
 *
 * The mlx5 PCI function's roce_enable (1 or 0; 0 means the device has no RoCE GIDs), or -1 where the device has no such file.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_roce_enabled:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:roce-enabled property.
 *
 * Returns: the mlx5 PCI function's roce_enable (1 or 0; 0 means the device
 *   has no RoCE GIDs), or -1 where the device has no such file.
 *
 * Since: 0.1
 */
gint ibnm_rdma_device_get_roce_enabled(IbnmRdmaDevice *self)
{
    DEVICE_OR(self, -1);
    return dev.roceEnabled ? gint(*dev.roceEnabled) : -1;
}

/**
 * IbnmRdmaDevice:roce-lag-bond:
 *
 * For a RoCE LAG device (mlx5_bond_N, one device for both ports of a dual-port card), the bond it serves.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_device_get_roce_lag_bond:
 * @self: the object
 *
 * Gets the #IbnmRdmaDevice:roce-lag-bond property.
 *
 * Returns: (transfer none) (nullable): for a RoCE LAG device (mlx5_bond_N,
 *   one device for both ports of a dual-port card), the bond it serves.
 *
 * Since: 0.1
 */
const char *ibnm_rdma_device_get_roce_lag_bond(IbnmRdmaDevice *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_DEVICE(self), nullptr);
    const auto &b = ibnm_rdma_device_priv(self)->lagBond_;
    return b.empty() ? nullptr : b.c_str();
}

/**
 * ibnm_rdma_device_get_roce_lag_ports:
 * @self: an #IbnmRdmaDevice
 *
 * Gets the Ethernet ports of the bond a RoCE LAG device runs over (see
 * ibnm_rdma_device_get_roce_lag_bond()).
 *
 * Returns: (transfer none) (array zero-terminated=1): the ports of that
 *   bond (the card's Ethernet interfaces); empty for other devices.
 *
 * Since: 0.1
 */
const char *const *ibnm_rdma_device_get_roce_lag_ports(IbnmRdmaDevice *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_DEVICE(self), nullptr);
    return ibnm_rdma_device_priv(self)->lagPortsView_.data();
}

/**
 * ibnm_rdma_device_get_ports:
 * @self: an #IbnmRdmaDevice
 *
 * Gets the device's ports.
 *
 * Returns: (transfer none) (element-type IbnmRdmaPort): the ports, by number.
 *
 * Since: 0.1
 */
GPtrArray *ibnm_rdma_device_get_ports(IbnmRdmaDevice *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_DEVICE(self), nullptr);
    return ibnm_rdma_device_priv(self)->ports_.get();
}

/**
 * ibnm_rdma_device_get_port:
 * @self: an #IbnmRdmaDevice
 * @number: the port number, from 1
 *
 * Looks up one of the device's ports by number.
 *
 * Returns: (transfer none) (nullable): the port, or %NULL when the device
 *   has no port @number; owned by @self.
 *
 * Since: 0.1
 */
IbnmRdmaPort *ibnm_rdma_device_get_port(IbnmRdmaDevice *self, guint number)
{
    g_return_val_if_fail(IBNM_IS_RDMA_DEVICE(self), nullptr);
    GPtrArray *ports = ibnm_rdma_device_priv(self)->ports_.get();
    for (guint i = 0; i < ports->len; i++) {
        auto *p = IBNM_RDMA_PORT(g_ptr_array_index(ports, i));
        if (ibnm_rdma_port_get_number(p) == number)
            return p;
    }
    return nullptr;
}

// --- constructor ------------------------------------------------------------------------------

namespace ibnm {

HostIndex::HostIndex(const model::Host &h) : host(h), lags(model::roceLags(h))
{
    for (const auto &n : h.netdevs)
        if (!n.name.empty())
            portNetdevs[{n.rdmaDevice, n.rdmaPort}].push_back(n.name);
}

IbnmRdmaDevice *rdmaDeviceNew(const model::Device &device, const HostIndex &index)
{
    IbnmRdmaDevice *obj = IBNM_RDMA_DEVICE(g_object_new(IBNM_TYPE_RDMA_DEVICE, nullptr));
    auto *priv = ibnm_rdma_device_priv(obj);
    priv->device_ = device;
    for (const auto &lag : index.lags)
        if (lag.device == device.name) {
            priv->lagBond_ = lag.bond;
            priv->lagPorts_ = lag.ports;
        }
    priv->lagPortsView_.clear();
    for (const auto &p : priv->lagPorts_)
        priv->lagPortsView_.push_back(p.c_str());
    priv->lagPortsView_.push_back(nullptr);
    for (const auto &p : device.ports)
        g_ptr_array_add(priv->ports_.get(), rdmaPortNew(device, p, index));
    return obj;
}

} // namespace ibnm
