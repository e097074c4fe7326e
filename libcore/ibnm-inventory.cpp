// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-inventory.h"

#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <cstring>
#include <string>
#include <vector>

struct _IbnmInventory {
    GObject parent_instance;
};

struct IbnmInventoryPrivate {
    ibnm::GObjectPtr<IbnmHost> host_;
    ibnm::model::Host model_;
    ibnm::GPtrArrayPtr devices_{g_ptr_array_new_with_free_func(g_object_unref)};
    ibnm::GPtrArrayPtr ipoib_{g_ptr_array_new_with_free_func(g_object_unref)};
    ibnm::GPtrArrayPtr softLinks_{g_ptr_array_new_with_free_func(g_object_unref)};
    // NULL-terminated view of the device names handed out by get_device_names().
    std::vector<const char *> names_{nullptr};

    void setModel(ibnm::model::Host host)
    {
        model_ = std::move(host);
        devices_.reset(g_ptr_array_new_with_free_func(g_object_unref));
        ipoib_.reset(g_ptr_array_new_with_free_func(g_object_unref));
        softLinks_.reset(g_ptr_array_new_with_free_func(g_object_unref));
        names_.clear();
        ibnm::HostIndex index(model_);
        for (const auto &d : model_.devices) {
            g_ptr_array_add(devices_.get(), ibnm::rdmaDeviceNew(d, index));
            names_.push_back(d.name.c_str());
        }
        names_.push_back(nullptr);
        for (const auto &ib : model_.ipoib)
            g_ptr_array_add(ipoib_.get(), ibnm::ipoibInterfaceNew(ib, model_));
        for (const auto &l : model_.softLinks)
            g_ptr_array_add(softLinks_.get(), ibnm::softLinkNew(l));
    }
};

enum { PROP_0, PROP_HOST, N_PROPS };
static GParamSpec *props[N_PROPS];

IBNM_DEFINE_FINAL_TYPE(IbnmInventory, ibnm_inventory, G_TYPE_OBJECT)

static void ibnm_inventory_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_inventory_priv(object);
    switch (prop_id) {
    case PROP_HOST:
        priv->host_ = ibnm::GObjectPtr<IbnmHost>::retain(static_cast<IbnmHost *>(g_value_get_object(value)));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_inventory_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_inventory_priv(object);
    switch (prop_id) {
    case PROP_HOST:
        g_value_set_object(value, priv->host_.get());
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_inventory_class_init_impl(IbnmInventoryClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->set_property = ibnm_inventory_set_property;
    object_class->get_property = ibnm_inventory_get_property;

    props[PROP_HOST] = g_param_spec_object(IBNM_INVENTORY_HOST, nullptr, nullptr, IBNM_TYPE_HOST,
                                           GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                                       G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY));
    g_object_class_install_properties(object_class, N_PROPS, props);
}

/**
 * ibnm_inventory_new:
 * @host: the host to read
 *
 * Creates an inventory of @host. It is empty until the first
 * ibnm_inventory_reload().
 *
 * Returns: (transfer full): an empty inventory of @host; call
 *   ibnm_inventory_reload().
 *
 * Since: 0.1
 */
IbnmInventory *ibnm_inventory_new(IbnmHost *host)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    return IBNM_INVENTORY(g_object_new(IBNM_TYPE_INVENTORY, IBNM_INVENTORY_HOST, host, nullptr));
}

/**
 * IbnmInventory:host:
 *
 * The host, or NULL for an inventory made from a snapshot.
 *
 * Since: 0.1
 */
/**
 * ibnm_inventory_get_host:
 * @self: the object
 *
 * Gets the #IbnmInventory:host property.
 *
 * Returns: (transfer none) (nullable): the host, or NULL for an inventory
 *   made from a snapshot.
 *
 * Since: 0.1
 */
IbnmHost *ibnm_inventory_get_host(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return ibnm_inventory_priv(self)->host_.get();
}

// The public functions check their arguments, so that a critical names the
// function the caller called.
static gboolean reload(IbnmInventory *self, bool gidTablesOnly, GError **error)
{
    auto *priv = ibnm_inventory_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        if (!priv->host_)
            return ibnm::Error(IBNM_ERROR_NOT_SUPPORTED, _("this inventory is a snapshot without a host"));
        auto &platform = ibnm::hostPlatform(priv->host_.get());
        auto host = gidTablesOnly ? platform.readGidTables() : platform.readHost();
        if (!host.ok())
            return std::move(host).error();
        priv->setModel(std::move(host).value());
        return {};
    });
}

gboolean ibnm::inventoryReloadGidTablesIf(IbnmInventory *self, const std::function<bool(const model::Host &)> &needed,
                                          GError **error, bool withResolver)
{
    return inventoryReloadGidTablesIf(self, needed, {}, error, withResolver);
}

gboolean ibnm::inventoryReloadGidTablesIf(IbnmInventory *self, const std::function<bool(const model::Host &)> &needed,
                                          const std::function<void(model::Host &)> &adjust, GError **error,
                                          bool withResolver)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), FALSE);
    auto *priv = ibnm_inventory_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        if (!priv->host_)
            return ibnm::Error(IBNM_ERROR_NOT_SUPPORTED, _("this inventory is a snapshot without a host"));
        auto &platform = ibnm::hostPlatform(priv->host_.get());
        auto host = platform.readHostWithoutGidTables();
        if (host.ok() && !host->withGidTables && needed(*host))
            host = platform.readHost();
        if (!host.ok())
            return std::move(host).error();
        if (withResolver)
            if (auto resolver = platform.readResolver(); resolver.ok())
                host->resolver = std::move(resolver).value();
        if (adjust)
            adjust(*host);
        priv->setModel(std::move(host).value());
        return {};
    });
}

/**
 * ibnm_inventory_reload:
 * @self: an #IbnmInventory
 * @error: return location for a #GError
 *
 * Reads the host again. On failure the previous contents stay. Objects
 * handed out before stay valid (they are snapshots) but are not updated.
 *
 * Returns: %TRUE on success; %FALSE with @error set when the host cannot be
 *   read
 *
 * Since: 0.1
 */
gboolean ibnm_inventory_reload(IbnmInventory *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return reload(self, false, error);
}

/**
 * ibnm_inventory_reload_gid_tables:
 * @self: an #IbnmInventory
 * @error: return location for a #GError
 *
 * Reads only the RDMA devices, their ports and GID tables (each #IbnmGid
 * with its type and netdev), the way `ibnm rdma gid show` does: on a host
 * with many devices and netdevs this reads a fraction of what
 * ibnm_inventory_reload() reads. Afterwards the devices' and ports' other
 * attributes may be unset and the IPoIB interfaces and soft links may be
 * empty. On failure the previous contents stay.
 *
 * Returns: %TRUE on success; %FALSE with @error set when the host cannot be
 *   read
 *
 * Since: 0.1
 */
gboolean ibnm_inventory_reload_gid_tables(IbnmInventory *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return reload(self, true, error);
}

/**
 * ibnm_inventory_get_device_names:
 * @self: an #IbnmInventory
 *
 * Gets the names of the RDMA devices (mlx5_0, rxe0, ...).
 *
 * Returns: (transfer none) (array zero-terminated=1): the RDMA device names,
 *   in the order the host lists them; valid until the next reload.
 *
 * Since: 0.1
 */
const char *const *ibnm_inventory_get_device_names(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return ibnm_inventory_priv(self)->names_.data();
}

static GPtrArray *copyArray(GPtrArray *a)
{
    GPtrArray *out = g_ptr_array_new_full(a->len, g_object_unref);
    for (guint i = 0; i < a->len; i++)
        g_ptr_array_add(out, g_object_ref(g_ptr_array_index(a, i)));
    return out;
}

/**
 * ibnm_inventory_get_devices:
 * @self: an #IbnmInventory
 *
 * Gets the RDMA devices, in the order the host lists them.
 *
 * Returns: (transfer container) (element-type IbnmRdmaDevice): the RDMA
 *   devices; the array holds a reference on each, free it with
 *   g_ptr_array_unref().
 *
 * Since: 0.1
 */
GPtrArray *ibnm_inventory_get_devices(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return copyArray(ibnm_inventory_priv(self)->devices_.get());
}

/**
 * ibnm_inventory_find_device:
 * @self: an #IbnmInventory
 * @name: an RDMA device name
 *
 * Looks up an RDMA device by name.
 *
 * Returns: (transfer none) (nullable): the device, or %NULL when there is
 *   none of that name; valid until the next reload (take a reference to
 *   keep it).
 *
 * Since: 0.1
 */
IbnmRdmaDevice *ibnm_inventory_find_device(IbnmInventory *self, const char *name)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    g_return_val_if_fail(name != nullptr, nullptr);
    GPtrArray *a = ibnm_inventory_priv(self)->devices_.get();
    for (guint i = 0; i < a->len; i++) {
        auto *d = IBNM_RDMA_DEVICE(g_ptr_array_index(a, i));
        if (std::strcmp(ibnm_rdma_device_get_name(d), name) == 0)
            return d;
    }
    return nullptr;
}

/**
 * ibnm_inventory_get_ipoib_interfaces:
 * @self: an #IbnmInventory
 *
 * Gets the IPoIB interfaces the host has.
 *
 * Returns: (transfer container) (element-type IbnmIpoibInterface): the IPoIB
 *   netdevs (port interfaces and P_Key children); free with g_ptr_array_unref().
 *
 * Since: 0.1
 */
GPtrArray *ibnm_inventory_get_ipoib_interfaces(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return copyArray(ibnm_inventory_priv(self)->ipoib_.get());
}

/**
 * ibnm_inventory_find_ipoib_interface:
 * @self: an #IbnmInventory
 * @name: an interface name
 *
 * Looks up an IPoIB interface by name.
 *
 * Returns: (transfer none) (nullable): the IPoIB netdev @name, or %NULL
 *   when the host has no IPoIB interface of that name; valid until the
 *   next reload.
 *
 * Since: 0.1
 */
IbnmIpoibInterface *ibnm_inventory_find_ipoib_interface(IbnmInventory *self, const char *name)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    g_return_val_if_fail(name != nullptr, nullptr);
    GPtrArray *a = ibnm_inventory_priv(self)->ipoib_.get();
    for (guint i = 0; i < a->len; i++) {
        auto *ib = IBNM_IPOIB_INTERFACE(g_ptr_array_index(a, i));
        if (std::strcmp(ibnm_ipoib_interface_get_name(ib), name) == 0)
            return ib;
    }
    return nullptr;
}

/**
 * ibnm_inventory_get_soft_links:
 * @self: an #IbnmInventory
 *
 * Gets the soft RDMA links (rxe: RoCE over Ethernet, siw: iWARP over TCP).
 *
 * Returns: (transfer container) (element-type IbnmSoftLink): the rxe and siw
 *   links; free with g_ptr_array_unref().
 *
 * Since: 0.1
 */
GPtrArray *ibnm_inventory_get_soft_links(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return copyArray(ibnm_inventory_priv(self)->softLinks_.get());
}

/**
 * ibnm_inventory_find_port_for_netdev:
 * @self: an #IbnmInventory
 * @netdev: an interface name
 *
 * The netdev -> RDMA port map (gid_attrs/ndevs, device/infiniband).
 *
 * Returns: (transfer none) (nullable): the RDMA port behind @netdev, valid
 *   until the next reload.
 *
 * Since: 0.1
 */
IbnmRdmaPort *ibnm_inventory_find_port_for_netdev(IbnmInventory *self, const char *netdev)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    g_return_val_if_fail(netdev != nullptr, nullptr);
    GPtrArray *a = ibnm_inventory_priv(self)->devices_.get();
    for (guint i = 0; i < a->len; i++) {
        GPtrArray *ports = ibnm_rdma_device_get_ports(IBNM_RDMA_DEVICE(g_ptr_array_index(a, i)));
        for (guint j = 0; j < ports->len; j++) {
            auto *port = IBNM_RDMA_PORT(g_ptr_array_index(ports, j));
            for (const char *const *n = ibnm_rdma_port_get_netdevs(port); *n; n++)
                if (std::strcmp(*n, netdev) == 0)
                    return port;
        }
    }
    return nullptr;
}

/**
 * ibnm_inventory_get_kernel_release:
 * @self: an #IbnmInventory
 *
 * Gets the kernel release of the host (`uname -r`), as read at the last reload.
 *
 * Returns: (transfer none) (nullable): the host's kernel release, if known.
 *
 * Since: 0.1
 */
const char *ibnm_inventory_get_kernel_release(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    const auto &k = ibnm_inventory_priv(self)->model_.kernelRelease;
    return k.empty() ? nullptr : k.c_str();
}

/**
 * ibnm_inventory_has_rdma_netlink:
 * @self: an #IbnmInventory
 *
 * Whether the host's kernel has RDMA netlink (NETLINK_RDMA, which `rdma
 * link show` and soft RDMA links need), as read at the last reload.
 *
 * Returns: %FALSE when opening the RDMA netlink socket failed because the
 *   kernel has none; %TRUE otherwise (also when it was not tried).
 *
 * Since: 0.1
 */
gboolean ibnm_inventory_has_rdma_netlink(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), TRUE);
    return ibnm_inventory_priv(self)->model_.rdmaNetlink.value_or(true);
}

/**
 * ibnm_inventory_get_egress_qos_map:
 * @self: an #IbnmInventory
 * @netdev: the name of a network interface
 *
 * Gets the egress-qos-map of the VLAN interface @netdev (IFLA_VLAN_EGRESS_QOS:
 * skb priority to 802.1Q priority, PCP), as `ip -d link show` prints it
 * inside `egress-qos-map { }`: "FROM:TO" pairs separated by spaces, by
 * priority, as read at the last reload.
 *
 * Returns: (transfer full) (nullable): the map ("3:3"), or %NULL when @netdev
 *   is not on the host or maps no priority.
 *
 * Since: 0.1
 */
char *ibnm_inventory_get_egress_qos_map(IbnmInventory *self, const char *netdev)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    g_return_val_if_fail(netdev != nullptr, nullptr);
    const ibnm::model::Netdev *nd = ibnm_inventory_priv(self)->model_.findNetdev(netdev);
    if (nd == nullptr || nd->egressQosMap.empty())
        return nullptr;
    std::string out;
    for (const auto &[from, to] : nd->egressQosMap)
        out += (out.empty() ? "" : " ") + std::to_string(from) + ":" + std::to_string(to);
    return g_strdup(out.c_str());
}

/**
 * ibnm_inventory_get_pfc_enabled:
 * @self: an #IbnmInventory
 * @netdev: the name of a network interface
 *
 * Gets the IEEE 802.1Qbb PFC state of @netdev as DCB netlink reports it
 * (struct ieee_pfc's pfc_en, what `dcb pfc show dev NETDEV` prints as
 * prio-pfc), as read at the last reload.
 *
 * Returns: the bitmap of the priorities PFC makes lossless (bit n for
 *   priority n), or -1 when @netdev is not on the host or answers no DCB
 *   request.
 *
 * Since: 0.1
 */
gint ibnm_inventory_get_pfc_enabled(IbnmInventory *self, const char *netdev)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), -1);
    g_return_val_if_fail(netdev != nullptr, -1);
    const ibnm::model::Netdev *nd = ibnm_inventory_priv(self)->model_.findNetdev(netdev);
    return nd && nd->pfcEnabled ? gint(*nd->pfcEnabled) : -1;
}

namespace ibnm {

const model::Host &inventoryHost(IbnmInventory *inventory)
{
    return ibnm_inventory_priv(inventory)->model_;
}

IbnmInventory *inventoryNewFromHost(model::Host host)
{
    IbnmInventory *inv = IBNM_INVENTORY(g_object_new(IBNM_TYPE_INVENTORY, nullptr));
    ibnm_inventory_priv(inv)->setModel(std::move(host));
    return inv;
}

} // namespace ibnm
