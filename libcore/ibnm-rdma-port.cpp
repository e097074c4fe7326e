// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmRdmaPort: one port of an RDMA device, with its GID table, netdevs and
// RoCE settings (read-only); the enums IbnmPortState and IbnmPortPhysicalState.
#include "config.h"

#include "libcore/ibnm-inventory-types.h"

#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/support/gobject.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace ibnm::inventory;

// --- IbnmRdmaPort ----------------------------------------------------------------------

struct _IbnmRdmaPort {
    GObject parent_instance;
};

struct IbnmRdmaPortPrivate {
    std::string device_;
    ibnm::model::Port port_;
    ibnm::GPtrArrayPtr gids_ = newObjectArray();
    std::vector<std::string> netdevs_;
    std::vector<const char *> netdevView_{nullptr};
    ibnm::model::RoceMode roceMode_ = ibnm::model::RoceMode::V2; // configfs, else the kernel's default
    std::vector<std::string> rules_;
    std::vector<const char *> rulesView_{nullptr};
};

IBNM_DEFINE_FINAL_TYPE(IbnmRdmaPort, ibnm_rdma_port, G_TYPE_OBJECT)

GType ibnm_port_state_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {IBNM_PORT_STATE_UNKNOWN, "IBNM_PORT_STATE_UNKNOWN", "unknown"},
            {IBNM_PORT_STATE_DOWN, "IBNM_PORT_STATE_DOWN", "down"},
            {IBNM_PORT_STATE_INIT, "IBNM_PORT_STATE_INIT", "init"},
            {IBNM_PORT_STATE_ARMED, "IBNM_PORT_STATE_ARMED", "armed"},
            {IBNM_PORT_STATE_ACTIVE, "IBNM_PORT_STATE_ACTIVE", "active"},
            {IBNM_PORT_STATE_ACTIVE_DEFER, "IBNM_PORT_STATE_ACTIVE_DEFER", "active-defer"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static(g_intern_static_string("IbnmPortState"), values));
    }
    return type;
}

GType ibnm_port_physical_state_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {IBNM_PORT_PHYSICAL_STATE_UNKNOWN, "IBNM_PORT_PHYSICAL_STATE_UNKNOWN", "unknown"},
            {IBNM_PORT_PHYSICAL_STATE_SLEEP, "IBNM_PORT_PHYSICAL_STATE_SLEEP", "sleep"},
            {IBNM_PORT_PHYSICAL_STATE_POLLING, "IBNM_PORT_PHYSICAL_STATE_POLLING", "polling"},
            {IBNM_PORT_PHYSICAL_STATE_DISABLED, "IBNM_PORT_PHYSICAL_STATE_DISABLED", "disabled"},
            {IBNM_PORT_PHYSICAL_STATE_PORT_CONFIGURATION_TRAINING,
             "IBNM_PORT_PHYSICAL_STATE_PORT_CONFIGURATION_TRAINING", "port-configuration-training"},
            {IBNM_PORT_PHYSICAL_STATE_LINK_UP, "IBNM_PORT_PHYSICAL_STATE_LINK_UP", "link-up"},
            {IBNM_PORT_PHYSICAL_STATE_LINK_ERROR_RECOVERY, "IBNM_PORT_PHYSICAL_STATE_LINK_ERROR_RECOVERY",
             "link-error-recovery"},
            {IBNM_PORT_PHYSICAL_STATE_PHY_TEST, "IBNM_PORT_PHYSICAL_STATE_PHY_TEST", "phy-test"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static(g_intern_static_string("IbnmPortPhysicalState"), values));
    }
    return type;
}

namespace {
gint portStateValue(IbnmRdmaPort *p)
{
    return ibnm_rdma_port_get_state(p);
}
gint portPhysicalStateValue(IbnmRdmaPort *p)
{
    return ibnm_rdma_port_get_physical_state(p);
}
} // namespace

static const Prop<IbnmRdmaPort> portProps[] = {
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_DEVICE, ibnm_rdma_port_get_device),
    uintProp<IbnmRdmaPort>(IBNM_RDMA_PORT_NUMBER, ibnm_rdma_port_get_number),
    enumProp<IbnmRdmaPort>(IBNM_RDMA_PORT_STATE, portStateValue, ibnm_port_state_get_type),
    enumProp<IbnmRdmaPort>(IBNM_RDMA_PORT_PHYSICAL_STATE, portPhysicalStateValue, ibnm_port_physical_state_get_type),
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_STATE_TEXT, ibnm_rdma_port_get_state_text),
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_PHYSICAL_STATE_TEXT, ibnm_rdma_port_get_physical_state_text),
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_RATE, ibnm_rdma_port_get_rate),
    int64Prop<IbnmRdmaPort>(IBNM_RDMA_PORT_LID, ibnm_rdma_port_get_lid),
    int64Prop<IbnmRdmaPort>(IBNM_RDMA_PORT_SM_LID, ibnm_rdma_port_get_sm_lid),
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_LINK_LAYER, ibnm_rdma_port_get_link_layer),
    uintProp<IbnmRdmaPort>(IBNM_RDMA_PORT_ACTIVE_MTU, ibnm_rdma_port_get_active_mtu),
    uintProp<IbnmRdmaPort>(IBNM_RDMA_PORT_MAX_MTU, ibnm_rdma_port_get_max_mtu),
    uintProp<IbnmRdmaPort>(IBNM_RDMA_PORT_BROADCAST_MTU, ibnm_rdma_port_get_broadcast_mtu),
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_DEFAULT_ROCE_MODE, ibnm_rdma_port_get_default_roce_mode),
    intProp<IbnmRdmaPort>(IBNM_RDMA_PORT_DEFAULT_ROCE_TOS, ibnm_rdma_port_get_default_roce_tos),
    intProp<IbnmRdmaPort>(IBNM_RDMA_PORT_TRAFFIC_CLASS, ibnm_rdma_port_get_traffic_class),
    intProp<IbnmRdmaPort>(IBNM_RDMA_PORT_TTL, ibnm_rdma_port_get_ttl),
    strProp<IbnmRdmaPort>(IBNM_RDMA_PORT_ROCE_MODE, ibnm_rdma_port_get_roce_mode),
};

static void ibnm_rdma_port_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
    getProp(portProps, o, id, v, ps);
}

static void ibnm_rdma_port_class_init_impl(IbnmRdmaPortClass *klass)
{
    G_OBJECT_CLASS(klass)->get_property = ibnm_rdma_port_get_property;
    installProps(G_OBJECT_CLASS(klass), portProps);
}

#define PORT_PRIV_OR(self, fallback)                                                                   \
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), fallback);                                        \
    const auto &port = ibnm_rdma_port_priv(self)->port_

/**
 * IbnmRdmaPort:device:
 *
 * The RDMA device's name.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_device:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:device property.
 *
 * Returns: (transfer none): the RDMA device's name.
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_device(IbnmRdmaPort *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), nullptr);
    return ibnm_rdma_port_priv(self)->device_.c_str();
}

/**
 * IbnmRdmaPort:number:
 *
 * The port number on its device, from 1 (ports/N).
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_number:
 * @self: an #IbnmRdmaPort
 *
 * Gets the #IbnmRdmaPort:number property.
 *
 * Returns: the port number, from 1.
 *
 * Since: 0.1
 */
guint ibnm_rdma_port_get_number(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, 0);
    return port.number;
}

/**
 * IbnmRdmaPort:state:
 *
 * The port's logical state, %IBNM_PORT_STATE_UNKNOWN when the kernel reported none.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_state:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:state property.
 *
 * Returns: the port's logical state, %IBNM_PORT_STATE_UNKNOWN when the
 *   kernel reported none.
 *
 * Since: 0.1
 */
IbnmPortState ibnm_rdma_port_get_state(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, IBNM_PORT_STATE_UNKNOWN);
    auto n = ibnm::model::portStateNumber(port.state);
    return n && *n <= IBNM_PORT_STATE_ACTIVE_DEFER ? IbnmPortState(*n) : IBNM_PORT_STATE_UNKNOWN;
}

/**
 * IbnmRdmaPort:physical-state:
 *
 * The port's physical state, %IBNM_PORT_PHYSICAL_STATE_UNKNOWN when the kernel reported none.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_physical_state:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:physical-state property.
 *
 * Returns: the port's physical state, %IBNM_PORT_PHYSICAL_STATE_UNKNOWN
 *   when the kernel reported none.
 *
 * Since: 0.1
 */
IbnmPortPhysicalState ibnm_rdma_port_get_physical_state(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, IBNM_PORT_PHYSICAL_STATE_UNKNOWN);
    auto n = ibnm::model::portStateNumber(port.physState);
    return n && *n <= IBNM_PORT_PHYSICAL_STATE_PHY_TEST ? IbnmPortPhysicalState(*n)
                                                         : IBNM_PORT_PHYSICAL_STATE_UNKNOWN;
}

/**
 * IbnmRdmaPort:state-text:
 *
 * The state as the kernel prints it, "4: ACTIVE".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_state_text:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:state-text property.
 *
 * Returns: (transfer none) (nullable): the state as the kernel prints it,
 *   "4: ACTIVE".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_state_text(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, nullptr);
    return nullIfEmpty(port.state);
}

/**
 * IbnmRdmaPort:physical-state-text:
 *
 * The physical state as the kernel prints it, "5: LinkUp".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_physical_state_text:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:physical-state-text property.
 *
 * Returns: (transfer none) (nullable): the physical state as the kernel
 *   prints it, "5: LinkUp".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_physical_state_text(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, nullptr);
    return nullIfEmpty(port.physState);
}

/**
 * IbnmRdmaPort:rate:
 *
 * "56 Gb/sec (4X FDR)".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_rate:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:rate property.
 *
 * Returns: (transfer none) (nullable): "56 Gb/sec (4X FDR)".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_rate(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, nullptr);
    return nullIfEmpty(port.rate);
}

/**
 * IbnmRdmaPort:lid:
 *
 * The LID, or -1 when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_lid:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:lid property.
 *
 * Returns: the LID, or -1 when unknown.
 *
 * Since: 0.1
 */
gint64 ibnm_rdma_port_get_lid(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, -1);
    return port.lid ? gint64(*port.lid) : -1;
}

/**
 * IbnmRdmaPort:sm-lid:
 *
 * The subnet manager's LID, or -1 when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_sm_lid:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:sm-lid property.
 *
 * Returns: the subnet manager's LID, or -1 when unknown.
 *
 * Since: 0.1
 */
gint64 ibnm_rdma_port_get_sm_lid(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, -1);
    return port.smLid ? gint64(*port.smLid) : -1;
}

/**
 * IbnmRdmaPort:link-layer:
 *
 * "InfiniBand", "Ethernet" or "Unknown".
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_link_layer:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:link-layer property.
 *
 * Returns: (transfer none): "InfiniBand", "Ethernet" or "Unknown".
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_link_layer(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, nullptr);
    switch (port.linkLayer) {
    case ibnm::model::LinkLayer::InfiniBand:
        return "InfiniBand";
    case ibnm::model::LinkLayer::Ethernet:
        return "Ethernet";
    case ibnm::model::LinkLayer::Unknown:
        break;
    }
    return "Unknown";
}

/**
 * IbnmRdmaPort:active-mtu:
 *
 * The active IB MTU in bytes, 0 when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_active_mtu:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:active-mtu property.
 *
 * Returns: the active IB MTU in bytes, 0 when unknown.
 *
 * Since: 0.1
 */
guint ibnm_rdma_port_get_active_mtu(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, 0);
    return port.activeMtu.value_or(0);
}

/**
 * IbnmRdmaPort:max-mtu:
 *
 * The largest IB MTU in bytes, 0 when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_max_mtu:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:max-mtu property.
 *
 * Returns: the largest IB MTU in bytes, 0 when unknown.
 *
 * Since: 0.1
 */
guint ibnm_rdma_port_get_max_mtu(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, 0);
    return port.maxMtu.value_or(0);
}

/**
 * IbnmRdmaPort:broadcast-mtu:
 *
 * The IPoIB broadcast group's MTU, 0 when unknown.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_broadcast_mtu:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:broadcast-mtu property.
 *
 * Returns: the IPoIB broadcast group's MTU, 0 when unknown.
 *
 * Since: 0.1
 */
guint ibnm_rdma_port_get_broadcast_mtu(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, 0);
    return port.broadcastMtu.value_or(0);
}

/**
 * ibnm_rdma_port_get_pkeys:
 * @self: an #IbnmRdmaPort
 * @n_pkeys: (out): the number of entries
 *
 * Gets the port's P_Key table (ports/N/pkeys/), without the empty entries.
 *
 * Returns: (transfer none) (array length=n_pkeys): the P_Key table's
 *   non-zero entries.
 *
 * Since: 0.1
 */
const guint16 *ibnm_rdma_port_get_pkeys(IbnmRdmaPort *self, guint *n_pkeys)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), nullptr);
    g_return_val_if_fail(n_pkeys != nullptr, nullptr);
    const auto &port = ibnm_rdma_port_priv(self)->port_;
    *n_pkeys = static_cast<guint>(port.pkeys.size());
    return port.pkeys.data();
}

/**
 * ibnm_rdma_port_get_gids:
 * @self: an #IbnmRdmaPort
 *
 * Gets the port's GID table (ports/N/gids/ with gid_attrs/), without the
 * unused entries.
 *
 * Returns: (transfer none) (element-type IbnmGid): the used GID table entries.
 *
 * Since: 0.1
 */
GPtrArray *ibnm_rdma_port_get_gids(IbnmRdmaPort *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), nullptr);
    return ibnm_rdma_port_priv(self)->gids_.get();
}

/**
 * ibnm_rdma_port_get_netdevs:
 * @self: an #IbnmRdmaPort
 *
 * Gets the network interfaces on this port (IPoIB interfaces, or the
 * Ethernet interface of a RoCE port).
 *
 * Returns: (transfer none) (array zero-terminated=1): the netdevs on this port.
 *
 * Since: 0.1
 */
const char *const *ibnm_rdma_port_get_netdevs(IbnmRdmaPort *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), nullptr);
    return ibnm_rdma_port_priv(self)->netdevView_.data();
}

/**
 * IbnmRdmaPort:default-roce-mode:
 *
 * Configfs rdma_cm's default_roce_mode ("IB/RoCE v1" or "RoCE v2"), NULL when its directory does not exist.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_default_roce_mode:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:default-roce-mode property.
 *
 * Returns: (transfer none) (nullable): configfs rdma_cm's default_roce_mode
 *   ("IB/RoCE v1" or "RoCE v2"), NULL when its directory does not exist.
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_default_roce_mode(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, nullptr);
    if (!port.defaultRoceMode)
        return nullptr;
    return *port.defaultRoceMode == ibnm::model::RoceMode::V1 ? "IB/RoCE v1" : "RoCE v2";
}

/**
 * IbnmRdmaPort:default-roce-tos:
 *
 * Configfs default_roce_tos, or -1.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_default_roce_tos:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:default-roce-tos property.
 *
 * Returns: configfs default_roce_tos, or -1.
 *
 * Since: 0.1
 */
gint ibnm_rdma_port_get_default_roce_tos(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, -1);
    return port.defaultRoceTos ? gint(*port.defaultRoceTos) : -1;
}

/**
 * IbnmRdmaPort:traffic-class:
 *
 * Mlx5 tc/<port>/traffic_class, or -1.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_traffic_class:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:traffic-class property.
 *
 * Returns: mlx5 tc/<port>/traffic_class, or -1.
 *
 * Since: 0.1
 */
gint ibnm_rdma_port_get_traffic_class(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, -1);
    return port.trafficClass ? gint(*port.trafficClass) : -1;
}

/**
 * IbnmRdmaPort:roce-mode:
 *
 * The RoCE mode RDMA-CM uses on the port, as `cma_roce_mode` prints it: configfs default_roce_mode where the device's directory exists, else the kernel's default ("RoCE v2" where the port supports it, else "IB/RoCE v1").
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_roce_mode:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:roce-mode property.
 *
 * Returns: (transfer none): the RoCE mode RDMA-CM uses on the port, as
 *   `cma_roce_mode` prints it: configfs default_roce_mode where the device's
 *   directory exists, else the kernel's default ("RoCE v2" where the port
 *   supports it, else "IB/RoCE v1").
 *
 * Since: 0.1
 */
const char *ibnm_rdma_port_get_roce_mode(IbnmRdmaPort *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), nullptr);
    return ibnm::model::roceModeName(ibnm_rdma_port_priv(self)->roceMode_);
}

/**
 * ibnm_rdma_port_get_traffic_class_rules:
 * @self: an #IbnmRdmaPort
 *
 * Gets the port's mlx5 traffic class rules.
 *
 * Returns: (transfer none) (array zero-terminated=1): the mlx5 traffic class
 *   rules of the port ("tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"); empty
 *   when there are none or the device has no tc/ files.
 *
 * Since: 0.1
 */
const char *const *ibnm_rdma_port_get_traffic_class_rules(IbnmRdmaPort *self)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), nullptr);
    return ibnm_rdma_port_priv(self)->rulesView_.data();
}

/**
 * ibnm_rdma_port_find_gid_index:
 * @gid_type: "RoCE v2" or "IB/RoCE v1"
 * @ipv6: an IPv6 address (never the link-local one) instead of IPv4
 * @netdev: (nullable): the netdev whose address it is; %NULL: the port's own
 *   netdev (that of GID 0), not a VLAN over it
 *
 * The GID index applications should use for RoCE traffic over that address,
 * as NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX want it.
 *
 * Returns: the index, or -1 when the port has no such GID.
 *
 * Since: 0.1
 */
gint ibnm_rdma_port_find_gid_index(IbnmRdmaPort *self, const char *gid_type, gboolean ipv6, const char *netdev)
{
    g_return_val_if_fail(IBNM_IS_RDMA_PORT(self), -1);
    g_return_val_if_fail(gid_type != nullptr, -1);
    ibnm::model::GidType type = g_strcmp0(gid_type, "RoCE v2") == 0      ? ibnm::model::GidType::RoceV2
                                : g_strcmp0(gid_type, "IB/RoCE v1") == 0 ? ibnm::model::GidType::IbRoceV1
                                                                         : ibnm::model::GidType::Unknown;
    g_return_val_if_fail(type != ibnm::model::GidType::Unknown, -1);
    auto index = ibnm::model::gidIndexFor(ibnm_rdma_port_priv(self)->port_, type, ipv6, netdev ? netdev : "");
    return index ? gint(*index) : -1;
}

/**
 * IbnmRdmaPort:ttl:
 *
 * Mlx5 tc/<port>/ttl, or -1.
 *
 * Since: 0.1
 */
/**
 * ibnm_rdma_port_get_ttl:
 * @self: the object
 *
 * Gets the #IbnmRdmaPort:ttl property.
 *
 * Returns: mlx5 tc/<port>/ttl, or -1.
 *
 * Since: 0.1
 */
gint ibnm_rdma_port_get_ttl(IbnmRdmaPort *self)
{
    PORT_PRIV_OR(self, -1);
    return port.ttl ? gint(*port.ttl) : -1;
}

// --- constructor ------------------------------------------------------------------------------

namespace ibnm {

IbnmRdmaPort *rdmaPortNew(const model::Device &device, const model::Port &p, const HostIndex &index)
{
    const model::Host &host = index.host;
    IbnmRdmaPort *port = IBNM_RDMA_PORT(g_object_new(IBNM_TYPE_RDMA_PORT, nullptr));
    auto *pp = ibnm_rdma_port_priv(port);
    pp->device_ = device.name;
    pp->port_ = p;
    for (const auto &g : p.gids)
        g_ptr_array_add(pp->gids_.get(), gidNew(g));
    auto addNetdev = [&](const std::string &n) {
        if (!n.empty() && std::find(pp->netdevs_.begin(), pp->netdevs_.end(), n) == pp->netdevs_.end())
            pp->netdevs_.push_back(n);
    };
    if (auto it = index.portNetdevs.find({device.name, p.number}); it != index.portNetdevs.end())
        for (const auto &n : it->second)
            addNetdev(n);
    for (const auto &l : host.softLinks)
        if (l.name == device.name && p.number == 1)
            addNetdev(l.netdev);
    pp->netdevView_.clear();
    for (const auto &n : pp->netdevs_)
        pp->netdevView_.push_back(n.c_str());
    pp->netdevView_.push_back(nullptr);
    const model::SoftLink *soft = host.findSoftLink(device.name);
    pp->roceMode_ = p.defaultRoceMode ? *p.defaultRoceMode
                                      : model::kernelDefaultRoceMode(soft ? std::optional(soft->type) : std::nullopt,
                                                                     p.linkLayer);
    for (const auto &r : p.tcRules)
        pp->rules_.push_back(model::formatTcRule(r));
    pp->rulesView_.clear();
    for (const auto &r : pp->rules_)
        pp->rulesView_.push_back(r.c_str());
    pp->rulesView_.push_back(nullptr);
    return port;
}

} // namespace ibnm

/**
 * ibnm_roce_service_level_of_tos:
 * @tos: a ToS byte (0-255), as rdma.roce-tos and configfs default_roce_tos
 *
 * The InfiniBand Service Level RDMA-CM gives a RoCE QP of this ToS: its
 * three most significant bits (NVIDIA's RoCE page, SL = ToS >> 5).
 *
 * Returns: the SL, 0-7.
 *
 * Since: 0.1
 */
guint ibnm_roce_service_level_of_tos(guint tos)
{
    return ibnm::model::roceServiceLevel(tos);
}

/**
 * ibnm_roce_dscp_of_tos:
 * @tos: a ToS byte (0-255), as rdma.roce-tos, configfs default_roce_tos and
 *   the mlx5 traffic class
 *
 * The DSCP a ToS byte carries: its six most significant bits (RFC 2474; the
 * two below are ECN). rdma.roce-tos takes `dscp:N` for the ToS 4 x N.
 *
 * Returns: the DSCP, 0-63.
 *
 * Since: 0.1
 */
guint ibnm_roce_dscp_of_tos(guint tos)
{
    return ibnm::model::dscpOfTos(tos & 0xff);
}

/**
 * ibnm_roce_pcp_of_service_level:
 * @service_level: a Service Level
 *
 * The 802.1Q priority (PCP) the driver gives the VLAN-tagged frames of a
 * RoCE QP of this SL (NVIDIA's RoCE page, PCP = SL & 7).
 *
 * Returns: the PCP, 0-7.
 *
 * Since: 0.1
 */
guint ibnm_roce_pcp_of_service_level(guint service_level)
{
    return ibnm::model::rocePcp(service_level);
}
