// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-host.h"

#include "libcore/internal/boundary.hpp"
#include "libcore/internal/gobject.hpp"
#include "libcore/internal/host-private.hpp"
#include "libcore/internal/i18n.hpp"
#include "libcore/platform/deadline-platform.hpp"
#include "libcore/platform/fake-platform.hpp"
#include "libcore/platform/linux-platform.hpp"

#include <memory>
#include <string>

struct _IbnmHost {
    GObject parent_instance;
};

struct IbnmHostPrivate {
    std::unique_ptr<ibnm::platform::Platform> platform_;
    IbnmHostKind kind_ = IBNM_HOST_KIND_SYSTEM;
    std::string location_;
    std::string runtimeDir_; // where ibnm keeps runtime state about this host
    gint64 deadline_ = 0;
};

enum { PROP_0, PROP_KIND, PROP_LOCATION, N_PROPS };
static GParamSpec *props[N_PROPS];

IBNM_DEFINE_FINAL_TYPE(IbnmHost, ibnm_host, G_TYPE_OBJECT)

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
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_host_class_init_impl(IbnmHostClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->get_property = ibnm_host_get_property;
    props[PROP_KIND] = g_param_spec_enum(IBNM_HOST_KIND, nullptr, nullptr, IBNM_TYPE_HOST_KIND, IBNM_HOST_KIND_SYSTEM,
                                         GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    props[PROP_LOCATION] = g_param_spec_string(IBNM_HOST_LOCATION, nullptr, nullptr, nullptr,
                                               GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    g_object_class_install_properties(object_class, N_PROPS, props);
}

namespace ibnm {

IbnmHost *hostNewFromPlatform(std::unique_ptr<platform::Platform> platform, IbnmHostKind kind,
                              const std::string &location)
{
    IbnmHost *host = IBNM_HOST(g_object_new(IBNM_TYPE_HOST, nullptr));
    auto *priv = ibnm_host_priv(host);
    priv->platform_ = std::move(platform);
    priv->kind_ = kind;
    priv->location_ = location;
    return host;
}

platform::Platform &hostPlatform(IbnmHost *host)
{
    return *ibnm_host_priv(host)->platform_;
}

std::unique_ptr<platform::Platform> hostDeadlinePlatform(IbnmHost *host)
{
    auto *priv = ibnm_host_priv(host);
    if (priv->deadline_ == 0)
        return nullptr;
    return std::make_unique<platform::DeadlinePlatform>(*priv->platform_, priv->deadline_);
}

platform::FakePlatform *hostFakePlatform(IbnmHost *host)
{
    auto *priv = ibnm_host_priv(host);
    if (priv->kind_ != IBNM_HOST_KIND_SIMULATED)
        return nullptr;
    return static_cast<platform::FakePlatform *>(priv->platform_.get());
}

} // namespace ibnm

/**
 * ibnm_host_new_system:
 *
 * Returns: (transfer full): this machine: /sys, rtnetlink, RDMA netlink and
 *   libibverbs.
 */
IbnmHost *ibnm_host_new_system(void)
{
    ibnm::platform::LinuxOptions options;
    IbnmHost *host = ibnm::hostNewFromPlatform(ibnm::platform::createLinuxPlatform(options), IBNM_HOST_KIND_SYSTEM,
                                               options.sysfsRoot);
    // Runtime state, gone at reboot as what it describes (FHS /run).
    ibnm_host_priv(host)->runtimeDir_ = "/run/ibnm";
    return host;
}

/**
 * ibnm_host_new_sysfs_dump:
 * @root: a sysfs tree taken elsewhere (it has class/infiniband, class/net,
 *   ...), or the root of a tree holding one under sys/ (an extracted
 *   sosreport)
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a read-only host (every change fails
 *   with %IBNM_ERROR_NOT_SUPPORTED), or NULL with @error set
 *   (%IBNM_ERROR_NOT_FOUND) when @root holds no sysfs tree.
 */
IbnmHost *ibnm_host_new_sysfs_dump(const char *root, GError **error)
{
    g_return_val_if_fail(root != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    auto options = ibnm::platform::sysfsDumpOptions(root);
    if (!options.ok()) {
        options.error().propagate(error);
        return nullptr;
    }
    return ibnm::hostNewFromPlatform(ibnm::platform::createLinuxPlatform(*options), IBNM_HOST_KIND_SYSFS_DUMP,
                                     options->sysfsRoot);
}

/**
 * ibnm_host_new_simulated:
 * @host_file: a host description (examples/hosts/README.md)
 * @state_dir: (nullable): where the simulation keeps its state between
 *   processes; NULL means "@host_file.state" beside the file
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the simulated host, or NULL with
 *   @error set (the file's errors name FILE:LINE).
 */
IbnmHost *ibnm_host_new_simulated(const char *host_file, const char *state_dir, GError **error)
{
    g_return_val_if_fail(host_file != nullptr, nullptr);
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    IbnmHost *host = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        std::string dir = state_dir ? state_dir : ibnm::platform::FakePlatform::defaultStateDir(host_file);
        auto fake = ibnm::platform::FakePlatform::open(host_file, dir);
        if (!fake.ok())
            return std::move(fake).error();
        host = ibnm::hostNewFromPlatform(std::move(fake).value(), IBNM_HOST_KIND_SIMULATED, host_file);
        ibnm_host_priv(host)->runtimeDir_ = dir;
        return {};
    });
    return host;
}

/**
 * ibnm_host_new_from_environment:
 * @error: return location for a #GError
 *
 * `IBNM_SIMULATE=FILE` gives a simulated host (state in
 * `IBNM_SIMULATE_STATE` if set), else `IBNM_SYSFS_ROOT=DIR` a sysfs dump,
 * else this machine.
 *
 * Returns: (transfer full) (nullable): the host, or NULL with @error set.
 */
IbnmHost *ibnm_host_new_from_environment(GError **error)
{
    g_return_val_if_fail(error == nullptr || *error == nullptr, nullptr);
    const char *simulate = g_getenv("IBNM_SIMULATE");
    if (simulate != nullptr && *simulate != '\0') {
        const char *state = g_getenv("IBNM_SIMULATE_STATE");
        return ibnm_host_new_simulated(simulate, state && *state ? state : nullptr, error);
    }
    const char *root = g_getenv("IBNM_SYSFS_ROOT");
    if (root != nullptr && *root != '\0')
        return ibnm_host_new_sysfs_dump(root, error);
    return ibnm_host_new_system();
}

IbnmHostKind ibnm_host_get_kind(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), IBNM_HOST_KIND_SYSTEM);
    return ibnm_host_priv(self)->kind_;
}

/**
 * ibnm_host_get_runtime_dir:
 *
 * Returns: (transfer none) (nullable): where ibnm keeps runtime state about
 *   this host (which profiles `up` brought up): /run/ibnm for this machine,
 *   the state directory of a simulated host, %NULL for a sysfs dump (read
 *   only).
 */
const char *ibnm_host_get_runtime_dir(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), nullptr);
    const std::string &d = ibnm_host_priv(self)->runtimeDir_;
    return d.empty() ? nullptr : d.c_str();
}

/**
 * ibnm_host_get_location:
 *
 * Returns: (transfer none): the sysfs root, or the host description file of
 *   a simulated host.
 */
const char *ibnm_host_get_location(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), nullptr);
    return ibnm_host_priv(self)->location_.c_str();
}

/**
 * ibnm_host_reset_simulation:
 * @error: return location for a #GError
 *
 * Forgets every change made to a simulated host (deletes its state) so it
 * is again as its host file describes it. Fails with
 * %IBNM_ERROR_NOT_SUPPORTED on a real host.
 */
gboolean ibnm_host_reset_simulation(IbnmHost *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        auto *fake = ibnm::hostFakePlatform(self);
        if (fake == nullptr)
            return ibnm::Error(IBNM_ERROR_NOT_SUPPORTED, _("only a simulated host can be reset"));
        return fake->reset();
    });
}

/**
 * ibnm_host_add_simulated_faults:
 * @rules: fault rules, in the syntax of IBNM_FAKE_FAIL
 *   ("op=addSoftLink,nth=1,errno=EBUSY;...", examples/hosts/README.md)
 * @error: return location for a #GError
 *
 * Makes operations of a simulated host fail, for tests of error paths that
 * cannot take the rules from the environment (the dispatcher hook).
 * Fails with %IBNM_ERROR_NOT_SUPPORTED on a real host.
 */
gboolean ibnm_host_add_simulated_faults(IbnmHost *self, const char *rules, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), FALSE);
    g_return_val_if_fail(rules != nullptr, FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        auto *fake = ibnm::hostFakePlatform(self);
        if (fake == nullptr)
            return ibnm::Error(IBNM_ERROR_NOT_SUPPORTED, _("only a simulated host takes injected faults"));
        auto parsed = ibnm::platform::parseFaultRules(rules);
        if (!parsed.ok())
            return std::move(parsed).error();
        fake->addFaults(std::move(parsed).value());
        return {};
    });
}

/**
 * ibnm_host_set_deadline:
 * @deadline: a g_get_monotonic_time() value, or 0 for none
 *
 * Bounds ibnm_apply_up(), ibnm_apply_down() and ibnm_apply_host_files() on
 * this host: once @deadline has passed, the next change fails with
 * %IBNM_ERROR_TIMED_OUT before it reaches the kernel, and the apply undoes
 * what it did, as after any failure, so the host ends as before. A change
 * already under way is not interrupted.
 */
void ibnm_host_set_deadline(IbnmHost *self, gint64 deadline)
{
    g_return_if_fail(IBNM_IS_HOST(self));
    g_return_if_fail(deadline >= 0);
    ibnm_host_priv(self)->deadline_ = deadline;
}

gint64 ibnm_host_get_deadline(IbnmHost *self)
{
    g_return_val_if_fail(IBNM_IS_HOST(self), 0);
    return ibnm_host_priv(self)->deadline_;
}
