// SPDX-License-Identifier: LGPL-2.1-or-later
// The report of an apply as GObjects: IbnmStep (one step of the plan and what
// became of it, IbnmStepState) and IbnmApplyReport (the steps, notes, success
// and rollback), with wrap(), which makes one of the engine's report.
#include "config.h"

#include "libcore/ibnm-apply.h"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/activation/engine.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/support/raii.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

G_DEFINE_ENUM_TYPE(IbnmStepState, ibnm_step_state,
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_PLANNED, "planned"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_DONE, "done"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_FAILED, "failed"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_UNDONE, "undone"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_STATE_UNDO_FAILED, "undo-failed"))

G_DEFINE_ENUM_TYPE(IbnmStepAction, ibnm_step_action,
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_CREATE_IPOIB_CHILD, "create-ipoib-child"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_DELETE_IPOIB_CHILD, "delete-ipoib-child"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_CREATE_BOND, "create-bond"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_DELETE_BOND, "delete-bond"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_BOND_OPTIONS, "set-bond-options"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_ENSLAVE, "enslave"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_RELEASE, "release"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_UP, "set-up"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_DOWN, "set-down"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_MTU, "set-mtu"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_TRANSPORT_MODE, "set-transport-mode"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_UMCAST, "set-umcast"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_ADD_ADDRESS, "add-address"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_REMOVE_ADDRESS, "remove-address"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_ADD_ROUTE, "add-route"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_REMOVE_ROUTE, "remove-route"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_DNS, "set-dns"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_REVERT_DNS, "revert-dns"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_ADD_RDMA_LINK, "add-rdma-link"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_DELETE_RDMA_LINK, "delete-rdma-link"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_ROCE_MODE, "set-roce-mode"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_ROCE_TOS, "set-roce-tos"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_REMOVE_ROCE_DEFAULTS, "remove-roce-defaults"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_TRAFFIC_CLASS, "set-traffic-class"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_CLEAR_TRAFFIC_CLASS, "clear-traffic-class"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_TRAFFIC_CLASS_RULE, "set-traffic-class-rule"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_REMOVE_TRAFFIC_CLASS_RULE, "remove-traffic-class-rule"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_TTL, "set-ttl"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_SET_ROCE_ENABLE, "set-roce-enable"),
                   G_DEFINE_ENUM_VALUE(IBNM_STEP_ACTION_WRITE_FILE, "write-file"))

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
        g_value_set_enum(value, ibnm_step_get_action(self));
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
    step_props[STEP_PROP_ACTION] = g_param_spec_enum(IBNM_STEP_ACTION, nullptr, nullptr, IBNM_TYPE_STEP_ACTION,
                                                     IBNM_STEP_ACTION_CREATE_IPOIB_CHILD, flags);
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
    std::vector<const char *> notRestoredView{nullptr}; // of report.notRestored
    // Why the apply failed, as ibnm_apply_report_propagate_error() gives it.
    ibnm::GErrorPtr error;
    // The host was read and the request resolved on it (reportOf()).
    bool started = true;
    std::string hostDigest; // ibnm_apply_report_get_host_digest()
};

IBNM_DEFINE_FINAL_TYPE(IbnmApplyReport, ibnm_apply_report, G_TYPE_OBJECT)

enum { REPORT_PROP_0, REPORT_PROP_SUCCESS, REPORT_PROP_ROLLED_BACK, REPORT_PROP_OPERATIONS, REPORT_PROP_ERROR,
       REPORT_PROP_STARTED, REPORT_N_PROPS };
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
    case REPORT_PROP_STARTED:
        g_value_set_boolean(value, ibnm_apply_report_get_started(self));
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
    report_props[REPORT_PROP_STARTED] = g_param_spec_boolean(IBNM_APPLY_REPORT_STARTED, nullptr, nullptr, TRUE, flags);
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

} // namespace

namespace ibnm::apply {

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
    priv->notRestoredView.clear();
    for (const auto &n : priv->report.notRestored)
        priv->notRestoredView.push_back(n.c_str());
    priv->notRestoredView.push_back(nullptr);
    return self;
}

IbnmApplyReport *join(std::initializer_list<IbnmApplyReport *> parts)
{
    ibnm::activation::Report joined;
    bool any = false, rolledBack = false, notRolledBack = false, sameDigest = true;
    std::string digest;
    for (IbnmApplyReport *part : parts) {
        if (part == nullptr)
            continue;
        const auto *priv = ibnm_apply_report_priv(part);
        const auto &r = priv->report;
        if (!r.ok) {
            if (joined.ok) {
                joined.error = r.error;
                joined.errorCode = r.errorCode;
                joined.failure = r.failure;
            }
            joined.ok = false;
            (r.rolledBack ? rolledBack : notRolledBack) = true;
        }
        joined.operations += r.operations;
        joined.steps.insert(joined.steps.end(), r.steps.begin(), r.steps.end());
        joined.notes.insert(joined.notes.end(), r.notes.begin(), r.notes.end());
        for (const auto &n : r.notRestored)
            if (std::find(joined.notRestored.begin(), joined.notRestored.end(), n) == joined.notRestored.end())
                joined.notRestored.push_back(n);
        sameDigest = sameDigest && !priv->hostDigest.empty() && (!any || digest == priv->hostDigest);
        digest = priv->hostDigest;
        any = true;
    }
    if (!any)
        return nullptr;
    joined.rolledBack = rolledBack && !notRolledBack;
    IbnmApplyReport *report = wrap(std::move(joined));
    if (sameDigest)
        setHostDigest(report, std::move(digest));
    return report;
}

void settleRollback(IbnmApplyReport *report, bool restored, const std::vector<std::string> &notRestored,
                    bool undone)
{
    auto *priv = ibnm_apply_report_priv(report);
    auto &r = priv->report;
    using S = ibnm::activation::StepState;
    // A done step was undone when its object is as before ("object: ..."
    // names one that is not).
    auto asBefore = [&notRestored](const std::string &object) {
        return std::none_of(notRestored.begin(), notRestored.end(),
                            [&object](const std::string &n) { return n.rfind(object + ":", 0) == 0; });
    };
    auto settle = [&](ibnm::activation::StepRecord &rec) {
        if (undone && rec.state == S::Done && asBefore(rec.object))
            rec.state = S::Undone;
    };
    for (guint i = 0; i < priv->steps->len; i++)
        settle(ibnm_step_priv(IBNM_STEP(g_ptr_array_index(priv->steps.get(), i)))->rec);
    for (auto &rec : r.steps)
        settle(rec);
    r.rolledBack = restored;
    for (const auto &n : notRestored)
        if (std::find(r.notRestored.begin(), r.notRestored.end(), n) == r.notRestored.end())
            r.notRestored.push_back(n);
    priv->notRestoredView.clear();
    for (const auto &n : r.notRestored)
        priv->notRestoredView.push_back(n.c_str());
    priv->notRestoredView.push_back(nullptr);
}

IbnmApplyReport *reportOf(const std::function<gboolean(IbnmApplyReport **, GError **)> &run)
{
    IbnmApplyReport *report = nullptr;
    GError *error = nullptr;
    gboolean ok = run(&report, &error);
    bool started = report != nullptr;
    if (report == nullptr)
        report = wrap(ibnm::activation::Report{});
    auto *priv = ibnm_apply_report_priv(report);
    priv->started = started || ok;
    if (!ok) {
        if (error == nullptr) // a guard() always sets it; never report success without one
            error = g_error_new_literal(IBNM_ERROR, IBNM_ERROR_FAILED, _("Internal error"));
        priv->report.ok = false;
        if (priv->report.error.empty()) // the engine's own words stay (the CLI prints them)
            priv->report.error = error->message;
        priv->error.reset(error);
    }
    return report;
}

} // namespace ibnm::apply

/**
 * ibnm_step_action_to_string:
 * @action: an #IbnmStepAction
 *
 * Gets the stable machine word of @action ("create-ipoib-child",
 * "set-mtu", ...): its nick, what `ibnm -j` prints as a step's "action".
 *
 * Returns: (transfer none) (nullable): the word, or %NULL when @action is
 *   no #IbnmStepAction
 *
 * Since: 0.1
 */
const char *ibnm_step_action_to_string(IbnmStepAction action)
{
    // A C caller may pass any int (C's enums are ints); read in C++, one
    // that is no IbnmStepAction would be undefined (clang's enum check):
    // its bytes as an int, which g_enum_get_value() takes anyway.
    static_assert(sizeof(IbnmStepAction) == sizeof(gint), "an enum as C passes it");
    gint value;
    std::memcpy(&value, &action, sizeof value);
    auto *klass = static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_STEP_ACTION));
    GEnumValue *v = g_enum_get_value(klass, value);
    g_type_class_unref(klass); // a static type's class stays: the nick outlives the reference
    return v ? v->value_nick : nullptr;
}

/**
 * IbnmStep:action:
 *
 * What the step does; its nick (ibnm_step_action_to_string()) is the stable
 * machine word scripts read ("create-ipoib-child", "set-mtu", ...).
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_action:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:action property.
 *
 * Returns: what the step does.
 *
 * Since: 0.1
 */
IbnmStepAction ibnm_step_get_action(IbnmStep *self)
{
    g_return_val_if_fail(IBNM_IS_STEP(self), IBNM_STEP_ACTION_CREATE_IPOIB_CHILD);
    return ibnm_step_priv(self)->rec.action;
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
 * The id of the profile the step is for; empty when no profile asked for
 * it: host files, and the steps of the typed RDMA calls
 * (ibnm_apply_rdma_link_add() and the others of ibnm-rdma-apply.h), which
 * change the host for no profile (nothing makes the change again later).
 *
 * Since: 0.1
 */
/**
 * ibnm_step_get_profile:
 * @self: an #IbnmStep
 *
 * Gets the #IbnmStep:profile property.
 *
 * Returns: (transfer none): the id of the profile the step is for, or ""
 *   when no profile asked for it (host files, the typed RDMA calls)
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
 * ibnm_apply_report_get_not_restored:
 * @self: an #IbnmApplyReport
 *
 * Gets what a failed apply left otherwise than it found it. The host is
 * read back after the undo and compared with how it was before the apply;
 * ibnm_apply_report_get_rolled_back() is %TRUE only when nothing differs.
 *
 * Returns: (transfer none) (array zero-terminated=1): one line per object
 *   and property that differs, "object: what X, was Y" ("ib0.8002: absent,
 *   was present"); empty after a success or a complete rollback; owned by
 *   @self.
 *
 * Since: 0.1
 */
const char *const *ibnm_apply_report_get_not_restored(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), nullptr);
    return ibnm_apply_report_priv(self)->notRestoredView.data();
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
 * ibnm_apply_report_propagate_error:
 * @self: an #IbnmApplyReport
 * @error: return location for a #GError
 *
 * Gives the failure of the apply as a #GError, with its domain and code
 * (%IBNM_ERROR_NOT_ACTIVE, %IBNM_ERROR_PLATFORM, ...), as
 * g_task_propagate_boolean() does; the report keeps its own. From Python
 * this raises the failure as a GLib.Error after the report was read.
 *
 * Returns: %TRUE when the apply succeeded; %FALSE with @error set when it
 *   failed
 *
 * Since: 0.1
 */
gboolean ibnm_apply_report_propagate_error(IbnmApplyReport *self, GError **error)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), FALSE);
    g_return_val_if_fail(error == nullptr || *error == nullptr, FALSE);
    auto *priv = ibnm_apply_report_priv(self);
    if (priv->report.ok)
        return TRUE;
    if (priv->error)
        g_propagate_error(error, g_error_copy(priv->error.get()));
    else
        g_set_error_literal(error, IBNM_ERROR, priv->report.errorCode,
                            priv->report.error.empty() ? _("Internal error") : priv->report.error.c_str());
    return FALSE;
}

/**
 * IbnmApplyReport:started:
 *
 * Whether the apply started: the host was read under the activation lock
 * and the request resolved on it.
 *
 * Since: 0.1
 */
/**
 * ibnm_apply_report_get_started:
 * @self: an #IbnmApplyReport
 *
 * Gets the #IbnmApplyReport:started property.
 *
 * Returns: %TRUE when the apply started; %FALSE when it was refused before
 *   (a profile that cannot be resolved, one that is not active for
 *   ibnm_apply_down(), the activation lock not taken): then it has no step,
 *   changed nothing and ibnm_apply_report_get_error() says why.
 *
 * Since: 0.1
 */
gboolean ibnm_apply_report_get_started(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), FALSE);
    return ibnm_apply_report_priv(self)->started;
}

void ibnm::apply::setHostDigest(IbnmApplyReport *report, std::string digest)
{
    ibnm_apply_report_priv(report)->hostDigest = std::move(digest);
}

/**
 * ibnm_apply_report_get_host_digest:
 * @self: an #IbnmApplyReport
 *
 * When the apply found the host already in the state asked (it planned no
 * step, and succeeded), the digest of the host it found, with its active
 * connections' records as the apply left them: the digest
 * ibnm_host_get_state_digest() gives for that host. A later
 * ibnm_host_get_state_digest() that gives the same digest says that the
 * same apply would again change nothing.
 *
 * Returns: (transfer none) (nullable): the digest (64 hex digits), or %NULL
 *   when the apply planned or ran steps, or failed
 *
 * Since: 0.1
 */
const char *ibnm_apply_report_get_host_digest(IbnmApplyReport *self)
{
    g_return_val_if_fail(IBNM_IS_APPLY_REPORT(self), nullptr);
    const auto &d = ibnm_apply_report_priv(self)->hostDigest;
    return d.empty() ? nullptr : d.c_str();
}
