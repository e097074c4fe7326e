// SPDX-License-Identifier: LGPL-2.1-or-later
// Parallel ibnm processes on one keyfile store and one simulated host: adds
// of one con-name, modifications of one profile, activations of one profile.
// Standalone ibnm has no daemon to serialise it (NetworkManager has): the
// store's lock covers a whole read-modify-write, the host's lock a whole
// plan-apply-verify. Each test prints what it counted.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
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

constexpr int kProcesses = 8;
constexpr int kRounds = 5;

// Runs every argument list at once, each in its own ibnm process.
std::vector<Result> runParallel(const Cli &cli, const std::vector<std::vector<std::string>> &argss)
{
    std::vector<Result> results(argss.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < argss.size(); i++)
        threads.emplace_back([&, i] { results[i] = cli.run(argss[i]); });
    for (auto &t : threads)
        t.join();
    return results;
}

size_t countKeyfiles(const Cli &cli)
{
    size_t n = 0;
    for (const auto &name : cli.keyfiles())
        n += name.size() > 13 && name.compare(name.size() - 13, 13, ".nmconnection") == 0;
    return n;
}

TEST(Concurrency, ParallelAddsOfOneNameStoreOneProfile)
{
    unsigned ok = 0, refused = 0;
    for (int round = 0; round < kRounds; round++) {
        Cli cli;
        // Different interfaces: only the name is shared.
        std::vector<std::vector<std::string>> argss;
        for (int i = 0; i < kProcesses; i++)
            argss.push_back(
                {"connection", "add", "type", "infiniband", "con-name", "same", "ifname", "ib" + std::to_string(i)});
        auto results = runParallel(cli, argss);
        unsigned roundOk = 0;
        for (const auto &r : results) {
            if (r.status == 0) {
                roundOk++;
            } else {
                refused++;
                EXPECT_NE(r.err.find("a profile named 'same' exists already"), std::string::npos) << r.err;
                EXPECT_EQ(r.status, 1) << r.err;
            }
        }
        ok += roundOk;
        EXPECT_EQ(roundOk, 1u) << "round " << round;
        EXPECT_EQ(countKeyfiles(cli), 1u) << "round " << round;
        // No temporary file is left behind.
        EXPECT_EQ(cli.keyfiles().size(), 1u);
    }
    std::printf("parallel add: %d rounds of %d processes: %u added, %u refused (name exists)\n", kRounds,
                kProcesses, ok, refused);
}

TEST(Concurrency, ParallelModificationsLoseNothing)
{
    unsigned kept = 0;
    for (int round = 0; round < kRounds; round++) {
        Cli cli;
        ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "p", "ifname", "ib0"}).status, 0);
        std::vector<std::vector<std::string>> argss;
        for (int i = 0; i < kProcesses; i++)
            argss.push_back({"connection", "modify", "p", "+ipv4.dns", "10.0.0." + std::to_string(i + 1)});
        for (const auto &r : runParallel(cli, argss))
            EXPECT_EQ(r.status, 0) << r.err;
        Result show = cli.run({"-g", "ipv4.dns", "connection", "show", "p"});
        ASSERT_EQ(show.status, 0) << show.err;
        for (int i = 0; i < kProcesses; i++) {
            bool found = show.out.find("10.0.0." + std::to_string(i + 1)) != std::string::npos;
            kept += found;
            EXPECT_TRUE(found) << "round " << round << ": update " << i + 1 << " lost: " << show.out;
        }
    }
    std::printf("parallel modify: %d rounds of %d processes: %u of %d updates kept\n", kRounds, kProcesses, kept,
                kRounds * kProcesses);
}

// The simulated host's device status row of `name`, or "" when absent.
std::string statusLine(const Cli &cli, const std::string &name)
{
    Result r = cli.run({"-t", "-f", "DEVICE,MODE,P-KEY", "device", "status"});
    EXPECT_EQ(r.status, 0) << r.err;
    for (const auto &l : lines(r.out))
        if (l.compare(0, name.size() + 1, name + ":") == 0)
            return l;
    return "";
}

TEST(Concurrency, ParallelUpsOfOneProfileAllSeeTheChild)
{
    unsigned activated = 0, nothing = 0;
    for (int round = 0; round < kRounds; round++) {
        Cli cli("mlx4-dual-port.host");
        ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "child", "ifname", "mlx4_ib0.8002",
                           "parent", "mlx4_ib0", "p-key", "0x8002", "transport-mode", "connected", "mtu", "65520",
                           "ipv4.method", "disabled"})
                      .status,
                  0);
        auto results = runParallel(cli, std::vector<std::vector<std::string>>(kProcesses, {"connection", "up", "child"}));
        unsigned roundNothing = 0;
        for (const auto &r : results) {
            EXPECT_EQ(r.status, 0) << r.out << r.err;
            EXPECT_NE(r.out.find("successfully activated"), std::string::npos) << r.out;
            activated += r.status == 0;
            roundNothing += r.out.find("Nothing to do") != std::string::npos;
        }
        nothing += roundNothing;
        // One run did the work; the others found it done and undid nothing.
        EXPECT_EQ(roundNothing, unsigned(kProcesses - 1)) << "round " << round;
        EXPECT_EQ(statusLine(cli, "mlx4_ib0.8002"), "mlx4_ib0.8002:connected:0x8002") << "round " << round;
    }
    std::printf("parallel up: %d rounds of %d processes: %u activated (%u found nothing to do), child present "
                "after every round\n",
                kRounds, kProcesses, activated, nothing);
}

TEST(Concurrency, ParallelUpsAndDownsEachVerify)
{
    unsigned ok = 0, inactive = 0;
    for (int round = 0; round < kRounds; round++) {
        Cli cli("mlx4-dual-port.host");
        ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "child", "ifname", "mlx4_ib0.8002",
                           "parent", "mlx4_ib0", "p-key", "0x8002", "ipv4.method", "disabled"})
                      .status,
                  0);
        std::vector<std::vector<std::string>> argss;
        for (int i = 0; i < kProcesses; i++)
            argss.push_back({"connection", i % 2 ? "down" : "up", "child"});
        auto results = runParallel(cli, argss);
        for (size_t i = 0; i < results.size(); i++) {
            const Result &r = results[i];
            // Each run verifies what it did on a host no other run changed
            // meanwhile: none fails, none rolls back. A `down` that finds
            // the profile no longer active says so, as nmcli (exit 10).
            bool notActive = i % 2 && r.status == 10 &&
                             r.err.find("'child' is not an active connection") != std::string::npos;
            EXPECT_TRUE(r.status == 0 || notActive) << r.out << r.err;
            EXPECT_EQ(r.out.find("undone"), std::string::npos) << r.out;
            ok += r.status == 0;
            inactive += notActive;
        }
    }
    EXPECT_GE(ok, unsigned(kRounds * kProcesses / 2)) << "an up failed";
    std::printf("parallel up and down: %d rounds of %d processes: %u succeeded and verified, %u downs found the "
                "profile inactive\n",
                kRounds, kProcesses, ok, inactive);
}

} // namespace

namespace {

// Bytes that are not UTF-8 are refused at add and import (exit 2, the
// property named); nothing is written, so no profile disappears on reading.
TEST(HostileCli, NonUtf8ValuesAreRefusedAtAddAndImport)
{
    Cli cli;
    Result add = cli.run({"connection", "add", "type", "infiniband", "con-name", "caf\xe9", "ifname", "ib0"});
    EXPECT_EQ(add.status, 2) << add.err;
    EXPECT_NE(add.err.find("connection.id"), std::string::npos) << add.err;
    Result parent = cli.run({"connection", "add", "type", "infiniband", "ifname", "ib0.8001", "parent", "ib\xe9",
                             "p-key", "0x8001"});
    EXPECT_NE(parent.status, 0) << parent.err;
    cli.tmp().write("ifcfg-x", "TYPE=InfiniBand\nDEVICE=ib0\nNAME=$'caf\\xe9'\n");
    Result imp = cli.run({"connection", "import", "type", "ifcfg-rh", "file", cli.tmp() / "ifcfg-x"});
    EXPECT_EQ(imp.status, 2) << imp.err;
    EXPECT_NE(imp.err.find("connection.id"), std::string::npos) << imp.err;
    EXPECT_TRUE(cli.keyfiles().empty());
}

TEST(HostileCli, InterfaceNameTheKernelRefusesIsNamed)
{
    Cli cli;
    Result r = cli.run({"connection", "add", "type", "infiniband", "ifname", "ib/0"});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("connection.interface-name"), std::string::npos) << r.err;
    EXPECT_TRUE(cli.keyfiles().empty());
}

TEST(HostileCli, TablesEscapeControlCharacters)
{
    Cli cli;
    Result add = cli.run({"connection", "add", "type", "infiniband", "con-name", "x\x1b[2Jy\nz", "ifname", "ib0"});
    ASSERT_EQ(add.status, 0) << add.err;
    // The success message shows the id escaped too.
    EXPECT_EQ(add.out.find('\x1b'), std::string::npos) << add.out;
    EXPECT_NE(add.out.find("Connection 'x\\x1b[2Jy\\x0az'"), std::string::npos) << add.out;
    for (std::vector<std::string> args : {std::vector<std::string>{"connection", "show"},
                                          std::vector<std::string>{"-t", "connection", "show"},
                                          std::vector<std::string>{"connection", "show", "x\x1b[2Jy\nz"}}) {
        Result r = cli.run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("x1b[2Jy"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("y\nz"), std::string::npos) << r.out;
    }
}

// -j prints every control character escaped (json-glib escapes them, and
// JsonDoc the U+001F json-glib writes as is): nothing below U+0020 but the
// layout's newlines, no U+007F, and the id parses back unchanged.
TEST(HostileCli, JsonEscapesControlCharacters)
{
    Cli cli;
    const std::string id = "x\x1b[2Jy\nz\x7fw\x1fv\x08u\x01t";
    Result add = cli.run({"connection", "add", "type", "infiniband", "con-name", id, "ifname", "ib0"});
    ASSERT_EQ(add.status, 0) << add.err;
    for (std::vector<std::string> args : {std::vector<std::string>{"-j", "connection", "show"},
                                          std::vector<std::string>{"-j", "connection", "show", id}}) {
        Result r = cli.run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        for (char c : r.out)
            EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != '\x7f'))
                << "raw byte " << static_cast<int>(static_cast<unsigned char>(c)) << " in:\n" << r.out;
        for (const char *escape : {"\\u001b", "\\n", "\\u007f", "\\u001f", "\\b", "\\u0001"})
            EXPECT_NE(r.out.find(escape), std::string::npos) << escape << " in:\n" << r.out;
        JsonValue v = parseJson(r.out);
        const JsonValue *name = args.size() == 3 ? v.get("connections") : v.get("connection");
        ASSERT_TRUE(name) << r.out;
        name = args.size() == 3 ? (name->items.empty() ? nullptr : name->items[0].get("name"))
                                : name->get("connection.id");
        ASSERT_TRUE(name) << r.out;
        EXPECT_EQ(name->s, id);
    }
}

} // namespace

namespace {

// A user who may not read root's 0600 keyfile is told so (exit 1), not that
// the profile is unknown (exit 10).
TEST(HostileCli, RootOnlyProfileIsAPermissionErrorForOthers)
{
    if (geteuid() != 0 || !g_file_test("/usr/bin/setpriv", G_FILE_TEST_IS_EXECUTABLE))
        GTEST_SKIP() << "needs root and setpriv to run ibnm as nobody";
    Result reach = ibnm::test::spawn({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                      "/bin/sh", "-c", "test -x \"$0\"", ibnm::test::cliPath()});
    if (reach.status != 0)
        GTEST_SKIP() << "nobody cannot run " << ibnm::test::cliPath() << " (a build tree in a private directory)";
    Cli cli;
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "p", "ifname", "ib0"}).status, 0);
    ASSERT_EQ(g_chmod(cli.tmp().path().c_str(), 0755), 0);
    ASSERT_EQ(g_chmod(cli.keyfileDir().c_str(), 0755), 0);
    Result r = ibnm::test::spawn({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                  ibnm::test::cliPath(), "--keyfile-dir", cli.keyfileDir(), "connection", "show", "p"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("permission denied"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(cli.keyfileDir() + "/p.nmconnection"), std::string::npos) << r.err;
}

} // namespace

namespace {

// kill -9 between creating a temporary file and renaming it leaves the file;
// the next run that takes the lock removes it: its name says which process
// wrote it (pid and start time), and that process has ended.
TEST(Concurrency, StaleTemporaryFilesOfKilledWritersAreRemoved)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "p", "ifname", "mlx4_ib0",
                       "ipv4.method", "disabled"}).status, 0);
    ASSERT_EQ(cli.run({"connection", "up", "p"}).status, 0);
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    ASSERT_GT(dead, 0);
    waitpid(dead, nullptr, 0);
    cli.tmp().write("keyfiles/.p.nmconnection.ibnm-" + std::to_string(dead) + "-1.Ab12Cd", "half a keyfile");
    cli.tmp().write("state/state.Xy98Zw", "half a snapshot");
    cli.tmp().write("keyfiles/.other-file", "not ours");
    ASSERT_EQ(cli.run({"connection", "modify", "p", "mtu", "2044"}).status, 0);
    ASSERT_EQ(cli.run({"connection", "up", "p"}).status, 0);
    auto names = cli.keyfiles();
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{".other-file", "p.nmconnection"}));
    EXPECT_FALSE(g_file_test((cli.stateDir() + "/state.Xy98Zw").c_str(), G_FILE_TEST_EXISTS));
    std::printf("stale temporary files: 2 left by killed writers, 2 removed, 1 other file kept\n");
}

} // namespace

namespace {

// Starts `ibnm ARGS` on the store and simulated host of `cli`, not waiting.
GPid startCli(const Cli &cli, const std::string &host, const std::vector<std::string> &args)
{
    std::vector<std::string> argv = {ibnm::test::cliPath(), "--keyfile-dir", cli.keyfileDir(), "--simulate",
                                     ibnm::test::hostFile(host)};
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

} // namespace

// kill -9 at random points of activations and deactivations of a simulated
// host: every state left behind parses (the next command reads it), and the
// next `up` converges to the profiles, a second `up` has nothing to do, and
// `down` takes it all down again.
TEST(Concurrency, KilledActivationsLeaveAHostThatConverges)
{
    const std::string host = "mlx4-dual-port.host";
    Cli cli(host);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "child", "ifname", "mlx4_ib0.8002",
                       "parent", "mlx4_ib0", "p-key", "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "base", "ifname", "mlx4_ib0",
                       "transport-mode", "connected", "mtu", "65520", "ipv4.method", "manual", "ipv4.addresses",
                       "192.0.2.1/24", "ipv6.method", "disabled"})
                  .status,
              0);
    GRand *rand = g_rand_new_with_seed(20261124);
    constexpr int kKills = 30;
    unsigned midway = 0, finished = 0;
    for (int i = 0; i < kKills; i++) {
        GPid pid = startCli(cli, host, {"connection", i % 2 ? "down" : "up", "child", "base"});
        ASSERT_NE(pid, 0);
        g_usleep(gulong(g_rand_int_range(rand, 0, 60000)));
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            midway++;
        } else {
            finished++;
        }
        g_spawn_close_pid(pid);
        Result r = cli.run({"-t", "device", "status"});
        ASSERT_EQ(r.status, 0) << "after kill " << i << ": " << r.err;
    }
    g_rand_free(rand);
    Result up = cli.run({"connection", "up", "child", "base"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_EQ(statusLine(cli, "mlx4_ib0.8002"), "mlx4_ib0.8002:datagram:0x8002");
    EXPECT_EQ(statusLine(cli, "mlx4_ib0").rfind("mlx4_ib0:connected:", 0), 0u) << statusLine(cli, "mlx4_ib0");
    Result again = cli.run({"connection", "up", "child", "base"});
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
    Result down = cli.run({"connection", "down", "child", "base"});
    EXPECT_EQ(down.status, 0) << down.out << down.err;
    EXPECT_EQ(statusLine(cli, "mlx4_ib0.8002"), "");
    std::printf("kill -9 of activations: %d runs, %u killed midway, %u had finished; the host converged after "
                "every kill\n",
                kKills, midway, finished);
}
