// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection`: nmcli's profile commands. The argument grammar of add and
// modify is libibnm's (ibnm_profile_new_from_args); this file only finds
// profiles, validates them against the host, stores them and prints.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>

namespace ibnm::cli {

const char *const kConnectionUsage = N_(
    "Usage: ibnm connection { COMMAND | help }\n"
    "\n"
    "COMMAND := { show | add | modify | delete | up | down | reload | import | export }\n"
    "\n"
    "  show [[id | uuid | filename] ID]\n"
    "  add type infiniband|bond|... [con-name NAME] [ifname IFNAME] [PROPERTY VALUE]...\n"
    "  modify [id | uuid | filename] ID ([+|-]PROPERTY VALUE)...\n"
    "  delete [id | uuid | filename] ID...\n"
    "  up [id | uuid | filename] ID... | --all\n"
    "  down [id | uuid | filename] ID... | --all\n"
    "  reload\n"
    "  import [type keyfile|ifcfg-rh] file PATH|DIRECTORY\n"
    "  export [id | uuid | filename] ID [FILE]\n"
    "\n"
    "PROPERTY is setting.property (infiniband.p-key, ipv4.addresses, rdma.link-type...)\n"
    "or an alias (mtu, mac, p-key, parent, transport-mode, master, slave-type).\n"
    "With --offline, add prints the keyfile and modify edits the keyfile on stdin.\n");

namespace {

std::vector<const char *> cargv(const Args &args, size_t from = 0)
{
    std::vector<const char *> v;
    for (size_t i = from; i < args.size(); i++)
        v.push_back(args[i].c_str());
    v.push_back(nullptr);
    return v;
}

bool isSelectorWord(const std::string &w)
{
    return w == "id" || w == "uuid" || w == "filename" || w == "path";
}

// The ID after an optional `id`/`uuid`/`filename` word; advances `i`.
const char *takeId(const Args &args, size_t &i)
{
    if (i < args.size() && isSelectorWord(args[i]) && i + 1 < args.size())
        i++;
    return i < args.size() ? args[i++].c_str() : nullptr;
}

NMConnection *findOrComplain(IbnmSettings *s, const char *id)
{
    NMConnection *c = ibnm_settings_find(s, id);
    if (c)
        return c;
    const char *const *denied = ibnm_settings_get_unreadable_files(s);
    if (denied && *denied)
        printError(_("connection '%s' is not among the profiles you may read: %s: permission denied"), id, *denied);
    else
        printError(_("unknown connection '%s'"), id);
    return nullptr;
}

// The exit status after findOrComplain() found nothing: 10 for an unknown
// profile, 1 when the store holds files this user may not read.
int notFoundStatus(IbnmSettings *s)
{
    const char *const *denied = ibnm_settings_get_unreadable_files(s);
    return denied && *denied ? kExitFailed : kExitNotFound;
}

// A failed add/modify, with nmcli's exit statuses: a word that names
// nothing or a value its property does not take is a usage error (2), a
// profile whose values parse but do not verify failed (1); libibnm tells the
// two apart by code (reportError()). A type or property ibnm does not handle
// is refused as nmcli refuses one it does not know (2).
int argumentsError(const GError *error)
{
    if (g_error_matches(error, IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED)) {
        printError("%s", error->message);
        return kExitUsage;
    }
    return reportError(error, _(kConnectionUsage));
}

// Checks `profile` with the stored ones (against the host when the user chose
// one) and prints what the change brings: the findings about the profile and
// the errors elsewhere that involve it (a port makes its bond's mode wrong;
// IbnmFinding:related-profiles), not those that are there without it. False
// if the change brings errors.
bool validate(Context &ctx, IbnmProfile *profile, IbnmSettings *settings)
{
    PtrArray all(g_ptr_array_new_with_free_func(g_object_unref));
    if (settings) {
        PtrArray stored = allConnections(settings);
        for (guint i = 0; i < stored->len; i++) {
            auto *c = static_cast<NMConnection *>(g_ptr_array_index(stored.get(), i));
            if (g_strcmp0(nm_connection_get_uuid(c), ibnm_profile_get_uuid(profile)) != 0)
                g_ptr_array_add(all.get(), g_object_ref(c));
        }
    }
    IbnmInventory *inv = nullptr;
    if (ctx.hostChosen()) {
        inv = ctx.inventory();
        if (!inv)
            return false;
    }
    // Last: a conflict with a stored profile is then this profile's finding,
    // naming the stored one.
    g_ptr_array_add(all.get(), g_object_ref(ibnm_profile_get_connection(profile)));
    PtrArray findings(ibnm_check_profiles(all.get(), inv));
    const char *id = ibnm_profile_get_id(profile);
    bool errors = false;
    for (guint i = 0; i < findings->len; i++) {
        auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(findings.get(), i));
        IbnmSeverity sev = ibnm_finding_get_severity(f);
        bool mine = g_strcmp0(ibnm_finding_get_profile_id(f), id) == 0;
        bool caused = sev == IBNM_SEVERITY_ERROR && ibnm_finding_involves(f, id);
        if (sev == IBNM_SEVERITY_INFO || !(mine || caused))
            continue;
        errors = errors || sev == IBNM_SEVERITY_ERROR;
        const char *hint = ibnm_finding_get_hint(f);
        if (sev == IBNM_SEVERITY_ERROR)
            printError("%s", ibnm_finding_get_message(f));
        else
            std::fprintf(stderr, _("Warning: %s\n"), ibnm_finding_get_message(f));
        if (hint)
            std::fprintf(stderr, _("Hint: %s\n"), hint);
    }
    if (errors)
        printError(_("profile '%s' is not valid; nothing was written"), id);
    return !errors;
}

// --- show ---------------------------------------------------------------------------

std::string formatValue(NMSetting *setting, GParamSpec *pspec)
{
    GValue v = G_VALUE_INIT;
    g_value_init(&v, pspec->value_type);
    g_object_get_property(G_OBJECT(setting), pspec->name, &v);
    std::string out;
    GType t = pspec->value_type;
    if (t == G_TYPE_STRING) {
        out = g_value_get_string(&v) ? g_value_get_string(&v) : "";
    } else if (t == G_TYPE_BOOLEAN) {
        out = g_value_get_boolean(&v) ? "yes" : "no";
    } else if (t == G_TYPE_STRV) {
        if (auto **sv = static_cast<char **>(g_value_get_boxed(&v))) {
            CharPtr j(g_strjoinv(",", sv));
            out = j.get();
        }
    } else if (G_TYPE_IS_ENUM(t)) {
        GEnumClass *k = static_cast<GEnumClass *>(g_type_class_ref(t));
        GEnumValue *ev = g_enum_get_value(k, g_value_get_enum(&v));
        out = ev ? ev->value_nick : std::to_string(g_value_get_enum(&v));
        g_type_class_unref(k);
    } else if (G_TYPE_IS_FLAGS(t)) {
        out = std::to_string(g_value_get_flags(&v));
    } else if (NM_IS_SETTING_IP_CONFIG(setting) && std::strcmp(pspec->name, NM_SETTING_IP_CONFIG_ADDRESSES) == 0) {
        auto *ip = NM_SETTING_IP_CONFIG(setting);
        for (guint i = 0; i < nm_setting_ip_config_get_num_addresses(ip); i++) {
            NMIPAddress *a = nm_setting_ip_config_get_address(ip, i);
            out += (i ? ", " : "") + std::string(nm_ip_address_get_address(a)) + "/" +
                   std::to_string(nm_ip_address_get_prefix(a));
        }
    } else if (NM_IS_SETTING_IP_CONFIG(setting) && std::strcmp(pspec->name, NM_SETTING_IP_CONFIG_ROUTES) == 0) {
        auto *ip = NM_SETTING_IP_CONFIG(setting);
        for (guint i = 0; i < nm_setting_ip_config_get_num_routes(ip); i++) {
            NMIPRoute *r = nm_setting_ip_config_get_route(ip, i);
            out += (i ? ", " : "") + std::string(nm_ip_route_get_dest(r)) + "/" +
                   std::to_string(nm_ip_route_get_prefix(r));
            if (nm_ip_route_get_next_hop(r))
                out += std::string(" ") + nm_ip_route_get_next_hop(r);
        }
    } else if (t == G_TYPE_HASH_TABLE) {
        if (auto *h = static_cast<GHashTable *>(g_value_get_boxed(&v))) {
            std::vector<std::string> items;
            GHashTableIter it;
            gpointer k, val;
            g_hash_table_iter_init(&it, h);
            while (g_hash_table_iter_next(&it, &k, &val))
                items.push_back(std::string(static_cast<char *>(k)) + "=" + static_cast<char *>(val));
            std::sort(items.begin(), items.end());
            for (size_t i = 0; i < items.size(); i++)
                out += (i ? "," : "") + items[i];
        }
    } else if (g_value_type_transformable(t, G_TYPE_STRING)) {
        GValue s = G_VALUE_INIT;
        g_value_init(&s, G_TYPE_STRING);
        g_value_transform(&v, &s);
        out = g_value_get_string(&s) ? g_value_get_string(&s) : "";
        g_value_unset(&s);
    }
    g_value_unset(&v);
    return out;
}

void addSettings(Record &r, NMConnection *c)
{
    guint n = 0;
    CharPtr list(reinterpret_cast<char *>(nm_connection_get_settings(c, &n)));
    auto **settings = reinterpret_cast<NMSetting **>(list.get());
    for (guint i = 0; i < n; i++) {
        NMSetting *s = settings[i];
        if (NM_IS_SETTING_USER(s)) {
            // ibnm's [user] keys are properties of their own: rdma.link-type...
            for (const char *const *k = nm_setting_user_get_keys(NM_SETTING_USER(s), nullptr); k && *k; k++)
                r.add(*k, nm_setting_user_get_data(NM_SETTING_USER(s), *k));
            continue;
        }
        guint np = 0;
        GParamSpec **props = g_object_class_list_properties(G_OBJECT_GET_CLASS(s), &np);
        for (guint p = 0; p < np; p++) {
            if (!(props[p]->flags & G_PARAM_READABLE) || std::strcmp(props[p]->name, "name") == 0)
                continue;
            std::string v = formatValue(s, props[p]);
            r.add(std::string(nm_setting_get_name(s)) + "." + props[p]->name, v.empty() ? Cell() : Cell(v));
        }
        g_free(props);
    }
}

// Where each stored profile is active (nullptr: nowhere), in the order of
// `all`: NetworkManager's active connections, else (standalone mode) the
// profiles `connection up` brought up whose interface is still up as they
// describe (ibnm_apply_get_active_devices()).
std::vector<Cell> activeDevices(Context &ctx, IbnmSettings *s, GPtrArray *all)
{
    std::vector<Cell> out(all->len);
    if (g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") == 0) {
        for (guint i = 0; i < all->len; i++) {
            const char *dev = ibnm_settings_get_active_device(
                s, ibnm_profile_get_uuid(static_cast<IbnmProfile *>(g_ptr_array_index(all, i))));
            if (dev)
                out[i] = dev;
        }
        return out;
    }
    // Standalone: what ibnm's own `up` brought up and is still as it made it.
    if (ctx.host() == nullptr)
        return out;
    PtrArray connections = allConnections(s);
    ErrorPtr err;
    PtrArray devices(ibnm_apply_get_active_devices(ctx.host(), connections.get(), connections.get(), Out(err)));
    if (!devices) {
        std::fprintf(stderr, _("Warning: %s\n"), err->message);
        return out;
    }
    for (guint i = 0; i < devices->len && i < out.size(); i++)
        if (auto *d = static_cast<const char *>(g_ptr_array_index(devices.get(), i)))
            out[i] = d;
    return out;
}

std::string typeShortName(const std::string &type)
{
    return ibnm_connection_type_get_short_name(type.c_str());
}

int cmdShow(Context &ctx, const Args &argsIn)
{
    // nmcli's options of `connection show`: --active (-a), --show-secrets
    // (-s; ibnm's profiles hold no secrets), before the IDs.
    Args args;
    bool activeOnly = false;
    for (size_t i = 0; i < argsIn.size(); i++) {
        const std::string &a = argsIn[i];
        if (args.empty() && (a == "--active" || a == "-a"))
            activeOnly = true;
        else if (args.empty() && (a == "--show-secrets" || a == "-s"))
            continue;
        else if (args.empty() && a == "--order")
            return usageError(_(kConnectionUsage), _("option '%s' is not supported"), a.c_str());
        else
            args.push_back(a);
    }
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    if (!args.empty()) {
        size_t i = 0;
        const char *id = takeId(args, i);
        NMConnection *c = findOrComplain(s, id);
        if (!c)
            return notFoundStatus(s);
        if (i < args.size())
            return usageError(_(kConnectionUsage), _("argument '%s' not understood"), args[i].c_str());
        Record r("connection");
        CharPtr title(g_strdup_printf(_("Connection profile details (%s)"), nm_connection_get_id(c)));
        r.setTitle(title.get());
        addSettings(r, c);
        return r.print(ctx);
    }
    PtrArray all = allProfiles(s);
    // TYPE: tables show nmcli's short name (ethernet), terse output the type.
    Table t("connections",
            {{"NAME"}, {"UUID"}, {"TYPE", true, typeShortName}, {"DEVICE"}, {"FILENAME", false}});
    t.setTitle(activeOnly ? _("NetworkManager active profiles") : _("NetworkManager connection profiles"));
    // FILENAME is not shown by default: then it costs nothing.
    bool files = t.shows(ctx, "FILENAME");
    std::vector<Cell> devices(all->len);
    if (activeOnly || t.shows(ctx, "DEVICE"))
        devices = activeDevices(ctx, s, all.get());
    // nmcli's default order (--order active:name:path): active profiles
    // first, each part by name (the store lists them by name).
    std::vector<guint> order;
    for (int active = 1; active >= 0; active--)
        for (guint i = 0; i < all->len; i++)
            if (bool(devices[i]) == bool(active) && (active || !activeOnly))
                order.push_back(i);
    for (guint i : order) {
        auto *p = static_cast<IbnmProfile *>(g_ptr_array_index(all.get(), i));
        const char *file = files ? ibnm_settings_get_filename(s, ibnm_profile_get_uuid(p)) : nullptr;
        const Cell &device = devices[i];
        t.add({ibnm_profile_get_id(p), ibnm_profile_get_uuid(p), ibnm_profile_get_connection_type(p), device,
               file ? Cell(file) : Cell()});
    }
    return t.print(ctx);
}

// --- add / modify -----------------------------------------------------------------

// Standalone ibnm keeps one profile per name: `connection up NAME` must
// name one, and of parallel adds of one con-name one succeeds. Called with
// the store locked (ctx.settings(true)). False after printing the error.
bool nameIsFree(IbnmSettings *s, const char *id)
{
    if (g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") == 0)
        return true; // NetworkManager allows it, as nmcli
    PtrArray all(ibnm_settings_get_connections(s));
    for (guint i = 0; i < all->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(all.get(), i));
        if (g_strcmp0(nm_connection_get_id(c), id) == 0) {
            printError(_("a profile named '%s' exists already (UUID %s); choose another con-name"), id,
                       nm_connection_get_uuid(c));
            return false;
        }
    }
    return true;
}

int printKeyfile(NMConnection *c)
{
    ErrorPtr err;
    CharPtr data(ibnm_keyfile_to_data(c, Out(err)));
    if (!data)
        return reportError(err.get());
    std::fputs(data.get(), stdout);
    return kExitOk;
}

int cmdAdd(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kConnectionUsage), _("'type' argument is required"));
    auto argv = cargv(args);
    ErrorPtr err;
    Obj<IbnmProfile> profile(ibnm_profile_new_from_args(argv.data(), Out(err)));
    if (!profile)
        return argumentsError(err.get());
    // --offline is nmcli --offline: the profile verifies (above), nothing
    // else is known (no store, no host), so no ibnm rules run.
    if (ctx.options.offline)
        return printKeyfile(ibnm_profile_get_connection(profile.get()));
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return kExitFailed;
    if (!nameIsFree(s, ibnm_profile_get_id(profile.get())))
        return kExitFailed;
    if (!validate(ctx, profile.get(), s))
        return kExitFailed;
    if (ctx.options.dryRun) {
        std::printf(_("Dry run: connection '%s' (%s) would be added; nothing was written.\n"),
                    ibnm_profile_get_id(profile.get()), ibnm_profile_get_uuid(profile.get()));
        return kExitOk;
    }
    if (!ibnm_settings_add(s, ibnm_profile_get_connection(profile.get()), nullptr, Out(err)))
        return reportError(err.get());
    std::printf(_("Connection '%s' (%s) successfully added.\n"), shown(ibnm_profile_get_id(profile.get())).c_str(),
                ibnm_profile_get_uuid(profile.get()));
    return kExitOk;
}

int cmdModify(Context &ctx, const Args &argsIn)
{
    Args args = argsIn;
    if (!args.empty() && args[0] == "--temporary")
        args.erase(args.begin());
    ErrorPtr err;
    if (ctx.options.offline) {
        // nmcli --offline: the keyfile comes on stdin, no ID.
        std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        Obj<NMConnection> c(ibnm_keyfile_from_data(data.c_str(), "stdin", Out(err)));
        if (!c)
            return reportError(err.get());
        if (args.empty())
            return usageError(_(kConnectionUsage), _("no property to modify"));
        Obj<IbnmProfile> profile(ibnm_profile_new(c.get()));
        auto argv = cargv(args);
        if (!ibnm_profile_modify_from_args(profile.get(), argv.data(), Out(err)))
            return argumentsError(err.get());
        return printKeyfile(c.get());
    }
    size_t i = 0;
    const char *id = takeId(args, i);
    if (!id)
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    if (i >= args.size())
        return usageError(_(kConnectionUsage), _("no property to modify"));
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return kExitFailed;
    NMConnection *stored = findOrComplain(s, id);
    if (!stored)
        return notFoundStatus(s);
    Obj<NMConnection> copy(nm_simple_connection_new_clone(stored));
    Obj<IbnmProfile> profile(ibnm_profile_new(copy.get()));
    auto argv = cargv(args, i);
    if (!ibnm_profile_modify_from_args(profile.get(), argv.data(), Out(err)))
        return argumentsError(err.get());
    if (!validate(ctx, profile.get(), s))
        return kExitFailed;
    if (ctx.options.dryRun) {
        std::printf(_("Dry run: connection '%s' would be modified; nothing was written.\n"),
                    nm_connection_get_id(copy.get()));
        return kExitOk;
    }
    if (!ibnm_settings_update(s, copy.get(), Out(err)))
        return reportError(err.get());
    return kExitOk;
}

// --- delete / reload / import / export ---------------------------------------------------

// Takes down what `c` brought up on the host before it is deleted; says what
// was done. False (and nothing deleted) when that fails.
bool deactivate(Context &ctx, IbnmSettings *s, NMConnection *c)
{
    IbnmHost *host = ctx.host();
    if (!host)
        return false;
    PtrArray all = allConnections(s);
    PtrArray one(g_ptr_array_new_with_free_func(g_object_unref));
    g_ptr_array_add(one.get(), g_object_ref(c));
    Obj<IbnmApplyReport> report;
    ErrorPtr err;
    gboolean ok = ibnm_apply_down(host, one.get(), all.get(), IBNM_APPLY_FLAGS_NONE, Out(report), Out(err));
    if (report && ibnm_apply_report_get_steps(report.get())->len > 0) {
        if (printReport(ctx, report.get()) != kExitOk)
            return false;
    } else if (!ok) {
        reportError(err.get());
        return false;
    }
    if (!ok)
        return false;
    // A bond whose profile goes keeps no ports; its port profiles remain.
    if (g_strcmp0(nm_connection_get_connection_type(c), NM_SETTING_BOND_SETTING_NAME) == 0) {
        const char *ifname = nm_connection_get_interface_name(c);
        for (guint i = 0; i < all->len; i++) {
            auto *o = NM_CONNECTION(g_ptr_array_index(all.get(), i));
            NMSettingConnection *sc = nm_connection_get_setting_connection(o);
            const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
            if (master && (g_strcmp0(master, ifname) == 0 || g_strcmp0(master, nm_connection_get_uuid(c)) == 0))
                std::fprintf(stderr, _("Warning: profile '%s' is a port of the deleted bond %s; it stays, and "
                                       "`ibnm connection up` refuses it until it names another bond.\n"),
                             nm_connection_get_id(o), ifname ? ifname : nm_connection_get_id(c));
        }
    }
    return true;
}

int cmdDelete(Context &ctx, const Args &args)
{
    if (args.empty())
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return kExitFailed;
    int rc = kExitOk;
    for (size_t i = 0; i < args.size();) {
        const char *id = takeId(args, i);
        NMConnection *c = findOrComplain(s, id);
        if (!c) {
            rc = notFoundStatus(s);
            continue;
        }
        std::string name = nm_connection_get_id(c), uuid = nm_connection_get_uuid(c);
        if (ctx.options.dryRun) {
            std::printf(_("Dry run: connection '%s' (%s) would be deleted; nothing was changed.\n"), name.c_str(),
                        uuid.c_str());
            continue;
        }
        // As nmcli deactivates a profile it deletes: in standalone mode ibnm
        // takes down what the profile brought up (its P_Key child, soft
        // link, bond), and keeps the profile if that fails.
        if (g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") != 0 && !deactivate(ctx, s, c)) {
            rc = kExitFailed;
            continue;
        }
        ErrorPtr err;
        if (!ibnm_settings_delete(s, uuid.c_str(), Out(err))) {
            rc = reportError(err.get());
            continue;
        }
        std::printf(_("Connection '%s' (%s) successfully deleted.\n"), shown(name.c_str()).c_str(), uuid.c_str());
    }
    return rc;
}

int cmdReload(Context &ctx, const Args &args)
{
    if (!args.empty())
        return usageError(_(kConnectionUsage), _("argument '%s' not understood"), args[0].c_str());
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    ErrorPtr err;
    if (!ibnm_settings_reload(s, Out(err)))
        return reportError(err.get());
    return kExitOk;
}

// The ifcfg files of a directory, as NetworkManager's ifcfg-rh plugin reads
// them: ifcfg-NAME, without editor and package-manager leftovers.
std::vector<std::string> ifcfgFiles(const std::string &dir, GError **error)
{
    std::vector<std::string> files;
    GDir *d = g_dir_open(dir.c_str(), 0, error);
    if (!d)
        return files;
    while (const char *name = g_dir_read_name(d)) {
        if (!g_str_has_prefix(name, "ifcfg-") || std::strlen(name) == 6)
            continue;
        bool leftover = false;
        for (const char *suffix : {"~", ".bak", ".orig", ".rej", ".rpmnew", ".rpmsave", ".swp", ".tmp"})
            leftover = leftover || g_str_has_suffix(name, suffix);
        CharPtr path(g_build_filename(dir.c_str(), name, nullptr));
        if (!leftover && g_file_test(path.get(), G_FILE_TEST_IS_REGULAR))
            files.emplace_back(path.get());
    }
    g_dir_close(d);
    std::sort(files.begin(), files.end());
    return files;
}

// A directory of ifcfg files in one command: bonds before their ports (a
// port is checked against its bond), each checked and stored in that order;
// on any error the profiles this command stored are removed again.
int importIfcfgDirectory(Context &ctx, const std::string &dir)
{
    ErrorPtr err;
    std::vector<std::string> files = ifcfgFiles(dir, Out(err));
    if (err)
        return reportError(err.get());
    std::vector<Obj<NMConnection>> bonds, others;
    for (const auto &f : files) {
        Obj<NMConnection> c(ibnm_ifcfg_import(f.c_str(), Out(err)));
        if (!c) {
            // Other types (lo, Ethernet, ...) belong to NetworkManager: skip them.
            if (g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED)) {
                std::fprintf(stderr, _("Warning: %s; skipped\n"), err->message);
                err.reset();
                continue;
            }
            return reportError(err.get());
        }
        bool bond = g_strcmp0(nm_connection_get_connection_type(c.get()), NM_SETTING_BOND_SETTING_NAME) == 0;
        (bond ? bonds : others).push_back(std::move(c));
    }
    if (bonds.empty() && others.empty()) {
        printError(_("%s has no ifcfg file ibnm can import"), dir.c_str());
        return kExitFailed;
    }
    if (ctx.options.offline) {
        int rc = kExitOk;
        for (auto *list : {&bonds, &others})
            for (auto &c : *list)
                if (rc == kExitOk)
                    rc = printKeyfile(c.get());
        return rc;
    }
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    std::vector<std::string> added;
    auto undo = [&]() {
        for (const auto &uuid : added) {
            ErrorPtr e;
            ibnm_settings_delete(s, uuid.c_str(), Out(e));
        }
    };
    for (auto *list : {&bonds, &others}) {
        for (auto &c : *list) {
            Obj<IbnmProfile> profile(ibnm_profile_new(c.get()));
            if (!validate(ctx, profile.get(), s) ||
                (!ctx.options.dryRun && !ibnm_settings_add(s, c.get(), nullptr, Out(err)))) {
                if (err)
                    reportError(err.get());
                undo();
                if (!added.empty())
                    printError(_("nothing was imported from %s"), dir.c_str());
                return kExitFailed;
            }
            if (!ctx.options.dryRun)
                added.emplace_back(nm_connection_get_uuid(c.get()));
        }
    }
    for (auto *list : {&bonds, &others})
        for (auto &c : *list)
            if (ctx.options.dryRun)
                std::printf(_("Dry run: connection '%s' (%s) would be added; nothing was written.\n"),
                            nm_connection_get_id(c.get()), nm_connection_get_uuid(c.get()));
            else
                std::printf(_("Connection '%s' (%s) successfully added.\n"), shown(nm_connection_get_id(c.get())).c_str(),
                            nm_connection_get_uuid(c.get()));
    return kExitOk;
}

int cmdImport(Context &ctx, const Args &args)
{
    std::string type = "keyfile", file;
    for (size_t i = 0; i < args.size(); i += 2) {
        if (i + 1 >= args.size())
            return usageError(_(kConnectionUsage), _("value is missing for '%s'"), args[i].c_str());
        if (args[i] == "type")
            type = args[i + 1];
        else if (args[i] == "file")
            file = args[i + 1];
        else if (args[i] != "--temporary")
            return usageError(_(kConnectionUsage), _("argument '%s' not understood"), args[i].c_str());
    }
    if (file.empty())
        return usageError(_(kConnectionUsage), _("'file' argument is required"));
    ErrorPtr err;
    Obj<NMConnection> c;
    if (type == "ifcfg-rh" || type == "ifcfg") {
        if (g_file_test(file.c_str(), G_FILE_TEST_IS_DIR))
            return importIfcfgDirectory(ctx, file);
        c.reset(ibnm_ifcfg_import(file.c_str(), Out(err)));
    } else if (type == "keyfile") {
        // Bounded before it is read: a huge file or a FIFO is refused.
        GStatBuf st;
        if (g_stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
            printError(_("%s: not a regular file"), file.c_str());
            return kExitFailed;
        }
        if (g_stat(file.c_str(), &st) == 0 && st.st_size > IBNM_KEYFILE_MAX_SIZE) {
            printError(_("%s: the file is larger than %d bytes, the most a keyfile may have"), file.c_str(),
                       IBNM_KEYFILE_MAX_SIZE);
            return kExitFailed;
        }
        CharPtr data;
        if (!g_file_get_contents(file.c_str(), Out(data), nullptr, Out(err)))
            return reportError(err.get());
        c.reset(ibnm_keyfile_from_data(data.get(), file.c_str(), Out(err)));
    } else {
        return usageError(_(kConnectionUsage), _("invalid type '%s'; use keyfile or ifcfg-rh"), type.c_str());
    }
    if (!c)
        return reportError(err.get());
    Obj<IbnmProfile> profile(ibnm_profile_new(c.get()));
    if (ctx.options.offline)
        return printKeyfile(c.get());
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return kExitFailed;
    if (!nameIsFree(s, nm_connection_get_id(c.get())))
        return kExitFailed;
    if (!validate(ctx, profile.get(), s))
        return kExitFailed;
    if (!ibnm_settings_add(s, c.get(), nullptr, Out(err)))
        return reportError(err.get());
    std::printf(_("Connection '%s' (%s) successfully added.\n"), shown(nm_connection_get_id(c.get())).c_str(),
                nm_connection_get_uuid(c.get()));
    return kExitOk;
}

int cmdExport(Context &ctx, const Args &args)
{
    size_t i = 0;
    const char *id = takeId(args, i);
    if (!id)
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    NMConnection *c = findOrComplain(s, id);
    if (!c)
        return notFoundStatus(s);
    if (i >= args.size())
        return printKeyfile(c);
    ErrorPtr err;
    CharPtr data(ibnm_keyfile_to_data(c, Out(err)));
    if (!data || !g_file_set_contents_full(args[i].c_str(), data.get(), -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                           Out(err)))
        return reportError(err.get());
    return kExitOk;
}

// --- up / down ----------------------------------------------------------------------

// The profiles `up`/`down` name: each ID (an optional id/uuid/filename word
// before it), or with --all every profile whose connection.autoconnect is
// yes. Nullptr after printing the error; `rc` is the exit code then.
PtrArray selectProfiles(IbnmSettings *s, const Args &args, int &rc)
{
    PtrArray picked(g_ptr_array_new_with_free_func(g_object_unref));
    if (!args.empty() && args[0] == "--all") {
        if (args.size() > 1) {
            rc = usageError(_(kConnectionUsage), _("'--all' takes no connection ID; '%s' not understood"),
                            args[1].c_str());
            return nullptr;
        }
        PtrArray all = allConnections(s);
        for (guint i = 0; i < all->len; i++) {
            auto *c = NM_CONNECTION(g_ptr_array_index(all.get(), i));
            NMSettingConnection *sc = nm_connection_get_setting_connection(c);
            if (sc && nm_setting_connection_get_autoconnect(sc))
                g_ptr_array_add(picked.get(), g_object_ref(c));
        }
        return picked;
    }
    for (size_t i = 0; i < args.size();) {
        if (args[i] == "--all") {
            rc = usageError(_(kConnectionUsage), _("'--all' cannot be combined with connection IDs"));
            return nullptr;
        }
        const char *id = takeId(args, i);
        NMConnection *c = findOrComplain(s, id);
        if (!c) {
            rc = notFoundStatus(s);
            return nullptr;
        }
        bool dup = false;
        for (guint k = 0; k < picked->len; k++)
            dup = dup || g_ptr_array_index(picked.get(), k) == c;
        if (!dup)
            g_ptr_array_add(picked.get(), g_object_ref(c));
    }
    if (picked->len == 0) {
        rc = usageError(_(kConnectionUsage), _("missing connection ID"));
        return nullptr;
    }
    return picked;
}

// up and down of one or many profiles: one plan, one transaction (a failure
// undoes every step of every profile), one report.
int upDown(Context &ctx, const Args &args, bool up)
{
    // nmcli's `up --ask`: ibnm's profiles have nothing to ask for.
    if (!args.empty() && (args[0] == "--ask" || (up && args[0] == "-a")))
        return usageError(_(kConnectionUsage),
                          _("option '%s' is not supported: ibnm's profiles have no secrets or passwords to ask for"),
                          args[0].c_str());
    if (args.empty())
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    int rc = kExitOk;
    PtrArray picked = selectProfiles(s, args, rc);
    if (!picked)
        return rc;
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    PtrArray all = allConnections(s);
    auto flags = ctx.options.dryRun ? IBNM_APPLY_FLAGS_DRY_RUN : IBNM_APPLY_FLAGS_NONE;
    Obj<IbnmApplyReport> report;
    ErrorPtr err;
    gboolean ok = up ? ibnm_apply_up(host, picked.get(), all.get(), flags, Out(report), Out(err))
                     : ibnm_apply_down(host, picked.get(), all.get(), flags, Out(report), Out(err));
    if (!report) {
        if (err)
            return reportError(err.get());
        return kExitFailed;
    }
    rc = printReport(ctx, report.get());
    if (ok && rc == kExitOk && ctx.options.mode == OutputMode::Tabular && !ctx.options.getValues) {
        if (ctx.options.dryRun) {
            std::printf(_("Dry run: nothing was changed.\n"));
        } else if (picked->len == 1) {
            std::string name = shown(nm_connection_get_id(NM_CONNECTION(g_ptr_array_index(picked.get(), 0))));
            if (up)
                std::printf(_("Connection '%s' successfully activated.\n"), name.c_str());
            else
                std::printf(_("Connection '%s' successfully deactivated.\n"), name.c_str());
        } else if (up) {
            std::printf(_("%u connections successfully activated.\n"), picked->len);
        } else {
            std::printf(_("%u connections successfully deactivated.\n"), picked->len);
        }
    }
    return rc;
}

int cmdUp(Context &ctx, const Args &args)
{
    return upDown(ctx, args, true);
}

int cmdDown(Context &ctx, const Args &args)
{
    return upDown(ctx, args, false);
}

} // namespace

// In nmcli's order, so that prefixes resolve as nmcli's do (`con d` = down).
const Command kConnectionCommands[] = {
    {"show", cmdShow, nullptr},     {"up", cmdUp, nullptr},         {"down", cmdDown, nullptr},
    {"add", cmdAdd, nullptr},       {"modify", cmdModify, nullptr}, {"delete", cmdDelete, nullptr},
    {"reload", cmdReload, nullptr}, {"import", cmdImport, nullptr}, {"export", cmdExport, nullptr},
    {nullptr, nullptr, nullptr},
};

} // namespace ibnm::cli
