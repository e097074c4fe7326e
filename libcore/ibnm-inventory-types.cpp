// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-inventory-types.h"

#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// One row per read-only property: its name and the getter that gives its
// value (exactly one getter set). Property ids are row index + 1.
template <typename T>
struct Prop {
    const char *name;
    const char *(*str)(T *);
    guint (*uns)(T *);
    gint (*sig)(T *);
    gint64 (*i64)(T *);
    gboolean (*boo)(T *);
    gint (*enm)(T *);
    GType (*etype)(void);
};

template <typename T>
constexpr Prop<T> strProp(const char *n, const char *(*f)(T *))
{
    return {n, f, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> uintProp(const char *n, guint (*f)(T *))
{
    return {n, nullptr, f, nullptr, nullptr, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> intProp(const char *n, gint (*f)(T *))
{
    return {n, nullptr, nullptr, f, nullptr, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> int64Prop(const char *n, gint64 (*f)(T *))
{
    return {n, nullptr, nullptr, nullptr, f, nullptr, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> boolProp(const char *n, gboolean (*f)(T *))
{
    return {n, nullptr, nullptr, nullptr, nullptr, f, nullptr, nullptr};
}
template <typename T>
constexpr Prop<T> enumProp(const char *n, gint (*f)(T *), GType (*type)(void))
{
    return {n, nullptr, nullptr, nullptr, nullptr, nullptr, f, type};
}

template <typename T, size_t N>
void installProps(GObjectClass *klass, const Prop<T> (&table)[N])
{
    auto flags = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
    for (size_t i = 0; i < N; i++) {
        const auto &p = table[i];
        GParamSpec *spec;
        if (p.str)
            spec = g_param_spec_string(p.name, nullptr, nullptr, nullptr, flags);
        else if (p.uns)
            spec = g_param_spec_uint(p.name, nullptr, nullptr, 0, G_MAXUINT, 0, flags);
        else if (p.sig)
            spec = g_param_spec_int(p.name, nullptr, nullptr, -1, G_MAXINT, -1, flags);
        else if (p.i64)
            spec = g_param_spec_int64(p.name, nullptr, nullptr, -1, G_MAXINT64, -1, flags);
        else if (p.enm)
            spec = g_param_spec_enum(p.name, nullptr, nullptr, p.etype(), 0, flags);
        else
            spec = g_param_spec_boolean(p.name, nullptr, nullptr, FALSE, flags);
        g_object_class_install_property(klass, static_cast<guint>(i + 1), spec);
    }
}

template <typename T, size_t N>
void getProp(const Prop<T> (&table)[N], GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    if (id == 0 || id > N) {
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        return;
    }
    const auto &p = table[id - 1];
    T *self = reinterpret_cast<T *>(object);
    if (p.str)
        g_value_set_string(value, p.str(self));
    else if (p.uns)
        g_value_set_uint(value, p.uns(self));
    else if (p.sig)
        g_value_set_int(value, p.sig(self));
    else if (p.i64)
        g_value_set_int64(value, p.i64(self));
    else if (p.enm)
        g_value_set_enum(value, p.enm(self));
    else
        g_value_set_boolean(value, p.boo(self));
}

const char *nullIfEmpty(const std::string &s)
{
    return s.empty() ? nullptr : s.c_str();
}

ibnm::GPtrArrayPtr newObjectArray()
{
    return ibnm::GPtrArrayPtr(g_ptr_array_new_with_free_func(g_object_unref));
}

} // namespace

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

// --- IbnmIpoibInterface ---------------------------------------------------------------------

struct _IbnmIpoibInterface {
    GObject parent_instance;
};

struct IbnmIpoibInterfacePrivate {
    ibnm::model::IpoibNetdev ipoib_;
    std::string dhcpClientId_;
    std::string rdmaDevice_;
    unsigned rdmaPort_ = 0;
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
    return ib.mode == ibnm::model::IpoibMode::Connected ? "connected" : "datagram";
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
    return ibnm_soft_link_priv(self)->link_.type == ibnm::model::SoftLinkType::Rxe ? "rxe" : "siw";
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

// --- constructors ------------------------------------------------------------------------------

namespace ibnm {

IbnmGid *gidNew(const model::Gid &gid)
{
    IbnmGid *obj = IBNM_GID(g_object_new(IBNM_TYPE_GID, nullptr));
    auto *priv = ibnm_gid_priv(obj);
    priv->gid_ = gid;
    static const std::string mapped = "0000:0000:0000:0000:0000:ffff:";
    unsigned a, b, c, d;
    if (gid.gid.compare(0, mapped.size(), mapped) == 0 &&
        std::sscanf(gid.gid.c_str() + mapped.size(), "%2x%2x:%2x%2x", &a, &b, &c, &d) == 4)
        priv->ipv4_ = strprintf("%u.%u.%u.%u", a, b, c, d);
    return obj;
}

IbnmRdmaDevice *rdmaDeviceNew(const model::Device &device, const model::Host &host)
{
    IbnmRdmaDevice *obj = IBNM_RDMA_DEVICE(g_object_new(IBNM_TYPE_RDMA_DEVICE, nullptr));
    auto *priv = ibnm_rdma_device_priv(obj);
    priv->device_ = device;
    for (const auto &lag : model::roceLags(host))
        if (lag.device == device.name) {
            priv->lagBond_ = lag.bond;
            priv->lagPorts_ = lag.ports;
        }
    priv->lagPortsView_.clear();
    for (const auto &p : priv->lagPorts_)
        priv->lagPortsView_.push_back(p.c_str());
    priv->lagPortsView_.push_back(nullptr);
    for (const auto &p : device.ports) {
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
        for (const auto &n : host.netdevs)
            if (n.rdmaDevice == device.name && n.rdmaPort == p.number)
                addNetdev(n.name);
        for (const auto &l : host.softLinks)
            if (l.name == device.name && p.number == 1)
                addNetdev(l.netdev);
        pp->netdevView_.clear();
        for (const auto &n : pp->netdevs_)
            pp->netdevView_.push_back(n.c_str());
        pp->netdevView_.push_back(nullptr);
        const model::SoftLink *soft = model::findSoftLink(host, device.name);
        pp->roceMode_ = p.defaultRoceMode ? *p.defaultRoceMode
                                          : model::kernelDefaultRoceMode(soft ? std::optional(soft->type) : std::nullopt,
                                                                         p.linkLayer);
        for (const auto &r : p.tcRules)
            pp->rules_.push_back(model::formatTcRule(r));
        pp->rulesView_.clear();
        for (const auto &r : pp->rules_)
            pp->rulesView_.push_back(r.c_str());
        pp->rulesView_.push_back(nullptr);
        g_ptr_array_add(priv->ports_.get(), port);
    }
    return obj;
}

IbnmIpoibInterface *ipoibInterfaceNew(const model::IpoibNetdev &ipoib, const model::Host &host)
{
    IbnmIpoibInterface *obj = IBNM_IPOIB_INTERFACE(g_object_new(IBNM_TYPE_IPOIB_INTERFACE, nullptr));
    auto *priv = ibnm_ipoib_interface_priv(obj);
    priv->ipoib_ = ipoib;
    priv->dhcpClientId_ = model::dhcpClientId(ipoib.address);
    if (const auto *n = host.findNetdev(ipoib.name)) {
        priv->rdmaDevice_ = n->rdmaDevice;
        priv->rdmaPort_ = n->rdmaPort;
    }
    return obj;
}

IbnmSoftLink *softLinkNew(const model::SoftLink &link)
{
    IbnmSoftLink *obj = IBNM_SOFT_LINK(g_object_new(IBNM_TYPE_SOFT_LINK, nullptr));
    ibnm_soft_link_priv(obj)->link_ = link;
    return obj;
}

} // namespace ibnm
