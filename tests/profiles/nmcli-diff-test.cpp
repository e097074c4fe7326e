// SPDX-License-Identifier: LGPL-2.1-or-later
// Differential test against `nmcli --offline connection add|modify` (nmcli
// 1.42, tests/nmcli-oracle.hpp): for every argument set libibnm accepts
// exactly when nmcli does, an accepted profile is byte for byte the keyfile
// nmcli prints, with nmcli's exit status (2 for a bad word or value, 1 for
// a profile that does not verify) and warnings; `ibnm --offline` does the
// same on the cases that exercise its own part (cliFeatures()). Of the
// generated pools only the cases that add something run (selectCases();
// IBNM_NMCLI_DIFF_ALL=1 runs all). The deliberate differences
// (docs/differences-from-nmcli.md) are tested at the end.
#include "config.h"

#include "tests/profiles/profile-test-util.hpp"
#include "tests/nmcli-oracle.hpp"

#include <gio/gio.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <set>
#include <string_view>
#include <string>
#include <vector>

using namespace ibnm::test;
using ibnm::GCharPtr;
using ibnm::GErrorPtr;
using ibnm::outPtr;

namespace {

const char *const kUuid = "6a1c0d3e-3f43-4c1a-9d6e-0d5a1c3b2e11";

using Args = std::vector<std::string>;

struct NmcliResult {
    int status = -1; // exit status: 0 written, 1 verification failed, 2 bad arguments
    std::string out;
    std::string err;
    // nmcli's warnings ("Warning: master='bond0' doesn't refer to any
    // existing profile."), which it prints on stdout before the keyfile.
    std::string warnings;
};

// nmcli 1.42, the oracle (tests/nmcli-oracle.hpp): each test skips, saying
// why, on another version.
std::string nmcliPath()
{
    return ibnm::test::nmcliOracle();
}

// The built ibnm (IBNM_CLI overrides it, as in tests/cli).
std::string ibnmPath()
{
    const char *override = g_getenv("IBNM_CLI");
    return override ? override : IBNM_TOP_BUILDDIR "/cli/ibnm";
}

// One run of nmcli or ibnm: its arguments, its stdin, and (after runAll())
// what it did.
struct ToolRun {
    Args argv;
    std::string input;
    NmcliResult result;
};

// `PROGRAM --offline connection add connection.uuid UUID ARGS` (nmcli or ibnm).
ToolRun addRun(const std::string &program, const Args &args)
{
    Args argv = {program, "--offline", "connection", "add", "connection.uuid", kUuid};
    argv.insert(argv.end(), args.begin(), args.end());
    return {std::move(argv), {}, {}};
}

// `PROGRAM --offline connection modify ARGS` with `keyfile` on stdin.
ToolRun modifyRun(const std::string &program, const std::string &keyfile, const Args &args)
{
    Args argv = {program, "--offline", "connection", "modify"};
    argv.insert(argv.end(), args.begin(), args.end());
    return {std::move(argv), keyfile, {}};
}

// runAll()'s state: the runs, the next to start, how many are running.
struct Batch {
    std::vector<ToolRun> &runs;
    GSubprocessLauncher *launcher;
    size_t limit, next = 0, running = 0, finished = 0;
};

struct Pending {
    Batch *batch;
    size_t index;
};

void startRuns(Batch &batch);

void onRunDone(GObject *source, GAsyncResult *result, gpointer data)
{
    std::unique_ptr<Pending> pending(static_cast<Pending *>(data));
    auto proc = ibnm::GObjectPtr<GSubprocess>::adopt(G_SUBPROCESS(source));
    Batch &batch = *pending->batch;
    ToolRun &run = batch.runs[pending->index];
    char *out = nullptr, *err = nullptr;
    GErrorPtr error;
    if (g_subprocess_communicate_utf8_finish(proc.get(), result, &out, &err, outPtr(error))) {
        NmcliResult &r = run.result;
        r.out = out ? out : "";
        r.err = err ? err : "";
        r.status = g_subprocess_get_if_exited(proc.get()) ? g_subprocess_get_exit_status(proc.get()) : -1;
        // nmcli prints its warnings ("Warning: master='bond0' doesn't refer
        // to any existing profile.") on stdout before the keyfile: not part
        // of it.
        // Compared on their own (ibnm must print the same).
        while (g_str_has_prefix(r.out.c_str(), "Warning: ")) {
            size_t end = r.out.find('\n') == std::string::npos ? r.out.size() : r.out.find('\n') + 1;
            r.warnings += r.out.substr(0, end);
            r.out.erase(0, end);
        }
    } else {
        ADD_FAILURE() << run.argv[0] << ": " << error->message;
    }
    g_free(out);
    g_free(err);
    batch.running--;
    batch.finished++;
    startRuns(batch);
}

void startRuns(Batch &batch)
{
    while (batch.running < batch.limit && batch.next < batch.runs.size()) {
        size_t index = batch.next++;
        ToolRun &run = batch.runs[index];
        auto cargv = argvOf(run.argv);
        GErrorPtr error;
        GSubprocess *proc = g_subprocess_launcher_spawnv(batch.launcher, cargv.data(), outPtr(error));
        if (proc == nullptr) {
            ADD_FAILURE() << "spawning " << run.argv[0] << ": " << error->message;
            batch.finished++;
            continue;
        }
        batch.running++;
        g_subprocess_communicate_utf8_async(proc, run.input.c_str(), nullptr, onRunDone, new Pending{&batch, index});
    }
}

// Runs every one of `runs` in the C locale, several at a time: the
// differential tests start thousands of short processes, and starting each
// only when the one before had ended left the cores waiting (the four took
// 61% of make check's GoogleTest time run one by one).
void runAll(std::vector<ToolRun> &runs)
{
    auto launcher = ibnm::GObjectPtr<GSubprocessLauncher>::adopt(
        g_subprocess_launcher_new(GSubprocessFlags(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                   G_SUBPROCESS_FLAGS_STDERR_PIPE)));
    g_subprocess_launcher_setenv(launcher.get(), "LC_ALL", "C", TRUE);
    ibnm::GMainContextPtr context(g_main_context_new());
    g_main_context_push_thread_default(context.get());
    Batch batch{runs, launcher.get(), 2 * std::max(1u, g_get_num_processors())};
    startRuns(batch);
    while (batch.finished < runs.size())
        g_main_context_iteration(context.get(), TRUE);
    g_main_context_pop_thread_default(context.get());
}

NmcliResult runOne(ToolRun run)
{
    std::vector<ToolRun> runs = {std::move(run)};
    runAll(runs);
    return runs[0].result;
}

NmcliResult runAdd(const std::string &program, const Args &args)
{
    return runOne(addRun(program, args));
}

NmcliResult runNmcli(const Args &args)
{
    return runAdd(nmcliPath(), args);
}

// The exit status ibnm must have where nmcli's is `nm`: the same, except
// where nmcli 1.42 exits 0 without writing a profile (the bad bond alias
// value, difference 4): ibnm reports that bad value as nmcli reports it for
// `bond.options` (2).
int expectedStatus(const NmcliResult &nm)
{
    if (nm.status == 0 && !g_str_has_prefix(nm.out.c_str(), "[connection]"))
        return 2;
    return nm.status;
}

std::string show(const Args &args)
{
    std::string s = "nmcli --offline connection add";
    for (const auto &a : args)
        s += " '" + a + "'";
    return s;
}

// The lines of `text`, without their '\n'.
std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> out;
    for (size_t at = 0; at < text.size();) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos)
            end = text.size();
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// "%04x" of a p-key as NetworkManager names the child (garbage gives 0000).
std::string hex4(long v)
{
    char buf[16];
    g_snprintf(buf, sizeof buf, "%04lx", static_cast<unsigned long>(v) & 0xffff);
    return buf;
}

// The generated argument sets: each dimension's edge values, crossed where
// they interact (p-key x parent x interface name; transport mode x MTU).
std::vector<Args> generate()
{
    std::vector<Args> sets;
    const std::vector<std::string> pkeys = {"0",     "0x8000", "0x7fff", "0xffff", "-1",  "0x10000", "32770",
                                            "0X8002", "default", "010",    "abc",    "2",   "-2",      "0x8001"};
    const std::vector<std::string> parents = {"", "ib0", "mlx4_ib0", "x23456789012345", "x2345678901234"};
    for (const auto &pkey : pkeys) {
        for (const auto &parent : parents) {
            for (int ifmode = 0; ifmode < 3; ifmode++) {
                Args a = {"type", "infiniband", "infiniband.p-key", pkey};
                if (!parent.empty())
                    a.insert(a.end(), {"parent", parent});
                if (ifmode == 1) {
                    // The name NetworkManager expects: <parent>.%04x, cut to 15.
                    char *end = nullptr;
                    long v = strtol(pkey.c_str(), &end, 0);
                    std::string name = parent + "." + hex4(v);
                    a.insert(a.end(), {"ifname", name.substr(0, 15)});
                } else if (ifmode == 2) {
                    a.insert(a.end(), {"ifname", parent.empty() ? "ib0" : parent});
                }
                sets.push_back(a);
            }
        }
    }
    const std::vector<std::string> modes = {"", "datagram", "Connected", "DATAGRAM", "conn", "c", "junk", "d"};
    const std::vector<std::string> mtus = {"", "0", "2044", "65520", "65521", "abc", "-1", " 2044", "4294967296",
                                           "auto"};
    for (const auto &mode : modes)
        for (const auto &mtu : mtus) {
            Args a = {"type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0"};
            if (!mode.empty())
                a.insert(a.end(), {"transport-mode", mode});
            if (!mtu.empty())
                a.insert(a.end(), {"mtu", mtu});
            sets.push_back(a);
        }
    for (const std::string mac : {"80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51",
                                  "80-00-00-48-FE-80-00-00-00-00-00-00-00-02-C9-03-00-31-78-51",
                                  "80:00:00:48:fe:80", "zz:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51",
                                  "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51:00", ""}) {
        sets.push_back({"type", "infiniband", "ifname", "ib0", "mac", mac});
        sets.push_back({"type", "infiniband", "p-key", "0x8002", "infiniband.mac-address", mac});
    }
    for (const std::string ifname : {"ib0", "x23456789012345", "x234567890123456", "ib 0", "ib/0", ""})
        sets.push_back({"type", "infiniband", "ifname", ifname});
    sets.push_back({"type", "infiniband"});
    sets.push_back({"type", "infini", "ifname", "ib1"});
    sets.push_back({"type", "InfiniBand", "ifname", "ib1", "autoconnect", "NO"});
    sets.push_back({"type", "infiniband", "ifname", "ib1", "autoconnect", "junk"});
    sets.push_back({"ifname", "ib1", "type", "infiniband"});
    sets.push_back({"mtu", "2044", "type", "infiniband"});
    sets.push_back({"ifname", "ib1"});
    sets.push_back({"type", "infiniband", "ifname", "ib1", "bogus", "1"});
    sets.push_back({"type", "infiniband", "ifname", "ib1", "bond.options", "mode=active-backup"});
    sets.push_back({"type", "infiniband", "ifname", "ib1", "infiniband.mtu", "100", "mtu", "200"});
    sets.push_back({"type", "infiniband", "ifname", "ib1", "ifname", "ib2"});
    sets.push_back({"type", "infiniband", "ifname", "ib1", "transport-mode", ""});
    sets.push_back({"type", "infiniband", "p-key", "5", "parent", "ib0", "parent", ""});
    // Bonds.
    for (const std::string options :
         {"mode=active-backup,miimon=100", "mode=1", "mode=balance-rr", "mode=junk", "miimon=abc",
          "mode=active-backup, fail_over_mac=active", "mode=active-backup,fail_over_mac=1,primary=ib0",
          "mode=802.3ad", "miimon=100", ""}) {
        sets.push_back({"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", options});
        sets.push_back({"type", "bond", "ifname", "bond0", "bond.options", options, "mtu", "2044"});
    }
    sets.push_back({"type", "bond", "ifname", "bond0", "mode", "active-backup", "miimon", "100"});
    sets.push_back({"type", "bond", "ifname", "bond0", "mode", "junk"});
    sets.push_back({"type", "bond", "ifname", "bond0"});
    sets.push_back({"type", "bond", "ifname", "bond0", "infiniband.mtu", "2044"});
    // Bond ports.
    for (const std::string slaveType : {"bond", "BOND", "bridge", ""})
        for (const std::string master : {"bond0", ""}) {
            Args a = {"type", "infiniband", "ifname", "ib0"};
            if (!master.empty())
                a.insert(a.end(), {"master", master});
            if (!slaveType.empty())
                a.insert(a.end(), {"slave-type", slaveType});
            sets.push_back(a);
        }
    sets.push_back({"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond", "mtu", "2044"});
    sets.push_back({"type", "infiniband", "master", "bond0", "slave-type", "bond"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond", "ipv4.method",
                    "manual"});
    sets.push_back({"type", "ethernet", "ifname", "eth0", "master", "bond0", "slave-type", "bond"});
    sets.push_back({"type", "ethernet", "ifname", "eth0"});
    // IP configuration.
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.method", "manual"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.method", "MANUAL", "ipv4.addresses",
                    "192.0.2.1/24, 192.0.2.2/24", "ipv4.dns", "1.1.1.1 8.8.8.8", "-ipv4.dns", "1.1.1.1"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.method", "manual", "ipv4.addresses",
                    "192.0.2.1/24", "ipv4.gateway", "192.0.2.254", "+ipv4.dns", "192.0.2.53"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ip4", "192.0.2.1/24", "gw4", "192.0.2.254"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv6.method", "manual", "ipv6.addresses", "fd00::1/64"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.addresses", "300.1.1.1/24"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.addresses", "192.0.2.1"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.method", "disabled", "ipv6.method", "ignore"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.method", "bogus"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.gateway", "192.0.2.1"});
    // nmcli's two refusals apart: values its parsers refuse (exit 2) and
    // values that parse into a profile that does not verify (exit 1).
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.gateway", "gateway"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.addresses", "192.0.2.1/33"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.dns", "dns.example"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv6.dns", "192.0.2.53"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "infiniband.bogus", "1"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "bogus.mtu", "1"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.route-metric", "abc"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "ipv4.route-metric", "5"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "slave-type", "junk"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "master", "bond0"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "type", "bond"});
    sets.push_back({"type", "b", "ifname", "ib0"});
    sets.push_back({"type", "bond", "ifname", "bond0", "bond.options", "mode"});
    sets.push_back({"type", "bond", "ifname", "bond0", "bond.options", "frob=1"});
    sets.push_back({"type", "infiniband", "ifname", "ib0", "mtu"});
    return sets;
}

} // namespace

TEST(NmcliDifferential, GeneratesAtLeast200ArgumentSets)
{
    EXPECT_GE(generate().size(), 200u);
}

// The exit status `ibnm --offline` gives for this libibnm error (cli's
// argumentsError() and reportError()); 0 without one.
int cliStatusFor(const GError *error)
{
    if (error == nullptr)
        return 0;
    if (error->domain == IBNM_ERROR &&
        (error->code == IBNM_ERROR_NOT_SUPPORTED || error->code == IBNM_ERROR_INVALID_ARGUMENT ||
         error->code == IBNM_ERROR_INVALID_VALUE))
        return 2;
    return 1;
}

// nmcli's warning for each `master` word libibnm parsed: with --offline no
// profile exists, so each names none (warnUnknownMasters() in cli/).
std::string warningsFor(char **masters)
{
    std::string s;
    for (char **m = masters; m != nullptr && *m != nullptr; m++)
        s += std::string("Warning: master='") + *m + "' doesn't refer to any existing profile.\n";
    return s;
}

// libibnm's error as the CLI tells errors apart (domain and code), "ok"
// without one.
std::string errorCode(const GError *error)
{
    return error != nullptr ? std::string(g_quark_to_string(error->domain)) + ":" + std::to_string(error->code) : "ok";
}

// What `ibnm --offline` adds to libibnm's answer for a case on `kind` (a
// type word or a base profile): the exit status it maps the error (`code`)
// to, the warnings it prints, the keyfile it reads on stdin (modify). Every
// case is compared in-process; those that add one of these also through
// the CLI.
std::vector<std::string> cliFeatures(const std::string &kind, const NmcliResult &nm, const std::string &code)
{
    return {"exit\x1f" + kind + "\x1f" + std::to_string(expectedStatus(nm)) + "\x1f" + code,
            "warned\x1f" + nm.warnings};
}

// The first-fit selection of selectCases() and IBNM_NMCLI_DIFF_ALL (below).
std::vector<bool> selectCases(const std::vector<std::vector<std::string>> &features);
bool runWholePool();

// The cases to run through the CLI: those that add a CLI feature, or all
// with IBNM_NMCLI_DIFF_ALL=1.
std::vector<bool> selectCliCases(const std::vector<std::vector<std::string>> &features)
{
    std::vector<bool> selected = selectCases(features);
    if (runWholePool())
        selected.assign(selected.size(), true);
    return selected;
}

// Runs the cases of `cli` that `selected` names (cli[i] is the run of case
// i; the others stay unrun); `ran` says how many ran.
void runSelected(std::vector<ToolRun> &cli, const std::vector<bool> &selected, unsigned &ran)
{
    std::vector<ToolRun> subset;
    for (size_t i = 0; i < cli.size(); i++)
        if (selected[i])
            subset.push_back(cli[i]);
    runAll(subset);
    ran = unsigned(subset.size());
    for (size_t i = 0, k = 0; i < cli.size(); i++)
        if (selected[i])
            cli[i] = std::move(subset[k++]);
}

// ibnm --offline's run of a case against nmcli's.
void expectCliAsNmcli(const NmcliResult &cli, const NmcliResult &nm, const std::string &shown)
{
    EXPECT_EQ(cli.status, expectedStatus(nm)) << shown << "\nnmcli: " << nm.err << "ibnm: " << cli.err;
    EXPECT_EQ(cli.warnings, nm.warnings) << shown;
    if (nm.status == 0 && g_str_has_prefix(nm.out.c_str(), "[connection]")) {
        EXPECT_EQ(cli.out, nm.out) << shown;
    }
}

TEST(NmcliDifferential, AcceptsAndRejectsAsNmcliAndWritesTheSameKeyfile)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    unsigned accepted = 0, rejected = 0, exit1 = 0, exit2 = 0, throughCli = 0;
    const std::vector<Args> sets = generate();
    // nmcli on each argument set, libibnm in-process on each; the CLI on
    // those that add something of its own (cliFeatures()).
    std::vector<ToolRun> nm, cli;
    for (const auto &args : sets) {
        nm.push_back(addRun(nmcli, args));
        cli.push_back(addRun(ibnmPath(), args));
    }
    runAll(nm);
    std::vector<std::vector<std::string>> features;
    for (size_t i = 0; i < sets.size(); i++) {
        const Args &args = sets[i];
        Args withUuid = {"connection.uuid", kUuid};
        withUuid.insert(withUuid.end(), args.begin(), args.end());
        GErrorPtr err;
        ibnm::GStrvPtr masters;
        auto profile = ibnm::GObjectPtr<IbnmProfile>::adopt(
            ibnm_profile_new_from_args_full(argvOf(withUuid).data(), outPtr(masters), outPtr(err)));
        const NmcliResult &r = nm[i].result;
        ASSERT_TRUE(r.status == 0 || r.status == 1 || r.status == 2) << show(args) << "\n" << r.err;
        int status = profile ? 0 : cliStatusFor(err.get());
        EXPECT_EQ(status, expectedStatus(r)) << show(args) << "\nnmcli: " << r.err
                                             << "ibnm: " << (err ? err->message : "");
        EXPECT_EQ(warningsFor(masters.get()), r.warnings) << show(args);
        exit1 += status == 1;
        exit2 += status == 2;
        features.push_back(cliFeatures(args[1], r, errorCode(err.get())));
        // nmcli 1.42 exits 0 without writing anything for a bad value of a
        // bond alias (`mode junk`): no profile is a rejection.
        bool nmcliAccepts = r.status == 0 && g_str_has_prefix(r.out.c_str(), "[connection]");
        if (nmcliAccepts) {
            accepted++;
            if (!profile) {
                ADD_FAILURE() << show(args) << "\nnmcli accepts, ibnm rejects: " << err->message;
                continue;
            }
            EXPECT_EQ(keyfileBytes(profile.get()), r.out) << show(args);
        } else {
            rejected++;
            EXPECT_FALSE(profile) << show(args) << "\nnmcli rejects (" << r.status << "): " << r.err
                                  << "ibnm accepts:\n"
                                  << (profile ? keyfileBytes(profile.get()) : "");
            EXPECT_TRUE(err && *err->message) << show(args);
        }
    }
    const std::vector<bool> selected = selectCliCases(features);
    runSelected(cli, selected, throughCli);
    for (size_t i = 0; i < sets.size(); i++)
        if (selected[i])
            expectCliAsNmcli(cli[i].result, nm[i].result, show(sets[i]));
    // Both outcomes, and both kinds of refusal, must be exercised, or the
    // comparison proves little; the CLI on each kind.
    EXPECT_GT(accepted, 50u);
    EXPECT_GT(rejected, 50u);
    EXPECT_GT(exit1, 20u);
    EXPECT_GT(exit2, 20u);
    EXPECT_GT(throughCli, 10u);
    std::printf("[ compared ] connection add: %zu cases, %u also through the CLI\n", sets.size(), throughCli);
}

// The hand-picked modifies' base profiles and changes (each change on each base).
const std::vector<Args> &handModifyBases()
{
    static const std::vector<Args> bases = {
        {"type", "infiniband", "con-name", "ib0", "ifname", "ib0"},
        {"type", "infiniband", "con-name", "child", "parent", "ib0", "p-key", "0x8002"},
        {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", "mode=active-backup"},
        {"type", "infiniband", "ifname", "ib1", "master", "bond0", "slave-type", "bond"},
    };
    return bases;
}

const std::vector<Args> &handModifyChanges()
{
    static const std::vector<Args> changes = {
        {"mtu", "2044"},
        {"mtu", "65521"},
        {"mtu", "abc"},
        {"transport-mode", "connected"},
        {"transport-mode", ""},
        {"p-key", "0x8003"},
        {"p-key", "0x8000"},
        {"p-key", "0x8002", "parent", "ib0"},
        {"connection.interface-name", "", "p-key", "0x8002", "parent", "ib0"},
        {"p-key", "-1"},
        {"parent", ""},
        {"ipv4.method", "manual", "ipv4.addresses", "192.0.2.1/24"},
        {"ipv4.method", "manual"},
        {"+ipv4.dns", "192.0.2.53"},
        {"mac", "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51"},
        {"infiniband.mac-address", ""},
        {"con-name", "renamed"},
        {"autoconnect", "no"},
        {"ifname", "ib7"},
        {"bond.options", "mode=balance-rr"},
        {"+bond.options", "miimon=100"},
        {"bogus", "1"},
        {"master", "bond1"},
        {"p-key", "abc"},
        {"infiniband.bogus", "1"},
        {"ipv4.addresses", "192.0.2.1/33"},
        {"ipv4.dns", "dns.example"},
        {"connection.type", "bond"},
        {"type", "vlan"},
        {"connection.uuid", "not-a-uuid"},
        {"slave-type", "junk"},
    };
    return changes;
}

// `connection modify` the same way: each base profile (built by ibnm and by
// nmcli, byte-identical) modified by each argument set.
TEST(NmcliDifferential, ModifiesAsNmcli)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    const std::vector<Args> &bases = handModifyBases();
    const std::vector<Args> &changes = handModifyChanges();
    unsigned compared = 0, accepted = 0, exit1 = 0, exit2 = 0, throughCli = 0;
    // nmcli on every base and change, libibnm in-process on each; the CLI
    // on those that add something of its own (cliFeatures()).
    std::vector<std::string> keyfiles;
    std::vector<ToolRun> nm, cli;
    for (const auto &base : bases) {
        Args withUuid = {"connection.uuid", kUuid};
        withUuid.insert(withUuid.end(), base.begin(), base.end());
        auto start = mustProfile(withUuid);
        ASSERT_TRUE(start);
        keyfiles.push_back(keyfileBytes(start.get()));
        for (const auto &change : changes) {
            nm.push_back(modifyRun(nmcli, keyfiles.back(), change));
            cli.push_back(modifyRun(ibnmPath(), keyfiles.back(), change));
        }
    }
    runAll(nm);
    std::vector<std::vector<std::string>> features;
    std::vector<std::string> shownAll;
    size_t next = 0;
    for (size_t b = 0; b < bases.size(); b++) {
        const Args &base = bases[b];
        const std::string &keyfile = keyfiles[b];
        Args withUuid = {"connection.uuid", kUuid};
        withUuid.insert(withUuid.end(), base.begin(), base.end());
        for (const auto &change : changes) {
            auto profile = mustProfile(withUuid);
            GErrorPtr err;
            ibnm::GStrvPtr masters;
            bool ok = ibnm_profile_modify_from_args_full(profile.get(), argvOf(change).data(), outPtr(masters),
                                                         outPtr(err));
            const NmcliResult &r = nm[next++].result;
            bool nmcliAccepts = r.status == 0 && g_str_has_prefix(r.out.c_str(), "[connection]");
            Args shown = base;
            shown.push_back("|");
            shown.insert(shown.end(), change.begin(), change.end());
            shownAll.push_back(show(shown));
            compared++;
            int status = ok ? 0 : cliStatusFor(err.get());
            EXPECT_EQ(status, expectedStatus(r)) << show(shown) << "\nnmcli: " << r.err
                                                 << "ibnm: " << (err ? err->message : "");
            EXPECT_EQ(warningsFor(masters.get()), r.warnings) << show(shown);
            exit1 += status == 1;
            exit2 += status == 2;
            features.push_back(cliFeatures("base " + std::to_string(b), r, errorCode(err.get())));
            if (nmcliAccepts) {
                accepted++;
                EXPECT_TRUE(ok) << show(shown) << "\nnmcli accepts, ibnm rejects: " << err->message;
                if (ok) {
                    EXPECT_EQ(keyfileBytes(profile.get()), r.out) << show(shown);
                }
            } else {
                EXPECT_FALSE(ok) << show(shown) << "\nnmcli rejects (" << r.status << "): " << r.err
                                 << "ibnm accepts:\n"
                                 << keyfileBytes(profile.get());
                if (!ok) {
                    EXPECT_EQ(keyfileBytes(profile.get()), keyfile) << "a failed modify leaves the profile as it was";
                }
            }
        }
    }
    const std::vector<bool> selected = selectCliCases(features);
    runSelected(cli, selected, throughCli);
    for (size_t i = 0; i < nm.size(); i++)
        if (selected[i])
            expectCliAsNmcli(cli[i].result, nm[i].result, shownAll[i]);
    EXPECT_GE(compared, 90u);
    EXPECT_GT(accepted, 30u);
    EXPECT_GT(compared - accepted, 30u);
    EXPECT_GT(exit1, 10u);
    EXPECT_GT(exit2, 10u);
    EXPECT_GT(throughCli, 10u);
    std::printf("[ compared ] connection modify: %u cases, %u also through the CLI\n", compared, throughCli);
}

// --- Generated cases, fixed seeds -------------------------------------------------
//
// Thousands of argument sets drawn from the words and values that matter to
// scripts driving nmcli: ethernet, bond and infiniband profiles, ipv4/ipv6
// (methods, addresses, gateways, DNS, dns-search), booleans in every
// spelling nmcli takes, enum and flags properties by name and by number,
// the ip4/gw4/ip6/gw6 aliases, '+'/'-' and removal by index. Each is run by
// nmcli and built by libibnm in-process (exit status from the error's code,
// as the CLI maps it); every 16th also through `ibnm --offline`.

struct Choice {
    const char *word;
    std::vector<const char *> values;
};

const std::vector<Choice> &vocabulary()
{
    static const std::vector<Choice> v = {
        {"autoconnect", {"yes", "no", "0", "1", "y", "n", "t", "f", "TRUE", "Off", "ye", "o", "2", "", " yes", "junk"}},
        {"connection.autoconnect-priority", {"0", "5", "-999", "999", "1000", "abc"}},
        {"connection.lldp", {"default", "disable", "enable-rx", "enable", "1", "yes", "junk"}},
        {"connection.mdns", {"yes", "no", "resolve", "default", "2", "-1", "junk"}},
        {"connection.llmnr", {"yes", "no", "resolve", "1"}},
        {"connection.multi-connect", {"single", "multiple", "manual-multiple", "default", "0", "junk"}},
        {"connection.autoconnect-slaves", {"yes", "no", "default", "1", "junk"}},
        {"ipv6.addr-gen-mode",
         {"eui64", "stable-privacy", "default", "default-or-eui64", "0", "1", "2", "3", "4", "-1", "0x1", "EUI64",
          "junk", " eui64"}},
        {"ipv6.ip6-privacy", {"0", "1", "2", "-1", "3", "disabled", "prefer-temp-addr", "junk"}},
        {"ipv4.link-local", {"enabled", "disabled", "auto", "default", "2", "junk"}},
        {"802-3-ethernet.wake-on-lan", {"magic", "magic,phy", "magic phy", "ignore", "default", "0x40", "junk"}},
        {"802-3-ethernet.accept-all-mac-addresses", {"yes", "no", "true", "default", "1", "junk"}},
        {"ipv4.replace-local-rule", {"yes", "no", "off", "default", "-1"}},
        {"ipv4.never-default", {"yes", "no", "1", "f", "junk"}},
        {"ipv6.may-fail", {"yes", "no", "0", "t"}},
        {"ipv4.ignore-auto-dns", {"on", "off", "n"}},
        {"ipv4.route-metric", {"5", "-1", "abc", "4294967296"}},
        {"ipv4.method", {"auto", "manual", "disabled", "link-local", "shared", "m", "junk", ""}},
        {"ipv6.method", {"auto", "manual", "ignore", "disabled", "dhcp", "link-local", "junk"}},
        {"ipv4.addresses", {"192.0.2.1/24", "192.0.2.1/24, 192.0.2.2/24", "192.0.2.1", "300.0.0.1/24", "192.0.2.1/33", ""}},
        {"+ipv4.addresses", {"192.0.2.3/24", "junk"}},
        {"-ipv4.addresses", {"0", "1", "5", "192.0.2.1/24", "192.0.2.9/24"}},
        {"ipv6.addresses", {"fd00::1/64", "fd00::1/64, fd00::2/64", "fd00::1/129", "junk"}},
        {"-ipv6.addresses", {"0", "fd00::1/64"}},
        {"ip4", {"192.0.2.5/24", "", "junk", "192.0.2.5/24,192.0.2.6/24"}},
        {"+ip4", {"192.0.2.7/24"}},
        {"-ip4", {"192.0.2.5/24"}},
        {"gw4", {"192.0.2.254", "", " ", "\n", "192.0.2.254\r\n", "junk", "fd00::1"}},
        {"ip6", {"fd00::5/64", "", "junk"}},
        {"gw6", {"fd00::fe", "", "192.0.2.1", "junk"}},
        {"ipv4.gateway", {"192.0.2.254", "", "junk"}},
        {"ipv4.dns", {"1.1.1.1", "1.1.1.1 8.8.8.8", "1.1.1.1,8.8.8.8", "dns.example", "", "fd00::53"}},
        {"+ipv4.dns", {"9.9.9.9"}},
        {"-ipv4.dns", {"0", "1", "1.1.1.1"}},
        {"ipv6.dns", {"fd00::53", "192.0.2.53", ""}},
        {"ipv4.dns-search", {"example.com", "a.example,b.example", "a.example b.example", ""}},
        {"+ipv4.dns-search", {"c.example"}},
        {"-ipv4.dns-search", {"0", "a.example"}},
        {"ipv6.dns-search", {"example.com", ""}},
        {"mtu", {"2044", "65520", "65521", "auto", "abc", "0", "1500"}},
        {"mac", {"80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51", "52:54:00:12:34:56", "zz"}},
        {"p-key", {"0x8002", "2", "0x8000", "-1", "abc"}},
        {"parent", {"ib0", ""}},
        {"transport-mode", {"datagram", "connected", "c", "junk"}},
        {"mode", {"active-backup", "balance-rr", "1", "802.3ad"}},
        {"miimon", {"100", "0"}},
        {"bond.options", {"mode=active-backup,miimon=100", "mode=1", "miimon=abc", ""}},
        {"master", {"bond0", ""}},
        {"slave-type", {"bond", "bridge", "junk"}},
        {"con-name", {"x", ""}},
        {"ifname", {"ib7", "x/y", ""}},
    };
    return v;
}

// `count` argument sets for `connection add` from `seed`.
std::vector<Args> generatedAdds(unsigned seed, size_t count)
{
    std::mt19937 rng(seed);
    const std::vector<Args> heads = {
        {"type", "infiniband", "ifname", "ib0"}, {"type", "ethernet", "ifname", "eth0"},
        {"type", "bond", "ifname", "bond0"},     {"type", "bond"},
        {"type", "infiniband"},                  {"type", "eth", "ifname", "eth0"},
        {"type", "802-3-ethernet", "ifname", "eth0"}, {"type", "inf", "ifname", "ib0"},
    };
    const auto &vocab = vocabulary();
    std::vector<Args> out;
    for (size_t n = 0; n < count; n++) {
        Args a = heads[rng() % heads.size()];
        size_t words = 1 + rng() % 4;
        for (size_t w = 0; w < words; w++) {
            const Choice &c = vocab[rng() % vocab.size()];
            a.push_back(c.word);
            a.push_back(c.values[rng() % c.values.size()]);
        }
        out.push_back(std::move(a));
    }
    return out;
}

struct Tally {
    unsigned cases = 0, accepted = 0, exit1 = 0, exit2 = 0, cli = 0, mismatches = 0;
    unsigned nmcliCrashed = 0; // nmcli 1.42 asserts (difference 7): not compared
    std::string firstMismatches;
    void mismatch(const std::string &what)
    {
        if (mismatches++ < 15)
            firstMismatches += what + "\n";
    }
    // The summary line of `connection <command>` cases run since `start`.
    void print(const char *command, size_t pool, std::chrono::steady_clock::time_point start) const
    {
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("[ generated ] connection %s: %u of %zu cases (%u accepted by nmcli, %u exit 1, %u exit 2, %u "
                    "nmcli assertions), %u also through the CLI, %u mismatches, %.1f s\n",
                    command, cases, pool, accepted, exit1, exit2, nmcliCrashed, cli, mismatches, secs);
    }
};

// --- Which generated cases run -----------------------------------------------------
//
// nmcli is the cost (one process per case, ~10 ms of CPU). Of the generated
// pool a case runs only if it exercises something the cases before it did
// not: a value parser (word and value), a word on a kind of profile (type or
// base), or an outcome of libibnm's (its refusal: message and exit status;
// or a line of the keyfile it writes). These are known without
// nmcli. IBNM_NMCLI_DIFF_ALL=1 runs the whole pool instead and checks that
// the selected cases met every outcome of nmcli's the whole pool met (exit
// status and message, warning, keyfile line).

bool runWholePool()
{
    const char *all = g_getenv("IBNM_NMCLI_DIFF_ALL");
    return all != nullptr && std::string_view(all) == "1";
}

// What one case exercises (above): `kind` is the profile type word or the
// base, `words` the word/value pairs, `error` libibnm's refusal or null,
// `keyfile` what it wrote.
std::vector<std::string> caseFeatures(const std::string &kind, const Args &words, const GError *error,
                                      const std::string &keyfile)
{
    std::vector<std::string> f;
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
        f.push_back("value\x1f" + words[i] + "\x1f" + words[i + 1]);
        f.push_back("word\x1f" + kind + "\x1f" + words[i]);
    }
    if (error != nullptr) {
        f.push_back("refused\x1f" + kind + "\x1f" + std::to_string(cliStatusFor(error)) + "\x1f" + error->message);
        return f;
    }
    std::string section;
    for (const auto &line : lines(keyfile)) {
        if (!line.empty() && line[0] == '[')
            section = line;
        f.push_back("key\x1f" + section + line);
    }
    return f;
}

// The cases that add a feature to those before them (first fit, in the
// pool's order).
std::vector<bool> selectCases(const std::vector<std::vector<std::string>> &features)
{
    std::set<std::string> seen;
    std::vector<bool> keep;
    for (const auto &f : features) {
        bool adds = false;
        for (const auto &x : f)
            adds = seen.insert(x).second || adds;
        keep.push_back(adds);
    }
    return keep;
}

// nmcli's outcomes of one case: its exit status with its message, its
// warnings, each line of the keyfile it printed. An assertion of nmcli's
// (difference 7) is one outcome where the comparison checks ibnm's answer
// to it (modify), none where it does not (add).
void nmcliOutcomes(const NmcliResult &nm, bool assertionsCompared, std::set<std::string> &into)
{
    // An assertion's message names the process and the time.
    bool asserted = nm.status != 0 && nm.status != 1 && nm.status != 2;
    if (asserted && !assertionsCompared)
        return;
    into.insert("exit\x1f" + std::to_string(nm.status) + "\x1f" + (asserted ? "assertion" : nm.err));
    if (!nm.warnings.empty())
        into.insert("warned\x1f" + nm.warnings);
    std::string section;
    for (const auto &line : lines(nm.out)) {
        if (!line.empty() && line[0] == '[')
            section = line;
        into.insert("key\x1f" + section + line);
    }
}

// With the whole pool run (`nm`): the selected cases met every outcome of
// nmcli's that the unselected ones met.
void expectSelectionLosesNothing(const std::vector<ToolRun> &nm, const std::vector<bool> &selected,
                                 bool assertionsCompared)
{
    std::set<std::string> met, others;
    for (size_t i = 0; i < nm.size(); i++)
        nmcliOutcomes(nm[i].result, assertionsCompared, selected[i] ? met : others);
    std::string missing;
    unsigned n = 0;
    for (const auto &o : others)
        if (met.count(o) == 0 && n++ < 20)
            missing += "  " + o + "\n";
    std::printf("[ generated ] %zu outcomes of nmcli's met, %u only by unselected cases\n", met.size(), n);
    EXPECT_EQ(n, 0u) << "outcomes of nmcli's only unselected cases met:\n" << missing;
}

// One generated case: nmcli's result `nm` against libibnm's in-process, and
// against `cli` (ibnm --offline's) where the case ran through the CLI.
void compareAdd(const Args &args, const NmcliResult &nm, const NmcliResult *cli, Tally &t)
{
    Args withUuid = {"connection.uuid", kUuid};
    withUuid.insert(withUuid.end(), args.begin(), args.end());
    GErrorPtr err;
    ibnm::GStrvPtr masters;
    auto profile = ibnm::GObjectPtr<IbnmProfile>::adopt(
        ibnm_profile_new_from_args_full(argvOf(withUuid).data(), outPtr(masters), outPtr(err)));
    t.cases++;
    if (nm.status != 0 && nm.status != 1 && nm.status != 2) {
        t.nmcliCrashed++;
        return;
    }
    int status = cliStatusFor(err.get());
    bool nmcliAccepts = nm.status == 0 && g_str_has_prefix(nm.out.c_str(), "[connection]");
    t.accepted += nmcliAccepts;
    t.exit1 += nm.status == 1;
    t.exit2 += nm.status == 2;
    if (status != expectedStatus(nm))
        t.mismatch(show(args) + "\n  exit: nmcli " + std::to_string(nm.status) + " ibnm " + std::to_string(status) +
                   "\n  nmcli: " + nm.err + "  ibnm: " + (err ? err->message : ""));
    else if (nmcliAccepts && profile && keyfileBytes(profile.get()) != nm.out)
        t.mismatch(show(args) + "\n  keyfiles differ:\n" + nm.out + "---\n" + keyfileBytes(profile.get()));
    if (warningsFor(masters.get()) != nm.warnings)
        t.mismatch(show(args) + "\n  warnings: nmcli " + nm.warnings + "  ibnm " + warningsFor(masters.get()));
    if (cli) {
        t.cli++;
        if (cli->status != expectedStatus(nm) || (nmcliAccepts && cli->out != nm.out) ||
            cli->warnings != nm.warnings)
            t.mismatch(show(args) + "\n  ibnm --offline: exit " + std::to_string(cli->status) + " " + cli->err +
                       cli->warnings + "  nmcli warned: " + nm.warnings);
    }
}

void compareModify(const Args &base, const std::string &keyfile, const Args &change, const NmcliResult &nm,
                   const NmcliResult *cli, Tally &t)
{
    Args withUuid = {"connection.uuid", kUuid};
    withUuid.insert(withUuid.end(), base.begin(), base.end());
    auto profile = ibnm::test::mustProfile(withUuid);
    GErrorPtr err;
    ibnm::GStrvPtr masters;
    bool ok = ibnm_profile_modify_from_args_full(profile.get(), argvOf(change).data(), outPtr(masters), outPtr(err));
    Args shown = base;
    shown.push_back("|modify");
    shown.insert(shown.end(), change.begin(), change.end());
    t.cases++;
    if (nm.status != 0 && nm.status != 1 && nm.status != 2) {
        // nmcli 1.42 asserts on a bond alias (`miimon`, `mode`) in modify of
        // a profile without [bond]; ibnm says the word names nothing (2).
        t.nmcliCrashed++;
        EXPECT_EQ(ok ? 0 : cliStatusFor(err.get()), 2) << show(shown);
        return;
    }
    int status = ok ? 0 : cliStatusFor(err.get());
    bool nmcliAccepts = nm.status == 0 && g_str_has_prefix(nm.out.c_str(), "[connection]");
    t.accepted += nmcliAccepts;
    t.exit1 += nm.status == 1;
    t.exit2 += nm.status == 2;
    if (status != expectedStatus(nm))
        t.mismatch(show(shown) + "\n  exit: nmcli " + std::to_string(nm.status) + " ibnm " + std::to_string(status) +
                   "\n  nmcli: " + nm.err + "  ibnm: " + (err ? err->message : ""));
    else if (nmcliAccepts && keyfileBytes(profile.get()) != nm.out)
        t.mismatch(show(shown) + "\n  keyfiles differ:\n" + nm.out + "---\n" + keyfileBytes(profile.get()));
    else if (!ok && keyfileBytes(profile.get()) != keyfile)
        t.mismatch(show(shown) + "\n  a failed modify changed the profile");
    if (warningsFor(masters.get()) != nm.warnings)
        t.mismatch(show(shown) + "\n  warnings: nmcli " + nm.warnings + "  ibnm " + warningsFor(masters.get()));
    if (cli) {
        t.cli++;
        if (cli->status != expectedStatus(nm) || (nmcliAccepts && cli->out != nm.out) ||
            cli->warnings != nm.warnings)
            t.mismatch(show(shown) + "\n  ibnm --offline: exit " + std::to_string(cli->status) + " " + cli->err +
                       cli->warnings + "  nmcli warned: " + nm.warnings);
    }
}

TEST(NmcliDifferential, GeneratedAddsAgreeWithNmcli)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    auto start = std::chrono::steady_clock::now();
    Tally t;
    std::vector<Args> pool;
    for (unsigned seed : {1u, 2u, 3u})
        for (auto &args : generatedAdds(seed, 700))
            pool.push_back(std::move(args));
    std::vector<std::vector<std::string>> features;
    std::vector<std::string> codes;
    for (const auto &args : pool) {
        Args withUuid = {"connection.uuid", kUuid};
        withUuid.insert(withUuid.end(), args.begin(), args.end());
        GErrorPtr err;
        auto p = ibnm::GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argvOf(withUuid).data(), outPtr(err)));
        features.push_back(caseFeatures(args[1], args, err.get(), p ? keyfileBytes(p.get()) : ""));
        codes.push_back(errorCode(err.get()));
    }
    const std::vector<bool> selected = selectCases(features);
    std::vector<Args> cases;
    std::vector<bool> caseSelected;
    std::vector<std::string> caseCodes;
    for (size_t i = 0; i < pool.size(); i++)
        if (selected[i] || runWholePool()) {
            cases.push_back(pool[i]);
            caseSelected.push_back(selected[i]);
            caseCodes.push_back(codes[i]);
        }
    // nmcli on every case, the CLI on those that add something of its own
    // (cliFeatures()), then the comparisons.
    std::vector<ToolRun> nm, cli;
    for (const auto &args : cases) {
        nm.push_back(addRun(nmcli, args));
        cli.push_back(addRun(ibnmPath(), args));
    }
    runAll(nm);
    std::vector<std::vector<std::string>> cliFeats;
    for (size_t i = 0; i < cases.size(); i++)
        cliFeats.push_back(cliFeatures(cases[i][1], nm[i].result, caseCodes[i]));
    const std::vector<bool> throughCli = selectCliCases(cliFeats);
    unsigned ran = 0;
    runSelected(cli, throughCli, ran);
    for (size_t i = 0; i < cases.size(); i++)
        compareAdd(cases[i], nm[i].result, throughCli[i] ? &cli[i].result : nullptr, t);
    t.print("add", pool.size(), start);
    EXPECT_EQ(t.mismatches, 0u) << t.firstMismatches;
    EXPECT_GE(pool.size(), 2000u);
    EXPECT_GT(t.cli, 10u);
    EXPECT_GT(t.accepted, 80u);
    EXPECT_GT(t.exit1, 40u);
    EXPECT_GT(t.exit2, 200u);
    if (runWholePool())
        expectSelectionLosesNothing(nm, caseSelected, false);
}

// The base profiles of the generated modifies.
const std::vector<Args> &generatedModifyBases()
{
    static const std::vector<Args> bases = {
        {"type", "infiniband", "con-name", "ib0", "ifname", "ib0"},
        {"type", "infiniband", "con-name", "child", "parent", "ib0", "p-key", "0x8002"},
        {"type", "ethernet", "con-name", "eth0", "ifname", "eth0", "ipv4.method", "manual", "ipv4.addresses",
         "192.0.2.1/24, 192.0.2.2/24", "ipv4.dns", "1.1.1.1 8.8.8.8", "ipv4.dns-search", "a.example b.example"},
        {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", "mode=active-backup",
         "ipv6.method", "manual", "ipv6.addresses", "fd00::1/64"},
        {"type", "infiniband", "ifname", "ib1", "master", "bond0", "slave-type", "bond"},
    };
    return bases;
}

// A generated modify: base profile (index) and the words applied to it.
struct ModifyCase {
    size_t base;
    Args change;
};

// 260 changes of 1-3 words per base, from a fixed seed.
std::vector<ModifyCase> generatedModifies(const std::vector<Args> &bases)
{
    std::mt19937 rng(15);
    const auto &vocab = vocabulary();
    std::vector<ModifyCase> cases;
    for (size_t b = 0; b < bases.size(); b++) {
        for (int k = 0; k < 260; k++) {
            Args change;
            size_t words = 1 + rng() % 3;
            for (size_t w = 0; w < words; w++) {
                const Choice &c = vocab[rng() % vocab.size()];
                // `master` on a bond profile: nmcli 1.42's modify also makes
                // it a bond port (of itself); not a case worth matching.
                if (bases[b][1] == std::string("bond") &&
                    (std::string_view(c.word) == "master" || std::string_view(c.word) == "slave-type"))
                    continue;
                change.push_back(c.word);
                change.push_back(c.values[rng() % c.values.size()]);
            }
            if (!change.empty()) // all its words were skipped
                cases.push_back({b, std::move(change)});
        }
    }
    return cases;
}

TEST(NmcliDifferential, GeneratedModifiesAgreeWithNmcli)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    auto start = std::chrono::steady_clock::now();
    const std::vector<Args> &bases = generatedModifyBases();
    const std::vector<ModifyCase> cases = generatedModifies(bases);
    std::vector<std::string> keyfiles;
    for (const auto &base : bases) {
        Args withUuid = {"connection.uuid", kUuid};
        withUuid.insert(withUuid.end(), base.begin(), base.end());
        auto first = ibnm::test::mustProfile(withUuid);
        ASSERT_TRUE(first);
        keyfiles.push_back(keyfileBytes(first.get()));
    }
    std::vector<std::vector<std::string>> features;
    std::vector<std::string> codes;
    for (const auto &c : cases) {
        Args withUuid = {"connection.uuid", kUuid};
        withUuid.insert(withUuid.end(), bases[c.base].begin(), bases[c.base].end());
        auto p = ibnm::test::mustProfile(withUuid);
        GErrorPtr err;
        bool ok = ibnm_profile_modify_from_args(p.get(), argvOf(c.change).data(), outPtr(err));
        features.push_back(caseFeatures("base " + std::to_string(c.base), c.change, ok ? nullptr : err.get(),
                                        ok ? keyfileBytes(p.get()) : ""));
        codes.push_back(errorCode(ok ? nullptr : err.get()));
    }
    const std::vector<bool> selected = selectCases(features);
    std::vector<ModifyCase> run;
    std::vector<bool> chosen;
    std::vector<std::string> runCodes;
    for (size_t i = 0; i < cases.size(); i++)
        if (selected[i] || runWholePool()) {
            run.push_back(cases[i]);
            chosen.push_back(selected[i]);
            runCodes.push_back(codes[i]);
        }
    // nmcli on every case run, the CLI on those that add something of its
    // own (cliFeatures()), then the comparisons.
    std::vector<ToolRun> nm, cli;
    for (const auto &c : run) {
        nm.push_back(modifyRun(nmcli, keyfiles[c.base], c.change));
        cli.push_back(modifyRun(ibnmPath(), keyfiles[c.base], c.change));
    }
    runAll(nm);
    std::vector<std::vector<std::string>> cliFeats;
    for (size_t i = 0; i < run.size(); i++)
        cliFeats.push_back(cliFeatures("base " + std::to_string(run[i].base), nm[i].result, runCodes[i]));
    const std::vector<bool> throughCli = selectCliCases(cliFeats);
    unsigned ran = 0;
    runSelected(cli, throughCli, ran);
    Tally t;
    for (size_t i = 0; i < run.size(); i++)
        compareModify(bases[run[i].base], keyfiles[run[i].base], run[i].change, nm[i].result,
                      throughCli[i] ? &cli[i].result : nullptr, t);
    t.print("modify", cases.size(), start);
    EXPECT_EQ(t.mismatches, 0u) << t.firstMismatches;
    EXPECT_GE(cases.size(), 1000u);
    EXPECT_GT(t.cli, 10u);
    EXPECT_GT(t.accepted, 110u);
    EXPECT_GT(t.exit1, 40u);
    EXPECT_GT(t.exit2, 180u);
    if (runWholePool())
        expectSelectionLosesNothing(nm, chosen, true);
}

// The deliberate differences (docs/differences-from-nmcli.md), each checked
// against nmcli itself: nmcli does one thing, ibnm the documented other.
TEST(NmcliDifferential, DocumentedDifferencesAreRealDifferences)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    struct Row {
        const char *name;
        Args args;
        bool nmcliWrites; // nmcli prints a profile
        int nmcliStatus;
        bool ibnmBuilds;
        const char *ibnmError; // prefix of ibnm's error, when it refuses
        int ibnmStatus;        // of `ibnm --offline connection add`
    } rows[] = {
        {"1: ibnm's [user] keys", {"type", "infiniband", "ifname", "ib0", "rdma.link-type", "rxe"}, false, 2, true,
         nullptr, 0},
        {"2: unknown ibnm key", {"type", "infiniband", "ifname", "ib0", "ipoib.umcats", "yes"}, false, 2, false,
         "ipoib.umcats: ", 2},
        {"3: other profile types", {"type", "vlan", "ifname", "v0", "vlan.parent", "eth0", "vlan.id", "5"}, true, 0,
         false, "connection.type: ", 2},
        {"4: bad bond alias value", {"type", "bond", "ifname", "bond0", "mode", "junk"}, false, 0, false,
         "bond.options: ", 2},
        {"5: '-' on a property with one value", {"type", "infiniband", "ifname", "ib0", "-mtu", "2044"}, true, 0,
         false, "infiniband.mtu: ", 2},
    };
    for (const auto &r : rows) {
        NmcliResult nm = runNmcli(r.args);
        bool nmcliWrites = nm.status == 0 && g_str_has_prefix(nm.out.c_str(), "[connection]");
        EXPECT_EQ(nmcliWrites, r.nmcliWrites) << r.name << ": nmcli exit " << nm.status << "\n" << nm.out << nm.err;
        EXPECT_EQ(nm.status, r.nmcliStatus) << r.name << ": " << nm.err;
        EXPECT_EQ(runAdd(ibnmPath(), r.args).status, r.ibnmStatus) << r.name;
        std::string message;
        auto p = profileFromArgs(r.args, &message);
        EXPECT_EQ(bool(p), r.ibnmBuilds) << r.name << ": " << message;
        if (r.ibnmError) {
            EXPECT_TRUE(g_str_has_prefix(message.c_str(), r.ibnmError)) << r.name << ": " << message;
        }
    }
}
