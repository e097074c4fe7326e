// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-inventory.h"

#include "libcore/internal/boundary.hpp"
#include "libcore/internal/gobject.hpp"
#include "libcore/internal/i18n.hpp"
#include "libcore/internal/inventory-private.hpp"
#include "libcore/internal/raii.hpp"
#include "libcore/internal/result.hpp"

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include <dirent.h>

struct _IbnmInventory {
    GObject parent_instance;
};

struct IbnmInventoryPrivate {
    std::string sysfsRoot_ = "/sys";
    ibnm::model::Host host_;
    std::vector<std::string> names_;
    // NULL-terminated view of names_ handed out by get_device_names().
    std::vector<const char *> view_{nullptr};
};

enum { PROP_0, PROP_SYSFS_ROOT, N_PROPS };
static GParamSpec *props[N_PROPS];

IBNM_DEFINE_FINAL_TYPE(IbnmInventory, ibnm_inventory, G_TYPE_OBJECT)

namespace {

// Lists the RDMA devices under <root>/class/infiniband. A missing directory
// means no RDMA core is loaded: an empty inventory, not an error.
ibnm::Result<std::vector<std::string>> listDevices(const std::string &root)
{
    std::string dir = root + "/class/infiniband";
    std::vector<std::string> names;
    DIR *d = opendir(dir.c_str());
    if (d == nullptr) {
        if (errno == ENOENT)
            return names;
        return ibnm::Error::fromErrno(errno, dir);
    }
    std::unique_ptr<DIR, ibnm::FnDeleter<closedir>> guard(d);
    errno = 0;
    while (dirent *e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        names.emplace_back(e->d_name);
    }
    if (errno != 0)
        return ibnm::Error::fromErrno(errno, dir);
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

static void ibnm_inventory_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_inventory_priv(object);
    switch (prop_id) {
    case PROP_SYSFS_ROOT: {
        const char *root = g_value_get_string(value);
        priv->sysfsRoot_ = root ? root : "/sys";
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_inventory_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_inventory_priv(object);
    switch (prop_id) {
    case PROP_SYSFS_ROOT:
        g_value_set_string(value, priv->sysfsRoot_.c_str());
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

    props[PROP_SYSFS_ROOT] =
        g_param_spec_string(IBNM_INVENTORY_SYSFS_ROOT, nullptr, nullptr, "/sys",
                            GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS |
                                        G_PARAM_EXPLICIT_NOTIFY));
    g_object_class_install_properties(object_class, N_PROPS, props);
}

/**
 * ibnm_inventory_new:
 * @sysfs_root: (nullable): the directory sysfs is mounted on; NULL means
 *   `$IBNM_SYSFS_ROOT` if set, else `/sys`
 *
 * Returns: (transfer full): an empty inventory; call ibnm_inventory_reload().
 */
IbnmInventory *ibnm_inventory_new(const char *sysfs_root)
{
    if (sysfs_root == nullptr)
        sysfs_root = g_getenv("IBNM_SYSFS_ROOT");
    return IBNM_INVENTORY(g_object_new(IBNM_TYPE_INVENTORY, IBNM_INVENTORY_SYSFS_ROOT, sysfs_root, nullptr));
}

const char *ibnm_inventory_get_sysfs_root(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return ibnm_inventory_priv(self)->sysfsRoot_.c_str();
}

/**
 * ibnm_inventory_reload:
 *
 * Reads the host's RDMA devices again. On failure the previous contents stay.
 */
gboolean ibnm_inventory_reload(IbnmInventory *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_inventory_priv(self);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        auto names = listDevices(priv->sysfsRoot_);
        if (!names.ok())
            return std::move(names).error();
        priv->names_ = std::move(names).value();
        priv->host_ = {};
        for (const auto &n : priv->names_) {
            ibnm::model::Device d;
            d.name = n;
            priv->host_.devices.push_back(std::move(d));
        }
        priv->view_.clear();
        for (const auto &n : priv->names_)
            priv->view_.push_back(n.c_str());
        priv->view_.push_back(nullptr);
        return {};
    });
}

/**
 * ibnm_inventory_get_device_names:
 *
 * Returns: (transfer none) (array zero-terminated=1): the RDMA device names,
 *   sorted; valid until the next reload.
 */
const char *const *ibnm_inventory_get_device_names(IbnmInventory *self)
{
    g_return_val_if_fail(IBNM_IS_INVENTORY(self), nullptr);
    return ibnm_inventory_priv(self)->view_.data();
}

namespace ibnm {

const model::Host &inventoryHost(IbnmInventory *inventory)
{
    return ibnm_inventory_priv(inventory)->host_;
}

IbnmInventory *inventoryNewFromHost(model::Host host)
{
    IbnmInventory *inv = IBNM_INVENTORY(g_object_new(IBNM_TYPE_INVENTORY, nullptr));
    auto *priv = ibnm_inventory_priv(inv);
    priv->host_ = std::move(host);
    priv->names_.clear();
    for (const auto &d : priv->host_.devices)
        priv->names_.push_back(d.name);
    priv->view_.clear();
    for (const auto &n : priv->names_)
        priv->view_.push_back(n.c_str());
    priv->view_.push_back(nullptr);
    return inv;
}

} // namespace ibnm
