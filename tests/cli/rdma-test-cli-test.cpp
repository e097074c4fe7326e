// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm rdma test` where no traffic can flow: the simulated host and a sysfs
// tree say so (exit 2) rather than pretend; its arguments; and the line
// `connection up` ends with for a profile with RDMA settings. The test
// itself runs on a real kernel in make check-kernel
// (tests/kernel/rdma-test-guest.sh).
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::Result;

TEST(CliRdmaTest, TheSimulatedHostSaysItHasNoDataPath)
{
    Cli cli("mlx5-roce.host");
    Result r = cli.run({"rdma", "test", "192.0.2.2"});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("Error: the simulated host has no RDMA data path"), std::string::npos) << r.err;
    r = cli.run({"-j", "rdma", "test", "--listen"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "") << "no figures made up";
}

TEST(CliRdmaTest, ASysfsTreeHasNoDataPathEither)
{
    ibnm::test::TempDir sys;
    sys.mkdir("class/net");
    sys.mkdir("class/infiniband");
    Result r = ibnm::test::spawn({ibnm::test::cliPath(), "--sysfs-root", sys.path(), "rdma", "test", "192.0.2.2"});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("is a sysfs tree read from files: it has no RDMA data path to test"), std::string::npos)
        << r.err;
}

TEST(CliRdmaTest, BadArgumentsAreNamed)
{
    Cli cli("mlx5-roce.host");
    struct Case {
        std::vector<std::string> args;
        const char *says;
    } cases[] = {
        {{"rdma", "test"}, "missing the listener's address"},
        {{"rdma", "test", "192.0.2.2", "--tos", "300"}, "invalid ToS '300'"},
        {{"rdma", "test", "192.0.2.2", "--count", "-1"}, "invalid value '-1' for --count"},
        {{"rdma", "test", "192.0.2.2", "--ping-size", "5000"}, "invalid value '5000' for --ping-size"},
        {{"rdma", "test", "192.0.2.2", "--duration", "x"}, "invalid value 'x' for --duration"},
        {{"rdma", "test", "192.0.2.2", "--port"}, "value is missing for '--port'"},
        {{"rdma", "test", "192.0.2.2", "--frobnicate", "1"}, "argument '--frobnicate' not understood"},
        {{"rdma", "test", "192.0.2.2", "192.0.2.3"}, "argument '192.0.2.3' not understood"},
        {{"rdma", "test", "--listen", "--source", "192.0.2.1"}, "--source is for a client"},
    };
    for (const auto &c : cases) {
        Result r = cli.run(c.args);
        EXPECT_EQ(r.status, 2) << c.says << "\n" << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    }
    Result r = cli.run({"rdma", "test", "--profile", "nosuch", "192.0.2.2"});
    EXPECT_EQ(r.status, 10) << r.err;
    EXPECT_NE(r.err.find("unknown connection 'nosuch'"), std::string::npos) << r.err;
}

TEST(CliRdmaTest, ConnectionUpOfAnRdmaProfileEndsWithTheCommandThatVerifiesIt)
{
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "p4p2", "ifname", "p4p2",
                       "rdma.roce-mode", "v1", "rdma.roce-tos", "106"})
                  .status,
              0);
    Result up = cli.run({"connection", "up", "p4p2"});
    ASSERT_EQ(up.status, 0) << up.err;
    auto lines = ibnm::test::lines(up.out);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[lines.size() - 2], "Connection 'p4p2' successfully activated.");
    EXPECT_EQ(lines.back(), "To verify the RDMA path: ibnm rdma test --profile p4p2 PEER (with 'ibnm rdma test "
                            "--listen' running on PEER); not run.");
    // Named, not run: the simulated host has no data path, and nothing failed.
    // A profile without RDMA settings, a dry run and -t get no such line.
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "plain", "ifname", "p4p1"}).status, 0);
    Result plain = cli.run({"connection", "up", "plain"});
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(plain.out.find("ibnm rdma test"), std::string::npos) << plain.out;
    Result dry = cli.run({"--dry-run", "connection", "up", "p4p2"});
    EXPECT_EQ(dry.out.find("ibnm rdma test"), std::string::npos) << dry.out;
    Result terse = cli.run({"-t", "connection", "up", "p4p2"});
    EXPECT_EQ(terse.out.find("ibnm rdma test"), std::string::npos) << terse.out;
}

TEST(CliRdmaTest, AnIdThatNeedsQuotingIsQuoted)
{
    Cli cli("mlx5-roce.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "roce p4p2", "ifname", "p4p2",
                       "rdma.roce-tos", "32"})
                  .status,
              0);
    Result up = cli.run({"connection", "up", "roce p4p2"});
    ASSERT_EQ(up.status, 0) << up.err;
    EXPECT_NE(up.out.find("ibnm rdma test --profile 'roce p4p2' PEER"), std::string::npos) << up.out;
}
