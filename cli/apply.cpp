// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm apply FILE|-` and `ibnm show-state`: a desired state in nmstate's
// schema (YAML or JSON) applied to the profiles and the host as one
// transaction, and the stored profiles shown in that schema. The work is
// libibnm's (ibnm_state_apply, ibnm_state_show); this file reads the file,
// prints the changes, the diff and the steps, and the JSON for tools
// (the Ansible module reads `ibnm -j apply`).
#include "config.h"

#include "cli/apply-record.hpp"
#include "cli/cli.hpp"
#include "cli/output.hpp"
#include "settings/ibnm-state.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace ibnm::cli {

const char *const kApplyUsage = N_("Usage: ibnm apply [--diff|-v] FILE|-\n"
                                   "       ibnm show-state\n"
                                   "\n"
                                   "FILE is a desired state in nmstate's schema, YAML or JSON ('-': stdin).\n"
                                   "apply prints one line per profile it changes; --diff or -v adds each\n"
                                   "profile's keyfile diff and the steps taken on the host.\n"
                                   "With --dry-run, apply prints the plan and the diff and changes nothing.\n");

namespace {

// Whether `r` changed the host (or, for a dry run, would).
bool reportChanges(IbnmApplyReport *r)
{
    GPtrArray *steps = r ? ibnm_apply_report_get_steps(r) : nullptr;
    for (guint i = 0; steps && i < steps->len; i++) {
        IbnmStepState st = ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, i)));
        if (st == IBNM_STEP_STATE_DONE || st == IBNM_STEP_STATE_PLANNED)
            return true;
    }
    return false;
}

// One interface of the document, as the apply or the verified no-op
// record says it went.
struct ChangeRow {
    std::string interface, action, state;
    std::optional<std::string> profile;
    std::vector<std::string> diff;
};

std::vector<ChangeRow> rowsOf(GPtrArray *changes)
{
    std::vector<ChangeRow> rows;
    for (guint i = 0; changes && i < changes->len; i++) {
        auto *c = IBNM_STATE_CHANGE(g_ptr_array_index(changes, i));
        ChangeRow r{ibnm_state_change_get_interface(c),
                    enumNick(IBNM_TYPE_STATE_CHANGE_ACTION, ibnm_state_change_get_action(c)),
                    ibnm_state_change_get_state(c), std::nullopt, {}};
        if (const char *p = ibnm_state_change_get_profile(c))
            r.profile = p;
        for (const char *const *d = ibnm_state_change_get_diff(c); d && *d; d++)
            r.diff.emplace_back(*d);
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<ChangeRow> rowsOf(const noop::Outcome &outcome)
{
    std::vector<ChangeRow> rows;
    for (const auto &c : outcome.changes)
        rows.push_back({c.interface, "none", c.state, c.hasProfile ? std::optional(c.profile) : std::nullopt, {}});
    return rows;
}

// `notes`: what the reports' notes were, when there are no reports (the
// verified no-op record's).
int printJson(bool ok, bool changed, bool dryRun, const GError *error, const std::vector<ChangeRow> &changes,
              std::initializer_list<IbnmApplyReport *> reports, const std::vector<std::string> &notes = {})
{
    // Rolled back: a report says so, and none says otherwise (ibnm apply
    // settles both halves on one reading of the host).
    bool rolledBack = false, notRolledBack = false;
    for (IbnmApplyReport *r : reports) {
        if (!r || ibnm_apply_report_get_success(r))
            continue;
        rolledBack = rolledBack || ibnm_apply_report_get_rolled_back(r);
        notRolledBack = notRolledBack || !ibnm_apply_report_get_rolled_back(r);
    }
    rolledBack = rolledBack && !notRolledBack;
    JsonDoc j;
    j.beginObject()
        .boolean("success", ok)
        .boolean("changed", changed)
        .boolean("dry-run", dryRun)
        .boolean("rolled-back", rolledBack)
        .value("error", error ? error->message : nullptr)
        .beginArray("changes");
    for (const auto &c : changes) {
        j.beginObject()
            .value("interface", c.interface.c_str())
            .value("action", c.action.c_str())
            .value("state", c.state.c_str())
            .value("profile", c.profile ? c.profile->c_str() : nullptr)
            .beginArray("diff");
        for (const auto &d : c.diff)
            j.value(nullptr, d.c_str());
        j.endArray().endObject();
    }
    j.endArray().beginArray("steps");
    for (IbnmApplyReport *r : reports) {
        GPtrArray *steps = r ? ibnm_apply_report_get_steps(r) : nullptr;
        for (guint i = 0; steps && i < steps->len; i++)
            stepJson(j, IBNM_STEP(g_ptr_array_index(steps, i)));
    }
    j.endArray().beginArray("notes");
    for (IbnmApplyReport *r : reports)
        for (const char *const *n = r ? ibnm_apply_report_get_notes(r) : nullptr; n && *n; n++)
            j.value(nullptr, *n);
    for (const auto &n : notes)
        j.value(nullptr, n.c_str());
    // What the host, read back after a failure, has otherwise than before
    // (each line once: both halves of an apply list the same).
    j.endArray().beginArray("not-restored");
    std::vector<std::string> notRestored;
    for (IbnmApplyReport *r : reports)
        for (const char *const *n = r ? ibnm_apply_report_get_not_restored(r) : nullptr; n && *n; n++)
            if (std::find(notRestored.begin(), notRestored.end(), *n) == notRestored.end())
                notRestored.emplace_back(*n);
    for (const auto &n : notRestored)
        j.value(nullptr, n.c_str());
    j.endArray().endObject().print();
    return ok ? kExitOk : kExitFailed;
}

// apt's progress: on a terminal, one line per phase, its counter rewritten
// in place (at most ten times a second, always at the end of the phase).
struct Progress {
    std::string phase;
    gint64 last = 0;
    bool open = false;
};

void onProgress(const char *phase, guint done, guint total, gpointer data)
{
    auto *p = static_cast<Progress *>(data);
    gint64 now = g_get_monotonic_time();
    bool newPhase = p->phase != phase;
    if (!newPhase && done < total && now - p->last < G_USEC_PER_SEC / 10)
        return;
    if (newPhase && p->open)
        std::fputc('\n', stdout);
    p->phase = phase;
    p->last = now;
    p->open = true;
    std::printf("\r%s: %u/%u (%u%%)", phase, done, total, total ? unsigned(guint64(done) * 100 / total) : 100u);
    std::fflush(stdout);
}

// The progress callback of one apply on a terminal (output for people, not
// a dry run; none otherwise); ends the open line when it goes.
class ProgressOnTerminal {
public:
    explicit ProgressOnTerminal(const Context &ctx)
    {
        const Options &o = ctx.options;
        on_ = o.mode == OutputMode::Tabular && !o.getValues && !o.dryRun && isatty(STDOUT_FILENO);
    }
    ~ProgressOnTerminal() { end(); }
    IbnmProgressCallback callback() const { return on_ ? onProgress : nullptr; }
    gpointer data() { return on_ ? &state_ : nullptr; }
    void end()
    {
        if (on_ && state_.open)
            std::fputc('\n', stdout);
        on_ = false;
    }

private:
    bool on_ = false;
    Progress state_;
};

} // namespace

namespace {

// After the full apply: when it was a verified no-op (every profile
// unchanged, each run found the host already as asked, the same host each
// time, the store loaded without a warning, which the shortcut would not
// repeat), the record of it, keyed on the store as `storeState` found it
// before it was loaded; anything else makes the record no longer answer.
void rememberIfVerifiedNoOp(IbnmSettings *settings, IbnmHost *host, const std::optional<noop::StoreIdentity> &storeState,
                            const std::string &text, unsigned flags, bool ok, GPtrArray *changes,
                            std::initializer_list<IbnmApplyReport *> reports)
{
    std::vector<ChangeRow> rows = rowsOf(changes);
    bool unchanged = ok && storeState &&
                     std::all_of(rows.begin(), rows.end(), [](const ChangeRow &r) { return r.action == "none"; });
    std::string digest;
    for (IbnmApplyReport *r : reports) {
        if (!r)
            continue;
        const char *d = ibnm_apply_report_get_host_digest(r);
        unchanged = unchanged && d && (digest.empty() || digest == d);
        digest = d ? d : "";
    }
    const char *const *warnings = ibnm_settings_get_load_warnings(settings);
    if (!unchanged || digest.empty() || (warnings && *warnings)) {
        noop::forget(host);
        return;
    }
    noop::Outcome outcome;
    for (const auto &r : rows)
        outcome.changes.push_back({r.interface, r.state, r.profile.value_or(""), r.profile.has_value()});
    for (IbnmApplyReport *r : reports)
        for (const char *const *n = r ? ibnm_apply_report_get_notes(r) : nullptr; n && *n; n++)
            outcome.notes.emplace_back(*n);
    noop::write(host, *storeState, noop::Key::of(text, flags), digest, outcome);
}

} // namespace

int cmdApply(Context &ctx, const Args &argsIn)
{
    ctx.options.noPager = true; // as printReport(): apply reports a change
    // --diff / -v / --verbose: the keyfile diffs and the steps too.
    bool verbose = false;
    Args args;
    for (const auto &a : argsIn) {
        if (a == "--diff" || a == "-v" || a == "--verbose")
            verbose = true;
        else
            args.push_back(a);
    }
    if (args.empty())
        return usageError(_(kApplyUsage), "%s", _("missing FILE ('-' for stdin)"));
    if (args.size() > 1)
        return usageError(_(kApplyUsage), _("argument '%s' not understood"), args[1].c_str());
    const std::string &file = args[0];
    std::string text;
    ErrorPtr err;
    // At most one byte more than a document may have (libibnm refuses
    // that one, naming the limit): a huge file or an endless stdin is not
    // read into memory whole.
    constexpr size_t limit = IBNM_STATE_MAX_DOCUMENT_SIZE;
    if (file == "-") {
        char buf[65536];
        while (text.size() <= limit && std::cin.read(buf, sizeof buf).gcount() > 0)
            text.append(buf, size_t(std::cin.gcount()));
    } else {
        GStatBuf st;
        if (g_stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && size_t(st.st_size) > limit) {
            text.assign(limit + 1, ' ');
        } else {
            CharPtr data;
            gsize len = 0;
            if (!g_file_get_contents(file.c_str(), Out(data), &len, Out(err)))
                return reportError(err.get());
            text.assign(data.get(), len);
        }
    }
    if (text.size() > limit)
        text.resize(limit + 1);
    auto flags = ctx.options.dryRun ? IBNM_APPLY_FLAGS_DRY_RUN : IBNM_APPLY_FLAGS_NONE;
    // A standalone store has a verified no-op record (git's stat cache for
    // the whole apply, cli/apply-record.hpp): when it answers, what the
    // apply would print, without loading the store.
    // The keyfile directory of a standalone store, given or the default one
    // when NetworkManager does not run (NetworkManager's store: none).
    IbnmSettings *store = ctx.store();
    if (!store)
        return kExitFailed;
    const char *storeDir = ibnm_settings_get_keyfile_dir(store);
    bool recordKept = storeDir && !ctx.options.dryRun;
    std::optional<noop::StoreIdentity> storeState;
    if (recordKept) {
        IbnmHost *host = ctx.host();
        if (!host)
            return kExitFailed;
        std::string why;
        auto outcome = noop::lookup(host, storeDir, text, unsigned(flags), &why, &storeState);
        // IBNM_DEBUG=apply-record: whether the record answered (debug text,
        // for tests and bug reports).
        if (const char *debug = g_getenv("IBNM_DEBUG"); debug && std::strstr(debug, "apply-record"))
            std::fprintf(stderr, "ibnm: apply-record: %s\n",
                         outcome ? "answered: a verified no-op" : ("declined: " + why).c_str());
        if (outcome) {
            if (ctx.options.mode == OutputMode::Json)
                return printJson(true, false, false, nullptr, rowsOf(*outcome), {}, outcome->notes);
            if (!ctx.options.getValues && ctx.options.mode != OutputMode::Terse)
                std::printf("%s\n", _("Nothing to do: the profiles and the host are already in the desired state."));
            return kExitOk;
        }
    }
    // The store locked from its read to its write (the host's activation
    // lock is taken inside it, in that order): no other writer's change is
    // lost or interleaved. A dry run changes nothing: no lock.
    IbnmSettings *s = ctx.settings(!ctx.options.dryRun);
    if (!s)
        return ctx.storeFailure();
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    ProgressOnTerminal progress(ctx);
    PtrArray changes;
    Obj<IbnmApplyReport> report(ibnm_state_apply(s, host, text.data(), gssize(text.size()),
                                                 file == "-" ? "stdin" : file.c_str(), flags, progress.callback(),
                                                 progress.data(), Out(changes)));
    progress.end();
    gboolean ok = ibnm_apply_report_propagate_error(report.get(), Out(err));
    if (recordKept)
        rememberIfVerifiedNoOp(s, host, storeState, text, unsigned(flags), ok, changes.get(), {report.get()});
    bool changed = reportChanges(report.get());
    for (guint i = 0; changes && i < changes->len; i++)
        changed = changed
            || ibnm_state_change_get_action(IBNM_STATE_CHANGE(g_ptr_array_index(changes.get(), i)))
                != IBNM_STATE_CHANGE_ACTION_NONE;
    if (ctx.options.mode == OutputMode::Json) {
        int rc = printJson(ok, ok && changed, ctx.options.dryRun, err.get(), rowsOf(changes.get()), {report.get()});
        if (!ok && err && err->domain == IBNM_ERROR && err->code == IBNM_ERROR_TIMED_OUT)
            return kExitTimeout;
        if (!ok)
            return err && err->domain == IBNM_ERROR &&
                           (err->code == IBNM_ERROR_INVALID_ARGUMENT || err->code == IBNM_ERROR_INVALID_VALUE)
                       ? kExitUsage
                       : rc;
        return rc;
    }
    bool quiet = ctx.options.getValues || ctx.options.mode == OutputMode::Terse;
    // A dry run is asked for its plan: it shows the details as -v does.
    bool details = verbose || ctx.options.dryRun;
    if (!quiet) {
        for (guint i = 0; changes && i < changes->len; i++) {
            auto *c = IBNM_STATE_CHANGE(g_ptr_array_index(changes.get(), i));
            if (ibnm_state_change_get_action(c) == IBNM_STATE_CHANGE_ACTION_NONE)
                continue;
            std::printf(_("%s: %s profile '%s' (%s)\n"), ibnm_state_change_get_interface(c),
                enumNick(IBNM_TYPE_STATE_CHANGE_ACTION, ibnm_state_change_get_action(c)),
                ibnm_state_change_get_profile(c) ? ibnm_state_change_get_profile(c) : "",
                ibnm_state_change_get_state(c));
            for (const char *const *d = details ? ibnm_state_change_get_diff(c) : nullptr; d && *d; d++)
                std::printf("  %s\n", *d);
        }
    }
    // The steps (-t keeps its table for scripts; a failure shows them);
    // else only what the reports note.
    if (IbnmApplyReport *r = report.get(); ibnm_apply_report_get_steps(r)->len > 0) {
        if (details || quiet || !ibnm_apply_report_get_success(r))
            printReport(ctx, r);
        else
            for (const char *const *n = ibnm_apply_report_get_notes(r); n && *n; n++)
                std::printf(_("Note: %s\n"), *n);
    }
    if (!ok)
        return reportError(err.get());
    if (!quiet) {
        if (ctx.options.dryRun)
            std::printf(_("Dry run: nothing was changed.\n"));
        else if (!changed)
            std::printf("%s\n", _("Nothing to do: the profiles and the host are already in the desired state."));
        else
            std::printf("%s\n", _("The desired state was applied."));
    }
    return kExitOk;
}

int cmdShowState(Context &ctx, const Args &args)
{
    if (!args.empty())
        return usageError(_(kApplyUsage), _("argument '%s' not understood"), args[0].c_str());
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    ErrorPtr err;
    CharPtr text(ibnm_state_show(s, host,
        ctx.options.mode == OutputMode::Json ? IBNM_STATE_FORMAT_JSON : IBNM_STATE_FORMAT_YAML, Out(err)));
    if (!text)
        return reportError(err.get());
    std::fputs(text.get(), stdout);
    return kExitOk;
}

} // namespace ibnm::cli
