// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-host.h"

#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/platform/deadline-platform.hpp"
#include "libcore/support/file-lock.hpp"
#include "libcore/support/runtime-dir.h"
#include "libcore/platform/linux/linux-platform.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>

struct _IbnmHost {
    GObject parent_instance;
};

struct IbnmHostPrivate {
    std::unique_ptr<ibnm::platform::Platform> platform_;
    IbnmHostKind kind_ = IBNM_HOST_KIND_SYSTEM;
    std::string location_;
    // The construct-only "sysfs-root" ("" for this machine), and why it is
    // not a sysfs tree (reported by GInitable's init).
    std::string sysfsRoot_;
    std::optional<ibnm::Error> initError_;
    std::string runtimeDir_; // where ibnm keeps runtime state about this host
    std::map<std::string, std::string> memoryRecords_; // active connections, without runtimeDir_
    gint64 deadline_ = 0;
    // How long an apply waits for another's activation lock (seconds; 0:
    // not at all; -1: without a limit). nmcli waits 90 s for an activation.
    gint lockWait_ = 90;
};

enum { PROP_0, PROP_KIND, PROP_LOCATION, PROP_SYSFS_ROOT, N_PROPS };
static GParamSpec *props[N_PROPS];

// IbnmHost implements GInitable: bindings create a host with Gio.Initable,
// whose init reports a sysfs root that is no sysfs tree.
static void ibnm_host_initable_iface_init(GInitableIface *iface);

IBNM_DEFINE_TYPE_FULL(IbnmHost, ibnm_host, G_TYPE_OBJECT, G_TYPE_FLAG_FINAL,
                      G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, ibnm_host_initable_iface_init))

GType ibnm_host_kind_get_type(void)
{
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        static const GEnumValue values[] = {
            {IBNM_HOST_KIND_SYSTEM, "IBNM_HOST_KIND_SYSTEM", "system"},
            {IBNM_HOST_KIND_SYSFS_DUMP, "IBNM_HOST_KIND_SYSFS_DUMP", "sysfs-dump"},
            {IBNM_HOST_KIND_SIMULATED, "IBNM_HOST_KIND_SIMULATED", "simulated"},
            {0, nullptr, nullptr},
        };
        g_once_init_leave(&type, g_enum_register_static(g_intern_static_string("IbnmHostKind"), values));
    }
    return type;
}

namespace {

// A platform built elsewhere (hostNewFromPlatform(): the simulator, tests),
// handed to the next host constructed on this thread.
thread_local std::unique_ptr<ibnm::platform::Platform> pendingPlatform;
thread_local IbnmHostKind pendingKind = IBNM_HOST_KIND_SYSTEM;
thread_local std::string pendingLocation;
thread_local std::string pendingRuntimeDir;

} // namespace

static void ibnm_host_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_host_priv(object);
    switch (prop_id) {
    case PROP_KIND:
        g_value_set_enum(value, priv->kind_);
        break;
    case PROP_LOCATION:
        g_value_set_string(value, priv->location_.c_str());
        break;
    case PROP_SYSFS_ROOT:
        g_value_set_string(value, priv->sysfsRoot_.empty() ? nullptr : priv->sysfsRoot_.c_str());
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_host_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
    auto *priv = ibnm_host_priv(object);
    switch (prop_id) {
    case PROP_SYSFS_ROOT: {
        const char *root = g_value_get_string(value);
        priv->sysfsRoot_ = root ? root : "";
        break;
    }
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

// Every host has its platform once constructed, however it was created
// (g_object_new from a binding included): a platform handed over by
// hostNewFromPlatform(), a sysfs tree, or this machine. A sysfs root that is
// no sysfs tree is read as given (reads fail naming it) and reported by
// g_initable_init().
static void ibnm_host_constructed(GObject *object)
{
    G_OBJECT_CLASS(ibnm_host_parent_class)->constructed(object);
    auto *priv = ibnm_host_priv(object);
    if (pendingPlatform) {
        priv->platform_ = std::move(pendingPlatform);
        priv->kind_ = pendingKind;
        priv->location_ = std::move(pendingLocation);
        priv->runtimeDir_ = std::move(pendingRuntimeDir);
        return;
    }
    ibnm::platform::LinuxOptions options;
    if (!priv->sysfsRoot_.empty()) {
        priv->kind_ = IBNM_HOST_KIND_SYSFS_DUMP;
        auto dump = ibnm::platform::sysfsDumpOptions(priv->sysfsRoot_);
        if (dump.ok()) {
            options = *dump;
        } else {
            priv->initError_ = std::move(dump).error();
            options.sysfsRoot = priv->sysfsRoot_;
            options.configfsRoot = priv->sysfsRoot_ + "/kernel/config";
            options.readOnly = true;
            options.useNetlink = false;
            options.useVerbs = false;
        }
    }
    priv->location_ = options.sysfsRoot;
    // Runtime state, gone at reboot as what it describes (FHS /run); a sysfs
    // tree taken elsewhere has none.
    if (priv->kind_ == IBNM_HOST_KIND_SYSTEM)
        priv->runtimeDir_ = IBNM_RUNTIME_DIR;
    priv->platform_ = ibnm::platform::createLinuxPlatform(options);
}

// Why the host cannot be used (a sysfs root that is no sysfs tree): what
// GInitable's init reports.
static gboolean ibnm_host_check_init(IbnmHost *self, GError **error)
{
    auto *priv = ibnm_host_priv(self);
    if (priv->initError_) {
        ibnm::Error copy = *priv->initError_;
        std::move(copy).propagate(error);
        return FALSE;
    }
    return TRUE;
}

static gboolean ibnm_host_initable_init(GInitable *initable, GCancellable *, GError **error)
{
    return ibnm_host_check_init(IBNM_HOST(initable), error);
}

static void ibnm_host_initable_iface_init(GInitableIface *iface)
{
    iface->init = ibnm_host_initable_init;
}

static void ibnm_host_class_init_impl(IbnmHostClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->get_property = ibnm_host_get_property;
    object_class->set_property = ibnm_host_set_property;
    object_class->constructed = ibnm_host_constructed;
    /**
     * IbnmHost:kind:
     *
     * What the host is: this machine, a sysfs dump or a simulated host.
     *
     * Since: 0.1
     */
    props[PROP_KIND] = g_param_spec_enum(IBNM_HOST_KIND, nullptr, nullptr, IBNM_TYPE_HOST_KIND, IBNM_HOST_KIND_SYSTEM,
                                         GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    props[PROP_LOCATION] = g_param_spec_string(IBNM_HOST_LOCATION, nullptr, nullptr, nullptr,
                                               GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    /**
     * IbnmHost:sysfs-root:
     *
     * A sysfs tree taken elsewhere (it has class/), or the root of a tree
     * holding one under sys/ (an extracted sosreport): the host is then that
     * tree, read only. %NULL (the default) means this machine.
     *
     * Since: 0.1
     */
    props[PROP_SYSFS_ROOT] = g_param_spec_string(
        IBNM_HOST_SYSFS_ROOT, nullptr, nullptr, nullptr,
        GParamFlags(G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
    g_object_class_install_properties(object_class, N_PROPS, props);
}

namespace ibnm {

IbnmHost *hostNewFromPlatform(std::unique_ptr<platform::Platform> platform, IbnmHostKind kind,
                              const std::string &location, const std::string &runtimeDir)
{
    pendingPlatform = std::move(platform);
    pendingKind = kind;
    pendingLocation = location;
    pendingRuntimeDir = runtimeDir;
    return IBNM_HOST(g_object_new(IBNM_TYPE_HOST, nullptr));
}

platform::Platform &hostPlatform(IbnmHost *host)
{
    return *ibnm_host_priv(host)->platform_;
}

std::map<std::string, std::string> &hostMemoryRecords(IbnmHost *host)
{
    return ibnm_host_priv(host)->memoryRecords_;
}

int64_t hostLockDeadline(IbnmHost *host)
{
    return lockDeadline(ibnm_host_priv(host)->lockWait_);
}

std::unique_ptr<platform::Platform> hostDeadlinePlatform(IbnmHost *host)
{
    auto *priv = ibnm_host_priv(host);
    if (priv->deadline_ == 0)
        return nullptr;
    return std::make_unique<platform::DeadlinePlatform>(*priv->platform_, priv->deadline_);
}

} // namespace ibnm

// The private entry point of libibnm-simulator (node IBNM_PRIVATE of
// libibnm.ver): a host around a platform built elsewhere.
IbnmHost *ibnm_host_new_for_platform_private(void *platform, IbnmHostKind kind, const char *location,
                                             const char *runtime_dir)
{
    g_return_val_if_fail(platform != nullptr, nullptr);
    g_return_val_if_fail(location != nullptr, nullptr);
    std::unique_ptr<ibnm::platform::Platform> owned(static_cast<ibnm::platform::Platform *>(platform));
    return ibnm::hostNewFromPlatform(std::move(owned), kind, location, runtime_dir ? runtime_dir : "");
}

/**
 * ibnm_host_new_system:
 *
 * Creates the host for this machine: it reads and changes the running
 * kernel.
 *
 * Returns: (transfer full): this machine: /sys, rtnetlink, RDMA netlink and
 *   libibverbs.
 *
 * Since: 0.1
 */
IbnmHost *ibnm_host_new_system(void)
{
    return IBNM_HOST(g_object_new(IBNM_TYPE_HOST, nullptr));
}

/**
 * ibnm_host_new_sysfs_dump:
 * @root: a sysfs tree taken elsewhere (it has class/infiniband, class/net,
 *   ...), or the root of a tree holding one under sys/ (an extracted
 *   sosreport)
 * @error: return location for a #GError
 *
 * Creates a host for a sysfs tree copied from another machine, to inspect
 * and check profiles against it.
 *
 * Returns: (transfer full) (nullable): a read-only host (every change fails
 *   with %IBNM_ERROR_NOT_SUPPORTED), or NULL with @error set
 *   (%IBNM_ERROR_NOT_FOUND) when @root holds no sysfs tree.
 *
 * Since: 0.1
 */
IbnmHost *ibnm_host_new_sysfs_dump(const char *root, GError **error)
{
    g_return_val_if_fail(root != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    // g_initable_new() without GIO: constructed, then what init reports.
    auto *host = IBNM_HOST(g_object_new(IBNM_TYPE_HOST, IBNM_HOST_SYSFS_ROOT, root, nullptr));
    if (!ibnm_host_check_init(host, error)) {
        g_object_unref(host);
        return nullptr;
    }
    return host;
}

/**
 * ibnm_host_get_kind:
 * @self: an #IbnmHost
 *
 * Gets the #IbnmHost:kind property.
 *
 * Returns: what the host is.
 *
 * Since: 0.1
 */
IbnmHostKind ibnm_host_get_kind(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), IBNM_HOST_KIND_SYSTEM);
    return ibnm_host_priv(self)->kind_;
}

/**
 * ibnm_host_get_runtime_dir:
 * @self: an #IbnmHost
 *
 * Gets the directory of the host's runtime state.
 *
 * Returns: (transfer none) (nullable): where ibnm keeps runtime state about
 *   this host (its active connections, in active/): /run/ibnm for this machine,
 *   the state directory of a simulated host, %NULL for a sysfs dump (read
 *   only).
 *
 * Since: 0.1
 */
const char *ibnm_host_get_runtime_dir(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), nullptr);
    const std::string &d = ibnm_host_priv(self)->runtimeDir_;
    return d.empty() ? nullptr : d.c_str();
}

/**
 * IbnmHost:location:
 *
 * The sysfs root, or the host description file of a simulated host.
 *
 * Since: 0.1
 */
/**
 * ibnm_host_get_location:
 * @self: the object
 *
 * Gets the #IbnmHost:location property.
 *
 * Returns: (transfer none): the sysfs root, or the host description file of
 *   a simulated host.
 *
 * Since: 0.1
 */
const char *ibnm_host_get_location(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), nullptr);
    return ibnm_host_priv(self)->location_.c_str();
}

/**
 * ibnm_host_set_deadline:
 * @self: an #IbnmHost
 * @deadline: a g_get_monotonic_time() value, or 0 for none
 *
 * Bounds ibnm_apply_up() and ibnm_apply_down() on this host (not
 * ibnm_apply_host_files(), which writes files, not the kernel): once
 * @deadline has passed, the next change fails with
 * %IBNM_ERROR_TIMED_OUT before it reaches the kernel, and the apply undoes
 * what it did, as after any failure, so the host ends as before. A change
 * already under way is not interrupted.
 *
 * Since: 0.1
 */
void ibnm_host_set_deadline(IbnmHost *self, gint64 deadline)
{
    g_return_if_fail(IBNM_IS_HOST(self));
    g_return_if_fail(deadline >= 0);
    ibnm_host_priv(self)->deadline_ = deadline;
}

/**
 * ibnm_host_get_deadline:
 * @self: an #IbnmHost
 *
 * Gets the deadline set with ibnm_host_set_deadline().
 *
 * Returns: the deadline, a g_get_monotonic_time() value, or 0 for none.
 *
 * Since: 0.1
 */
gint64 ibnm_host_get_deadline(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), 0);
    return ibnm_host_priv(self)->deadline_;
}

/**
 * ibnm_host_set_lock_wait:
 * @self: an #IbnmHost
 * @seconds: how long to wait, 0 for not at all, -1 for without a limit
 *
 * Bounds how long ibnm_apply_up(), ibnm_apply_down() and
 * ibnm_apply_host_files() on this host wait while another process
 * activates (it holds the host's activation lock). After @seconds the apply
 * fails with %IBNM_ERROR_TIMED_OUT, naming that process (pid and command),
 * and changes nothing. The default is 90 seconds, the time `nmcli
 * connection up` waits.
 *
 * Since: 0.1
 */
void ibnm_host_set_lock_wait(IbnmHost *self, gint seconds)
{
    g_return_if_fail(IBNM_IS_HOST(self));
    g_return_if_fail(seconds >= -1);
    ibnm_host_priv(self)->lockWait_ = seconds;
}

/**
 * ibnm_host_get_lock_wait:
 * @self: an #IbnmHost
 *
 * Gets the time set with ibnm_host_set_lock_wait().
 *
 * Returns: the seconds an apply waits for another's activation lock, 0 for
 *   not at all, -1 for without a limit
 *
 * Since: 0.1
 */
gint ibnm_host_get_lock_wait(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), 0);
    return ibnm_host_priv(self)->lockWait_;
}
