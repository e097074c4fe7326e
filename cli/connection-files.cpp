// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection import` (keyfiles and ifcfg-rh files, a file or a whole
// directory) and `ibnm connection export` (a keyfile).
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
#include <string>
#include <vector>

namespace ibnm::cli {

namespace {

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
// port is checked against its bond), each checked and stored in that order,
// as one batch of the store (ibnm_settings_begin_batch()): the keyfiles are
// written all at once at the end, so that a reader, or the store after a
// kill, has all of them or none; on any error none is written (and the
// profiles NetworkManager's store took at once are removed again).
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
    // The store locked from the check of the first profile to the write of
    // the last, as for one profile (a dry run writes nothing: no lock).
    ctx.setDefaultWait(25);
    IbnmSettings *s = ctx.settings(!ctx.options.dryRun);
    if (!s)
        return ctx.storeFailure();
    std::vector<std::string> added;
    auto undo = [&]() {
        ibnm_settings_abort_batch(s);
        for (const auto &uuid : added) {
            ErrorPtr e;
            if (ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_UUID, uuid.c_str()))
                ibnm_settings_delete(s, uuid.c_str(), Out(e));
        }
    };
    if (!ctx.options.dryRun)
        ibnm_settings_begin_batch(s);
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
    if (!ctx.options.dryRun && !ibnm_settings_commit_batch(s, Out(err))) {
        reportError(err.get());
        undo();
        printError(_("nothing was imported from %s"), dir.c_str());
        return kExitFailed;
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

} // namespace

int cmdImport(Context &ctx, const Args &args)
{
    std::string type = "keyfile", file;
    // nmcli imports such a profile into NetworkManager's memory only; ibnm
    // has none, and writing it to disk would make it permanent: refused.
    if (!args.empty() && isNmcliOption(args[0], "temporary"))
        return usageError(_(kConnectionUsage), _("'--temporary' is not supported: ibnm keeps no in-memory "
                                                 "profiles (use nmcli with NetworkManager running)"));
    for (size_t i = 0; i < args.size(); i += 2) {
        if (i + 1 >= args.size())
            return usageError(_(kConnectionUsage), _("value is missing for '%s'"), args[i].c_str());
        if (args[i] == "type")
            type = args[i + 1];
        else if (args[i] == "file")
            file = args[i + 1];
        else
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
    ctx.setDefaultWait(25);
    IbnmSettings *s = ctx.settings(true);
    if (!s)
        return ctx.storeFailure();
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
    Selector sel = takeId(args, i);
    if (!sel.id)
        return usageError(_(kConnectionUsage), _("missing connection ID"));
    IbnmSettings *s = ctx.settings();
    if (!s)
        return kExitFailed;
    NMConnection *c = findOrComplain(s, sel);
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

} // namespace ibnm::cli
