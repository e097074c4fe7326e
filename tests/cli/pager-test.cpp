// SPDX-License-Identifier: LGPL-2.1-or-later
// The pager and tables that fit the terminal (cli/pager.hpp), as nmcli:
// on a terminal (util-linux's script(1) gives one) output for people goes
// through $PAGER, never with --no-pager, -t, -g, -j or through a pipe; a
// table wider than the terminal wraps its widest columns, and the check
// table's messages do not repeat their PROPERTY.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <glib/gstdio.h>
#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::Result;

namespace {

const char *const kScript = "/usr/bin/script";

// Single quotes for sh.
std::string quoted(const std::string &s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// `ibnm ARGS` on a terminal of `columns` columns, with PAGER marking each
// line it shows; what the terminal received, without carriage returns.
Result onTerminal(const Cli &cli, const std::vector<std::string> &args, unsigned columns,
                  const std::string &pager = "sed s/^/PAGED:/", const std::string &host = "mlx5-roce.host",
                  std::map<std::string, std::string> env = {{"TERM", "dumb"}})
{
    std::string cmd = "stty cols " + std::to_string(columns) + " rows 50; PAGER=" + quoted(pager) + " " +
                      quoted(ibnm::test::cliPath()) + " --keyfile-dir " + quoted(cli.keyfileDir()) + " --simulate " +
                      quoted(ibnm::test::hostFile(host));
    for (const auto &a : args)
        cmd += " " + quoted(a);
    env["IBNM_SIMULATE_STATE"] = cli.stateDir();
    Result r = ibnm::test::spawn({kScript, "-q", "-e", "-c", cmd, "/dev/null"}, env);
    std::string clean;
    for (char c : r.out)
        if (c != '\r')
            clean += c;
    r.out = clean;
    return r;
}

// `line` without its ANSI SGR escapes (ESC [ ... m).
std::string withoutSgr(const std::string &line)
{
    std::string out;
    for (size_t i = 0; i < line.size(); i++) {
        if (line[i] == '\033' && i + 1 < line.size() && line[i + 1] == '[') {
            size_t m = line.find('m', i);
            if (m != std::string::npos) {
                i = m;
                continue;
            }
        }
        out += line[i];
    }
    return out;
}

bool haveScript()
{
    return g_file_test(kScript, G_FILE_TEST_IS_EXECUTABLE);
}

} // namespace

TEST(CliPager, TablesGoThroughThePagerOnATerminal)
{
    if (!haveScript())
        GTEST_SKIP() << "no script(1) (util-linux) to give a terminal";
    Cli cli("mlx5-roce.host");
    Result r = onTerminal(cli, {"rdma", "link", "show"}, 200);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("PAGED:LINK"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PAGED:mlx5_0/1"), std::string::npos) << r.out;
    Result record = onTerminal(cli, {"device", "show", "mlx5_0"}, 200);
    EXPECT_NE(record.out.find("PAGED:GENERAL.DEVICE"), std::string::npos) << record.out;
}

TEST(CliPager, NeverWithNoPagerTerseJsonEmptyPagerOrAPipe)
{
    if (!haveScript())
        GTEST_SKIP() << "no script(1) (util-linux) to give a terminal";
    Cli cli("mlx5-roce.host");
    for (const auto &args : std::vector<std::vector<std::string>>{{"--no-pager", "rdma", "link", "show"},
                                                                  {"-t", "rdma", "link", "show"},
                                                                  {"-g", "LINK", "rdma", "link", "show"},
                                                                  {"-j", "rdma", "link", "show"}}) {
        Result r = onTerminal(cli, args, 200);
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        EXPECT_EQ(r.out.find("PAGED:"), std::string::npos) << args[0] << "\n" << r.out;
        EXPECT_NE(r.out.find("mlx5_0"), std::string::npos) << r.out;
    }
    Result empty = onTerminal(cli, {"rdma", "link", "show"}, 200, "");
    EXPECT_EQ(empty.out.find("PAGED:"), std::string::npos) << empty.out;
    EXPECT_NE(empty.out.find("mlx5_0/1"), std::string::npos) << empty.out;
    // Through a pipe (the other tests' way): no pager whatever PAGER says.
    Result piped = cli.run({"rdma", "link", "show"}, {}, {{"PAGER", "sed s/^/PAGED:/"}});
    EXPECT_EQ(piped.out.find("PAGED:"), std::string::npos) << piped.out;
}

TEST(CliPager, CheckTableFitsTheTerminalWithoutRepeatingTheProperty)
{
    if (!haveScript())
        GTEST_SKIP() << "no script(1) (util-linux) to give a terminal";
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "p4p1", "ifname", "p4p1", "ipv4.method",
                       "disabled", "ipv6.method", "disabled", "rdma.roce-tos", "dscp:46"})
                  .status,
              0);
    Result r = onTerminal(cli, {"--no-pager", "check", "p4p1"}, 100);
    ASSERT_NE(r.out.find("SEVERITY"), std::string::npos) << r.out;
    // The columns a line takes: its colour escapes (SGR) take none.
    for (const auto &l : ibnm::test::lines(r.out))
        EXPECT_LE(g_utf8_strlen(withoutSgr(l).c_str(), -1), 100) << l;
    EXPECT_EQ(r.out.find("rdma.roce-tos: ToS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not lossless"), std::string::npos) << r.out;
    // -t keeps each finding on one line, the message whole.
    Result terse = cli.run({"-t", "-f", "MESSAGE", "check", "p4p1"});
    EXPECT_NE(terse.out.find("rdma.roce-tos\\: ToS 184"), std::string::npos) << terse.out;
}

// apt's progress on a terminal: each phase's counter, to its end; never
// through a pipe (nor with -t or -j, which the other apply tests read).
TEST(CliPager, ApplyShowsProgressPerPhaseOnATerminalOnly)
{
    if (!haveScript())
        GTEST_SKIP() << "no script(1) (util-linux) to give a terminal";
    Cli cli("mlx4-dual-port.host");
    std::string doc = IBNM_TOP_SRCDIR "/tests/cli/state/pkey-create.yml";
    Result r = onTerminal(cli, {"apply", doc}, 200, "sed s/^/PAGED:/", "mlx4-dual-port.host");
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("Configuring the host: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Writing profiles: 1/1 (100%)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("The desired state was applied."), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("PAGED:"), std::string::npos) << r.out; // a change's report is not paged
    Cli piped("mlx4-dual-port.host");
    Result p = piped.run({"apply", doc});
    ASSERT_EQ(p.status, 0) << p.out << p.err;
    EXPECT_EQ(p.out.find("Writing profiles"), std::string::npos) << p.out;
    EXPECT_EQ(p.out.find('\r'), std::string::npos) << p.out;
}

// The user who quits the pager before the end (here a pager that reads one
// line) closed its pipe: exit 0 and no error (before: killed by SIGPIPE,
// 141). The output is larger than a pipe holds, so the writes after the
// pager left fail; the simulated host runs the full CLI module, whose pager
// it is, and the program's own check of standard output must not object.
TEST(CliPager, QuittingThePagerEarlyIsNoError)
{
    if (!haveScript())
        GTEST_SKIP() << "no script(1) (util-linux) to give a terminal";
    Cli cli("cx6-mlx5-ib.host");
    for (unsigned i = 0; i < 400; i++) {
        std::string text = "[connection]\nid=child-" + std::to_string(i) + "\ntype=infiniband\n\n[infiniband]\np-key=" +
                           std::to_string(0x100 + i) + "\nparent=ib0\ntransport-mode=datagram\n\n[ipv4]\n"
                           "method=disabled\n\n[ipv6]\nmethod=ignore\n";
        std::string path = cli.keyfileDir() + "/child-" + std::to_string(i) + ".nmconnection";
        ASSERT_TRUE(g_file_set_contents(path.c_str(), text.c_str(), -1, nullptr));
        g_chmod(path.c_str(), 0600);
    }
    Result r = onTerminal(cli, {"check"}, 200, "head -n 1 >/dev/null", "cx6-mlx5-ib.host");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out.find("could not write"), std::string::npos) << r.out;
}

// --color auto as nmcli's: colour on a terminal, none with TERM=dumb, with
// NO_COLOR set (even empty) or when terminal-colors.d says disable; --color
// yes colours anyway.
TEST(CliColor, AutoFollowsNmcliRules)
{
    if (!haveScript())
        GTEST_SKIP() << "no script(1) (util-linux) to give a terminal";
    Cli cli("mlx5-roce.host");
    ibnm::test::TempDir config;
    std::vector<std::string> args = {"--no-pager", "device", "status"};
    auto coloured = [&](std::map<std::string, std::string> env, std::vector<std::string> a) {
        env.emplace("XDG_CONFIG_HOME", config.path());
        Result r = onTerminal(cli, a, 200, "cat", "mlx5-roce.host", env);
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        EXPECT_NE(r.out.find("ACTIVE"), std::string::npos) << r.out;
        return r.out.find("\033[") != std::string::npos;
    };
    EXPECT_TRUE(coloured({{"TERM", "xterm"}}, args));
    EXPECT_FALSE(coloured({{"TERM", "dumb"}}, args));
    EXPECT_FALSE(coloured({{"TERM", "xterm"}, {"NO_COLOR", ""}}, args));
    std::vector<std::string> yes = {"--color", "yes"};
    yes.insert(yes.end(), args.begin(), args.end());
    EXPECT_TRUE(coloured({{"TERM", "dumb"}}, yes));
    // util-linux's files: ibnm@TERM before ibnm, the first found decides.
    config.write("terminal-colors.d/ibnm.disable", "");
    EXPECT_FALSE(coloured({{"TERM", "xterm"}}, args));
    config.write("terminal-colors.d/ibnm@xterm.enable", "");
    EXPECT_TRUE(coloured({{"TERM", "xterm"}}, args));
    EXPECT_FALSE(coloured({{"TERM", "vt100"}}, args));
}
