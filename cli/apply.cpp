// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm apply FILE|-` and `ibnm show-state`: a desired state in nmstate's
// schema (YAML or JSON) applied to the profiles and the host as one
// transaction, and the stored profiles shown in that schema. The work is
// libibnm's (ibnm_state_apply, ibnm_state_show); this file reads the file,
// prints the changes, the diff and the steps, and the JSON for tools
// (the Ansible module reads `ibnm -j apply`).
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"
#include "settings/ibnm-state.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

namespace ibnm::cli {

const char *const kApplyUsage = N_("Usage: ibnm apply FILE|-\n"
                                   "       ibnm show-state\n"
                                   "\n"
                                   "FILE is a desired state in nmstate's schema, YAML or JSON ('-': stdin).\n"
                                   "With --dry-run, apply prints the plan and the diff and changes nothing.\n");

namespace {

using JsonBuilderPtr = Obj<JsonBuilder>;

const char *stepStateNick(IbnmStepState s)
{
    GEnumClass *klass = static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_STEP_STATE));
    GEnumValue *v = g_enum_get_value(klass, s);
    const char *nick = v ? v->value_nick : "unknown";
    g_type_class_unref(klass);
    return nick;
}

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

void addString(JsonBuilder *b, const char *key, const char *v)
{
    json_builder_set_member_name(b, key);
    if (v)
        json_builder_add_string_value(b, v);
    else
        json_builder_add_null_value(b);
}

int printJson(bool ok, bool changed, bool dryRun, const GError *error, GPtrArray *changes,
              std::initializer_list<IbnmApplyReport *> reports)
{
    JsonBuilderPtr b(json_builder_new());
    json_builder_begin_object(b.get());
    json_builder_set_member_name(b.get(), "success");
    json_builder_add_boolean_value(b.get(), ok);
    json_builder_set_member_name(b.get(), "changed");
    json_builder_add_boolean_value(b.get(), changed);
    json_builder_set_member_name(b.get(), "dry-run");
    json_builder_add_boolean_value(b.get(), dryRun);
    bool rolledBack = false;
    for (IbnmApplyReport *r : reports)
        rolledBack = rolledBack || (r && ibnm_apply_report_get_rolled_back(r));
    json_builder_set_member_name(b.get(), "rolled-back");
    json_builder_add_boolean_value(b.get(), rolledBack);
    addString(b.get(), "error", error ? error->message : nullptr);
    json_builder_set_member_name(b.get(), "changes");
    json_builder_begin_array(b.get());
    for (guint i = 0; changes && i < changes->len; i++) {
        auto *c = IBNM_STATE_CHANGE(g_ptr_array_index(changes, i));
        json_builder_begin_object(b.get());
        addString(b.get(), "interface", ibnm_state_change_get_interface(c));
        addString(b.get(), "action", ibnm_state_change_get_action(c));
        addString(b.get(), "state", ibnm_state_change_get_state(c));
        addString(b.get(), "profile", ibnm_state_change_get_profile(c));
        json_builder_set_member_name(b.get(), "diff");
        json_builder_begin_array(b.get());
        for (const char *const *d = ibnm_state_change_get_diff(c); d && *d; d++)
            json_builder_add_string_value(b.get(), *d);
        json_builder_end_array(b.get());
        json_builder_end_object(b.get());
    }
    json_builder_end_array(b.get());
    json_builder_set_member_name(b.get(), "steps");
    json_builder_begin_array(b.get());
    for (IbnmApplyReport *r : reports) {
        GPtrArray *steps = r ? ibnm_apply_report_get_steps(r) : nullptr;
        for (guint i = 0; steps && i < steps->len; i++) {
            auto *s = IBNM_STEP(g_ptr_array_index(steps, i));
            json_builder_begin_object(b.get());
            addString(b.get(), "state", stepStateNick(ibnm_step_get_state(s)));
            addString(b.get(), "action", ibnm_step_get_action(s));
            addString(b.get(), "object", ibnm_step_get_object(s));
            addString(b.get(), "detail", ibnm_step_get_detail(s));
            addString(b.get(), "profile", ibnm_step_get_profile(s));
            addString(b.get(), "error", ibnm_step_get_error(s));
            json_builder_end_object(b.get());
        }
    }
    json_builder_end_array(b.get());
    json_builder_set_member_name(b.get(), "notes");
    json_builder_begin_array(b.get());
    for (IbnmApplyReport *r : reports)
        for (const char *const *n = r ? ibnm_apply_report_get_notes(r) : nullptr; n && *n; n++)
            json_builder_add_string_value(b.get(), *n);
    json_builder_end_array(b.get());
    json_builder_end_object(b.get());
    Obj<JsonGenerator> gen(json_generator_new());
    json_generator_set_pretty(gen.get(), TRUE);
    JsonNode *root = json_builder_get_root(b.get());
    json_generator_set_root(gen.get(), root);
    CharPtr text(json_generator_to_data(gen.get(), nullptr));
    json_node_unref(root);
    std::printf("%s\n", text.get());
    return ok ? kExitOk : kExitFailed;
}

} // namespace

int cmdApply(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kApplyUsage), "%s", _("missing FILE ('-' for stdin)"));
    if (args.size() > 1)
        return usageError(_(kApplyUsage), _("argument '%s' not understood"), args[1].c_str());
    const std::string &file = args[0];
    std::string text;
    ErrorPtr err;
    if (file == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        CharPtr data;
        gsize len = 0;
        if (!g_file_get_contents(file.c_str(), Out(data), &len, Out(err)))
            return reportError(err.get());
        text.assign(data.get(), len);
    }
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    auto flags = ctx.options.dryRun ? IBNM_APPLY_FLAGS_DRY_RUN : IBNM_APPLY_FLAGS_NONE;
    PtrArray changes;
    Obj<IbnmApplyReport> down, up;
    gboolean ok = ibnm_state_apply(s, host, text.data(), gssize(text.size()), file == "-" ? "stdin" : file.c_str(),
                                   flags, Out(changes), Out(down), Out(up), Out(err));
    bool changed = reportChanges(down.get()) || reportChanges(up.get());
    for (guint i = 0; changes && i < changes->len; i++)
        changed = changed ||
                  g_strcmp0(ibnm_state_change_get_action(IBNM_STATE_CHANGE(g_ptr_array_index(changes.get(), i))),
                            "none") != 0;
    if (ctx.options.mode == OutputMode::Json) {
        int rc = printJson(ok, ok && changed, ctx.options.dryRun, err.get(), changes.get(), {down.get(), up.get()});
        if (!ok)
            return err && err->domain == IBNM_ERROR &&
                           (err->code == IBNM_ERROR_INVALID_ARGUMENT || err->code == IBNM_ERROR_INVALID_VALUE)
                       ? kExitUsage
                       : rc;
        return rc;
    }
    bool quiet = ctx.options.getValues || ctx.options.mode == OutputMode::Terse;
    if (!quiet) {
        for (guint i = 0; changes && i < changes->len; i++) {
            auto *c = IBNM_STATE_CHANGE(g_ptr_array_index(changes.get(), i));
            if (g_strcmp0(ibnm_state_change_get_action(c), "none") == 0)
                continue;
            std::printf(_("%s: %s profile '%s' (%s)\n"), ibnm_state_change_get_interface(c),
                        ibnm_state_change_get_action(c),
                        ibnm_state_change_get_profile(c) ? ibnm_state_change_get_profile(c) : "",
                        ibnm_state_change_get_state(c));
            for (const char *const *d = ibnm_state_change_get_diff(c); d && *d; d++)
                std::printf("  %s\n", *d);
        }
    }
    for (IbnmApplyReport *r : {down.get(), up.get()})
        if (r && ibnm_apply_report_get_steps(r)->len > 0)
            printReport(ctx, r);
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
    CharPtr text(ibnm_state_show(s, host, ctx.options.mode == OutputMode::Json, Out(err)));
    if (!text)
        return reportError(err.get());
    std::fputs(text.get(), stdout);
    return kExitOk;
}

} // namespace ibnm::cli
