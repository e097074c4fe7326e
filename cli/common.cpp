// SPDX-License-Identifier: LGPL-2.1-or-later
// The context every command runs in, dispatch, errors, and the two reports
// several command groups print: an apply report and a list of findings.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"
#include "cli/suggest.hpp"
#include "libcore/simulator/loader.hpp"

#include <glib/gi18n.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <unistd.h>

namespace ibnm::cli {

IbnmSettings *Context::store()
{
    if (settings_)
        return settings_.get();
    ErrorPtr err;
    if (!options.keyfileDir.empty()) {
        settings_.reset(IBNM_SETTINGS(g_object_new(IBNM_TYPE_SETTINGS, IBNM_SETTINGS_KEYFILE_DIR,
                                                   options.keyfileDir.c_str(), IBNM_SETTINGS_READ_ONLY,
                                                   gboolean(settingsReadOnly_), nullptr)));
        // A standalone store belongs to whoever runs ibnm on it.
        ibnm_settings_set_required_owner(settings_.get(), getuid());
    } else {
        settings_.reset(IBNM_SETTINGS(g_initable_new(IBNM_TYPE_SETTINGS, nullptr, Out(err), IBNM_SETTINGS_BACKEND,
                                                      IBNM_SETTINGS_BACKEND_AUTO, IBNM_SETTINGS_READ_ONLY,
                                                      gboolean(settingsReadOnly_), nullptr)));
    }
    if (!settings_)
        printError("%s", err ? err->message : _("cannot open the profile store"));
    else
        ibnm_settings_set_lock_wait(settings_.get(), lockWait());
    return settings_.get();
}

IbnmSettings *Context::settings(bool update, bool readOnly)
{
    if (settingsLoaded_ && (!update || settingsLocked_) && (readOnly || !settingsReadOnly_))
        return settings_.get();
    // Loaded without the lock and now to be updated (or loaded read-only
    // and now to be used otherwise): a new store, loaded again.
    if (settingsLoaded_ || (settings_ && settingsReadOnly_ != (readOnly && !update)))
        settings_.reset();
    settingsLoaded_ = false;
    settingsReadOnly_ = readOnly && !update;
    if (!store())
        return nullptr;
    ErrorPtr err;
    if (update)
        settingsLocked_ = true;
    if (!(update ? ibnm_settings_lock_for_update(settings_.get(), Out(err))
                 : ibnm_settings_load(settings_.get(), Out(err)))) {
        printError("%s", err ? err->message : _("cannot open the profile store"));
        storeFailure_ = err && g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_TIMED_OUT) ? kExitTimeout : kExitFailed;
        settings_.reset();
        return nullptr;
    }
    settingsLoaded_ = true;
    for (const char *const *w = ibnm_settings_get_load_warnings(settings_.get()); w && *w; w++)
        std::fprintf(stderr, _("Warning: %s\n"), *w);
    return settings_.get();
}


namespace {

// An option, else its environment variable, else "".
std::string optionOrEnv(const std::string &option, const char *variable)
{
    if (!option.empty())
        return option;
    const char *value = g_getenv(variable);
    return value ? value : "";
}

} // namespace

bool Context::hostChosen() const
{
    return !optionOrEnv(options.simulate, "IBNM_SIMULATE").empty() ||
           !optionOrEnv(options.sysfsRoot, "IBNM_SYSFS_ROOT").empty();
}

bool Context::hostSimulated() const
{
    return !optionOrEnv(options.simulate, "IBNM_SIMULATE").empty();
}

#if defined(__SANITIZE_ADDRESS__)
#define IBNM_CLI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IBNM_CLI_ASAN 1
#endif
#endif

void Context::leaveStoreToExit()
{
#ifndef IBNM_CLI_ASAN
    // Reachable from a static until the exit: not a leak to a leak checker.
    static IbnmSettings *kept = nullptr;
    if (settings_ && kept == nullptr)
        kept = settings_.release();
#endif
}

void leaveToExit(PtrArray array)
{
#ifndef IBNM_CLI_ASAN
    // Reachable from a static until the exit: not a leak to a leak checker.
    static GPtrArray *kept = nullptr;
    if (kept == nullptr)
        kept = array.release();
#endif
}

IbnmHost *Context::host()
{
    if (host_)
        return host_.get();
    // --simulate FILE (IBNM_SIMULATE, state in IBNM_SIMULATE_STATE), else
    // --sysfs-root DIR (IBNM_SYSFS_ROOT), else this machine.
    ErrorPtr err;
    std::string simulate = optionOrEnv(options.simulate, "IBNM_SIMULATE");
    std::string sysfsRoot = optionOrEnv(options.sysfsRoot, "IBNM_SYSFS_ROOT");
    if (!simulate.empty()) {
        if (const simulator::Api *api = simulator::load(Out(err))) {
            std::string state = optionOrEnv("", "IBNM_SIMULATE_STATE");
            host_.reset(api->newHost(simulate.c_str(), state.empty() ? nullptr : state.c_str(), Out(err)));
        }
    } else if (!sysfsRoot.empty()) {
        host_.reset(ibnm_host_new_sysfs_dump(sysfsRoot.c_str(), Out(err)));
    } else {
        host_.reset(ibnm_host_new_system());
    }
    if (!host_) {
        printError("%s", err ? err->message : _("cannot open the host"));
        return nullptr;
    }
    // -w SECONDS bounds the wait for another's activation lock (0: no
    // wait) ...
    ibnm_host_set_lock_wait(host_.get(), lockWait());
    // ... and a change after that is refused and what was done undone
    // (nmcli's -w bounds how long it waits; 0 there means not waiting at
    // all, which for ibnm's synchronous changes is no limit).
    if (options.waitSeconds > 0)
        ibnm_host_set_deadline(host_.get(), g_get_monotonic_time() + options.waitSeconds * G_USEC_PER_SEC);
    return host_.get();
}

IbnmInventory *Context::inventory(InventoryScope scope)
{
    // A whole inventory serves both scopes; a GID-only one only its own.
    if (inventory_ && (inventoryScope_ == InventoryScope::Whole || scope == InventoryScope::GidTables))
        return inventory_.get();
    IbnmHost *h = host();
    if (!h)
        return nullptr;
    ErrorPtr err;
    // A GID-only inventory handed out earlier is reloaded whole, not
    // replaced: pointers to it stay valid (a failed reload keeps its
    // contents).
    bool fresh = !inventory_;
    if (fresh)
        inventory_.reset(ibnm_inventory_new(h));
    bool ok = scope == InventoryScope::GidTables ? ibnm_inventory_reload_gid_tables(inventory_.get(), Out(err))
                                                 : ibnm_inventory_reload(inventory_.get(), Out(err));
    if (!ok) {
        printError("%s", err->message);
        if (fresh)
            inventory_.reset();
        return nullptr;
    }
    inventoryScope_ = scope;
    return inventory_.get();
}

bool Context::colorEnabled() const
{
    switch (options.color) {
    case Color::Yes: return true;
    case Color::No: return false;
    case Color::Auto: break;
    }
    // Asked once a process (a table asks for every row).
    if (!autoColor_)
        autoColor_ = autoColor();
    return *autoColor_;
}

namespace {

// util-linux's terminal-colors.d, as nmcli 1.42 reads it for itself
// (check_colors_check_enabled): in each directory, NAME@TERM, NAME, @TERM
// (those two only with a TERM), then nothing, each as an .enable or a
// .disable file; the first found decides. The user's configuration
// directory first, then /etc.
std::optional<bool> terminalColorsFile(const std::string &base, const char *term)
{
    std::vector<std::string> stems;
    if (term)
        stems.push_back(std::string("ibnm@") + term);
    stems.push_back("ibnm");
    if (term)
        stems.push_back(std::string("@") + term);
    stems.push_back("");
    for (const std::string &stem : stems) {
        std::string prefix = base + "/terminal-colors.d/" + stem + (stem.empty() ? "" : ".");
        if (g_file_test((prefix + "enable").c_str(), G_FILE_TEST_EXISTS))
            return true;
        if (g_file_test((prefix + "disable").c_str(), G_FILE_TEST_EXISTS))
            return false;
    }
    return std::nullopt;
}

} // namespace

// nmcli's --colors auto (nmcli.c, check_colors): none when NO_COLOR is set
// (https://no-color.org), TERM is "dumb" or standard output is not a
// terminal; else as terminal-colors.d says, colour when it says nothing.
bool Context::autoColor() const
{
    if (g_getenv("NO_COLOR"))
        return false;
    const char *term = g_getenv("TERM");
    if (g_strcmp0(term, "dumb") == 0 || !isatty(STDOUT_FILENO))
        return false;
    if (term && std::strchr(term, '/'))
        term = nullptr;
    std::string user = g_get_user_config_dir();
    std::string system = SYSCONFDIR;
    std::optional<bool> said;
    if (user != system && g_file_test(user.c_str(), G_FILE_TEST_EXISTS))
        said = terminalColorsFile(user, term);
    if (!said)
        said = terminalColorsFile(system, term);
    return said.value_or(true);
}

bool isNmcliOption(const std::string &arg, const char *name)
{
    if (arg.size() < 2 || arg[0] != '-')
        return false;
    std::string_view word = std::string_view(arg).substr(arg[1] == '-' ? 2 : 1);
    return !word.empty() && std::string_view(name).substr(0, word.size()) == word;
}

const Command *lookup(const Command *table, const std::string &word)
{
    // nmcli's rule: an exact word, else the first word in table order that
    // starts with it (`c` is connection, `d` device, `con d` down).
    if (word.empty())
        return nullptr;
    for (const Command *c = table; c->word; c++)
        if (word == c->word)
            return c;
    for (const Command *c = table; c->word; c++)
        if (std::string_view(c->word).substr(0, word.size()) == word)
            return c;
    return nullptr;
}

int unknownWord(const Command *table, const std::string &word)
{
    std::vector<std::string_view> words;
    for (const Command *c = table; c->word; c++)
        words.emplace_back(c->word);
    return unknownArgument(word, words);
}

int unknownArgument(const std::string &word, const std::vector<std::string_view> &candidates)
{
    // nmcli's line (nmc_do_cmd()), with a suggestion where one word is close.
    std::string close = closestWord(word, candidates);
    if (close.empty())
        return usageError(nullptr, _("argument '%s' not understood"), word.c_str());
    return usageError(nullptr, _("argument '%s' not understood. Did you mean '%s'?"), word.c_str(), close.c_str());
}

int dispatch(Context &ctx, const Command *table, const Args &args, const char *usage)
{
    if (args.empty()) {
        // nmcli runs the first command of a group without a word (`ibnm connection` = show).
        if (table[0].run)
            return table[0].run(ctx, args);
        return usageError(usage, _("missing command"));
    }
    if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
        std::fputs(usage, stdout);
        return kExitOk;
    }
    const Command *c = lookup(table, args[0]);
    if (c == nullptr)
        return unknownWord(table, args[0]);
    Args rest(args.begin() + 1, args.end());
    if (c->sub)
        return dispatch(ctx, c->sub, rest, usage);
    return c->run(ctx, rest);
}

namespace {

// The message as one sentence: a final period unless it ends in a question.
std::string sentence(std::string text)
{
    if (!text.empty() && text.back() != '.' && text.back() != '?')
        text += '.';
    return text;
}

} // namespace

void printError(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    CharPtr msg(g_strdup_vprintf(format, ap));
    va_end(ap);
    std::fprintf(stderr, _("Error: %s\n"), sentence(msg.get()).c_str());
}

int usageError(const char *, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    CharPtr msg(g_strdup_vprintf(format, ap));
    va_end(ap);
    // nmcli's usage errors are one line (its 16-30 lines of usage are for
    // --help): "Error: argument 'x' not understood. Try passing --help instead."
    std::string line = sentence(msg.get()) + " " + _("Try passing --help instead.");
    std::fprintf(stderr, _("Error: %s\n"), line.c_str());
    return kExitUsage;
}

int reportError(const GError *error, const char *)
{
    printError("%s", error->message);
    // As nmcli: a bad word or a value that does not parse is a usage error
    // (2), in nmcli's one line; a profile that does not verify, like any
    // other failure, is 1.
    if (error->domain == IBNM_ERROR) {
        switch (error->code) {
        case IBNM_ERROR_INVALID_ARGUMENT:
        case IBNM_ERROR_INVALID_VALUE:
            return kExitUsage;
        case IBNM_ERROR_NOT_FOUND:
        case IBNM_ERROR_NOT_ACTIVE: // nmcli's "is not an active connection"
            return kExitNotFound;
        case IBNM_ERROR_TIMED_OUT:
            return kExitTimeout;
        default:
            break;
        }
    }
    return kExitFailed;
}

PtrArray allProfiles(IbnmSettings *settings)
{
    PtrArray out(g_ptr_array_new_with_free_func(g_object_unref));
    PtrArray conns(ibnm_settings_get_connections(settings));
    for (guint i = 0; conns && i < conns->len; i++)
        g_ptr_array_add(out.get(), ibnm_profile_new(static_cast<NMConnection *>(g_ptr_array_index(conns.get(), i))));
    return out;
}

PtrArray allConnections(IbnmSettings *settings)
{
    // (transfer full): the array owns its references.
    return PtrArray(ibnm_settings_get_connections(settings));
}

namespace {

Tone stateTone(IbnmStepState s)
{
    switch (s) {
    case IBNM_STEP_STATE_DONE: return Tone::Good;
    case IBNM_STEP_STATE_PLANNED:
    case IBNM_STEP_STATE_UNDONE: return Tone::Warn;
    default: return Tone::Bad;
    }
}

} // namespace

const char *enumNick(GType type, int value)
{
    auto *klass = static_cast<GEnumClass *>(g_type_class_peek(type));
    if (!klass)
        klass = static_cast<GEnumClass *>(g_type_class_ref(type));
    GEnumValue *v = g_enum_get_value(klass, value);
    return v ? v->value_nick : "unknown";
}

const char *stepStateName(IbnmStepState s)
{
    return enumNick(IBNM_TYPE_STEP_STATE, s);
}

void stepJson(JsonDoc &j, IbnmStep *s)
{
    j.beginObject()
        .value("state", stepStateName(ibnm_step_get_state(s)))
        .value("action", cell(ibnm_step_action_to_string(ibnm_step_get_action(s))))
        .value("object", cell(ibnm_step_get_object(s)))
        .value("detail", cell(ibnm_step_get_detail(s)))
        .value("profile", cell(ibnm_step_get_profile(s)))
        .value("error", cell(ibnm_step_get_error(s)))
        .endObject();
}

int printReport(Context &ctx, IbnmApplyReport *report)
{
    // What a change did is no document to page through (nmcli pages none).
    ctx.options.noPager = true;
    GPtrArray *steps = ibnm_apply_report_get_steps(report);
    const char *const *notes = ibnm_apply_report_get_notes(report);
    bool ok = ibnm_apply_report_get_success(report);
    if (ctx.options.mode == OutputMode::Json) {
        JsonDoc j;
        j.beginObject().beginObject("report");
        j.boolean("success", ok);
        j.boolean("dry-run", ctx.options.dryRun);
        j.boolean("rolled-back", ibnm_apply_report_get_rolled_back(report));
        j.value("operations", static_cast<long long>(ibnm_apply_report_get_operations(report)));
        j.value("error", cell(ibnm_apply_report_get_error(report)));
        j.beginArray("steps");
        for (guint i = 0; steps && i < steps->len; i++)
            stepJson(j, static_cast<IbnmStep *>(g_ptr_array_index(steps, i)));
        j.endArray().beginArray("notes");
        for (const char *const *n = notes; n && *n; n++)
            j.value(nullptr, *n);
        j.endArray().beginArray("not-restored");
        for (const char *const *n = ibnm_apply_report_get_not_restored(report); n && *n; n++)
            j.value(nullptr, *n);
        j.endArray().endObject().endObject();
        j.print();
        return ok ? kExitOk : kExitFailed;
    }

    Table t("steps", {{"STATE"}, {"ACTION"}, {"OBJECT"}, {"DETAIL"}, {"PROFILE", false}, {"ERROR", false}});
    for (guint i = 0; steps && i < steps->len; i++) {
        auto *s = static_cast<IbnmStep *>(g_ptr_array_index(steps, i));
        IbnmStepState st = ibnm_step_get_state(s);
        t.add({stepStateName(st), cell(ibnm_step_action_to_string(ibnm_step_get_action(s))), cell(ibnm_step_get_object(s)),
               cell(ibnm_step_get_detail(s)), cell(ibnm_step_get_profile(s)), cell(ibnm_step_get_error(s))},
              stateTone(st), 0);
    }
    if (t.size() == 0 && ctx.options.mode == OutputMode::Tabular && !ctx.options.getValues) {
        if (ok)
            std::printf("%s\n", _("Nothing to do: the host is already as the profiles describe it."));
    } else if (int rc = t.print(ctx); rc != kExitOk) {
        return rc;
    }
    if (ctx.options.mode == OutputMode::Tabular && !ctx.options.getValues) {
        for (const char *const *n = notes; n && *n; n++)
            std::printf(_("Note: %s\n"), *n);
        if (ibnm_apply_report_get_rolled_back(report)) {
            std::printf("%s\n", _("The steps done before the failure were undone."));
        } else if (!ok) {
            // Never claim the host is as before when it is not: name what stays.
            for (guint i = 0; steps && i < steps->len; i++) {
                auto *s = static_cast<IbnmStep *>(g_ptr_array_index(steps, i));
                IbnmStepState st = ibnm_step_get_state(s);
                if (st == IBNM_STEP_STATE_DONE || st == IBNM_STEP_STATE_UNDO_FAILED)
                    std::printf(_("Not undone: %s %s (%s)\n"), ibnm_step_action_to_string(ibnm_step_get_action(s)), ibnm_step_get_object(s),
                                ibnm_step_get_detail(s));
            }
            // What the host, read back, has otherwise than before.
            for (const char *const *n = ibnm_apply_report_get_not_restored(report); n && *n; n++)
                std::printf(_("Not restored: %s\n"), *n);
        }
    }
    if (!ok) {
        const char *e = ibnm_apply_report_get_error(report);
        printError("%s", e ? e : _("the host refused a step"));
    }
    return ok ? kExitOk : kExitFailed;
}

int printApply(Context &ctx, IbnmApplyReport *report)
{
    if (!ibnm_apply_report_get_started(report)) {
        ErrorPtr err;
        ibnm_apply_report_propagate_error(report, Out(err));
        return err ? reportError(err.get()) : kExitFailed;
    }
    return printReport(ctx, report);
}

int printFindings(Context &ctx, GPtrArray *findings, bool onlyProblems)
{
    Table t("findings", {{"SEVERITY"}, {"PROFILE"}, {"PROPERTY"}, {"MESSAGE"}, {"HINT"}});
    // For people, the table's PROPERTY column says what each message's
    // "property: " prefix says (-t, -g and -j keep the message whole).
    bool dropPrefix = ctx.options.mode == OutputMode::Tabular && !ctx.options.getValues && t.shows(ctx, "PROPERTY");
    bool errors = false;
    std::vector<guint> shown;
    shown.reserve(findings->len);
    for (guint i = 0; i < findings->len; i++) {
        IbnmSeverity sev = ibnm_finding_get_severity(static_cast<IbnmFinding *>(g_ptr_array_index(findings, i)));
        errors = errors || sev == IBNM_SEVERITY_ERROR;
        if (!onlyProblems || sev != IBNM_SEVERITY_INFO)
            shown.push_back(i);
    }
    // The rows are made from the findings as they are printed: a copy of
    // every finding's text (50,000 of them for `ibnm check` of a large
    // store) is not held next to the findings.
    t.setRows(shown.size(), [&](size_t row, std::vector<Cell> &cells, Tone &tone, int &toneColumn) {
        auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(findings, shown[row]));
        IbnmSeverity sev = ibnm_finding_get_severity(f);
        tone = sev == IBNM_SEVERITY_ERROR ? Tone::Bad : sev == IBNM_SEVERITY_WARNING ? Tone::Warn : Tone::Good;
        toneColumn = 0;
        const char *message = ibnm_finding_get_message(f);
        const char *property = ibnm_finding_get_property(f);
        size_t plen = property ? std::strlen(property) : 0;
        if (dropPrefix && message && plen > 0 && std::strncmp(message, property, plen) == 0 &&
            std::strncmp(message + plen, ": ", 2) == 0)
            message += plen + 2;
        cells = {enumNick(IBNM_TYPE_SEVERITY, sev), cell(ibnm_finding_get_profile_id(f)), cell(property),
                 cell(message), cell(ibnm_finding_get_hint(f))};
    });
    if (t.size() > 0 || ctx.options.mode == OutputMode::Json) {
        if (int rc = t.print(ctx); rc != kExitOk)
            return rc;
    }
    return errors ? kExitFailed : kExitOk;
}


} // namespace ibnm::cli
