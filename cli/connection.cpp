// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection`: nmcli's profile commands. The argument grammar of add and
// modify is libibnm's (ibnm_profile_new_from_args); this file finds profiles,
// validates them against the host, stores, deletes and activates them
// (show: connection-show.cpp; import and export: connection-files.cpp).
#include "config.h"

#include "cli/cli.hpp"
#include "cli/connection.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>

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

// nmcli's selector words (nmc_find_connection(): id, uuid, path, filename;
// apath for the commands on active connections).
std::optional<IbnmSettingsMatch> selectorWord(const std::string &w, bool active)
{
    if (w == "id")
        return IBNM_SETTINGS_MATCH_ID;
    if (w == "uuid")
        return IBNM_SETTINGS_MATCH_UUID;
    if (w == "filename")
        return IBNM_SETTINGS_MATCH_FILENAME;
    if (w == "path")
        return IBNM_SETTINGS_MATCH_PATH;
    if (w == "apath" && active)
        return IBNM_SETTINGS_MATCH_ACTIVE_PATH;
    return std::nullopt;
}

} // namespace

Selector takeId(const Args &args, size_t &i, bool active)
{
    Selector sel;
    if (i + 1 < args.size())
        if (auto m = selectorWord(args[i], active)) {
            sel.match = *m;
            i++;
        }
    sel.id = i < args.size() ? args[i++].c_str() : nullptr;
    return sel;
}

NMConnection *findSelected(IbnmSettings *s, const Selector &sel)
{
    return sel.id ? ibnm_settings_find_by(s, sel.match, sel.id) : nullptr;
}

NMConnection *findOrComplain(IbnmSettings *s, const Selector &sel)
{
    const char *id = sel.id;
    NMConnection *c = findSelected(s, sel);
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

namespace {

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

// Whether `word` names a bond profile of `all` by UUID, name or interface
// name, as nmcli looks for a `master` (normalized_master_for_slave() in
// nmcli's connections.c).
bool namesBondProfile(GPtrArray *all, const char *word)
{
    for (guint i = 0; i < all->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(all, i));
        if (nm_connection_is_type(c, NM_SETTING_BOND_SETTING_NAME) &&
            (g_strcmp0(nm_connection_get_uuid(c), word) == 0 || g_strcmp0(nm_connection_get_id(c), word) == 0 ||
             g_strcmp0(nm_connection_get_interface_name(c), word) == 0))
            return true;
    }
    return false;
}

// A bond port whose `master` names no bond profile: nmcli warns
// (warnUnknownMasters()) and NetworkManager stores it (its `up` fails,
// "Master connection not found or invalid", until a bond profile or device
// is there); standalone ibnm refuses it (differences-from-nmcli.md, nmcli
// difference 20).
bool waitsForItsBond(NMConnection *c, GPtrArray *all)
{
    NMSettingConnection *sc = nm_connection_get_setting_connection(c);
    const char *master = sc ? nm_setting_connection_get_master(sc) : nullptr;
    return master && g_strcmp0(nm_setting_connection_get_slave_type(sc), NM_SETTING_BOND_SETTING_NAME) == 0 &&
           !namesBondProfile(all, master);
}

// The keys whose value this machine's RDMA device must support (the
// planner's checkRdmaSupport(): a RoCE mode, the mlx5-only traffic class,
// rules, TTL and roce_enable files).
constexpr const char *kDeviceSupportKeys[] = {"rdma.roce-mode", "rdma.traffic-class", "rdma.traffic-class-rules",
                                              "rdma.roce-enable", "rdma.ttl"};

bool isDeviceSupportKey(const char *key)
{
    for (const char *k : kDeviceSupportKeys)
        if (g_strcmp0(k, key) == 0)
            return true;
    return false;
}

bool setsDeviceSupportKey(NMConnection *c)
{
    NMSettingUser *u = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    for (const char *key : kDeviceSupportKeys)
        if (u && nm_setting_user_get_data(u, key))
            return true;
    return false;
}

bool sameFinding(IbnmFinding *a, IbnmFinding *b)
{
    return g_strcmp0(ibnm_finding_get_property(a), ibnm_finding_get_property(b)) == 0 &&
           g_strcmp0(ibnm_finding_get_message(a), ibnm_finding_get_message(b)) == 0;
}

// Without a chosen host, where the profile's RDMA device is on this machine:
// what it cannot do is refused when written, as `check` and `up` refuse it
// (a RoCE mode it lacks; traffic class files on a device that is no mlx5),
// and as RoCE v1 on an rxe link is refused without a host. Only those
// findings: an interface or base profile not here yet leaves the profile
// waiting for its device, as nmcli does. Appended to `findings`.
void addDeviceSupportErrors(Context &ctx, GPtrArray *all, NMConnection *profile, GPtrArray *findings)
{
    if (!setsDeviceSupportKey(profile))
        return;
    IbnmHost *host = ctx.host();
    if (!host)
        return;
    Obj<IbnmInventory> inventory(ibnm_inventory_new(host));
    if (!ibnm_check_reload_inventory(inventory.get(), all, nullptr))
        return; // this machine's RDMA devices cannot be read: `check` says so
    PtrArray onHost(ibnm_check_profiles(all, inventory.get(), IBNM_CHECK_FLAGS_NONE));
    const char *id = nm_connection_get_id(profile);
    for (guint i = 0; i < onHost->len; i++) {
        auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(onHost.get(), i));
        if (ibnm_finding_get_severity(f) != IBNM_SEVERITY_ERROR || g_strcmp0(ibnm_finding_get_profile_id(f), id) != 0 ||
            !isDeviceSupportKey(ibnm_finding_get_property(f)))
            continue;
        bool known = false;
        for (guint k = 0; k < findings->len && !known; k++)
            known = sameFinding(f, static_cast<IbnmFinding *>(g_ptr_array_index(findings, k)));
        if (!known)
            g_ptr_array_add(findings, g_object_ref(f));
    }
}

} // namespace

// Checks `profile` with the stored ones (against the host when the user chose
// one) and prints what the change brings: the findings about the profile and
// the errors elsewhere that involve it (a port makes its bond's mode wrong;
// IbnmFinding:related-profiles), not those that are there without it. False
// if the change brings errors.
bool validate(Context &ctx, IbnmProfile *profile, IbnmSettings *settings)
{
    PtrArray all(g_ptr_array_new_with_free_func(g_object_unref));
    if (settings) {
        // Without a host, the stored profiles the rules relate to this one
        // find what all of them find about it (the keyfile store's index then
        // reads only those); the planner's verdict on a host asks every one.
        PtrArray stored = ctx.hostChosen() ? allConnections(settings)
                                           : PtrArray(ibnm_settings_get_related(
                                                 settings, ibnm_profile_get_connection(profile), nullptr));
        for (guint i = 0; i < stored->len; i++) {
            auto *c = static_cast<NMConnection *>(g_ptr_array_index(stored.get(), i));
            if (g_strcmp0(nm_connection_get_uuid(c), ibnm_profile_get_uuid(profile)) != 0)
                g_ptr_array_add(all.get(), g_object_ref(c));
        }
    }
    // Last: a conflict with a stored profile is then this profile's finding,
    // naming the stored one.
    g_ptr_array_add(all.get(), g_object_ref(ibnm_profile_get_connection(profile)));
    // The host as `ibnm check` sees it for these profiles (where a changed
    // profile is active, as `connection up` would find it: after its old
    // activation is taken down).
    Obj<IbnmInventory> inventory;
    IbnmInventory *inv = nullptr;
    if (ctx.hostChosen()) {
        IbnmHost *host = ctx.host();
        if (!host)
            return false;
        inventory.reset(ibnm_inventory_new(host));
        ErrorPtr err;
        if (!ibnm_check_reload_inventory(inventory.get(), all.get(), Out(err))) {
            printError("%s", err->message);
            return false;
        }
        inv = inventory.get();
    }
    // Without a host, the warnings of standalone ibnm too (a DHCP-addressed
    // IPoIB profile, which NetworkManager activates and standalone `up`
    // refuses); with one, as NetworkManager would activate the profile.
    bool standalone = settings && g_strcmp0(ibnm_settings_get_backend_name(settings), "networkmanager") != 0;
    PtrArray findings(ibnm_check_profiles(
        all.get(), inv, standalone && inv == nullptr ? IBNM_CHECK_FLAGS_STANDALONE : IBNM_CHECK_FLAGS_NONE));
    if (!ctx.hostChosen())
        addDeviceSupportErrors(ctx, all.get(), ibnm_profile_get_connection(profile), findings.get());
    const char *id = ibnm_profile_get_id(profile);
    // With NetworkManager, as nmcli: stored after nmcli's warning, no error.
    bool waiting = settings && !standalone && waitsForItsBond(ibnm_profile_get_connection(profile), all.get());
    bool errors = false;
    for (guint i = 0; i < findings->len; i++) {
        auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(findings.get(), i));
        IbnmSeverity sev = ibnm_finding_get_severity(f);
        bool mine = g_strcmp0(ibnm_finding_get_profile_id(f), id) == 0;
        bool caused = sev == IBNM_SEVERITY_ERROR && ibnm_finding_involves(f, id);
        if (sev == IBNM_SEVERITY_INFO || !(mine || caused))
            continue;
        if (waiting && mine && g_strcmp0(ibnm_finding_get_property(f), "connection.master") == 0)
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

// --- add / modify -----------------------------------------------------------------

// Standalone ibnm keeps one profile per name: `connection up NAME` must
// name one, and of parallel adds of one con-name one succeeds. Called with
// the store locked (ctx.settings(true)). False after printing the error.
bool nameIsFree(IbnmSettings *s, const char *id)
{
    if (g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") == 0)
        return true; // NetworkManager allows it, as nmcli
    NMConnection *c = ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_ID, id);
    if (c == nullptr)
        return true;
    printError(_("a profile named '%s' exists already (UUID %s); choose another con-name"), id,
               nm_connection_get_uuid(c));
    return false;
}

// nmcli's warning, on standard output as nmcli prints it (g_print), for
// each `master` word that names no bond profile of `s` by UUID, name or
// interface name (normalized_master_for_slave() in nmcli's connections.c;
// without a store, as `--offline`, none does).
void warnUnknownMasters(char **masters, IbnmSettings *s)
{
    if (masters == nullptr || *masters == nullptr)
        return;
    PtrArray all = s ? PtrArray(ibnm_settings_get_related(s, nullptr, masters)) : PtrArray(g_ptr_array_new());
    for (char **m = masters; *m; m++) {
        if (!namesBondProfile(all.get(), *m))
            std::printf(_("Warning: master='%s' doesn't refer to any existing profile.\n"), *m);
    }
    std::fflush(stdout);
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

namespace {

int cmdAdd(Context &ctx, const Args &args)
{
    if (args.empty()) {
        // nmcli's line, as it prints it.
        printError(_("'type' argument is required"));
        return kExitUsage;
    }
    Args words = args;
    std::string base = takeSecondaryOf(words); // an RDMA secondary's base profile
    auto argv = cargv(words);
    ErrorPtr err;
    GStrvPtr masters;
    Obj<IbnmProfile> profile(ibnm_profile_new_from_args_full(argv.data(), Out(masters), Out(err)));
    if (!profile) {
        // nmcli warned about the `master` words it parsed before the fault.
        if (masters && *masters)
            warnUnknownMasters(masters.get(), ctx.options.offline ? nullptr : ctx.settings());
        return argumentsError(err.get());
    }
    // --offline is nmcli --offline: the profile verifies (above), nothing
    // else is known (no store, no host), so no ibnm rules run.
    if (ctx.options.offline && base.empty()) {
        warnUnknownMasters(masters.get(), nullptr);
        return printKeyfile(ibnm_profile_get_connection(profile.get()));
    }
    if (ctx.options.offline)
        return usageError(_(kConnectionUsage), _("secondary-of changes a stored profile: not with --offline"));
    ctx.setDefaultWait(25);
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return ctx.storeFailure();
    warnUnknownMasters(masters.get(), s);
    if (!nameIsFree(s, ibnm_profile_get_id(profile.get())))
        return kExitFailed;
    std::string baseUuid;
    if (!base.empty() && (baseUuid = findSecondaryBase(s, ibnm_profile_get_connection(profile.get()), base)).empty())
        return ibnm_connection_is_secondary(ibnm_profile_get_connection(profile.get())) ? notFoundStatus(s)
                                                                                        : kExitUsage;
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
    if (!baseUuid.empty())
        return attachSecondary(s, ibnm_profile_get_connection(profile.get()), baseUuid);
    return kExitOk;
}

int cmdModify(Context &ctx, const Args &argsIn)
{
    Args args = argsIn;
    if (!args.empty() && isNmcliOption(args[0], "temporary")) {
        // nmcli keeps such a change in NetworkManager's memory only; ibnm
        // has no in-memory profiles, and writing the change to disk would
        // make it permanent: refused. With --offline nothing is stored, as
        // with nmcli --offline.
        if (!ctx.options.offline)
            return usageError(_(kConnectionUsage), _("'--temporary' is not supported: ibnm keeps no in-memory "
                                                     "profiles (use nmcli with NetworkManager running)"));
        args.erase(args.begin());
    }
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
        GStrvPtr masters;
        bool parsed = ibnm_profile_modify_from_args_full(profile.get(), argv.data(), Out(masters), Out(err));
        warnUnknownMasters(masters.get(), nullptr);
        if (!parsed)
            return argumentsError(err.get());
        return printKeyfile(c.get());
    }
    size_t i = 0;
    Selector sel = takeId(args, i);
    if (!sel.id)
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    if (i >= args.size())
        return usageError(_(kConnectionUsage), _("no property to modify"));
    ctx.setDefaultWait(25);
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return ctx.storeFailure();
    NMConnection *stored = findOrComplain(s, sel);
    if (!stored)
        return notFoundStatus(s);
    Obj<NMConnection> copy(nm_simple_connection_new_clone(stored));
    Obj<IbnmProfile> profile(ibnm_profile_new(copy.get()));
    auto argv = cargv(args, i);
    GStrvPtr masters;
    bool parsed = ibnm_profile_modify_from_args_full(profile.get(), argv.data(), Out(masters), Out(err));
    warnUnknownMasters(masters.get(), s);
    if (!parsed)
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

// --- delete / reload -------------------------------------------------------------------

// Whether the profile `uuid` is active on the host (standalone mode: ibnm's
// own active connections); nullopt after printing why it cannot be known.
std::optional<bool> isActive(Context &ctx, const char *uuid)
{
    IbnmHost *host = ctx.host();
    if (!host)
        return std::nullopt;
    ErrorPtr err;
    PtrArray active(ibnm_apply_get_active_connections(host, Out(err)));
    if (!active) {
        reportError(err.get());
        return std::nullopt;
    }
    for (guint i = 0; i < active->len; i++)
        if (g_strcmp0(ibnm_active_connection_get_uuid(IBNM_ACTIVE_CONNECTION(g_ptr_array_index(active.get(), i))),
                      uuid) == 0)
            return true;
    return false;
}

// Takes down what the active profile `c` brought up on the host before it is
// deleted; says what was done. False (and nothing deleted) when that fails.
bool deactivate(Context &ctx, IbnmSettings *s, NMConnection *c)
{
    IbnmHost *host = ctx.host();
    if (!host)
        return false;
    PtrArray all = allConnections(s);
    PtrArray one(g_ptr_array_new_with_free_func(g_object_unref));
    g_ptr_array_add(one.get(), g_object_ref(c));
    Obj<IbnmApplyReport> report(ibnm_apply_down(host, one.get(), all.get(), IBNM_APPLY_FLAGS_NONE));
    ErrorPtr err;
    gboolean ok = ibnm_apply_report_propagate_error(report.get(), Out(err));
    if (ibnm_apply_report_get_started(report.get()) && ibnm_apply_report_get_steps(report.get())->len > 0) {
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
    ctx.setDefaultWait(10);
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return ctx.storeFailure();
    int rc = kExitOk;
    for (size_t i = 0; i < args.size();) {
        NMConnection *c = findOrComplain(s, takeId(args, i));
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
        // As nmcli deletes a profile: an active one is deactivated first (in
        // standalone mode ibnm takes down what its activation made and puts
        // back what it changed, and keeps the profile if that fails); an
        // inactive one never touches its device (checked in the NM lab).
        if (g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") != 0) {
            std::optional<bool> active = isActive(ctx, uuid.c_str());
            if (!active || (*active && !deactivate(ctx, s, c))) {
                rc = kExitFailed;
                continue;
            }
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
        NMConnection *c = findOrComplain(s, takeId(args, i));
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

// The profiles `down` takes down, as nmcli's `connection down` picks them
// (checked in the NM lab): each ID that names an active profile; for each
// one that does not (inactive or unknown), "Error: 'ID' is not an active
// connection."; none at all: "Error: no active connection provided." and
// exit 10 (`rc`), nothing changed. With --all: the active profiles among
// those that connect automatically. `missing`: some ID named no active
// profile (the others still go down; the exit status is 10).
PtrArray selectActive(Context &ctx, IbnmSettings *s, const Args &args, int &rc, bool &missing)
{
    IbnmHost *host = ctx.host();
    if (!host) {
        rc = kExitFailed;
        return nullptr;
    }
    ErrorPtr err;
    PtrArray active(ibnm_apply_get_active_connections(host, Out(err)));
    if (!active) {
        rc = reportError(err.get());
        return nullptr;
    }
    auto activeNow = [&](NMConnection *c) {
        for (guint i = 0; i < active->len; i++)
            if (g_strcmp0(ibnm_active_connection_get_uuid(IBNM_ACTIVE_CONNECTION(g_ptr_array_index(active.get(), i))),
                          nm_connection_get_uuid(c)) == 0)
                return true;
        return false;
    };
    PtrArray picked(g_ptr_array_new_with_free_func(g_object_unref));
    if (!args.empty() && args[0] == "--all") {
        PtrArray all = selectProfiles(s, args, rc);
        if (!all)
            return nullptr;
        for (guint i = 0; i < all->len; i++)
            if (activeNow(NM_CONNECTION(g_ptr_array_index(all.get(), i))))
                g_ptr_array_add(picked.get(), g_object_ref(g_ptr_array_index(all.get(), i)));
        return picked;
    }
    for (size_t i = 0; i < args.size();) {
        if (args[i] == "--all") {
            rc = usageError(_(kConnectionUsage), _("'--all' cannot be combined with connection IDs"));
            return nullptr;
        }
        Selector sel = takeId(args, i, true);
        const char *id = sel.id;
        NMConnection *c = findSelected(s, sel);
        if (c == nullptr || !activeNow(c)) {
            printError(_("'%s' is not an active connection."), id);
            missing = true;
            continue;
        }
        bool dup = false;
        for (guint k = 0; k < picked->len; k++)
            dup = dup || g_ptr_array_index(picked.get(), k) == c;
        if (!dup)
            g_ptr_array_add(picked.get(), g_object_ref(c));
    }
    if (picked->len == 0) {
        printError(_("no active connection provided."));
        rc = kExitNotFound;
        return nullptr;
    }
    return picked;
}

// nmcli's words where standalone `up` found no device for a profile (NetworkManager
// 1.42's _new_active_connection() and find_device_for_connection() in
// src/core/nm-manager.c; nmcli prefixes "Connection activation failed: "):
// "No suitable device found for this connection (device X not available
// because ...)." for a device NetworkManager does not create, "Failed to find
// a compatible device for this connection" for a P_Key child whose parent is
// absent. The planner refused the profile as IBNM_ERROR_NOT_FOUND, its
// message led by "<profile>: <property>: " (Error::withProfile/withProperty).
// Empty when the error is another.
std::string noDeviceAsNmcli(const GError *err, GPtrArray *picked)
{
    if (!g_error_matches(err, IBNM_ERROR, IBNM_ERROR_NOT_FOUND))
        return {};
    for (guint i = 0; i < picked->len; i++) {
        auto *c = NM_CONNECTION(g_ptr_array_index(picked, i));
        std::string lead = std::string(nm_connection_get_id(c)) + ": ";
        if (std::strncmp(err->message, lead.c_str(), lead.size()) != 0)
            continue;
        const char *rest = err->message + lead.size();
        if (g_str_has_prefix(rest, "infiniband.parent: "))
            return _("Failed to find a compatible device for this connection");
        if (!g_str_has_prefix(rest, "connection.interface-name: ") && !g_str_has_prefix(rest, "infiniband.mac-address: "))
            return {};
        const char *ifname = nm_connection_get_interface_name(c);
        if (ifname == nullptr)
            return _("No suitable device found for this connection (no suitable device found).");
        CharPtr text(g_strdup_printf(_("No suitable device found for this connection (device %s not available "
                                       "because it does not exist on this host)."),
                                     ifname));
        return text.get();
    }
    return {};
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
    ctx.setDefaultWait(up ? 90 : 10);
    // With NetworkManager running, it activates (connection-nm.cpp).
    IbnmSettings *store = ctx.store();
    if (!store)
        return kExitFailed;
    if (activatesThroughNetworkManager(ctx, store))
        return upDownThroughNetworkManager(ctx, args, up);
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    int rc = kExitOk;
    bool missing = false;
    PtrArray picked = up ? selectProfiles(s, args, rc) : selectActive(ctx, s, args, rc, missing);
    if (!picked)
        return rc;
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    PtrArray all = allConnections(s);
    auto flags = ctx.options.dryRun ? IBNM_APPLY_FLAGS_DRY_RUN : IBNM_APPLY_FLAGS_NONE;
    Obj<IbnmApplyReport> report(up ? ibnm_apply_up(host, picked.get(), all.get(), flags)
                                   : ibnm_apply_down(host, picked.get(), all.get(), flags));
    gboolean ok = ibnm_apply_report_get_success(report.get());
    // nmcli's statuses: an activation that fails or is refused exits 4, a
    // deactivation 5 (a timeout stays 3, an unknown profile 10).
    auto asNmcli = [up](int status) {
        return status != kExitFailed ? status : up ? kExitActivationFailed : kExitDeactivationFailed;
    };
    // A profile whose device is absent: nmcli's words and status.
    ErrorPtr err;
    if (!ok)
        ibnm_apply_report_propagate_error(report.get(), Out(err));
    if (std::string nm; up && !ok && err && ctx.options.mode != OutputMode::Json &&
                        !(nm = noDeviceAsNmcli(err.get(), picked.get())).empty()) {
        // Verbatim, as nmcli prints NetworkManager's reason (no period added).
        CharPtr line(g_strdup_printf(_("Connection activation failed: %s"), nm.c_str()));
        std::fprintf(stderr, _("Error: %s\n"), line.get());
        return kExitActivationFailed;
    }
    rc = asNmcli(printApply(ctx, report.get()));
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
        if (up)
            printRdmaTestHint(ctx, picked.get()); // last: the command that verifies RDMA (cli/rdma-test.cpp)
    }
    if (missing && rc == kExitOk) {
        printError(_("not all active connections found."));
        rc = kExitNotFound;
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
