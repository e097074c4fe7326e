// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm apply` against other writers of one keyfile store and one simulated
// host (issue 28): two applies at once, apply against connection add,
// modify and delete (20 rounds each), and apply killed (kill -9) while a
// reader reads the store. What must hold after every round: no update
// lost, one profile per interface, the stored MTU the host's, never a
// host changed with nothing stored, no temporary file left once the next
// command ran, and no reader ever shown half of one document and half of
// another. Each test prints what it counted.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

using ibnm::test::Cli;
using ibnm::test::JsonValue;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

constexpr int kRounds = 20;
const char *const kHost = "mlx4-dual-port.host";

// P_Key children of mlx4_ib0 with one MTU: the document two writers fight over.
std::string childrenDoc(unsigned mtu, const std::vector<std::string> &pkeys = {"8002", "8003"})
{
    std::string doc = "interfaces:\n";
    for (const auto &k : pkeys)
        doc += "- name: mlx4_ib0." + k + "\n  type: infiniband\n  mtu: " + std::to_string(mtu) +
               "\n  infiniband: {base-iface: mlx4_ib0, pkey: '0x" + k + "', mode: datagram}\n";
    return doc;
}

// P_Keys 0x8010 and on, `n` of them.
std::vector<std::string> manyPkeys(unsigned n)
{
    std::vector<std::string> out;
    char buf[8];
    for (unsigned i = 0; i < n; i++) {
        std::snprintf(buf, sizeof buf, "%04x", 0x8010 + i);
        out.emplace_back(buf);
    }
    return out;
}

// What one stored keyfile says, read with GKeyFile (not ibnm's reader).
struct Stored {
    std::string file, id, ifname;
    unsigned mtu = 0;
    int priority = 0;
};

std::vector<Stored> storedProfiles(const Cli &cli)
{
    std::vector<Stored> out;
    for (const auto &name : cli.keyfiles()) {
        if (name.empty() || name[0] == '.' || !g_str_has_suffix(name.c_str(), ".nmconnection"))
            continue;
        GKeyFile *kf = g_key_file_new();
        if (g_key_file_load_from_file(kf, (cli.keyfileDir() + "/" + name).c_str(), G_KEY_FILE_NONE, nullptr)) {
            Stored s;
            s.file = name;
            char *v = g_key_file_get_string(kf, "connection", "id", nullptr);
            s.id = v ? v : "";
            g_free(v);
            v = g_key_file_get_string(kf, "connection", "interface-name", nullptr);
            s.ifname = v ? v : "";
            g_free(v);
            s.mtu = unsigned(g_key_file_get_integer(kf, "infiniband", "mtu", nullptr));
            s.priority = g_key_file_get_integer(kf, "connection", "autoconnect-priority", nullptr);
            out.push_back(s);
        }
        g_key_file_free(kf);
    }
    return out;
}

// The hidden files of the store that are no lock file: a writer's
// temporary files and a journal.
std::vector<std::string> leftovers(const Cli &cli)
{
    std::vector<std::string> out;
    for (const auto &name : cli.keyfiles())
        if (!name.empty() && name[0] == '.' && name != ".ibnm.lock")
            out.push_back(name);
    return out;
}

// DEVICE -> MTU of the simulated host's P_Key children of mlx4_ib0.
std::map<std::string, unsigned> hostChildren(const Cli &cli)
{
    std::map<std::string, unsigned> out;
    Result r = cli.run({"-t", "-f", "DEVICE,MTU", "device", "status"});
    EXPECT_EQ(r.status, 0) << r.err;
    for (const auto &l : lines(r.out)) {
        size_t colon = l.find(':');
        if (colon == std::string::npos || l.compare(0, 9, "mlx4_ib0.") != 0)
            continue;
        out[l.substr(0, colon)] = unsigned(std::stoul(l.substr(colon + 1)));
    }
    return out;
}

std::vector<Result> runParallel(const Cli &cli, const std::vector<std::vector<std::string>> &argss,
                                const std::vector<std::string> &inputs)
{
    std::vector<Result> results(argss.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < argss.size(); i++)
        threads.emplace_back([&, i] { results[i] = cli.run(argss[i], inputs[i]); });
    for (auto &t : threads)
        t.join();
    return results;
}

// What a round found wrong, summed over the rounds.
struct Tally {
    unsigned failed = 0;       // a command that should have succeeded did not
    unsigned duplicates = 0;   // two profiles for one interface
    unsigned mtuMismatch = 0;  // a stored MTU that is not the host's
    unsigned hostOnly = 0;     // a child on the host with no profile stored
    unsigned lost = 0;         // an update lost
    unsigned temporary = 0;    // temporary files left after the round
    unsigned mixed = 0;        // children of one document with MTUs of two

    void check(const Cli &cli, int round)
    {
        auto stored = storedProfiles(cli);
        auto host = hostChildren(cli);
        std::map<std::string, int> perInterface;
        std::set<unsigned> mtus;
        for (const auto &s : stored) {
            if (s.ifname.compare(0, 9, "mlx4_ib0.") != 0)
                continue;
            if (++perInterface[s.ifname] == 2) {
                duplicates++;
                ADD_FAILURE() << "round " << round << ": two profiles for " << s.ifname;
            }
            auto h = host.find(s.ifname);
            if (h != host.end() && s.mtu != 0 && h->second != s.mtu) {
                mtuMismatch++;
                ADD_FAILURE() << "round " << round << ": " << s.ifname << " stored MTU " << s.mtu << ", host "
                              << h->second;
            }
            if (h != host.end())
                mtus.insert(s.mtu);
        }
        for (const auto &h : host)
            if (!perInterface.count(h.first)) {
                hostOnly++;
                ADD_FAILURE() << "round " << round << ": " << h.first << " is on the host, no profile stored";
            }
        if (mtus.size() > 1) {
            mixed++;
            ADD_FAILURE() << "round " << round << ": the children have " << mtus.size() << " MTUs";
        }
        auto left = leftovers(cli);
        temporary += unsigned(left.size());
        EXPECT_TRUE(left.empty()) << "round " << round << ": " << left.size() << " files left, first "
                                  << left.front();
    }
    void expectOk(const Result &r, const char *what, int round)
    {
        if (r.status != 0) {
            failed++;
            ADD_FAILURE() << "round " << round << ": " << what << " exited " << r.status << ": " << r.err;
        }
    }
    void print(const char *what) const
    {
        std::printf("%s: %d rounds: %u failed, %u lost updates, %u interfaces with two profiles, %u stored MTUs "
                    "not the host's, %u children on the host with no profile, %u rounds with two documents' "
                    "MTUs, %u temporary files left\n",
                    what, kRounds, failed, lost, duplicates, mtuMismatch, hostOnly, mixed, temporary);
    }
};

TEST(StoreRace, TwoAppliesAtOnceEndAsOneOfThem)
{
    Tally t;
    for (int round = 0; round < kRounds; round++) {
        Cli cli(kHost);
        auto results =
            runParallel(cli, {{"apply", "-"}, {"apply", "-"}}, {childrenDoc(1500), childrenDoc(2000)});
        t.expectOk(results[0], "apply (1500)", round);
        t.expectOk(results[1], "apply (2000)", round);
        t.check(cli, round);
    }
    t.print("two applies at once");
}

TEST(StoreRace, ApplyAndModifyLoseNoUpdate)
{
    Tally t;
    for (int round = 0; round < kRounds; round++) {
        Cli cli(kHost);
        ASSERT_EQ(cli.run({"apply", "-"}, childrenDoc(1500)).status, 0);
        auto results = runParallel(
            cli, {{"apply", "-"}, {"connection", "modify", "mlx4_ib0.8002", "connection.autoconnect-priority", "7"}},
            {childrenDoc(2000), ""});
        t.expectOk(results[0], "apply", round);
        t.expectOk(results[1], "connection modify", round);
        for (const auto &s : storedProfiles(cli))
            if (s.ifname == "mlx4_ib0.8002" && s.priority != 7) {
                t.lost++;
                ADD_FAILURE() << "round " << round << ": the modification was lost";
            }
        t.check(cli, round);
    }
    t.print("apply and modify");
}

// An apply of 16 profiles while three adds run one after the other (an add
// removed the running apply's temporary files as stale, and the apply failed
// after changing the host).
TEST(StoreRace, ApplyAndAddBothStore)
{
    Tally t;
    auto pkeys = manyPkeys(16);
    for (int round = 0; round < kRounds; round++) {
        Cli cli(kHost);
        std::vector<Result> adds;
        std::thread adder([&] {
            for (int i = 1; i <= 3; i++)
                adds.push_back(cli.run({"connection", "add", "type", "infiniband", "con-name", "other" + std::to_string(i),
                                        "ifname", "mlx4_ib0.800" + std::to_string(i + 3), "parent", "mlx4_ib0",
                                        "p-key", "0x800" + std::to_string(i + 3), "ipv4.method", "disabled"}));
        });
        Result apply = cli.run({"apply", "-"}, childrenDoc(1500, pkeys));
        adder.join();
        t.expectOk(apply, "apply", round);
        for (const auto &r : adds)
            t.expectOk(r, "connection add", round);
        std::set<std::string> ids;
        for (const auto &s : storedProfiles(cli))
            ids.insert(s.id);
        std::vector<std::string> want = {"other1", "other2", "other3"};
        for (const auto &k : pkeys)
            want.push_back("mlx4_ib0." + k);
        for (const auto &id : want)
            if (!ids.count(id)) {
                t.lost++;
                ADD_FAILURE() << "round " << round << ": profile " << id << " not stored";
            }
        t.check(cli, round);
    }
    t.print("apply (16 profiles) and three adds");
}

TEST(StoreRace, ApplyAndDeleteBothHappen)
{
    Tally t;
    for (int round = 0; round < kRounds; round++) {
        Cli cli(kHost);
        ASSERT_EQ(cli.run({"apply", "-"}, childrenDoc(1500)).status, 0);
        ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "old", "ifname", "ens2d1",
                           "ipv4.method", "disabled"})
                      .status,
                  0);
        auto results = runParallel(cli, {{"apply", "-"}, {"connection", "delete", "old"}}, {childrenDoc(2000), ""});
        t.expectOk(results[0], "apply", round);
        t.expectOk(results[1], "connection delete", round);
        for (const auto &s : storedProfiles(cli)) {
            if (s.id == "old") {
                t.lost++;
                ADD_FAILURE() << "round " << round << ": the deleted profile is back";
            }
            if (s.id.compare(0, 9, "mlx4_ib0.") == 0 && s.mtu != 2000) {
                t.lost++;
                ADD_FAILURE() << "round " << round << ": " << s.id << " has MTU " << s.mtu << ", not the applied 2000";
            }
        }
        t.check(cli, round);
    }
    t.print("apply and delete");
}

// Starts `ibnm --keyfile-dir ... --simulate ... ARGS` without waiting.
GPid startCli(const Cli &cli, const std::vector<std::string> &args)
{
    std::vector<std::string> argv = {ibnm::test::cliPath(), "--keyfile-dir", cli.keyfileDir(), "--simulate",
                                     ibnm::test::hostFile(kHost)};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char *> a;
    for (auto &s : argv)
        a.push_back(s.data());
    a.push_back(nullptr);
    char **envp = g_get_environ();
    envp = g_environ_setenv(envp, "IBNM_SIMULATE_STATE", cli.stateDir().c_str(), TRUE);
    envp = g_environ_setenv(envp, "LC_ALL", "C", TRUE);
    GPid pid = 0;
    GError *error = nullptr;
    gboolean ok = g_spawn_async(nullptr, a.data(), envp,
                                GSpawnFlags(G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                            G_SPAWN_STDERR_TO_DEV_NULL),
                                nullptr, nullptr, &pid, &error);
    g_strfreev(envp);
    if (!ok) {
        ADD_FAILURE() << error->message;
        g_error_free(error);
        return 0;
    }
    return pid;
}

// The MTUs `show-state -j` lists for the children, one per child; empty
// when it failed.
std::vector<unsigned> shownMtus(const Cli &cli, bool *ok)
{
    std::vector<unsigned> out;
    Result r = cli.run({"-j", "show-state"});
    *ok = r.status == 0;
    if (!*ok)
        return out;
    JsonValue v = parseJson(r.out);
    const JsonValue *interfaces = v.get("interfaces");
    for (const auto &i : interfaces ? interfaces->items : std::vector<JsonValue>()) {
        const JsonValue *name = i.get("name");
        const JsonValue *mtu = i.get("mtu");
        if (name && name->s.compare(0, 9, "mlx4_ib0.") == 0)
            out.push_back(mtu ? unsigned(mtu->n) : 0);
    }
    return out;
}

// Waits `usec`, then kill -9 of `pid` unless it has ended; reaps it into
// `status`. Whether it was killed.
bool killAfter(GPid pid, gulong usec, int &status)
{
    g_usleep(usec);
    bool killed = waitpid(pid, &status, WNOHANG) == 0;
    if (killed) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    g_spawn_close_pid(pid);
    return killed;
}

// kill -9 of applies that each rewrite six profiles (two documents in
// turn), while a reader shows the store again and again: the reader sees
// the six profiles of one document or of the other, never some of each;
// the next command removes what the killed ones left, and ends the store
// as its document says.
TEST(StoreRace, KilledAppliesLeaveNoHalfStoreAndNoTemporaryFiles)
{
    Cli cli(kHost);
    const std::vector<std::string> six = {"8002", "8003", "8004", "8005", "8006", "8007"};
    cli.tmp().write("a.yml", childrenDoc(1500, six));
    cli.tmp().write("b.yml", childrenDoc(2000, six));
    ASSERT_EQ(cli.run({"apply", cli.tmp() / "a.yml"}).status, 0);
    std::atomic<bool> stop{false};
    std::atomic<unsigned> reads{0}, half{0}, readFailures{0};
    std::thread reader([&] {
        while (!stop) {
            bool ok = false;
            auto mtus = shownMtus(cli, &ok);
            reads++;
            if (!ok) {
                readFailures++;
                continue;
            }
            if (mtus.size() != 6 || std::set<unsigned>(mtus.begin(), mtus.end()).size() != 1) {
                half++;
                std::string seen;
                for (unsigned m : mtus)
                    seen += " " + std::to_string(m);
                ADD_FAILURE() << "a reader saw the children with MTUs" << seen;
            }
        }
    });
    GRand *rand = g_rand_new_with_seed(20261128);
    constexpr int kKills = 40;
    unsigned killed = 0, finished = 0, halfAfterKill = 0, killsLeavingFiles = 0, killsLeavingJournal = 0;
    size_t mostLeft = 0;
    for (int i = 0; i < kKills; i++) {
        GPid pid = startCli(cli, {"apply", cli.tmp() / (i % 2 ? "a.yml" : "b.yml")});
        ASSERT_NE(pid, 0);
        // Anywhere in a run of 130-370 ms here: reading, changing the
        // host, writing the files, making them visible.
        int status = 0;
        if (killAfter(pid, gulong(g_rand_int_range(rand, 10000, 300000)), status))
            killed++;
        else
            finished++;
        auto left = leftovers(cli);
        mostLeft = std::max(mostLeft, left.size());
        killsLeavingFiles += !left.empty();
        killsLeavingJournal += g_file_test((cli.keyfileDir() + "/.ibnm-journal").c_str(), G_FILE_TEST_EXISTS);
        // What a reader sees right after the kill, before any other writer.
        bool ok = false;
        auto mtus = shownMtus(cli, &ok);
        EXPECT_TRUE(ok) << "after kill " << i;
        if (ok && (mtus.size() != 6 || std::set<unsigned>(mtus.begin(), mtus.end()).size() != 1)) {
            halfAfterKill++;
            ADD_FAILURE() << "after kill " << i << ": the store holds half of two documents";
        }
    }
    g_rand_free(rand);
    stop = true;
    reader.join();
    size_t leftBefore = leftovers(cli).size();
    Result last = cli.run({"apply", cli.tmp() / "b.yml"});
    ASSERT_EQ(last.status, 0) << last.out << last.err;
    auto left = leftovers(cli);
    EXPECT_TRUE(left.empty()) << left.size() << " files left, first " << left.front();
    Tally t;
    t.check(cli, kKills);
    for (const auto &s : storedProfiles(cli))
        EXPECT_EQ(s.mtu, 2000u) << s.file;
    EXPECT_EQ(half.load(), 0u);
    EXPECT_EQ(readFailures.load(), 0u);
    std::printf("kill -9 of apply: %d runs (%u killed midway, %u had finished); a read right after each: %u saw "
                "half of two documents; %u reads by a concurrent reader: %u saw half of two documents, %u failed; "
                "%u kills left files (%u a journal), at most %zu; %zu before the next command, %zu after it\n",
                kKills, killed, finished, halfAfterKill, reads.load(), half.load(), readFailures.load(),
                killsLeavingFiles, killsLeavingJournal, mostLeft, leftBefore, left.size());
}

// kill -9 of `connection import` of an ifcfg directory (twelve P_Key
// children): the store holds all of them or none, as a reader right after
// the kill sees it, and the next command removes what the killed one left.
TEST(StoreRace, AKilledImportOfADirectoryStoresAllOrNone)
{
    ibnm::test::TempDir ifcfg;
    constexpr unsigned kProfiles = 12;
    for (unsigned i = 0; i < kProfiles; i++) {
        char pkey[8];
        std::snprintf(pkey, sizeof pkey, "%04x", 0x8002 + i);
        ifcfg.write(std::string("ifcfg-mlx4_ib0.") + pkey, std::string("TYPE=InfiniBand\nDEVICE=mlx4_ib0.") + pkey +
                                                  "\nPHYSDEV=mlx4_ib0\nPKEY=yes\nPKEY_ID=" +
                                                  std::to_string(0x8002 + i) + "\nBOOTPROTO=none\nONBOOT=no\n");
    }
    // How long one import takes here (the fastest of three): the kills fall
    // anywhere in it.
    gint64 took = G_MAXINT32;
    for (int calibrate = 0; calibrate < 3; calibrate++) {
        Cli cli(kHost);
        gint64 t0 = g_get_monotonic_time();
        GPid pid = startCli(cli, {"connection", "import", "type", "ifcfg-rh", "file", ifcfg.path()});
        ASSERT_NE(pid, 0);
        int status = 0;
        waitpid(pid, &status, 0);
        g_spawn_close_pid(pid);
        took = std::min(took, g_get_monotonic_time() - t0);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ASSERT_EQ(storedProfiles(cli).size(), kProfiles);
    }
    GRand *rand = g_rand_new_with_seed(20261127);
    constexpr int kKills = 30;
    unsigned killed = 0, finished = 0, all = 0, none = 0, some = 0;
    for (int i = 0; i < kKills; i++) {
        Cli cli(kHost);
        GPid pid = startCli(cli, {"connection", "import", "type", "ifcfg-rh", "file", ifcfg.path()});
        ASSERT_NE(pid, 0);
        int status = 0;
        if (killAfter(pid, gulong(g_rand_int_range(rand, 0, gint32(took))), status)) {
            killed++;
        } else {
            finished++;
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << i;
        }
        size_t stored = storedProfiles(cli).size();
        if (stored == kProfiles)
            all++;
        else if (stored == 0)
            none++;
        else {
            some++;
            ADD_FAILURE() << "round " << i << ": " << stored << " of " << kProfiles << " profiles stored after a kill";
        }
        Result next = cli.run({"connection", "show"});
        EXPECT_EQ(next.status, 0) << next.err;
        Result add = cli.run({"connection", "add", "type", "infiniband", "con-name", "after", "ifname", "mlx4_ib1",
                              "ipv4.method", "disabled", "ipv6.method", "disabled"});
        EXPECT_EQ(add.status, 0) << add.err;
        EXPECT_TRUE(leftovers(cli).empty()) << "round " << i << ": " << leftovers(cli).front();
    }
    g_rand_free(rand);
    EXPECT_EQ(some, 0u);
    std::printf("kill -9 of import (%u ifcfg files, %.1f ms a run): %d runs (%u killed, %u had finished): all "
                "stored %u, none %u, some %u\n",
                kProfiles, double(took) / 1000, kKills, killed, finished, all, none, some);
}

} // namespace

#include "libcore/support/file-lock.hpp"

namespace {

// A writer that finds the store's lock held waits as long as -w says, then
// fails with exit 3 naming the holder (pid and command), and writes nothing;
// -w 0 does not wait; readers are not held up.
TEST(StoreLockCli, AWriterWaitsAsLongAsDashWAndNamesTheHolder)
{
    Cli cli(kHost);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "p", "ifname", "mlx4_ib0",
                       "ipv4.method", "disabled"})
                  .status,
              0);
    std::string before = cli.snapshot();
    auto held = ibnm::RangeLockFile::open(cli.keyfileDir() + "/.ibnm.lock", false, "the store's lock");
    ASSERT_TRUE(held.ok()) << held.error().toString();
    ASSERT_TRUE(held->lock(0, true, ibnm::kLockNoWait).ok());
    held->recordHolder();
    gint64 start = g_get_monotonic_time();
    Result r = cli.run({"-w", "1", "connection", "modify", "p", "mtu", "2000"});
    double waited = double(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("process " + std::to_string(getpid()) + " ("), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cli-tests"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("-w SECONDS"), std::string::npos) << r.err;
    EXPECT_GE(waited, 0.9);
    EXPECT_EQ(cli.snapshot(), before);
    Result now = cli.run({"-w", "0", "connection", "add", "type", "infiniband", "con-name", "q", "ifname",
                          "mlx4_ib0.8002", "parent", "mlx4_ib0", "p-key", "0x8002"});
    EXPECT_EQ(now.status, 3) << now.err;
    EXPECT_NE(now.err.find("gave up after 0.0 s"), std::string::npos) << now.err;
    Result show = cli.run({"-g", "infiniband.mtu", "connection", "show", "p"});
    EXPECT_EQ(show.status, 0) << show.err;
    held->unlock(0);
    EXPECT_EQ(cli.run({"-w", "1", "connection", "modify", "p", "mtu", "2000"}).status, 0);
    std::printf("store lock held: modify -w 1 gave up after %.1f s (exit %d), -w 0 at once (exit %d); a reader "
                "was not held up\n",
                waited, r.status, now.status);
}

// `connection import` is a writer like add: a keyfile and a directory of
// ifcfg files each wait for a held store lock as -w says, then exit 3
// naming the holder, with nothing written. (The directory's import read
// the store without the lock, took it at its first write only, and exited
// 1.)
TEST(StoreLockCli, ImportWaitsForTheStoreLockAndNamesTheHolder)
{
    Cli cli;
    ibnm::test::TempDir dir;
    dir.write("ifcfg-bond0", "TYPE=Bond\nDEVICE=bond0\nBONDING_OPTS=\"mode=active-backup miimon=100\"\n"
                             "BOOTPROTO=none\n");
    dir.write("ifcfg-ib0", "TYPE=InfiniBand\nDEVICE=ib0\nMASTER=bond0\nONBOOT=yes\n");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "p", "ifname", "ib1",
                       "ipv4.method", "disabled"})
                  .status,
              0);
    Result exported = cli.run({"connection", "export", "p"});
    ASSERT_EQ(exported.status, 0) << exported.err;
    std::string keyfile = exported.out;
    size_t at = keyfile.find("uuid=");
    ASSERT_NE(at, std::string::npos) << keyfile;
    keyfile.replace(at, keyfile.find('\n', at) - at, "uuid=0b0e6d0e-2a51-4a77-9a0e-0d4c2a5d7e11");
    at = keyfile.find("id=p\n");
    ASSERT_NE(at, std::string::npos) << keyfile;
    keyfile.replace(at, 5, "id=q\n");
    at = keyfile.find("interface-name=ib1\n");
    ASSERT_NE(at, std::string::npos) << keyfile;
    keyfile.replace(at, 19, "interface-name=ib2\n");
    cli.tmp().write("q.nmconnection", keyfile);
    std::string before = cli.snapshot();
    auto held = ibnm::RangeLockFile::open(cli.keyfileDir() + "/.ibnm.lock", false, "the store's lock");
    ASSERT_TRUE(held.ok()) << held.error().toString();
    ASSERT_TRUE(held->lock(0, true, ibnm::kLockNoWait).ok());
    held->recordHolder();
    for (const std::vector<std::string> &import :
         {std::vector<std::string>{"connection", "import", "type", "ifcfg-rh", "file", dir.path()},
          std::vector<std::string>{"connection", "import", "type", "keyfile", "file", cli.tmp() / "q.nmconnection"}}) {
        std::vector<std::string> args = {"-w", "1"};
        args.insert(args.end(), import.begin(), import.end());
        Result r = cli.run(args);
        EXPECT_EQ(r.status, 3) << import[3] << ": " << r.out << r.err;
        EXPECT_NE(r.err.find("process " + std::to_string(getpid()) + " ("), std::string::npos) << r.err;
        EXPECT_EQ(cli.snapshot(), before) << import[3];
    }
    held->unlock(0);
    Result r = cli.run({"-w", "1", "connection", "import", "type", "ifcfg-rh", "file", dir.path()});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_EQ(storedProfiles(cli).size(), 3u);
}

// The same for the host's activation lock (another activation running).
TEST(StoreLockCli, AnActivationWaitsAsLongAsDashWAndNamesTheHolder)
{
    Cli cli(kHost);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "c", "ifname", "mlx4_ib0.8002",
                       "parent", "mlx4_ib0", "p-key", "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"device", "status"}).status, 0); // the state directory exists
    auto held = ibnm::lockFileExclusive(cli.stateDir() + "/activations.lock", ibnm::kLockNoWait, "the lock");
    ASSERT_TRUE(held.ok()) << held.error().toString();
    Result r = cli.run({"-w", "1", "connection", "up", "c"});
    EXPECT_EQ(r.status, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("process " + std::to_string(getpid()) + " ("), std::string::npos) << r.err;
    EXPECT_EQ(hostChildren(cli).count("mlx4_ib0.8002"), 0u);
    Result apply = cli.run({"-w", "1", "apply", "-"}, childrenDoc(1500));
    EXPECT_EQ(apply.status, 3) << apply.out << apply.err;
    held = ibnm::Result<ibnm::UniqueFd>(ibnm::UniqueFd());
    EXPECT_EQ(cli.run({"connection", "up", "c"}).status, 0);
}

// A user who may read the keyfile directory cannot make root's writers
// wait: the store's lock is no longer the directory's flock, which anyone
// who can open the directory can take, but a 0600 file of root's, which
// that user cannot open.
TEST(StoreLockCli, AnotherUserCannotHoldTheStoreLock)
{
    if (geteuid() != 0 || !g_file_test("/usr/bin/setpriv", G_FILE_TEST_IS_EXECUTABLE) ||
        !g_file_test("/usr/bin/flock", G_FILE_TEST_IS_EXECUTABLE))
        GTEST_SKIP() << "needs root, setpriv and flock to hold locks as nobody";
    Cli cli;
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "p", "ifname", "ib0"}).status, 0);
    ASSERT_EQ(g_chmod(cli.tmp().path().c_str(), 0755), 0);
    ASSERT_EQ(g_chmod(cli.keyfileDir().c_str(), 0755), 0);
    std::vector<std::string> asNobody = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    auto nobody = [&](std::vector<std::string> args) {
        std::vector<std::string> argv = asNobody;
        argv.insert(argv.end(), args.begin(), args.end());
        return ibnm::test::spawn(argv);
    };
    Result file = nobody({"/usr/bin/flock", "-n", cli.keyfileDir() + "/.ibnm.lock", "true"});
    EXPECT_NE(file.status, 0) << "nobody took root's store lock";
    // The directory's flock (the old lock), held by nobody until killed.
    std::vector<std::string> argv = asNobody;
    argv.insert(argv.end(), {"/usr/bin/flock", "-n", cli.keyfileDir(), "sleep", "120"});
    std::vector<char *> a;
    for (auto &s : argv)
        a.push_back(s.data());
    a.push_back(nullptr);
    GPid pid = 0;
    ASSERT_TRUE(g_spawn_async(nullptr, a.data(), nullptr, G_SPAWN_DO_NOT_REAP_CHILD, nullptr, nullptr, &pid, nullptr));
    g_usleep(300000);
    // If it held root's writers, this would wait until killed (the old
    // lock: `timeout` ends it, 124) or give up after 5 s (exit 3).
    Result r = ibnm::test::spawn({"/usr/bin/timeout", "20", ibnm::test::cliPath(), "--keyfile-dir", cli.keyfileDir(),
                                  "-w", "5", "connection", "modify", "p", "mtu", "2000"});
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    g_spawn_close_pid(pid);
    EXPECT_EQ(r.status, 0) << r.err;
}

} // namespace
