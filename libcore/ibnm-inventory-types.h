/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The read-only objects of an #IbnmInventory: RDMA devices, their ports and
 * GIDs, IPoIB interfaces and soft RDMA links. Each is a snapshot taken at
 * the inventory's last reload; they have getters and read-only properties
 * and never change. Arrays returned with (transfer none) belong to the
 * object and live as long as it does. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * IbnmGid:
 *
 * One used entry of an RDMA port's GID table: its index, the GID, its type
 * and, for RoCE, the netdev and IPv4 address it belongs to.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_GID (ibnm_gid_get_type())
G_DECLARE_FINAL_TYPE(IbnmGid, ibnm_gid, IBNM, GID, GObject)

/**
 * IBNM_GID_INDEX:
 *
 * The name of the #IbnmGid:index property.
 *
 * Since: 0.1
 */
#define IBNM_GID_INDEX "index"
/**
 * IBNM_GID_GID:
 *
 * The name of the #IbnmGid:gid property.
 *
 * Since: 0.1
 */
#define IBNM_GID_GID "gid"
/**
 * IBNM_GID_GID_TYPE:
 *
 * The name of the #IbnmGid:gid-type property.
 *
 * Since: 0.1
 */
#define IBNM_GID_GID_TYPE "gid-type"
/**
 * IBNM_GID_NETDEV:
 *
 * The name of the #IbnmGid:netdev property.
 *
 * Since: 0.1
 */
#define IBNM_GID_NETDEV "netdev"
/**
 * IBNM_GID_IPV4:
 *
 * The name of the #IbnmGid:ipv4 property.
 *
 * Since: 0.1
 */
#define IBNM_GID_IPV4 "ipv4"

guint ibnm_gid_get_index(IbnmGid *self);
const char *ibnm_gid_get_gid(IbnmGid *self);
const char *ibnm_gid_get_gid_type(IbnmGid *self);
const char *ibnm_gid_get_netdev(IbnmGid *self);
const char *ibnm_gid_get_ipv4(IbnmGid *self);

/**
 * IbnmPortState:
 * @IBNM_PORT_STATE_UNKNOWN: not reported (a port without a state file)
 * @IBNM_PORT_STATE_DOWN: down
 * @IBNM_PORT_STATE_INIT: initializing (no subnet manager has configured it)
 * @IBNM_PORT_STATE_ARMED: armed
 * @IBNM_PORT_STATE_ACTIVE: active
 * @IBNM_PORT_STATE_ACTIVE_DEFER: active, deferred
 *
 * A port's logical state, with the values of the InfiniBand specification
 * the kernel prints in ports/N/state ("4: ACTIVE").
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_PORT_STATE_UNKNOWN = 0,
    IBNM_PORT_STATE_DOWN = 1,
    IBNM_PORT_STATE_INIT = 2,
    IBNM_PORT_STATE_ARMED = 3,
    IBNM_PORT_STATE_ACTIVE = 4,
    IBNM_PORT_STATE_ACTIVE_DEFER = 5,
} IbnmPortState;

#define IBNM_TYPE_PORT_STATE (ibnm_port_state_get_type())
GType ibnm_port_state_get_type(void);

/**
 * IbnmPortPhysicalState:
 * @IBNM_PORT_PHYSICAL_STATE_UNKNOWN: not reported
 * @IBNM_PORT_PHYSICAL_STATE_SLEEP: sleep
 * @IBNM_PORT_PHYSICAL_STATE_POLLING: polling
 * @IBNM_PORT_PHYSICAL_STATE_DISABLED: disabled
 * @IBNM_PORT_PHYSICAL_STATE_PORT_CONFIGURATION_TRAINING: configuration training
 * @IBNM_PORT_PHYSICAL_STATE_LINK_UP: link up
 * @IBNM_PORT_PHYSICAL_STATE_LINK_ERROR_RECOVERY: link error recovery
 * @IBNM_PORT_PHYSICAL_STATE_PHY_TEST: physical test
 *
 * A port's physical state, as the kernel prints it in ports/N/phys_state
 * ("5: LinkUp").
 *
 * Since: 0.1
 */
typedef enum {
    IBNM_PORT_PHYSICAL_STATE_UNKNOWN = 0,
    IBNM_PORT_PHYSICAL_STATE_SLEEP = 1,
    IBNM_PORT_PHYSICAL_STATE_POLLING = 2,
    IBNM_PORT_PHYSICAL_STATE_DISABLED = 3,
    IBNM_PORT_PHYSICAL_STATE_PORT_CONFIGURATION_TRAINING = 4,
    IBNM_PORT_PHYSICAL_STATE_LINK_UP = 5,
    IBNM_PORT_PHYSICAL_STATE_LINK_ERROR_RECOVERY = 6,
    IBNM_PORT_PHYSICAL_STATE_PHY_TEST = 7,
} IbnmPortPhysicalState;

#define IBNM_TYPE_PORT_PHYSICAL_STATE (ibnm_port_physical_state_get_type())
GType ibnm_port_physical_state_get_type(void);

/**
 * IbnmRdmaPort:
 *
 * One port of an RDMA device: its state, link layer, rate, LIDs, MTUs, P_Key
 * and GID tables, its netdevs and, for RoCE, the RDMA defaults (RoCE mode,
 * type of service, traffic class, TTL).
 *
 * Since: 0.1
 */
#define IBNM_TYPE_RDMA_PORT (ibnm_rdma_port_get_type())
G_DECLARE_FINAL_TYPE(IbnmRdmaPort, ibnm_rdma_port, IBNM, RDMA_PORT, GObject)

/**
 * IBNM_RDMA_PORT_DEVICE:
 *
 * The name of the #IbnmRdmaPort:device property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_DEVICE "device"
/**
 * IBNM_RDMA_PORT_NUMBER:
 *
 * The name of the #IbnmRdmaPort:number property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_NUMBER "number"
/**
 * IBNM_RDMA_PORT_STATE:
 *
 * The name of the #IbnmRdmaPort:state property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_STATE "state"
/**
 * IBNM_RDMA_PORT_PHYSICAL_STATE:
 *
 * The name of the #IbnmRdmaPort:physical-state property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_PHYSICAL_STATE "physical-state"
/**
 * IBNM_RDMA_PORT_STATE_TEXT:
 *
 * The name of the #IbnmRdmaPort:state-text property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_STATE_TEXT "state-text"
/**
 * IBNM_RDMA_PORT_PHYSICAL_STATE_TEXT:
 *
 * The name of the #IbnmRdmaPort:physical-state-text property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_PHYSICAL_STATE_TEXT "physical-state-text"
/**
 * IBNM_RDMA_PORT_RATE:
 *
 * The name of the #IbnmRdmaPort:rate property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_RATE "rate"
/**
 * IBNM_RDMA_PORT_LID:
 *
 * The name of the #IbnmRdmaPort:lid property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_LID "lid"
/**
 * IBNM_RDMA_PORT_SM_LID:
 *
 * The name of the #IbnmRdmaPort:sm-lid property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_SM_LID "sm-lid"
/**
 * IBNM_RDMA_PORT_LINK_LAYER:
 *
 * The name of the #IbnmRdmaPort:link-layer property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_LINK_LAYER "link-layer"
/**
 * IBNM_RDMA_PORT_ACTIVE_MTU:
 *
 * The name of the #IbnmRdmaPort:active-mtu property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_ACTIVE_MTU "active-mtu"
/**
 * IBNM_RDMA_PORT_MAX_MTU:
 *
 * The name of the #IbnmRdmaPort:max-mtu property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_MAX_MTU "max-mtu"
/**
 * IBNM_RDMA_PORT_BROADCAST_MTU:
 *
 * The name of the #IbnmRdmaPort:broadcast-mtu property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_BROADCAST_MTU "broadcast-mtu"
/**
 * IBNM_RDMA_PORT_DEFAULT_ROCE_MODE:
 *
 * The name of the #IbnmRdmaPort:default-roce-mode property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_DEFAULT_ROCE_MODE "default-roce-mode"
/**
 * IBNM_RDMA_PORT_DEFAULT_ROCE_TOS:
 *
 * The name of the #IbnmRdmaPort:default-roce-tos property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_DEFAULT_ROCE_TOS "default-roce-tos"
/**
 * IBNM_RDMA_PORT_TRAFFIC_CLASS:
 *
 * The name of the #IbnmRdmaPort:traffic-class property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_TRAFFIC_CLASS "traffic-class"
/**
 * IBNM_RDMA_PORT_TTL:
 *
 * The name of the #IbnmRdmaPort:ttl property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_TTL "ttl"
/**
 * IBNM_RDMA_PORT_ROCE_MODE:
 *
 * The name of the #IbnmRdmaPort:roce-mode property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_PORT_ROCE_MODE "roce-mode"

const char *ibnm_rdma_port_get_device(IbnmRdmaPort *self);
guint ibnm_rdma_port_get_number(IbnmRdmaPort *self);
IbnmPortState ibnm_rdma_port_get_state(IbnmRdmaPort *self);
IbnmPortPhysicalState ibnm_rdma_port_get_physical_state(IbnmRdmaPort *self);
const char *ibnm_rdma_port_get_state_text(IbnmRdmaPort *self);
const char *ibnm_rdma_port_get_physical_state_text(IbnmRdmaPort *self);
const char *ibnm_rdma_port_get_rate(IbnmRdmaPort *self);
gint64 ibnm_rdma_port_get_lid(IbnmRdmaPort *self);
gint64 ibnm_rdma_port_get_sm_lid(IbnmRdmaPort *self);
const char *ibnm_rdma_port_get_link_layer(IbnmRdmaPort *self);
guint ibnm_rdma_port_get_active_mtu(IbnmRdmaPort *self);
guint ibnm_rdma_port_get_max_mtu(IbnmRdmaPort *self);
guint ibnm_rdma_port_get_broadcast_mtu(IbnmRdmaPort *self);
const guint16 *ibnm_rdma_port_get_pkeys(IbnmRdmaPort *self, guint *n_pkeys);
GPtrArray *ibnm_rdma_port_get_gids(IbnmRdmaPort *self);
const char *const *ibnm_rdma_port_get_netdevs(IbnmRdmaPort *self);
const char *ibnm_rdma_port_get_default_roce_mode(IbnmRdmaPort *self);
gint ibnm_rdma_port_get_default_roce_tos(IbnmRdmaPort *self);
gint ibnm_rdma_port_get_traffic_class(IbnmRdmaPort *self);
gint ibnm_rdma_port_get_ttl(IbnmRdmaPort *self);
const char *ibnm_rdma_port_get_roce_mode(IbnmRdmaPort *self);
const char *const *ibnm_rdma_port_get_traffic_class_rules(IbnmRdmaPort *self);
guint ibnm_roce_service_level_of_tos(guint tos);
guint ibnm_roce_dscp_of_tos(guint tos);
guint ibnm_roce_pcp_of_service_level(guint service_level);
gint ibnm_rdma_port_find_gid_index(IbnmRdmaPort *self, const char *gid_type, gboolean ipv6, const char *netdev);

/**
 * IbnmRdmaDevice:
 *
 * An RDMA device (/sys/class/infiniband/NAME): an InfiniBand or RoCE adapter,
 * or a soft rxe/siw device, with its ports.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_RDMA_DEVICE (ibnm_rdma_device_get_type())
G_DECLARE_FINAL_TYPE(IbnmRdmaDevice, ibnm_rdma_device, IBNM, RDMA_DEVICE, GObject)

/**
 * IBNM_RDMA_DEVICE_NAME:
 *
 * The name of the #IbnmRdmaDevice:name property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_NAME "name"
/**
 * IBNM_RDMA_DEVICE_NODE_GUID:
 *
 * The name of the #IbnmRdmaDevice:node-guid property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_NODE_GUID "node-guid"
/**
 * IBNM_RDMA_DEVICE_NODE_TYPE:
 *
 * The name of the #IbnmRdmaDevice:node-type property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_NODE_TYPE "node-type"
/**
 * IBNM_RDMA_DEVICE_FIRMWARE_VERSION:
 *
 * The name of the #IbnmRdmaDevice:firmware-version property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_FIRMWARE_VERSION "firmware-version"
/**
 * IBNM_RDMA_DEVICE_DRIVER:
 *
 * The name of the #IbnmRdmaDevice:driver property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_DRIVER "driver"
/**
 * IBNM_RDMA_DEVICE_HCA_TYPE:
 *
 * The name of the #IbnmRdmaDevice:hca-type property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_HCA_TYPE "hca-type"
/**
 * IBNM_RDMA_DEVICE_BOARD_ID:
 *
 * The name of the #IbnmRdmaDevice:board-id property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_BOARD_ID "board-id"
/**
 * IBNM_RDMA_DEVICE_ENHANCED_IPOIB:
 *
 * The name of the #IbnmRdmaDevice:enhanced-ipoib property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_ENHANCED_IPOIB "enhanced-ipoib"
/**
 * IBNM_RDMA_DEVICE_CONNECTED_MODE_SUPPORTED:
 *
 * The name of the #IbnmRdmaDevice:connected-mode-supported property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_CONNECTED_MODE_SUPPORTED "connected-mode-supported"
/**
 * IBNM_RDMA_DEVICE_ROCE_ENABLED:
 *
 * The name of the #IbnmRdmaDevice:roce-enabled property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_ROCE_ENABLED "roce-enabled"
/**
 * IBNM_RDMA_DEVICE_ROCE_LAG_BOND:
 *
 * The name of the #IbnmRdmaDevice:roce-lag-bond property.
 *
 * Since: 0.1
 */
#define IBNM_RDMA_DEVICE_ROCE_LAG_BOND "roce-lag-bond"

const char *ibnm_rdma_device_get_name(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_node_guid(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_node_type(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_firmware_version(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_driver(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_hca_type(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_board_id(IbnmRdmaDevice *self);
gboolean ibnm_rdma_device_get_enhanced_ipoib(IbnmRdmaDevice *self);
gboolean ibnm_rdma_device_get_connected_mode_supported(IbnmRdmaDevice *self);
gint ibnm_rdma_device_get_roce_enabled(IbnmRdmaDevice *self);
const char *ibnm_rdma_device_get_roce_lag_bond(IbnmRdmaDevice *self);
const char *const *ibnm_rdma_device_get_roce_lag_ports(IbnmRdmaDevice *self);
GPtrArray *ibnm_rdma_device_get_ports(IbnmRdmaDevice *self);
IbnmRdmaPort *ibnm_rdma_device_get_port(IbnmRdmaDevice *self, guint number);

/**
 * IbnmIpoibInterface:
 *
 * An IPoIB network interface: a port's interface or a P_Key child, with its
 * parent, P_Key, transport mode, MTU and addresses.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_IPOIB_INTERFACE (ibnm_ipoib_interface_get_type())
G_DECLARE_FINAL_TYPE(IbnmIpoibInterface, ibnm_ipoib_interface, IBNM, IPOIB_INTERFACE, GObject)

/**
 * IBNM_IPOIB_INTERFACE_NAME:
 *
 * The name of the #IbnmIpoibInterface:name property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_NAME "name"
/**
 * IBNM_IPOIB_INTERFACE_PARENT:
 *
 * The name of the #IbnmIpoibInterface:parent property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_PARENT "parent"
/**
 * IBNM_IPOIB_INTERFACE_P_KEY:
 *
 * The name of the #IbnmIpoibInterface:p-key property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_P_KEY "p-key"
/**
 * IBNM_IPOIB_INTERFACE_TRANSPORT_MODE:
 *
 * The name of the #IbnmIpoibInterface:transport-mode property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_TRANSPORT_MODE "transport-mode"
/**
 * IBNM_IPOIB_INTERFACE_UMCAST:
 *
 * The name of the #IbnmIpoibInterface:umcast property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_UMCAST "umcast"
/**
 * IBNM_IPOIB_INTERFACE_UP:
 *
 * The name of the #IbnmIpoibInterface:up property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_UP "up"
/**
 * IBNM_IPOIB_INTERFACE_MTU:
 *
 * The name of the #IbnmIpoibInterface:mtu property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_MTU "mtu"
/**
 * IBNM_IPOIB_INTERFACE_MAC_ADDRESS:
 *
 * The name of the #IbnmIpoibInterface:mac-address property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_MAC_ADDRESS "mac-address"
/**
 * IBNM_IPOIB_INTERFACE_PORT_GUID:
 *
 * The name of the #IbnmIpoibInterface:port-guid property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_PORT_GUID "port-guid"
/**
 * IBNM_IPOIB_INTERFACE_DHCP_CLIENT_ID:
 *
 * The name of the #IbnmIpoibInterface:dhcp-client-id property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_DHCP_CLIENT_ID "dhcp-client-id"
/**
 * IBNM_IPOIB_INTERFACE_RDMA_DEVICE:
 *
 * The name of the #IbnmIpoibInterface:rdma-device property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_RDMA_DEVICE "rdma-device"
/**
 * IBNM_IPOIB_INTERFACE_RDMA_PORT:
 *
 * The name of the #IbnmIpoibInterface:rdma-port property.
 *
 * Since: 0.1
 */
#define IBNM_IPOIB_INTERFACE_RDMA_PORT "rdma-port"

const char *ibnm_ipoib_interface_get_name(IbnmIpoibInterface *self);
const char *ibnm_ipoib_interface_get_parent(IbnmIpoibInterface *self);
guint ibnm_ipoib_interface_get_p_key(IbnmIpoibInterface *self);
const char *ibnm_ipoib_interface_get_transport_mode(IbnmIpoibInterface *self);
gboolean ibnm_ipoib_interface_get_umcast(IbnmIpoibInterface *self);
gboolean ibnm_ipoib_interface_get_up(IbnmIpoibInterface *self);
guint ibnm_ipoib_interface_get_mtu(IbnmIpoibInterface *self);
const char *ibnm_ipoib_interface_get_mac_address(IbnmIpoibInterface *self);
const char *ibnm_ipoib_interface_get_port_guid(IbnmIpoibInterface *self);
const char *ibnm_ipoib_interface_get_dhcp_client_id(IbnmIpoibInterface *self);
const char *ibnm_ipoib_interface_get_rdma_device(IbnmIpoibInterface *self);
guint ibnm_ipoib_interface_get_rdma_port(IbnmIpoibInterface *self);

/**
 * IbnmSoftLink:
 *
 * A soft RDMA link: an rxe (RoCE) or siw (iWARP) device over an Ethernet
 * netdev.
 *
 * Since: 0.1
 */
#define IBNM_TYPE_SOFT_LINK (ibnm_soft_link_get_type())
G_DECLARE_FINAL_TYPE(IbnmSoftLink, ibnm_soft_link, IBNM, SOFT_LINK, GObject)

/**
 * IBNM_SOFT_LINK_NAME:
 *
 * The name of the #IbnmSoftLink:name property.
 *
 * Since: 0.1
 */
#define IBNM_SOFT_LINK_NAME "name"
/**
 * IBNM_SOFT_LINK_LINK_TYPE:
 *
 * The name of the #IbnmSoftLink:link-type property.
 *
 * Since: 0.1
 */
#define IBNM_SOFT_LINK_LINK_TYPE "link-type"
/**
 * IBNM_SOFT_LINK_NETDEV:
 *
 * The name of the #IbnmSoftLink:netdev property.
 *
 * Since: 0.1
 */
#define IBNM_SOFT_LINK_NETDEV "netdev"

const char *ibnm_soft_link_get_name(IbnmSoftLink *self);
const char *ibnm_soft_link_get_link_type(IbnmSoftLink *self);
const char *ibnm_soft_link_get_netdev(IbnmSoftLink *self);

G_END_DECLS
