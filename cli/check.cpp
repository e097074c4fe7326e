// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm check [PROFILE...]`: every rule on the stored profiles (or the named
// ones), against the host; exit 1 when any finding is an error.
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"

#include <glib/gi18n.h>

#include <cstdio>

namespace ibnm::cli {

int cmdCheck(Context &ctx, const Args &argsIn)
{
    Args args = argsIn;
    bool opensm = !args.empty() && args[0] == "--opensm";
    if (opensm)
        args.erase(args.begin());
    // Read only: check changes no profile.
    IbnmSettings *s = ctx.settings(false, true);
    if (!s)
        return kExitFailed;
    PtrArray all = allConnections(s);
    // The host as the rules need it for these profiles: its GID tables
    // only when a netdev the rules ask about has no RDMA device without them.
    IbnmHost *host = ctx.host();
    if (!host)
        return kExitFailed;
    Obj<IbnmInventory> inventory(ibnm_inventory_new(host));
    ErrorPtr err;
    if (!ibnm_check_reload_inventory(inventory.get(), all.get(), Out(err))) {
        printError("%s", err->message);
        return kExitFailed;
    }
    IbnmInventory *inv = inventory.get();
    PtrArray selected(g_ptr_array_new_with_free_func(g_object_unref));
    if (args.empty()) {
        selected = std::move(all);
    } else {
        // The named profiles, checked with the others (cross-profile rules
        // need them); only their findings are shown.
        for (const auto &name : args) {
            NMConnection *c = ibnm_settings_find(s, name.c_str());
            if (!c) {
                printError(_("unknown connection '%s'"), name.c_str());
                return kExitNotFound;
            }
            g_ptr_array_add(selected.get(), g_object_ref(c));
        }
    }
    if (opensm) {
        // The subnet manager's side: partitions.conf lines for these profiles.
        char **lines = ibnm_check_opensm_partitions(selected.get(), inv);
        for (char **l = lines; l && *l; l++)
            std::printf("%s\n", *l);
        g_strfreev(lines);
        return kExitOk;
    }
    // Without NetworkManager, ibnm brings the profiles up itself.
    bool standalone = g_strcmp0(ibnm_settings_get_backend_name(s), "networkmanager") != 0;
    PtrArray findings(ibnm_check_profiles(args.empty() ? selected.get() : all.get(), inv,
                                            standalone ? IBNM_CHECK_FLAGS_STANDALONE : IBNM_CHECK_FLAGS_NONE));
    if (!args.empty()) {
        PtrArray mine(g_ptr_array_new_with_free_func(g_object_unref));
        for (guint i = 0; i < findings->len; i++) {
            auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(findings.get(), i));
            for (guint k = 0; k < selected->len; k++)
                if (g_strcmp0(ibnm_finding_get_profile_id(f),
                              nm_connection_get_id(static_cast<NMConnection *>(g_ptr_array_index(selected.get(), k)))) == 0) {
                    g_ptr_array_add(mine.get(), g_object_ref(f));
                    break;
                }
        }
        findings = std::move(mine);
    }
    // A keyfile that could not be read (a bad value, an insecure file) holds
    // a profile check cannot vouch for.
    guint unread = 0;
    for (const char *const *w = ibnm_settings_get_load_warnings(s); w && *w; w++)
        unread++;
    int rc = printFindings(ctx, findings.get(), false);
    if (unread > 0) {
        printError("%s", _("some profile files could not be read (see the warnings above); the profiles in them were "
                           "not checked"));
        return kExitFailed;
    }
    if (findings->len == 0 && ctx.options.mode == OutputMode::Tabular && !ctx.options.getValues)
        std::printf("%s\n", _("No findings: the profiles fit the host."));
    // As the profile store (Context::leaveStoreToExit): the findings go with
    // the process, not one by one (50,000 of them).
    leaveToExit(std::move(findings));
    return rc;
}

} // namespace ibnm::cli
