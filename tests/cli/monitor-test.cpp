// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm monitor` and `device monitor` (cli/monitor.cpp): the changes other
// commands make on the (simulated) host appear as they happen, one line
// each (-t, -j: one terse line, one JSON object), until SIGTERM or Ctrl-C.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <glib.h>
#include <gtest/gtest.h>

#include <csignal>
#include <sys/types.h>
#include <sys/wait.h>

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
