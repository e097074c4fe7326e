// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/engine.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/raii.hpp"
#include "settings/host-files.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

G_DEFINE_ENUM_TYPE(IbnmStepState, ibnm_step_state,
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_PLANNED, "planned"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_DONE, "done"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_FAILED, "failed"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_UNDONE, "undone"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_UNDO_FAILED, "undo-failed"))

G_DEFINE_FLAGS_TYPE(IbnmApplyFlags, ibnm_apply_flags,
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_NONE, "none"),
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_DRY_RUN, "dry-run"),
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_NO_IP, "no-ip"),
                    G_DEFINE_ENUM_VALUE(IBNM_APPLY_FLAGS_RDMA_ONLY, "rdma-only"))

struct _IbnmStep {
    GObject parent_instance;
};

struct IbnmStepPrivate {
    ibnm::activation::StepRecord rec;
};

IBNM_DEFINE_FINAL_TYPE(IbnmStep, ibnm_step, G_TYPE_OBJECT)

enum { STEP_PROP_0, STEP_PROP_ACTION, STEP_PROP_OBJECT, STEP_PROP_DETAIL, STEP_PROP_PROFILE, STEP_PROP_STATE,
       STEP_PROP_ERROR, STEP_N_PROPS };
static GParamSpec *step_props[STEP_N_PROPS];

static void ibnm_step_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *self = IBNM_STEP(object);
    switch (prop_id) {
    case STEP_PROP_ACTION:
        g_value_set_string(value, ibnm_step_get_action(self));
        break;
    case STEP_PROP_OBJECT:
        g_value_set_string(value, ibnm_step_get_object(self));
        break;
    case STEP_PROP_DETAIL:
        g_value_set_string(value, ibnm_step_get_detail(self));
        break;
    case STEP_PROP_PROFILE:
        g_value_set_string(value, ibnm_step_get_profile(self));
        break;
    case STEP_PROP_STATE:
        g_value_set_enum(value, ibnm_step_get_state(self));
        break;
    case STEP_PROP_ERROR:
        g_value_set_string(value, ibnm_step_get_error(self));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_step_class_init_impl(IbnmStepClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->get_property = ibnm_step_get_property;
    auto flags = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
    step_props[STEP_PROP_ACTION] = g_param_spec_string(IBNM_STEP_ACTION, nullptr, nullptr, nullptr, flags);
    step_props[STEP_PROP_OBJECT] = g_param_spec_string(IBNM_STEP_OBJECT, nullptr, nullptr, nullptr, flags);
    step_props[STEP_PROP_DETAIL] = g_param_spec_string(IBNM_STEP_DETAIL, nullptr, nullptr, nullptr, flags);
    step_props[STEP_PROP_PROFILE] = g_param_spec_string(IBNM_STEP_PROFILE, nullptr, nullptr, nullptr, flags);
    step_props[STEP_PROP_STATE] = g_param_spec_enum(IBNM_STEP_STATE, nullptr, nullptr, IBNM_TYPE_STEP_STATE,
                                                    IBNM_STEP_STATE_PLANNED, flags);
    step_props[STEP_PROP_ERROR] = g_param_spec_string(IBNM_STEP_ERROR, nullptr, nullptr, nullptr, flags);
    g_object_class_install_properties(object_class, STEP_N_PROPS, step_props);
}

struct _IbnmApplyReport {
    GObject parent_instance;
};

struct IbnmApplyReportPrivate {
    ibnm::activation::Report report;
    ibnm::GPtrArrayPtr steps{g_ptr_array_new_with_free_func(g_object_unref)};
    std::vector<std::string> notes;
    std::vector<const char *> notesView{nullptr};
};

IBNM_DEFINE_FINAL_TYPE(IbnmApplyReport, ibnm_apply_report, G_TYPE_OBJECT)

enum { REPORT_PROP_0, REPORT_PROP_SUCCESS, REPORT_PROP_ROLLED_BACK, REPORT_PROP_OPERATIONS, REPORT_PROP_ERROR,
       REPORT_N_PROPS };
static GParamSpec *report_props[REPORT_N_PROPS];

static void ibnm_apply_report_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
    auto *self = IBNM_APPLY_REPORT(object);
    switch (prop_id) {
    case REPORT_PROP_SUCCESS:
        g_value_set_boolean(value, ibnm_apply_report_get_success(self));
        break;
    case REPORT_PROP_ROLLED_BACK:
        g_value_set_boolean(value, ibnm_apply_report_get_rolled_back(self));
        break;
    case REPORT_PROP_OPERATIONS:
        g_value_set_uint(value, ibnm_apply_report_get_operations(self));
        break;
    case REPORT_PROP_ERROR:
        g_value_set_string(value, ibnm_apply_report_get_error(self));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    }
}

static void ibnm_apply_report_class_init_impl(IbnmApplyReportClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->get_property = ibnm_apply_report_get_property;
    auto flags = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
    report_props[REPORT_PROP_SUCCESS] =
        g_param_spec_boolean(IBNM_APPLY_REPORT_SUCCESS, nullptr, nullptr, FALSE, flags);
    report_props[REPORT_PROP_ROLLED_BACK] =
        g_param_spec_boolean(IBNM_APPLY_REPORT_ROLLED_BACK, nullptr, nullptr, FALSE, flags);
    report_props[REPORT_PROP_OPERATIONS] =
        g_param_spec_uint(IBNM_APPLY_REPORT_OPERATIONS, nullptr, nullptr, 0, G_MAXUINT, 0, flags);
    report_props[REPORT_PROP_ERROR] = g_param_spec_string(IBNM_APPLY_REPORT_ERROR, nullptr, nullptr, nullptr, flags);
    g_object_class_install_properties(object_class, REPORT_N_PROPS, report_props);
}

namespace {

IbnmStepState toC(ibnm::activation::StepState s)
{
    using S = ibnm::activation::StepState;
    switch (s) {
    case S::Planned:
        return IBNM_STEP_STATE_PLANNED;
    case S::Done:
        return IBNM_STEP_STATE_DONE;
    case S::Failed:
        return IBNM_STEP_STATE_FAILED;
    case S::Undone:
        return IBNM_STEP_STATE_UNDONE;
    case S::UndoFailed:
        return IBNM_STEP_STATE_UNDO_FAILED;
    }
    return IBNM_STEP_STATE_PLANNED;
}

IbnmApplyReport *wrap(ibnm::activation::Report report)
{
    auto *self = IBNM_APPLY_REPORT(g_object_new(IBNM_TYPE_APPLY_REPORT, nullptr));
    auto *priv = ibnm_apply_report_priv(self);
    for (auto &rec : report.steps) {
        auto *step = IBNM_STEP(g_object_new(IBNM_TYPE_STEP, nullptr));
        ibnm_step_priv(step)->rec = rec;
        g_ptr_array_add(priv->steps.get(), step);
    }
    for (const auto &n : report.notes)
        priv->notes.push_back(n.origin.empty() || n.origin == n.object ? n.object + ": " + n.message
                                                                         : n.origin + ": " + n.object + ": " + n.message);
    priv->notesView.clear();
    for (const auto &n : priv->notes)
        priv->notesView.push_back(n.c_str());
    priv->notesView.push_back(nullptr);
    priv->report = std::move(report);
    return self;
}

std::vector<NMConnection *> toVector(GPtrArray *a)
{
    std::vector<NMConnection *> v;
    if (a)
        for (guint i = 0; i < a->len; i++)
            v.push_back(NM_CONNECTION(g_ptr_array_index(a, i)));
    return v;
}

// `selected` and the bond profiles of its ports whose bond is not on the host.
std::vector<NMConnection *> withMissingBonds(std::vector<NMConnection *> selected,
                                             const std::vector<NMConnection *> &everything, const ibnm::model::Host &host)
{
    std::vector<NMConnection *> add;
    for (NMConnection *c : selected) {
        NMSettingConnection *sc = nm_connection_get_setting_connection(c);
        const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
        if (master == nullptr || g_strcmp0(nm_setting_connection_get_slave_type(sc), NM_SETTING_BOND_SETTING_NAME) != 0)
            continue;
        for (NMConnection *b : everything) {
            if (g_strcmp0(nm_connection_get_connection_type(b), NM_SETTING_BOND_SETTING_NAME) != 0)
                continue;
            const char *ifname = nm_connection_get_interface_name(b);
            if (g_strcmp0(ifname, master) != 0 && g_strcmp0(nm_connection_get_uuid(b), master) != 0)
                continue;
            if ((ifname == nullptr || host.findBond(ifname) == nullptr) &&
                std::find(selected.begin(), selected.end(), b) == selected.end() &&
                std::find(add.begin(), add.end(), b) == add.end())
                add.push_back(b);
        }
    }
    selected.insert(selected.end(), add.begin(), add.end());
    return selected;
}

// Loads what the profiles' RDMA settings need of the kernel before the first
// step (the modules of their soft links; configfs and rdma_cm for RoCE
// defaults), as modprobe would have on a host set up by hand. Errors name
// the property that needed it.
ibnm::Status prepareFor(ibnm::platform::Platform &platform, const ibnm::activation::Desired &desired)
{
    for (const auto &r : desired.rdma) {
        if (r.linkType) {
            ibnm::platform::Prerequisites needs;
            needs.softLinkDrivers.insert(*r.linkType);
            if (auto st = platform.prepare(needs); !st)
                return std::move(st).error().withContext(r.names.linkType);
        }
        if (r.roceMode || r.roceTos) {
            ibnm::platform::Prerequisites needs;
            needs.rdmaCmConfigfs = true;
            if (auto st = platform.prepare(needs); !st)
                return std::move(st).error().withContext(r.roceMode ? r.names.roceMode : r.names.roceTos);
        }
    }
    return {};
}

// Which profiles `up` brought up on a host and `down` has not taken down
// (standalone mode: NetworkManager keeps its own record): UUIDs, one a line,
// in the host's runtime directory. `connection show` shows a DEVICE only for
// these. Bookkeeping: a failure to write it fails nothing.
std::string activeRecordPath(IbnmHost *host)
{
    const char *dir = ibnm_host_get_runtime_dir(host);
    return dir ? std::string(dir) + "/active-profiles" : std::string();
}

std::set<std::string> readActiveRecord(IbnmHost *host, bool *read = nullptr)
{
    std::set<std::string> uuids;
    std::string path = activeRecordPath(host);
    ibnm::GCharPtr text;
    if (read)
        *read = false;
    if (path.empty() || !g_file_get_contents(path.c_str(), ibnm::outPtr(text), nullptr, nullptr))
        return uuids;
    if (read)
        *read = true;
    ibnm::GStrvPtr lines(g_strsplit(text.get(), "\n", -1));
    for (char **l = lines.get(); *l; l++)
        if (**l)
            uuids.insert(*l);
    return uuids;
}

void updateActiveRecord(IbnmHost *host, const std::vector<NMConnection *> &profiles, bool active)
{
    std::string path = activeRecordPath(host);
    if (path.empty())
        return;
    bool read = false;
    std::set<std::string> uuids = readActiveRecord(host, &read);
    const std::set<std::string> before = uuids;
    for (NMConnection *c : profiles)
        if (const char *uuid = nm_connection_get_uuid(c))
            active ? (void)uuids.insert(uuid) : (void)uuids.erase(uuid);
    // A record that says it already (a second apply): not rewritten, which
    // would cost two fsync()s for nothing.
    if (read && uuids == before)
        return;
    std::string text;
    for (const auto &u : uuids)
        text += u + "\n";
    ibnm::GCharPtr dir(g_path_get_dirname(path.c_str()));
    g_mkdir_with_parents(dir.get(), 0755);
    g_file_set_contents_full(path.c_str(), text.c_str(), -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, nullptr);
}

} // namespace

// Every apply's one path. Up refuses, before it changes anything, what the
// request's rules find (for profiles: what `ibnm check` finds on this host,
// which asks the same planner, so the two always agree); the error keeps its
// code and names the profile and property.
gboolean ibnm::runApply(IbnmHost *host, IbnmApplyFlags flags, const ApplyRequest &request, IbnmApplyReport **out,
                        GError **error)
{
    return ibnm::guard(error, [&]() -> ibnm::Status {
        bool goingUp = request.goingUp;
        // With a deadline (the dispatcher hook's), a change after it is
        // refused and the engine undoes what was done.
        auto deadline = ibnm::hostDeadlinePlatform(host);
        auto &platform = deadline ? *deadline : ibnm::hostPlatform(host);
        // One activation at a time, from reading the host to verifying it
        // (or undoing it): a parallel run neither plans on this run's
        // half-done work nor rolls it back. A dry run changes nothing.
        ibnm::UniqueFd activationLock;
        if (!(flags & IBNM_APPLY_FLAGS_DRY_RUN)) {
            auto lock = platform.lockActivations();
            if (!lock.ok())
                return std::move(lock).error();
            activationLock = std::move(lock).value();
        }
        auto snapshot = platform.readHost();
        if (!snapshot.ok())
            return std::move(snapshot).error();
        auto desired = request.resolve(*snapshot);
        if (!desired.ok())
            return std::move(desired).error();
        ibnm::activation::Options options;
        options.dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
        options.rdmaOnly = flags & IBNM_APPLY_FLAGS_RDMA_ONLY;
        if (goingUp && request.refuse) {
            if (std::optional<ibnm::Error> e = request.refuse(*snapshot)) {
                if (out) {
                    ibnm::activation::Report refused;
                    refused.ok = false;
                    refused.error = e->toString();
                    refused.errorCode = e->code();
                    refused.failure = *e;
                    *out = wrap(std::move(refused));
                }
                return *e;
            }
        }
        // The modules and configfs the RDMA settings need, once the request
        // is known to be right (nothing to load for a dry run or down).
        if (goingUp && !options.dryRun)
            if (auto st = prepareFor(platform, *desired); !st)
                return st;
        auto report = goingUp ? ibnm::activation::up(platform, *snapshot, *desired, options)
                              : ibnm::activation::down(platform, *desired, options);
        bool ok = report.ok;
        if (ok && !options.dryRun && request.applied)
            request.applied();
        std::optional<ibnm::Error> failure = report.failure;
        std::string message = report.error;
        IbnmError code = report.errorCode;
        if (out)
            *out = wrap(std::move(report));
        if (!ok)
            return failure ? *failure : ibnm::Error(code, message);
        return {};
    });
}

namespace {

// ibnm_apply_up() and ibnm_apply_down() of profiles.
gboolean run(IbnmHost *host, GPtrArray *profiles, GPtrArray *all, IbnmApplyFlags flags, bool goingUp,
             IbnmApplyReport **out, GError **error)
{
    auto selected = toVector(profiles);
    auto everything = all ? toVector(all) : selected;
    bool withIp = !(flags & (IBNM_APPLY_FLAGS_NO_IP | IBNM_APPLY_FLAGS_RDMA_ONLY));
    bool rdmaOnly = flags & IBNM_APPLY_FLAGS_RDMA_ONLY;
    ibnm::ApplyRequest request;
    request.goingUp = goingUp;
    request.resolve = [&](const ibnm::model::Host &snapshot) {
        // As NetworkManager activates a port's controller with it, a port
        // whose bond is not on the host brings its bond profile up too.
        if (goingUp && !rdmaOnly)
            selected = withMissingBonds(selected, everything, snapshot);
        // Setting the addresses itself, ibnm is the standalone activator.
        return ibnm::activation::resolve(selected, everything, withIp, withIp && goingUp);
    };
    if (!rdmaOnly)
        request.refuse = [&](const ibnm::model::Host &snapshot) -> std::optional<ibnm::Error> {
            for (const auto &f : ibnm::rules::checkAll(selected, &snapshot, &everything, withIp))
                if (f.severity == IBNM_SEVERITY_ERROR)
                    return ibnm::Error(f.code, f.message).withProfile(f.profileId);
            return std::nullopt;
        };
    // Stored profiles (the caller passed them all) brought up or down by
    // ibnm itself, not NetworkManager's hook (rdma-only).
    if (!rdmaOnly && all != nullptr)
        request.applied = [&]() { updateActiveRecord(host, selected, goingUp); };
    return ibnm::runApply(host, flags, request, out, error);
}

} // namespace

/**
 * IbnmStep:action:
 *
 * What the step does, as a stable machine word ("create-ipoib-child", "set-
 * mtu", ...), for scripts.
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_action:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:action property.
 *
 * Returns: (transfer none): the stable machine word naming what the step
 *   does.
 *
 * Since: 0.1
 */
const char *ibnm_step_get_action(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), nullptr);
    return ibnm_step_priv(self)->rec.action.c_str();
}

/**
 * IbnmStep:object:
 *
 * The interface, RDMA device or file the step acts on.
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_object:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:object property.
 *
 * Returns: (transfer none): the interface, RDMA device or file the step acts
 *   on.
 *
 * Since: 0.1
 */
const char *ibnm_step_get_object(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), nullptr);
    return ibnm_step_priv(self)->rec.object.c_str();
}

/**
 * IbnmStep:detail:
 *
 * What the step does, translated, for people.
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_detail:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:detail property.
 *
 * Returns: (transfer none): the step described for people, in the user's
 *   language.
 *
 * Since: 0.1
 */
const char *ibnm_step_get_detail(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), nullptr);
    return ibnm_step_priv(self)->rec.detail.c_str();
}

/**
 * IbnmStep:profile:
 *
 * The id of the profile the step is for; empty for host-wide steps.
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_profile:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:profile property.
 *
 * Returns: (transfer none): the id of the profile the step is for, or "" for
 *   a host-wide step (host files, RDMA defaults).
 *
 * Since: 0.1
 */
const char *ibnm_step_get_profile(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), nullptr);
    return ibnm_step_priv(self)->rec.origin.c_str();
}

/**
 * IbnmStep:state:
 *
 * Whether the step was planned, done, failed, undone or could not be undone.
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_state:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:state property.
 *
 * Returns: what became of the step.
 *
 * Since: 0.1
 */
IbnmStepState ibnm_step_get_state(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), IBNM_STEP_STATE_PLANNED);
    return toC(ibnm_step_priv(self)->rec.state);
}

/**
 * IbnmStep:error:
 *
 * Why the step failed or could not be undone; %NULL otherwise.
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_error:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:error property.
 *
 * Returns: (transfer none) (nullable): the error message when the state is
 *   %IBNM_STEP_STATE_FAILED or %IBNM_STEP_STATE_UNDO_FAILED, else %NULL.
 *
 * Since: 0.1
 */
const char *ibnm_step_get_error(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), nullptr);
    const auto &e = ibnm_step_priv(self)->rec.error;
    return e.empty() ? nullptr : e.c_str();
}

/**
 * IbnmApplyReport:success:
 *
 * Whether every step succeeded.
 *
 * Since: 0.1
 */
/**
 * ibnm_apply_report_get_success:
 * @self: an #IbnmApplyReport
 *
 * Gets the #IbnmApplyReport:success property.
 *
 * Returns: %TRUE when every step succeeded (or, in a dry run, was planned).
 *
 * Since: 0.1
 */
gboolean ibnm_apply_report_get_success(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), FALSE);
    return ibnm_apply_report_priv(self)->report.ok;
}

/**
 * IbnmApplyReport:rolled-back:
 *
 * After a failure: whether every step that changed the host was undone, so the
 * host is as before.
 *
 * Since: 0.1
 */
/**
 * ibnm_apply_report_get_rolled_back:
 * @self: an #IbnmApplyReport
 *
 * Gets the #IbnmApplyReport:rolled-back property.
 *
 * Returns: %TRUE when, after a failure, every step that changed the host was
 *   undone; %FALSE on success or when a step could not be undone (its state
 *   says which).
 *
 * Since: 0.1
 */
gboolean ibnm_apply_report_get_rolled_back(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), FALSE);
    return ibnm_apply_report_priv(self)->report.rolledBack;
}

/**
 * IbnmApplyReport:operations:
 *
 * The number of platform operations performed, undo included.
 *
 * Since: 0.1
 */
/**
 * ibnm_apply_report_get_operations:
 * @self: an #IbnmApplyReport
 *
 * Gets the #IbnmApplyReport:operations property.
 *
 * Returns: how many platform operations were performed, undo included (0 for
 *   a dry run).
 *
 * Since: 0.1
 */
guint ibnm_apply_report_get_operations(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), 0);
    return ibnm_apply_report_priv(self)->report.operations;
}

/**
 * ibnm_apply_report_get_steps:
 * @self: an #IbnmApplyReport
 *
 * Gets the steps of the apply, in the order they were planned and run.
 *
 * Returns: (transfer none) (element-type IbnmStep): the steps, in order.
 *
 * Since: 0.1
 */
GPtrArray *ibnm_apply_report_get_steps(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), nullptr);
    return ibnm_apply_report_priv(self)->steps.get();
}

/**
 * ibnm_apply_report_get_notes:
 * @self: an #IbnmApplyReport
 *
 * Gets what the user should know that is not a step: the effective MTU after
 * the kernel's clamp, a value left alone, ...
 *
 * Returns: (transfer none) (array zero-terminated=1): the notes, each
 *   "object: message" or "profile: object: message"; owned by @self.
 *
 * Since: 0.1
 */
const char *const *ibnm_apply_report_get_notes(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), nullptr);
    return ibnm_apply_report_priv(self)->notesView.data();
}

/**
 * IbnmApplyReport:error:
 *
 * The failure's message when the apply failed; %NULL otherwise.
 *
 * Since: 0.1
 */
/**
 * ibnm_apply_report_get_error:
 * @self: an #IbnmApplyReport
 *
 * Gets the #IbnmApplyReport:error property.
 *
 * Returns: (transfer none) (nullable): the failure's message, or %NULL when
 *   the apply succeeded.
 *
 * Since: 0.1
 */
const char *ibnm_apply_report_get_error(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), nullptr);
    const auto &e = ibnm_apply_report_priv(self)->report.error;
    return e.empty() ? nullptr : e.c_str();
}

/**
 * ibnm_apply_up:
 * @host: the host to change
 * @profiles: (element-type NM.Connection): the profiles to bring up
 * @all_profiles: (element-type NM.Connection) (nullable): every known profile,
 *   to resolve a port's bond; NULL means @profiles
 * @report: (out) (optional) (transfer full): every step, set whether or not
 *   the apply succeeded (unless the profiles could not be resolved)
 * @flags: what to leave out, or a dry run
 * @error: return location for a #GError
 *
 * Brings the profiles' IPoIB interfaces, bonds and RDMA settings up as one
 * transaction: on failure everything done is undone and @error says why.
 *
 * Returns: %TRUE on success; %FALSE with @error set when a profile cannot be
 *   resolved or a step failed (then @report says what was undone)
 *
 * Since: 0.1
 */
gboolean ibnm_apply_up(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles, IbnmApplyFlags flags,
                       IbnmApplyReport **report, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(profiles != nullptr, FALSE);
    g_return_val_if_fail(report == nullptr || *report == nullptr, FALSE);
    return run(host, profiles, all_profiles, flags, true, report, error);
}

/**
 * ibnm_apply_down:
 * @host: the host to change
 * @profiles: (element-type NM.Connection): the profiles to take down
 * @all_profiles: (element-type NM.Connection) (nullable): every known
 *   profile, to resolve a port's bond; NULL means @profiles
 * @flags: what to leave out
 * @report: (out) (optional) (transfer full): every step
 * @error: return location for a #GError
 *
 * Takes down what ibnm_apply_up() of the same profiles set up, transactionally.
 *
 * Returns: %TRUE on success; %FALSE with @error set when a profile cannot be
 *   resolved or a step failed (then @report says what was undone)
 *
 * Since: 0.1
 */
gboolean ibnm_apply_down(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles, IbnmApplyFlags flags,
                         IbnmApplyReport **report, GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(profiles != nullptr, FALSE);
    g_return_val_if_fail(report == nullptr || *report == nullptr, FALSE);
    return run(host, profiles, all_profiles, flags, false, report, error);
}

/**
 * ibnm_apply_get_active_devices:
 * @host: the host to look at
 * @profiles: (element-type NMConnection): the profiles
 * @all_profiles: (element-type NMConnection) (nullable): every known profile,
 *   to resolve a port's bond; NULL means @profiles
 *
 * Where each profile is active on @host in standalone mode: for a profile
 * ibnm_apply_up() brought up (with @all_profiles given) and
 * ibnm_apply_down() has not taken down since, the interface it resolves to
 * (a P_Key child as the kernel named it, a port found by its GUID) when that
 * interface exists, is up, and ibnm_apply_up() would change nothing.
 *
 * Returns: (transfer container) (element-type utf8): one entry a profile, in
 *   order: the interface name, or %NULL where the profile is not active;
 *   %NULL with @error set when the host cannot be read
 *
 * Since: 0.1
 */
GPtrArray *ibnm_apply_get_active_devices(IbnmHost *host, GPtrArray *profiles, GPtrArray *all_profiles,
                                         GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(profiles != nullptr, nullptr);
    GPtrArray *out = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        auto selected = toVector(profiles);
        auto everything = all_profiles ? toVector(all_profiles) : selected;
        std::set<std::string> brought = readActiveRecord(host);
        out = g_ptr_array_new_full(selected.size(), g_free);
        // Nothing brought up: nothing to read from the host.
        if (brought.empty()) {
            for (size_t i = 0; i < selected.size(); i++)
                g_ptr_array_add(out, nullptr);
            return {};
        }
        auto snapshot = ibnm::hostPlatform(host).readHost();
        if (!snapshot.ok()) {
            g_ptr_array_unref(out);
            out = nullptr;
            return std::move(snapshot).error();
        }
        const ibnm::activation::ProfileIndex index(everything);
        for (NMConnection *c : selected) {
            std::optional<std::string> name;
            const char *uuid = nm_connection_get_uuid(c);
            if (uuid && brought.count(uuid)) {
                auto desired = ibnm::activation::resolve({c}, everything, true, false, &index);
                if (desired.ok())
                    name = ibnm::activation::activeInterface(*snapshot, *desired);
            }
            g_ptr_array_add(out, name ? g_strdup(name->c_str()) : nullptr);
        }
        return {};
    });
    return out;
}

/**
 * ibnm_apply_host_files:
 * @host: the host to change
 * @profiles: (element-type NM.Connection): the profiles whose IPoIB ports get
 *   persistent names
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN to plan only; other flags are ignored
 * @report: (out) (optional) (transfer full): every file step, set whether or
 *   not the writes succeeded
 * @error: return location for a #GError
 *
 * Writes the memlock policy for group rdma and the udev naming rules,
 * atomically and only where they differ: under / on this machine; on a
 * simulated host under "root" in its state directory
 * (ibnm_host_get_runtime_dir()), never in the real /etc. A host read from a
 * sysfs tree has no files to change: writing fails.
 *
 * Returns: %TRUE on success; %FALSE with @error set (%IBNM_ERROR_PLATFORM)
 *   when a file could not be written
 *
 * Since: 0.1
 */
gboolean ibnm_apply_host_files(IbnmHost *host, GPtrArray *profiles, IbnmApplyFlags flags, IbnmApplyReport **report,
                               GError **error)
{
    g_return_val_if_fail(IBNM_IS_HOST(host), FALSE);
    g_return_val_if_fail(report == nullptr || *report == nullptr, FALSE);
    return ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::activation::Options options;
        options.dryRun = flags & IBNM_APPLY_FLAGS_DRY_RUN;
        // Policy files are settings, written under the host's root
        // (settings/host-files.hpp), not by its kernel platform.
        auto files = ibnm::settings::HostFiles::forHost(host);
        if (!files.ok())
            return std::move(files).error();
        auto r = ibnm::settings::writeHostFiles(ibnm::hostPlatform(host), *files, toVector(profiles), options);
        bool ok = r.ok;
        std::string message = r.error;
        if (report)
            *report = wrap(std::move(r));
        if (!ok)
            return ibnm::Error(IBNM_ERROR_PLATFORM, message);
        return {};
    });
}
