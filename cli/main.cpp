// SPDX-License-Identifier: LGPL-2.1-or-later
// ibnm: the command line. run() parses the global options and dispatches the
// first words through a table, as nmcli and iproute2's rdma tool do; each
// command group lives in its own file (connection, device, rdma, check).
#include "config.h"

#include "cli/cli.hpp"
#include "cli/output.hpp"
#include "cli/pager.hpp"
#include "cli/suggest.hpp"
#include "libcore/support/i18n.hpp"

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ibnm::cli {
namespace {

// `ibnm --help`: one line per option and per command, as the words are
// typed (not translated) and what they do (translated, one message each).
struct HelpLine {
    const char *syntax;
    const char *what; // N_()
};

const HelpLine kOptionHelp[] = {
    {"-t, --terse", N_("terse output (colon separated)")},
    {"-f, --fields FIELD,...|all|common", N_("the fields to show")},
    {"-g, --get-values FIELD,...", N_("the values of the fields, terse")},
    {"-j, --json", N_("JSON output (docs/json-schema.md)")},
    {"-m, --mode tabular|multiline", N_("output mode (nmcli's)")},
    {"-e, --escape yes|no", N_("escape ':' and '\\' in terse values (default yes)")},
    {"-p, --pretty", N_("pretty output, with titles")},
    {"-s, --show-secrets", N_("accepted: ibnm's profiles hold no secrets")},
    {"-w, --wait SECONDS", N_("the time up, down and delete may take")},
    {"-c, --color auto|yes|no", N_("colour the output (auto: on a terminal)")},
    {"    --offline", N_("work on keyfiles on stdin/stdout, touch nothing")},
    {"    --keyfile-dir DIR", N_("keep profiles as keyfiles in DIR")},
    {"    --simulate HOSTFILE", N_("run on a simulated host (or IBNM_SIMULATE)")},
    {"    --sysfs-root DIR", N_("read a sysfs tree or sosreport taken elsewhere (or IBNM_SYSFS_ROOT)")},
    {"    --dry-run", N_("say what a command would change, change nothing")},
    {"    --no-pager", N_("never page the output on a terminal ($PAGER, default less -FRSXM)")},
    {"-v, --version", N_("show the version")},
    {"-h, --help", N_("show this help")},
};

const HelpLine kCommandHelp[] = {
    {"connection show [--active] [[id|uuid|filename|path|apath] ID]", N_("the profiles, or one profile's properties")},
    {"connection add type infiniband|bond|ethernet [con-name NAME] [ifname IFNAME] [PROPERTY VALUE]...",
     N_("add a profile (nmcli's grammar)")},
    {"connection modify [id|uuid|filename|path] ID ([+|-]PROPERTY VALUE)...", N_("change a profile")},
    {"connection delete [id|uuid|filename|path] ID...", N_("delete profiles")},
    {"connection up|down [id|uuid|filename|path|apath] ID...|--all", N_("activate or deactivate profiles")},
    {"connection reload", N_("read the profiles again")},
    {"connection import [type keyfile|ifcfg-rh] file PATH|DIRECTORY", N_("add profiles from files")},
    {"connection export [id|uuid|filename|path] ID [FILE]", N_("a profile's keyfile")},
    {"device status", N_("IPoIB interfaces and RDMA ports")},
    {"device show [NAME]", N_("details of an RDMA device or IPoIB interface")},
    {"device dhcp-reservations [dhcpd|kea]", N_("DHCP host reservations for the IPoIB interfaces")},
    {"device monitor [NAME...]", N_("print changes of IPoIB interfaces and RDMA ports as they happen")},
    {"rdma link show|add NAME type rxe|siw netdev NETDEV|delete NAME", N_("RDMA links; soft RoCE and iWARP links")},
    {"rdma gid show [DEVICE] [--for rocev2-ipv4|rocev2-ipv6|rocev1-ipv4|rocev1-ipv6 [--netdev NETDEV]]",
     N_("the GID table, or the GID index an application should use")},
    {"rdma roce-mode DEVICE [PORT] [v1|v2]", N_("the default RoCE mode and ToS of RDMA-CM")},
    {"rdma traffic-class DEVICE[/PORT] [0-255|dscp:0-63|-1] [RULE...]", N_("mlx5 traffic class and its rules")},
    {"rdma roce-enable DEVICE [yes|no]", N_("mlx5 RoCE on or off")},
    {"rdma ttl DEVICE[/PORT] [0-255]", N_("mlx5 TTL of RC QPs")},
    {"rdma memlock [write]", N_("the memlock limit of group rdma")},
    {"rdma test PEER|--listen [ADDRESS] [--profile NAME] [--tos TOS] [--gid-index N]",
     N_("prove the RDMA path carries traffic: latency, bandwidth, both sides' paths")},
    {"check [--opensm] [PROFILE...]", N_("check profiles against the host (--opensm: partitions.conf lines)")},
    {"apply FILE|-", N_("apply a desired state (nmstate YAML/JSON) in one transaction")},
    {"show-state", N_("the stored profiles as a desired state")},
    {"udev-rules [write]", N_("persistent IPoIB interface names")},
    {"monitor", N_("print changes of IPoIB interfaces, RDMA ports and profiles as they happen")},
    {"version", N_("show the version")},
};

// The column the descriptions start in; a longer syntax puts its
// description on the next line.
constexpr size_t kHelpColumn = 38;

void printHelpLines(std::string &out, const HelpLine *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        std::string syntax = std::string("  ") + lines[i].syntax;
        out += syntax;
        if (syntax.size() + 1 < kHelpColumn)
            out.append(kHelpColumn - syntax.size(), ' ');
        else
            out += "\n" + std::string(kHelpColumn, ' ');
        out += std::string(_(lines[i].what)) + "\n";
    }
}

// The line of `ibnm --help` of the command `name` when it has no
// subcommands (a group has a line per subcommand), else nullptr.
const HelpLine *leafHelp(const std::string &name)
{
    const HelpLine *found = nullptr;
    for (const auto &l : kCommandHelp) {
        std::string syntax = l.syntax;
        if (syntax == name || syntax.compare(0, name.size() + 1, name + " ") == 0) {
            if (found)
                return nullptr;
            found = &l;
        }
    }
    return found;
}

// `ibnm COMMAND --help` of a command without subcommands: its line of
// `ibnm --help`.
int printCommandUsage(const HelpLine &l)
{
    std::string out = std::string(_("Usage:")) + "\n";
    std::string full = std::string("ibnm ") + l.syntax;
    HelpLine line{full.c_str(), l.what};
    printHelpLines(out, &line, 1);
    std::fputs(out.c_str(), stdout);
    return kExitOk;
}

// The whole of `ibnm --help`.
std::string usageText()
{
    std::string out = std::string(_("Usage: ibnm [OPTIONS] OBJECT { COMMAND | help }")) + "\n\n";
    out += std::string(_("OPTIONS")) + "\n";
    printHelpLines(out, kOptionHelp, G_N_ELEMENTS(kOptionHelp));
    out += "\n" + std::string(_("OBJECT COMMAND")) + "\n";
    printHelpLines(out, kCommandHelp, G_N_ELEMENTS(kCommandHelp));
    out += "\n" + std::string(_("'ibnm OBJECT help' shows the commands of an object in detail.")) + "\n";
    return out;
}

int printUsage()
{
    std::fputs(usageText().c_str(), stdout);
    return kExitOk;
}

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
        return usageError(nullptr, _("argument '%s' not understood"), args[0].c_str());
    return printVersion(ctx.options);
}

const Command kTopCommands[] = {
    {"connection", nullptr, kConnectionCommands},
    {"device", nullptr, kDeviceCommands},
    {"rdma", nullptr, kRdmaCommands},
    {"check", cmdCheck, nullptr},
    {"apply", cmdApply, nullptr},
    {"show-state", cmdShowState, nullptr},
    {"udev-rules", cmdUdevRules, nullptr},
    {"monitor", cmdMonitorAll, nullptr},
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
    return nullptr;
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

// ibnm's own global options, matched by their whole name.
const char *const kOwnOptions[] = {"--json", "--offline", "--dry-run", "--keyfile-dir", "--simulate", "--sysfs-root"};

// nmcli's "Option '--bogus' is unknown, try 'nmcli -help'." (exit 2), with
// the option meant where one is close.
int unknownOption(const char *arg)
{
    std::vector<std::string> names;
    for (const char *o : kOwnOptions)
        names.emplace_back(o);
    for (const auto &o : kNmcliOptions)
        names.push_back(std::string("--") + o[1]);
    std::vector<std::string_view> candidates(names.begin(), names.end());
    std::string close = closestWord(arg, candidates);
    if (close.empty())
        printError(_("Option '%s' is unknown, try 'ibnm --help'"), arg);
    else
        printError(_("Option '%s' is unknown. Did you mean '%s'? Try 'ibnm --help'"), arg, close.c_str());
    return kExitUsage;
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
    auto missing = [&]() { return usageError(nullptr, _("option '%s' requires an argument"), a.c_str()); };
    // nmcli: "Option '--pretty' is mutually exclusive with '--terse'".
    auto exclusive = [&](const char *mine, const char *other) {
        return usageError(nullptr, _("option '%s' is mutually exclusive with '%s'"), mine, other);
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
    if (a == "--no-pager") {
        o.noPager = true;
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
            return usageError(nullptr, _("invalid value '%s' for '%s'; use tabular or multiline"), value.c_str(),
                              a.c_str());
    } else if (name == "escape") {
        if (!need())
            return missing();
        if (!value.empty() && std::string_view("yes").substr(0, value.size()) == value)
            o.escape = true;
        else if (!value.empty() && std::string_view("no").substr(0, value.size()) == value)
            o.escape = false;
        else
            return usageError(nullptr, _("invalid value '%s' for '%s'; use yes or no"), value.c_str(), a.c_str());
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
            return usageError(nullptr, _("invalid value '%s' for '%s'; use auto, yes or no"), value.c_str(),
                              a.c_str());
    } else if (name == "wait") {
        if (!need())
            return missing();
        // nmcli: a decimal number of seconds, 0 or more.
        guint64 n = 0;
        if (!g_ascii_string_to_unsigned(value.c_str(), 10, 0, G_MAXINT32, &n, nullptr))
            return usageError(nullptr, _("'%s' is not a valid timeout for '%s'"), value.c_str(), a.c_str());
        o.waitSeconds = gint64(n);
    } else if (name == "show-secrets") {
        // ibnm's profiles carry no secrets: there is nothing to hide or show.
        o.showSecrets = true;
    } else if (name == "ask") {
        return usageError(nullptr,
                          _("option '%s' is not supported: ibnm's profiles have no secrets or passwords to ask for"),
                          a.c_str());
    } else if (name == "version") {
        return printVersion(o);
    } else if (name == "help") {
        return printUsage();
    } else {
        return unknownOption(argv[i]);
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
        return usageError(nullptr, _("missing object"));
    if (args[0] == "help")
        return printUsage();
    const Command *c = lookup(kTopCommands, args[0]);
    if (c == nullptr)
        return unknownWord(kTopCommands, args[0]);
    Args rest(args.begin() + 1, args.end());
    // `ibnm check --help` and the like: the command's line of `ibnm --help`.
    if (!rest.empty() && (rest[0] == "help" || rest[0] == "--help" || rest[0] == "-h"))
        if (const HelpLine *l = leafHelp(c->word))
            return printCommandUsage(*l);
    int rc = c->sub ? dispatch(ctx, c->sub, rest, groupUsage(c)) : c->run(ctx, rest);
    ctx.leaveStoreToExit();
    return rc;
}

} // namespace ibnm::cli
