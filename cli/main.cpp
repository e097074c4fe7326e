// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm: the command line. main() parses the global options and dispatches the
// first words through a table, as nmcli and iproute2's rdma tool do; each
// command group lives in its own file (connection, device, rdma, check).
#include "config.h"

#include "cli/cli.hpp"

#include <glib/gi18n.h>

#include <clocale>
#include <cstdio>
#include <string>

namespace ibnm::cli {
namespace {

const char *const kUsage = N_(
    "Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }\n"
    "\n"
    "OPTIONS\n"
    "  -t, --terse                  terse output (colon separated)\n"
    "  -f, --fields FIELD,...|all|common   the fields to show\n"
    "  -g, --get-values FIELD,...   the values of the fields, terse\n"
    "  -j, --json                   JSON output (docs/json-schema.md)\n"
    "  -c, --color auto|yes|no      colour the output (auto: on a terminal)\n"
    "      --offline                work on keyfiles on stdin/stdout, touch nothing\n"
    "      --keyfile-dir DIR        keep profiles as keyfiles in DIR\n"
    "      --simulate HOSTFILE      run on a simulated host (or IBNM_SIMULATE)\n"
    "      --sysfs-root DIR         read a sysfs tree or sosreport taken elsewhere (or IBNM_SYSFS_ROOT)\n"
    "      --dry-run                say what add/modify/delete/up/down would do, change nothing\n"
    "  -v, --version                show the version\n"
    "  -h, --help                   show this help\n"
    "\n"
    "OBJECT\n"
    "  connection   add, modify, show, delete, up, down, reload, import, export\n"
    "  device       status, show: IPoIB interfaces and RDMA ports\n"
    "  rdma         link, gid, roce-mode, memlock\n"
    "  check        check profiles against the host\n"
    "  apply        apply a desired state (nmstate YAML/JSON) in one transaction\n"
    "  show-state   the stored profiles as a desired state\n"
    "  udev-rules   persistent IPoIB interface names\n"
    "  version      show the version\n");

int cmdVersion(Context &, const Args &)
{
    std::printf(_("ibnm version %s\n"), ibnm_get_version());
    return kExitOk;
}

const Command kTopCommands[] = {
    {"connection", nullptr, kConnectionCommands},
    {"device", nullptr, kDeviceCommands},
    {"rdma", nullptr, kRdmaCommands},
    {"check", cmdCheck, nullptr},
    {"apply", cmdApply, nullptr},
    {"show-state", cmdShowState, nullptr},
    {"udev-rules", cmdUdevRules, nullptr},
    {"version", cmdVersion, nullptr},
    {nullptr, nullptr, nullptr},
};

const char *groupUsage(const Command *c)
{
    if (c->sub == kConnectionCommands)
        return _(kConnectionUsage);
    if (c->sub == kDeviceCommands)
        return _(kDeviceUsage);
    if (c->sub == kRdmaCommands)
        return _(kRdmaUsage);
    return _(kUsage);
}

// Parses one global option at argv[i]; returns -1 to go on, else an exit code.
int parseOption(Options &o, int argc, char **argv, int &i)
{
    std::string a = argv[i];
    std::string value;
    bool hasValue = false;
    if (a.compare(0, 2, "--") == 0 && a.find('=') != std::string::npos) {
        value = a.substr(a.find('=') + 1);
        a = a.substr(0, a.find('='));
        hasValue = true;
    }
    auto need = [&]() -> bool {
        if (hasValue)
            return true;
        if (i + 1 >= argc)
            return false;
        value = argv[++i];
        return true;
    };
    auto missing = [&]() { return usageError(_(kUsage), _("option '%s' requires an argument"), a.c_str()); };

    if (a == "-t" || a == "--terse")
        o.mode = OutputMode::Terse;
    else if (a == "-p" || a == "--pretty")
        o.pretty = true;
    else if (a == "-j" || a == "--json")
        o.mode = OutputMode::Json;
    else if (a == "--offline")
        o.offline = true;
    else if (a == "--dry-run")
        o.dryRun = true;
    else if (a == "-f" || a == "--fields") {
        if (!need())
            return missing();
        o.fields = value;
    } else if (a == "-g" || a == "--get-values") {
        if (!need())
            return missing();
        o.fields = value;
        o.getValues = true;
    } else if (a == "-c" || a == "--color" || a == "--colors") {
        if (!need())
            return missing();
        if (value == "yes" || value == "always")
            o.color = Color::Yes;
        else if (value == "no" || value == "never")
            o.color = Color::No;
        else if (value == "auto")
            o.color = Color::Auto;
        else
            return usageError(_(kUsage), _("invalid value '%s' for '%s'; use auto, yes or no"), value.c_str(),
                              a.c_str());
    } else if (a == "--keyfile-dir") {
        if (!need())
            return missing();
        o.keyfileDir = value;
    } else if (a == "--simulate") {
        if (!need())
            return missing();
        o.simulate = value;
    } else if (a == "--sysfs-root") {
        if (!need())
            return missing();
        o.sysfsRoot = value;
    } else if (a == "-v" || a == "--version") {
        std::printf(_("ibnm version %s\n"), ibnm_get_version());
        return kExitOk;
    } else if (a == "-h" || a == "--help") {
        std::fputs(_(kUsage), stdout);
        return kExitOk;
    } else {
        return usageError(_(kUsage), _("unknown option '%s'"), argv[i]);
    }
    return -1;
}

} // namespace

int run(int argc, char **argv)
{
    Options o;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (int rc = parseOption(o, argc, argv, i); rc >= 0)
            return rc;
    }
    Context ctx(std::move(o));
    Args args(argv + i, argv + argc);
    if (args.empty())
        return usageError(_(kUsage), _("missing object"));
    if (args[0] == "help") {
        std::fputs(_(kUsage), stdout);
        return kExitOk;
    }
    const Command *c = lookup(kTopCommands, args[0]);
    if (c == nullptr)
        return usageError(_(kUsage), _("object '%s' unknown"), args[0].c_str());
    Args rest(args.begin() + 1, args.end());
    if (c->sub)
        return dispatch(ctx, c->sub, rest, groupUsage(c));
    return c->run(ctx, rest);
}

} // namespace ibnm::cli

int main(int argc, char **argv)
{
    std::setlocale(LC_ALL, "");
    // IBNM_LOCALEDIR: catalogues not yet installed (the tests use it).
    const char *localedir = g_getenv("IBNM_LOCALEDIR");
    bindtextdomain(GETTEXT_PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    textdomain(GETTEXT_PACKAGE);
    return ibnm::cli::run(argc, argv);
}
