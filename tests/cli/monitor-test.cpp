// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm monitor` and `device monitor` (cli/monitor.cpp): the changes other
// commands make on the (simulated) host appear as they happen, one line
// each (-t, -j: one terse line, one JSON object), until SIGTERM or Ctrl-C.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <glib.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

using ibnm::test::Cli;
using ibnm::test::Result;

namespace {

// A monitor running in the background, its standard output in a file;
// stopped with SIGTERM (and reaped) at the latest when it goes.
class Background {
public:
    Background(const Cli &cli, const std::vector<std::string> &args, const std::string &out) : out_(out)
    {
        std::string cmd = "exec \"$@\" > '" + out + "' 2>&1";
        std::vector<std::string> argv = {"/bin/sh", "-c", cmd, "sh", ibnm::test::cliPath(), "--keyfile-dir",
                                         cli.keyfileDir(), "--simulate", ibnm::test::hostFile(cli.host())};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<char *> a;
        for (auto &s : argv)
            a.push_back(s.data());
        a.push_back(nullptr);
        char **envp = g_get_environ();
        envp = g_environ_setenv(envp, "LC_ALL", "C", TRUE);
        for (const char *drop : {"IBNM_SIMULATE", "IBNM_SIMULATE_STATE", "IBNM_SYSFS_ROOT", "LANGUAGE", "NO_COLOR"})
            envp = g_environ_unsetenv(envp, drop);
        envp = g_environ_setenv(envp, "IBNM_SIMULATE_STATE", cli.stateDir().c_str(), TRUE);
        GError *error = nullptr;
        if (!g_spawn_async(nullptr, a.data(), envp, G_SPAWN_DO_NOT_REAP_CHILD, nullptr, nullptr, &pid_, &error)) {
            ADD_FAILURE() << error->message;
            g_error_free(error);
            pid_ = 0;
        }
        g_strfreev(envp);
    }
    ~Background() { stop(); }
    // The exit status after SIGTERM (-1: killed by a signal).
    int stop()
    {
        if (pid_ <= 0)
            return status_;
        kill(pid_, SIGTERM);
        int w = 0;
        waitpid(pid_, &w, 0);
        pid_ = 0;
        status_ = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
        return status_;
    }
    std::string output() const
    {
        char *text = nullptr;
        g_file_get_contents(out_.c_str(), &text, nullptr, nullptr);
        std::string s = text ? text : "";
        g_free(text);
        return s;
    }

private:
    std::string out_;
    GPid pid_ = 0;
    int status_ = -1;
};

// Brings the child up and down until every monitor printed each of
// `wanted` (a monitor starts by reading the host: changes made before
// that are not news to it), for at most 20 seconds.
bool toggleUntilSeen(const Cli &cli, const std::vector<std::pair<const Background *, std::vector<std::string>>> &wanted)
{
    gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
    while (g_get_monotonic_time() < end) {
        EXPECT_EQ(cli.run({"connection", "up", "c"}).status, 0);
        g_usleep(500 * 1000);
        EXPECT_EQ(cli.run({"connection", "down", "c"}).status, 0);
        g_usleep(500 * 1000);
        bool all = true;
        for (const auto &[monitor, lines] : wanted)
            for (const auto &l : lines)
                all = all && monitor->output().find(l) != std::string::npos;
        if (all)
            return true;
    }
    return false;
}

TEST(CliMonitor, PrintsIpoibChildrenCreatedAndRemovedAsTheyHappen)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "c", "parent", "mlx4_ib0", "p-key",
                       "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    Background human(cli, {"monitor"}, cli.tmp() / "human.out");
    Background terse(cli, {"-t", "device", "monitor"}, cli.tmp() / "terse.out");
    // Named devices only (an RDMA device's name: its ports), not the child.
    Background other(cli, {"device", "monitor", "mlx4_0"}, cli.tmp() / "other.out");
    Background json(cli, {"-j", "device", "monitor"}, cli.tmp() / "json.out");
    bool seen = toggleUntilSeen(
        cli, {{&human, {"mlx4_ib0.8002: device created\n", "mlx4_ib0.8002: device removed\n"}},
              {&terse, {"mlx4_ib0.8002:ipoib:created:\n", "mlx4_ib0.8002:ipoib:removed:\n"}},
              {&json, {"\"device\":\"mlx4_ib0.8002\",\"type\":\"ipoib\",\"event\":\"created\",\"state\":null}\n"}}});
    EXPECT_TRUE(seen) << human.output() << terse.output() << json.output();
    // SIGTERM (and Ctrl-C) end a monitor as nmcli's: exit 0.
    EXPECT_EQ(human.stop(), 0) << human.output();
    EXPECT_EQ(terse.stop(), 0) << terse.output();
    EXPECT_EQ(json.stop(), 0) << json.output();
    EXPECT_EQ(other.stop(), 0) << other.output();
    EXPECT_EQ(other.output(), "");
    // Only changes: nothing of the interfaces and ports that did not change.
    for (const auto &l : ibnm::test::lines(human.output()))
        EXPECT_EQ(l.rfind("mlx4_ib0.8002: device ", 0), 0u) << l;
    // Each -j line is one JSON object.
    for (const auto &l : ibnm::test::lines(json.output())) {
        ibnm::test::JsonValue v = ibnm::test::parseJson(l);
        EXPECT_EQ(v.kind, ibnm::test::JsonValue::Object) << l;
        ASSERT_TRUE(v.get("event")) << l;
    }
}

// Waits (at most 10 s) until `monitor`'s output holds `line`.
bool waitFor(const Background &monitor, const std::string &line)
{
    for (gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC; g_get_monotonic_time() < end;) {
        if (monitor.output().find(line) != std::string::npos)
            return true;
        g_usleep(20 * 1000);
    }
    return false;
}

// `ibnm monitor` follows the profiles too, in nmcli's words: the keyfile
// directory's inotify events announce each change, read once.
TEST(CliMonitor, PrintsProfilesCreatedChangedAndRemoved)
{
    Cli cli("mlx4-dual-port.host");
    g_mkdir_with_parents(cli.keyfileDir().c_str(), 0700);
    Background human(cli, {"monitor"}, cli.tmp() / "human.out");
    Background terse(cli, {"-t", "monitor"}, cli.tmp() / "terse.out");
    Background devices(cli, {"device", "monitor"}, cli.tmp() / "devices.out");
    // A monitor reads the store before it watches it: wait until both do.
    g_usleep(700 * 1000);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "c", "parent", "mlx4_ib0", "p-key",
                       "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    EXPECT_TRUE(waitFor(human, "c: connection profile created\n")) << human.output();
    ASSERT_EQ(cli.run({"connection", "modify", "c", "infiniband.mtu", "2044"}).status, 0);
    EXPECT_TRUE(waitFor(human, "c: connection profile changed\n")) << human.output();
    ASSERT_EQ(cli.run({"connection", "delete", "c"}).status, 0);
    EXPECT_TRUE(waitFor(human, "c: connection profile removed\n")) << human.output();
    EXPECT_TRUE(waitFor(terse, "c:connection:removed:\n")) << terse.output();
    EXPECT_EQ(human.stop(), 0);
    EXPECT_EQ(terse.stop(), 0);
    EXPECT_EQ(devices.stop(), 0);
    EXPECT_EQ(human.output(),
              "c: connection profile created\nc: connection profile changed\nc: connection profile removed\n");
    EXPECT_EQ(terse.output(), "c:connection:created:\nc:connection:changed:\nc:connection:removed:\n");
    // `device monitor` is about devices only, as nmcli's.
    EXPECT_EQ(devices.output(), "");
}

// This machine, in a network namespace of its own: `device monitor` reads
// the host when rtnetlink announces a link, not before, and soon after
// (IBNM_DEBUG=monitor counts the readings). Root only (unshare, veth).
TEST(CliMonitor, ReadsThisHostOnlyWhenRtnetlinkAnnouncesALink)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root for a network namespace (unshare -nm) and a veth pair";
    ibnm::test::TempDir tmp;
    std::string script = tmp / "run.sh";
    std::ofstream(script) << R"(set -u
mount -t sysfs none /sys || exit 77
ip link add vprobe type veth peer name vprobe1 2>/dev/null && ip link del vprobe || exit 77
IBNM_DEBUG=monitor "$1" device monitor > "$2/out" 2> "$2/err" &
pid=$!
for _ in $(seq 500); do grep -q announced "$2/err" && break; sleep 0.01; done
sleep 1.5 # three of the old one-second polls: no announcement, no reading
idle=$(grep -c "reading the host" "$2/err")
t0=${EPOCHREALTIME/./}
ip link add va type veth peer name vb
for _ in $(seq 500); do grep -q "reading the host" "$2/err" && break; sleep 0.005; done
t1=${EPOCHREALTIME/./}
sleep 0.3
kill -TERM $pid; wait $pid; rc=$?
echo "idle=$idle latency_ms=$(( (t1 - t0) / 1000 )) readings=$(grep -c "reading the host" "$2/err") rc=$rc"
)";
    std::string cmd = "unshare -nm bash '" + script + "' '" + ibnm::test::cliPath() + "' '" + tmp.path() +
                      "' 2>&1";
    std::string out;
    if (FILE *p = popen(cmd.c_str(), "r")) {
        char buf[512];
        while (fgets(buf, sizeof(buf), p))
            out += buf;
        int st = pclose(p);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
            GTEST_SKIP() << "no network namespace with veth here: " << out;
    }
    char *err = nullptr;
    g_file_get_contents((tmp.path() + "/err").c_str(), &err, nullptr, nullptr);
    std::string debug = err ? err : "";
    g_free(err);
    int idle = -1, latency = -1, readings = -1, rc = -1;
    ASSERT_EQ(sscanf(out.c_str(), "idle=%d latency_ms=%d readings=%d rc=%d", &idle, &latency, &readings, &rc), 4)
        << out << debug;
    EXPECT_NE(debug.find("announced: links"), std::string::npos) << debug;
    EXPECT_EQ(idle, 0) << debug;
    EXPECT_GE(readings, 1) << debug;
    // One reading per burst (a veth pair is several messages): at most the
    // pair's two links and the GID tables' second look, however many
    // messages announced them.
    EXPECT_LE(readings, 3) << debug;
    EXPECT_LT(latency, 400) << debug;
    std::printf("rtnetlink announcement to reading: %d ms; readings: %d\n", latency, readings);
    EXPECT_EQ(rc, 0) << debug;
}

TEST(CliMonitor, AnUnknownDeviceIsNotFound)
{
    Cli cli("mlx4-dual-port.host");
    Result r = cli.run({"device", "monitor", "ib9"});
    EXPECT_EQ(r.status, 10) << r.out << r.err;
    EXPECT_NE(r.err.find("ib9"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    // help is no device name.
    for (const auto &args : std::vector<std::vector<std::string>>{{"device", "monitor", "--help"}, {"monitor", "help"}}) {
        Result h = cli.run(args);
        EXPECT_EQ(h.status, 0) << h.err;
        EXPECT_NE(h.out.find("monitor"), std::string::npos) << h.out;
    }
}

} // namespace
