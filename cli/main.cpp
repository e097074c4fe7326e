// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm: the command line. main() parses the global options and dispatches the
// first words through a table, as nmcli and iproute2's rdma tool do; each
// command group lives in its own file (connection, device, rdma, check).
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"
#include "libcore/support/i18n.hpp"
#include "libcore/support/module-path.hpp"

#include <gmodule.h>

#include <cerrno>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

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
    "  -m, --mode tabular|multiline output mode (nmcli's)\n"
    "  -e, --escape yes|no          escape ':' and '\\' in terse values (default yes)\n"
    "  -p, --pretty                 pretty output, with titles\n"
    "  -s, --show-secrets           accepted: ibnm's profiles hold no secrets\n"
    "  -w, --wait SECONDS           the time up, down and delete may take\n"
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

// With -j, JSON as every command (docs/json-schema.md): {"version": "..."}.
int printVersion(const Options &o)
{
    if (o.mode == OutputMode::Json)
        JsonDoc().beginObject().value("version", ibnm_get_version()).endObject().print();
    else
        std::printf(_("ibnm version %s\n"), ibnm_get_version());
    return kExitOk;
}

int cmdVersion(Context &ctx, const Args &args)
{
    if (!args.empty())
        return usageError(_(kUsage), _("argument '%s' not understood"), args[0].c_str());
    return printVersion(ctx.options);
}

const Command kTopCommands[] = {
    {"connection", IBNM_CLI_FULL(nullptr, kConnectionCommands)},
    {"device", nullptr, kDeviceCommands},
    {"rdma", nullptr, kRdmaCommands},
    {"check", IBNM_CLI_FULL(cmdCheck, nullptr)},
    {"apply", IBNM_CLI_FULL(cmdApply, nullptr)},
    {"show-state", IBNM_CLI_FULL(cmdShowState, nullptr)},
    {"udev-rules", IBNM_CLI_FULL(cmdUdevRules, nullptr)},
    {"version", cmdVersion, nullptr},
    {nullptr, nullptr, nullptr},
};

const char *groupUsage(const Command *c)
{
#ifndef IBNM_CLI_READ_ONLY
    if (c->sub == kConnectionCommands)
        return _(kConnectionUsage);
#endif
    if (c->sub == kDeviceCommands)
        return _(kDeviceUsage);
    if (c->sub == kRdmaCommands)
        return _(kRdmaUsage);
    return _(kUsage);
}

// nmcli's global options, in the order nmcli matches them: `-X` is the
// short form, and `-word`/`--word` any prefix of the long name (`-te`,
// `--mode`), the first in this order winning (nmcli's process_command_line()).
// ibnm's own options (--json, --keyfile-dir...) match whole names only.
const char *const kNmcliOptions[][2] = {
    {"t", "terse"},  {"p", "pretty"},     {"m", "mode"},    {"c", "colors"},       {"e", "escape"},
    {"f", "fields"}, {"g", "get-values"}, {"w", "wait"},    {"v", "version"},      {"h", "help"},
    {"a", "ask"},    {"s", "show-secrets"},
};

// The long name of nmcli option `arg` ("-t", "--ter", "-mode"), or "".
std::string nmcliOption(const std::string &arg)
{
    std::string w = arg.substr(arg.compare(0, 2, "--") == 0 ? 2 : 1);
    if (w.empty())
        return "";
    for (const auto &o : kNmcliOptions)
        if (arg.compare(0, 2, "--") != 0 && w == o[0])
            return o[1];
    for (const auto &o : kNmcliOptions)
        if (std::string_view(o[1]).substr(0, w.size()) == w)
            return o[1];
    // nmcli's "colors" is also "color"; "color" is a prefix of it.
    return "";
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
    // nmcli: "Option '--pretty' is mutually exclusive with '--terse'".
    auto exclusive = [&](const char *mine, const char *other) {
        return usageError(_(kUsage), _("option '%s' is mutually exclusive with '%s'"), mine, other);
    };

    // ibnm's own options first: whole names.
    if (a == "-j" || a == "--json") {
        o.mode = OutputMode::Json;
        return -1;
    }
    if (a == "--offline") {
        o.offline = true;
        return -1;
    }
    if (a == "--dry-run") {
        o.dryRun = true;
        return -1;
    }
    if (a == "--keyfile-dir" || a == "--simulate" || a == "--sysfs-root") {
        if (!need())
            return missing();
        (a == "--keyfile-dir" ? o.keyfileDir : a == "--simulate" ? o.simulate : o.sysfsRoot) = value;
        return -1;
    }

    std::string name = a == "--color" ? "colors" : nmcliOption(a);
    if (name == "terse") {
        if (o.pretty)
            return exclusive("--terse", "--pretty");
        o.mode = OutputMode::Terse;
    } else if (name == "pretty") {
        if (o.mode == OutputMode::Terse || o.getValues)
            return exclusive("--pretty", "--terse");
        o.pretty = true;
    } else if (name == "mode") {
        if (!need())
            return missing();
        // nmcli matches a prefix of the word, case-sensitively.
        if (!value.empty() && std::string_view("tabular").substr(0, value.size()) == value)
            o.multiline = false;
        else if (!value.empty() && std::string_view("multiline").substr(0, value.size()) == value)
            o.multiline = true;
        else
            return usageError(_(kUsage), _("invalid value '%s' for '%s'; use tabular or multiline"), value.c_str(),
                              a.c_str());
    } else if (name == "escape") {
        if (!need())
            return missing();
        if (!value.empty() && std::string_view("yes").substr(0, value.size()) == value)
            o.escape = true;
        else if (!value.empty() && std::string_view("no").substr(0, value.size()) == value)
            o.escape = false;
        else
            return usageError(_(kUsage), _("invalid value '%s' for '%s'; use yes or no"), value.c_str(), a.c_str());
    } else if (name == "fields") {
        if (!need())
            return missing();
        o.fields = value;
    } else if (name == "get-values") {
        if (!need())
            return missing();
        if (o.pretty)
            return exclusive("--terse", "--pretty");
        o.fields = value;
        o.getValues = true;
    } else if (name == "colors") {
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
    } else if (name == "wait") {
        if (!need())
            return missing();
        // nmcli: a decimal number of seconds, 0 or more.
        guint64 n = 0;
        if (!g_ascii_string_to_unsigned(value.c_str(), 10, 0, G_MAXINT32, &n, nullptr))
            return usageError(_(kUsage), _("'%s' is not a valid timeout for '%s'"), value.c_str(), a.c_str());
        o.waitSeconds = gint64(n);
    } else if (name == "show-secrets") {
        // ibnm's profiles carry no secrets: there is nothing to hide or show.
        o.showSecrets = true;
    } else if (name == "ask") {
        return usageError(_(kUsage),
                          _("option '%s' is not supported: ibnm's profiles have no secrets or passwords to ask for"),
                          a.c_str());
    } else if (name == "version") {
        return printVersion(o);
    } else if (name == "help") {
        std::fputs(_(kUsage), stdout);
        return kExitOk;
    } else {
        return usageError(_(kUsage), _("unknown option '%s'"), argv[i]);
    }
    return -1;
}

#ifdef IBNM_CLI_READ_ONLY
// The command line, for runFullCli().
int gArgc = 0;
char **gArgv = nullptr;

// The full CLI, a module installed in $(pkglibdir) (in the build tree,
// cli/.libs, which the tests name in $IBNM_MODULE_PATH).
constexpr const char *kFullCli = "ibnm-cli.so";
#endif

} // namespace

#ifdef IBNM_CLI_READ_ONLY
int runFullCli(Context &, const Args &)
{
    std::string path = modulePath(kFullCli, PKGLIBDIR);
    GModule *module = g_module_open(path.c_str(), GModuleFlags(G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL));
    gpointer entry = nullptr;
    if (module == nullptr || !g_module_symbol(module, "ibnm_cli_full_run", &entry) || entry == nullptr) {
        printError(_("cannot load %s: %s; is ibnm installed completely?"), path.c_str(),
                   g_module_error() ? g_module_error() : _("no entry point ibnm_cli_full_run"));
        if (module)
            g_module_close(module);
        return kExitFailed;
    }
    g_module_make_resident(module);
    return reinterpret_cast<int (*)(int, char **)>(entry)(gArgc, gArgv);
}
#endif

int run(int argc, char **argv)
{
    Options o;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (int rc = parseOption(o, argc, argv, i); rc >= 0)
            return rc;
    }
    Context ctx(std::move(o));
#ifdef IBNM_CLI_READ_ONLY
    // A simulated host is libibnm-simulator's, which links libibnm.so: all
    // of its commands run in the full CLI, so that one process never holds
    // two copies of the inventory's types.
    gArgc = argc;
    gArgv = argv;
    if (ctx.hostSimulated())
        return runFullCli(ctx, {});
#endif
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
    int rc = c->sub ? dispatch(ctx, c->sub, rest, groupUsage(c)) : c->run(ctx, rest);
    ctx.leaveStoreToExit();
    return rc;
}

} // namespace ibnm::cli

#ifdef IBNM_CLI_MODULE
extern "C" G_MODULE_EXPORT int ibnm_cli_full_run(int argc, char **argv);
int ibnm_cli_full_run(int argc, char **argv)
{
    return ibnm::cli::run(argc, argv);
}
#else
int main(int argc, char **argv)
{
    std::setlocale(LC_ALL, "");
    ibnm::bindTextDomain();
    textdomain(GETTEXT_PACKAGE);
    int rc = ibnm::cli::run(argc, argv);
    // What the command printed reached standard output, or the command
    // failed: a full disk or a closed pipe (SIGPIPE ignored) is an error,
    // as coreutils' close_stdout() makes it.
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        ibnm::cli::printError(_("could not write the output: %s"), g_strerror(errno ? errno : EIO));
        return rc == ibnm::cli::kExitOk ? ibnm::cli::kExitFailed : rc;
    }
    return rc;
}
#endif
