// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm apply: the document's profiles activated, then stored, as one
// transaction. The order is host first: the activation engine undoes its own
// steps when one fails, so a refused document leaves host and store as they
// were; the profiles are written only once the host has taken them.
#include "config.h"

#include "settings/ibnm-state.h"

#include "libcore/activation/host-diff.hpp"
#include "libcore/ibnm-apply-private.hpp"

#include "libcore/support/boundary.hpp"
#include "libcore/support/gobject.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/progress.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/support/strings.hpp"
#include "libcore/state/nmstate.hpp"
#include "settings/settings-private.hpp"

#include <NetworkManager.h>

#include <algorithm>
#include <functional>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

static_assert(IBNM_STATE_MAX_DOCUMENT_SIZE == ibnm::state::kMaxDocumentBytes, "one limit, in two languages");

struct _IbnmStateChange {
    GObject parent_instance;
};

struct IbnmStateChangePrivate {
    IbnmStateChangeAction action = IBNM_STATE_CHANGE_ACTION_NONE;
    std::string interface, state, profile;
    bool hasProfile = false;
    std::vector<std::string> diff;
    std::vector<const char *> diffView{nullptr};
};

IBNM_DEFINE_FINAL_TYPE(IbnmStateChange, ibnm_state_change, G_TYPE_OBJECT)

G_DEFINE_ENUM_TYPE(IbnmStateChangeAction, ibnm_state_change_action,
    G_DEFINE_ENUM_VALUE(IBNM_STATE_CHANGE_ACTION_NONE, "none"),
    G_DEFINE_ENUM_VALUE(IBNM_STATE_CHANGE_ACTION_ADD, "add"),
    G_DEFINE_ENUM_VALUE(IBNM_STATE_CHANGE_ACTION_MODIFY, "modify"),
    G_DEFINE_ENUM_VALUE(IBNM_STATE_CHANGE_ACTION_DELETE, "delete"))

static void ibnm_state_change_class_init_impl(IbnmStateChangeClass *) {}

namespace {

using ibnm::state::Change;
using ibnm::state::ChangeKind;
using ibnm::state::InterfaceState;

// The keyfile of `c` as "[group] key=value" lines, in file order.
std::vector<std::string> keyfileLines(NMConnection *c)
{
    std::vector<std::string> out;
    if (!c)
        return out;
    ibnm::GCharPtr data(ibnm_keyfile_to_data(c, nullptr));
    if (!data)
        return out;
    std::string group;
    gchar **lines = g_strsplit(data.get(), "\n", -1);
    for (gchar **l = lines; *l; l++) {
        if (**l == '\0' || **l == '#')
            continue;
        if (**l == '[')
            group = *l;
        else
            out.push_back(group + " " + *l);
    }
    g_strfreev(lines);
    return out;
}

std::vector<std::string> diffLines(NMConnection *before, NMConnection *after)
{
    auto a = keyfileLines(before), b = keyfileLines(after);
    std::vector<std::string> out;
    for (const auto &l : a)
        if (std::find(b.begin(), b.end(), l) == b.end())
            out.push_back("-" + l);
    for (const auto &l : b)
        if (std::find(a.begin(), a.end(), l) == a.end())
            out.push_back("+" + l);
    return out;
}

IbnmStateChange *wrapChange(const Change &ch)
{
    auto *self = IBNM_STATE_CHANGE(g_object_new(IBNM_TYPE_STATE_CHANGE, nullptr));
    auto *p = ibnm_state_change_priv(self);
    static const IbnmStateChangeAction actions[] = {IBNM_STATE_CHANGE_ACTION_NONE, IBNM_STATE_CHANGE_ACTION_ADD,
        IBNM_STATE_CHANGE_ACTION_MODIFY, IBNM_STATE_CHANGE_ACTION_DELETE};
    static const char *const states[] = {"up", "down", "absent"};
    p->action = actions[int(ch.kind)];
    p->state = states[int(ch.state)];
    p->interface = ch.interface;
    NMConnection *named = ch.desired ? ch.desired.get() : ch.stored;
    if (named) {
        p->profile = nm_connection_get_id(named);
        p->hasProfile = true;
    }
    if (ch.kind != ChangeKind::None)
        p->diff = diffLines(ch.stored, ch.kind == ChangeKind::Delete ? nullptr : ch.desired.get());
    p->diffView.clear();
    for (const auto &d : p->diff)
        p->diffView.push_back(d.c_str());
    p->diffView.push_back(nullptr);
    return self;
}

ibnm::GPtrArrayPtr connectionArray(const std::vector<NMConnection *> &v)
{
    ibnm::GPtrArrayPtr a(g_ptr_array_new_with_free_func(g_object_unref));
    for (NMConnection *c : v)
        g_ptr_array_add(a.get(), g_object_ref(c));
    return a;
}

ibnm::Error fromGError(const ibnm::GErrorPtr &e)
{
    if (!e)
        return ibnm::Error(IBNM_ERROR_FAILED, _("the apply failed"));
    return ibnm::Error(e->domain == IBNM_ERROR ? IbnmError(e->code) : IBNM_ERROR_FAILED, e->message);
}

// The UUIDs of the profiles active on `host` (standalone mode: ibnm's
// records of its activations).
std::set<std::string> activeUuids(IbnmHost *host)
{
    std::set<std::string> out;
    ibnm::GPtrArrayPtr active(ibnm_apply_get_active_connections(host, nullptr));
    for (guint i = 0; active && i < active->len; i++)
        out.insert(ibnm_active_connection_get_uuid(IBNM_ACTIVE_CONNECTION(g_ptr_array_index(active.get(), i))));
    return out;
}

// Puts the store back as `changes` found it, after `written` of them were
// written (best effort: the first failure is the one reported).
void restoreStore(IbnmSettings *settings, const std::vector<Change> &changes, size_t written)
{
    for (size_t i = 0; i < written; i++) {
        const Change &ch = changes[i];
        switch (ch.kind) {
        case ChangeKind::Add:
            ibnm_settings_delete(settings, nm_connection_get_uuid(ch.desired.get()), nullptr);
            break;
        case ChangeKind::Modify:
            ibnm_settings_update(settings, ch.stored, nullptr);
            break;
        case ChangeKind::Delete:
            ibnm_settings_add(settings, ch.stored, nullptr, nullptr);
            break;
        case ChangeKind::None:
            break;
        }
    }
}

// After the later half of an apply failed (and the engine undid its own
// steps): brings back up what the first half took down, reads the host
// back and compares it with `before`, the host as the apply found it. Both
// reports then say rolled back only when nothing differs, and list what
// does; the first half's steps are undone when it is.
void settleDownHalf(IbnmHost *host, GPtrArray *down, GPtrArray *stored, IbnmApplyReport *downRep,
                    IbnmApplyReport *upRep, const std::optional<ibnm::model::Host> &before)
{
    ibnm::GErrorPtr err;
    auto again = ibnm::GObjectPtr<IbnmApplyReport>::adopt(ibnm_apply_up(host, down, stored, IBNM_APPLY_FLAGS_NONE));
    gboolean up = ibnm_apply_report_propagate_error(again.get(), ibnm::outPtr(err));
    std::vector<std::string> differs;
    if (!up)
        differs.push_back(ibnm::strprintf(_("the interfaces taken down could not be brought up again: %s"),
                                          err ? err->message : ""));
    auto after = ibnm::hostPlatform(host).readHost();
    if (!before || !after.ok()) {
        differs.push_back(_("the host could not be read back to compare it with how it was"));
    } else {
        auto d = ibnm::activation::hostDifferences(*before, *after);
        differs.insert(differs.end(), d.begin(), d.end());
    }
    bool restored = differs.empty() && (upRep == nullptr || ibnm_apply_report_get_rolled_back(upRep));
    if (downRep)
        ibnm::apply::settleRollback(downRep, restored, differs, up);
    if (upRep)
        ibnm::apply::settleRollback(upRep, restored, differs, false);
}

} // namespace

/**
 * ibnm_state_change_get_action:
 * @self: an #IbnmStateChange
 *
 * Gets what happens to the interface's profile.
 *
 * Returns: what happens to the profile; its nick is the word `ibnm apply`
 *   prints.
 *
 * Since: 0.1
 */
IbnmStateChangeAction ibnm_state_change_get_action(IbnmStateChange *self)
{
    g_return_val_if_fail(IBNM_IS_STATE_CHANGE(self), IBNM_STATE_CHANGE_ACTION_NONE);
    return ibnm_state_change_priv(self)->action;
}

/**
 * ibnm_state_change_get_interface:
 * @self: an #IbnmStateChange
 *
 * Gets the interface the change is for, as the document names it.
 *
 * Returns: (transfer none): the interface name.
 *
 * Since: 0.1
 */
const char *ibnm_state_change_get_interface(IbnmStateChange *self)
{
    g_return_val_if_fail(IBNM_IS_STATE_CHANGE(self), nullptr);
    return ibnm_state_change_priv(self)->interface.c_str();
}

/**
 * ibnm_state_change_get_state:
 * @self: an #IbnmStateChange
 *
 * Gets the state the document asks for the interface.
 *
 * Returns: (transfer none): "up", "down" or "absent".
 *
 * Since: 0.1
 */
const char *ibnm_state_change_get_state(IbnmStateChange *self)
{
    g_return_val_if_fail(IBNM_IS_STATE_CHANGE(self), nullptr);
    return ibnm_state_change_priv(self)->state.c_str();
}

/**
 * ibnm_state_change_get_profile:
 * @self: an #IbnmStateChange
 *
 * Gets the id of the profile of the interface.
 *
 * Returns: (transfer none) (nullable): the profile's id, or %NULL for an
 *   absent interface without a profile.
 *
 * Since: 0.1
 */
const char *ibnm_state_change_get_profile(IbnmStateChange *self)
{
    g_return_val_if_fail(IBNM_IS_STATE_CHANGE(self), nullptr);
    auto *p = ibnm_state_change_priv(self);
    return p->hasProfile ? p->profile.c_str() : nullptr;
}

/**
 * ibnm_state_change_get_diff:
 * @self: an #IbnmStateChange
 *
 * Gets the keyfile lines that change, "[group] key=value": first the
 * removed lines, marked "-", then the added ones, marked "+"
 * ("-[infiniband] mtu=2044", "+[infiniband] mtu=4092").
 *
 * Returns: (transfer none) (array zero-terminated=1): the changed lines;
 *   empty when nothing changes.
 *
 * Since: 0.1
 */
const char *const *ibnm_state_change_get_diff(IbnmStateChange *self)
{
    g_return_val_if_fail(IBNM_IS_STATE_CHANGE(self), nullptr);
    return ibnm_state_change_priv(self)->diffView.data();
}

namespace {

// What the stages of ibnm_state_apply() share: the run's inputs, the store
// as read, the plan (and its IbnmStateChange objects), the profiles it
// sorts out, and the two halves' reports.
struct ApplyRun {
    IbnmSettings *settings = nullptr;
    IbnmHost *host = nullptr;
    IbnmApplyFlags flags = IBNM_APPLY_FLAGS_NONE;
    ibnm::GPtrArrayPtr all; // holds `stored`
    std::vector<NMConnection *> stored;
    std::vector<Change> planned;
    ibnm::GPtrArrayPtr wrapped;
    std::vector<NMConnection *> after, down, up;
    ibnm::GObjectPtr<IbnmApplyReport> downRep, upRep;

    bool dryRun() const { return flags & IBNM_APPLY_FLAGS_DRY_RUN; }
};

// Stage 1, the plan: the document parsed and planned against the store,
// each change wrapped for the caller (`wrapped`).
ibnm::Status planDocument(ApplyRun &run, std::string_view doc, const std::string &name)
{
    auto root = ibnm::state::parseDocument(doc, name);
    if (!root)
        return std::move(root).error();
    run.all.reset(ibnm_settings_get_connections(run.settings));
    for (guint i = 0; i < run.all->len; i++)
        run.stored.push_back(NM_CONNECTION(g_ptr_array_index(run.all.get(), i)));
    auto planned = ibnm::state::plan(root->get(), run.stored, name);
    if (!planned)
        return std::move(planned).error();
    run.planned = std::move(*planned);
    run.wrapped.reset(g_ptr_array_new_with_free_func(g_object_unref));
    for (const auto &ch : run.planned)
        g_ptr_array_add(run.wrapped.get(), wrapChange(ch));
    return {};
}

// Stage 2, the profiles: the store as it will be (`after`), what goes down
// (as stored) and what comes up.
void sortProfiles(ApplyRun &run)
{
    // (The first change of each stored profile, found in one pass: a
    // search per profile made a thousand of them quadratic.)
    std::unordered_map<NMConnection *, const Change *> changeOf;
    for (const auto &ch : run.planned)
        if (ch.stored)
            changeOf.emplace(ch.stored, &ch);
    for (NMConnection *c : run.stored) {
        auto it = changeOf.find(c);
        if (it == changeOf.end())
            run.after.push_back(c);
        else if (it->second->kind != ChangeKind::Delete)
            run.after.push_back(it->second->desired.get());
    }
    // Down and absent take down the profiles that are active; one that
    // is not has nothing on the host to take down (a profile that is
    // deleted while inactive never touches its device, as nmcli's
    // `connection delete`).
    std::set<std::string> active = activeUuids(run.host);
    for (const auto &ch : run.planned) {
        if (ch.kind == ChangeKind::Add)
            run.after.push_back(ch.desired.get());
        if (ch.state == InterfaceState::Up)
            run.up.push_back(ch.desired.get());
        else if (ch.stored && active.count(nm_connection_get_uuid(ch.stored)))
            run.down.push_back(ch.stored);
    }
}

// Stage 3, the host: the down half, then the up half, each a transaction
// of the activation engine; when the up half fails, what went down comes
// back (settleDownHalf()). Their reports are the caller's (`downRep`,
// `upRep`), whatever the outcome.
ibnm::Status runHalves(ApplyRun &run)
{
    auto storedArray = connectionArray(run.stored), afterArray = connectionArray(run.after);
    auto downArray = connectionArray(run.down), upArray = connectionArray(run.up);
    auto mode = IbnmApplyFlags(run.flags & IBNM_APPLY_FLAGS_DRY_RUN);
    ibnm::GErrorPtr err;
    IbnmApplyReport *raw = nullptr;
    // The host as found, for a rollback across both halves to be
    // checked against (one half alone checks its own).
    std::optional<ibnm::model::Host> before;
    if (!run.down.empty() && !run.dryRun())
        if (auto h = ibnm::hostPlatform(run.host).readHost(); h.ok())
            before = std::move(*h);
    if (!run.down.empty()) {
        ibnm::progress::Phase phase(_("Taking profiles down"));
        gboolean ok = ibnm::apply::runProfiles(run.host, downArray.get(), storedArray.get(), mode, false, &raw,
                                               ibnm::outPtr(err), {});
        run.downRep = ibnm::GObjectPtr<IbnmApplyReport>::adopt(raw);
        if (!ok)
            return fromGError(err);
    }
    raw = nullptr;
    std::optional<ibnm::progress::Phase> upPhase(std::in_place, _("Configuring the host"));
    gboolean ok = ibnm::apply::runProfiles(run.host, upArray.get(), afterArray.get(), mode, true, &raw,
                                           ibnm::outPtr(err), {});
    upPhase.reset();
    run.upRep = ibnm::GObjectPtr<IbnmApplyReport>::adopt(raw);
    if (!ok) {
        // The engine undid its own steps; what went down comes back.
        if (!run.down.empty() && !run.dryRun())
            settleDownHalf(run.host, downArray.get(), storedArray.get(), run.downRep.get(), run.upRep.get(),
                           before);
        return fromGError(err);
    }
    return {};
}

// Stage 4, the store: every change written in one batch, durable when
// commitBatch() returns (one sync for all the files: a thousand profiles,
// two fsyncs each, cost seconds); on a failure the profiles written before
// are restored and the host keeps the applied state.
ibnm::Status writeProfiles(ApplyRun &run)
{
    auto &backend = ibnm::settings::backendOf(run.settings);
    backend.beginBatch();
    ibnm::progress::Phase writing(_("Writing profiles"));
    ibnm::GErrorPtr err;
    for (size_t i = 0; i < run.planned.size(); i++) {
        const Change &ch = run.planned[i];
        ibnm::progress::count(unsigned(i + 1), unsigned(run.planned.size()));
        gboolean written = TRUE;
        switch (ch.kind) {
        case ChangeKind::Add:
            written = ibnm_settings_add(run.settings, ch.desired.get(), nullptr, ibnm::outPtr(err));
            break;
        case ChangeKind::Modify:
            written = ibnm_settings_update(run.settings, ch.desired.get(), ibnm::outPtr(err));
            break;
        case ChangeKind::Delete:
            written = ibnm_settings_delete(run.settings, nm_connection_get_uuid(ch.stored), ibnm::outPtr(err));
            break;
        case ChangeKind::None:
            break;
        }
        if (!written) {
            backend.abortBatch();
            restoreStore(run.settings, run.planned, i);
            return fromGError(err).withContext(
                ibnm::strprintf(_("%s (the profiles written before were restored; the host keeps the "
                                  "applied state)"),
                                ch.interface.c_str()));
        }
    }
    if (auto st = backend.commitBatch(); !st) {
        restoreStore(run.settings, run.planned, run.planned.size());
        return std::move(st).error().withContext(
            _("the profiles could not be written; those written before were restored, the host keeps the "
              "applied state"));
    }
    return {};
}

} // namespace

/**
 * ibnm_state_apply:
 * @settings: the loaded profile store
 * @host: the host to activate on
 * @text: the document, nmstate's schema in YAML or JSON
 * @length: its length, or -1 when NUL-terminated
 * @filename: (nullable): what to call it in errors ("-" for stdin; %NULL
 *   means "-")
 * @flags: %IBNM_APPLY_FLAGS_DRY_RUN plans and changes nothing
 * @progress_callback: (nullable) (scope call) (closure progress_callback_data):
 *   what hears the progress of the apply, for a person watching (the steps
 *   on the host, the profiles written), or %NULL
 * @progress_callback_data: the data to pass to @progress_callback
 * @changes: (out) (optional) (transfer container) (element-type IbnmStateChange):
 *   set whether or not the apply succeeded: one #IbnmStateChange per
 *   interface of the document, as planned (what the store has, or would
 *   have after a dry run, once the apply succeeded); empty when the
 *   document could not be read or planned
 *
 * Takes down the interfaces the document marks down or absent, brings up
 * those it marks up (one transaction each, undone on failure; when bringing
 * up fails, what was taken down comes back up), then writes the profiles.
 * A document that asks for what is already there changes nothing.
 *
 * The report is the whole apply's, returned whether or not it succeeded,
 * so that a binding (which drops return values and out arguments when a
 * #GError is raised) can read it: the steps that took interfaces down, then
 * those that brought them up, and what was undone. A document that cannot
 * be read or planned is a report that did not start
 * (ibnm_apply_report_get_started()); a store that cannot be written after
 * the host took the state is a report whose steps all succeeded and that
 * did not (the profiles written before were restored, the host keeps the
 * applied state). ibnm_apply_report_propagate_error() gives the failure as a
 * #GError. When the apply found the host and the store as asked,
 * ibnm_apply_report_get_host_digest() gives the host it found.
 *
 * Returns: (transfer full): the report of the apply; %NULL only for a wrong
 *   argument (then @changes is left alone)
 *
 * Since: 0.1
 */
// The stages: the plan (1), the profiles it sorts out (2), the host (3),
// then, unless this is a dry run, the store (4).
IbnmApplyReport *ibnm_state_apply(IbnmSettings *settings, IbnmHost *host, const char *text, gssize length,
                                  const char *filename, IbnmApplyFlags flags, IbnmProgressCallback progress_callback,
                                  gpointer progress_callback_data, GPtrArray **changes)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(settings), nullptr);
    g_return_val_if_fail(IBNM_IS_HOST(host), nullptr);
    g_return_val_if_fail(text != nullptr, nullptr);
    g_return_val_if_fail(changes == nullptr || *changes == nullptr, nullptr);
    ApplyRun run;
    run.settings = settings;
    run.host = host;
    run.flags = flags;
    ibnm::progress::Listening listening(progress_callback, progress_callback_data);
    IbnmApplyReport *report = ibnm::apply::reportOf([&](IbnmApplyReport **out, GError **error) {
        gboolean ok = ibnm::guard(error, [&]() -> ibnm::Status {
            std::string_view doc(text, length < 0 ? strlen(text) : size_t(length));
            if (auto st = planDocument(run, doc, filename ? filename : "-"); !st)
                return st;
            sortProfiles(run);
            if (auto st = runHalves(run); !st)
                return st;
            if (run.dryRun())
                return {};
            return writeProfiles(run);
        });
        *out = ibnm::apply::join({run.downRep.get(), run.upRep.get()});
        return ok;
    });
    if (changes)
        *changes = run.wrapped ? g_ptr_array_ref(run.wrapped.get()) : g_ptr_array_new_with_free_func(g_object_unref);
    return report;
}

/**
 * ibnm_state_show:
 * @settings: the loaded profile store
 * @host: (nullable): the host, for each interface's state
 * @format: YAML or JSON
 * @error: return location for a #GError
 *
 * Describes the stored profiles as a declarative state document, the one
 * `ibnm state show` prints and ibnm_state_apply() reads
 * (docs/declarative-state.md).
 *
 * Returns: (transfer full) (nullable): the stored profiles as a state
 *   document (free with g_free()); %NULL with @error set when @host cannot
 *   be read or the document cannot be written
 *
 * Since: 0.1
 */
G_DEFINE_ENUM_TYPE(IbnmStateFormat, ibnm_state_format, G_DEFINE_ENUM_VALUE(IBNM_STATE_FORMAT_YAML, "yaml"),
                   G_DEFINE_ENUM_VALUE(IBNM_STATE_FORMAT_JSON, "json"))

char *ibnm_state_show(IbnmSettings *settings, IbnmHost *host, IbnmStateFormat format, GError **error)
{
    g_return_val_if_fail(IBNM_IS_SETTINGS(settings), nullptr);
    char *out = nullptr;
    ibnm::guard(error, [&]() -> ibnm::Status {
        ibnm::GPtrArrayPtr all(ibnm_settings_get_connections(settings));
        std::vector<NMConnection *> stored;
        for (guint i = 0; i < all->len; i++)
            stored.push_back(NM_CONNECTION(g_ptr_array_index(all.get(), i)));
        // A profile is up where it is active: NetworkManager's active
        // connections, or (standalone) ibnm's own, however the profile names
        // its device (a P_Key child without interface name, a port found by
        // its MAC), so that applying the document changes nothing.
        std::optional<std::set<std::string>> active;
        if (host) {
            active.emplace();
            if (g_strcmp0(ibnm_settings_get_backend_name(settings), "networkmanager") == 0) {
                for (NMConnection *c : stored)
                    if (ibnm_settings_get_active_device(settings, nm_connection_get_uuid(c)))
                        active->insert(nm_connection_get_uuid(c));
            } else {
                ibnm::GErrorPtr err;
                ibnm::GPtrArrayPtr list(ibnm_apply_get_active_connections(host, ibnm::outPtr(err)));
                if (!list)
                    return fromGError(err);
                for (guint i = 0; i < list->len; i++)
                    active->insert(
                        ibnm_active_connection_get_uuid(IBNM_ACTIVE_CONNECTION(g_ptr_array_index(list.get(), i))));
            }
        }
        auto doc = ibnm::state::describe(stored, active ? &*active : nullptr);
        std::string text;
        if (format == IBNM_STATE_FORMAT_JSON) {
            text = ibnm::state::toJson(doc.get());
        } else {
            auto y = ibnm::state::toYaml(doc.get());
            if (!y)
                return std::move(y).error();
            text = *y;
        }
        out = g_strdup(text.c_str());
        return {};
    });
    return out;
}
