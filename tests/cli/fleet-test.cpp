// SPDX-License-Identifier: LGPL-2.1-or-later
// Many profiles at once: `connection up|down ID...` and `--all` (one plan,
// one rollback, one report), and `apply`/`show-state` with nmstate's schema.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using ibnm::test::Cli;
using ibnm::test::JsonValue;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

std::vector<std::string> addChild(const std::string &pkey, bool autoconnect = true)
{
    std::string name = "mlx4_ib0." + pkey;
    return {"connection", "add", "type", "infiniband", "con-name", name, "ifname", name, "parent", "mlx4_ib0",
            "p-key", "0x" + pkey, "connection.autoconnect", autoconnect ? "yes" : "no"};
}

// The netdevs of the simulated host (device status, terse).
std::vector<std::string> devices(const Cli &cli)
{
    Result r = cli.run({"-t", "-f", "DEVICE", "device", "status"});
    EXPECT_EQ(r.status, 0) << r.err;
    return lines(r.out);
}

bool has(const std::vector<std::string> &v, const std::string &s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(CliFleet, UpManyIdsIsOneTransactionAndOneReport)
{
    Cli cli("mlx4-dual-port.host");
    for (const char *k : {"8002", "8003", "8004"})
        ASSERT_EQ(cli.run(addChild(k)).status, 0);
    Result r = cli.run({"-j", "connection", "up", "mlx4_ib0.8002", "id", "mlx4_ib0.8003", "mlx4_ib0.8004"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    const JsonValue *report = v.get("report");
    ASSERT_NE(report, nullptr) << r.out;
    EXPECT_TRUE(report->get("success")->b);
    auto dev = devices(cli);
    for (const char *k : {"mlx4_ib0.8002", "mlx4_ib0.8003", "mlx4_ib0.8004"})
        EXPECT_TRUE(has(dev, k)) << k;

    Result down = cli.run({"connection", "down", "mlx4_ib0.8002", "mlx4_ib0.8003"});
    ASSERT_EQ(down.status, 0) << down.out << down.err;
    EXPECT_NE(down.out.find("2 connections successfully deactivated."), std::string::npos) << down.out;
    dev = devices(cli);
    EXPECT_FALSE(has(dev, "mlx4_ib0.8002"));
    EXPECT_FALSE(has(dev, "mlx4_ib0.8003"));
    EXPECT_TRUE(has(dev, "mlx4_ib0.8004"));
}

TEST(CliFleet, UpAllTakesEveryAutoconnectProfileAndDownAllUndoesIt)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(addChild("8002")).status, 0);
    ASSERT_EQ(cli.run(addChild("8003")).status, 0);
    ASSERT_EQ(cli.run(addChild("8005", false)).status, 0);
    Result r = cli.run({"connection", "up", "--all"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("2 connections successfully activated."), std::string::npos) << r.out;
    auto dev = devices(cli);
    EXPECT_TRUE(has(dev, "mlx4_ib0.8002"));
    EXPECT_TRUE(has(dev, "mlx4_ib0.8003"));
    EXPECT_FALSE(has(dev, "mlx4_ib0.8005")) << "autoconnect=no must not come up with --all";

    ASSERT_EQ(cli.run({"connection", "down", "--all"}).status, 0);
    dev = devices(cli);
    EXPECT_FALSE(has(dev, "mlx4_ib0.8002"));
    EXPECT_FALSE(has(dev, "mlx4_ib0.8003"));
}

TEST(CliFleet, AFailureInOneProfileRollsBackAllOfThem)
{
    Cli cli("mlx4-dual-port.host");
    for (const char *k : {"8002", "8003", "8004"})
        ASSERT_EQ(cli.run(addChild(k)).status, 0);
    auto before = devices(cli);
    // The third child's creation fails: the first two are undone.
    Result r = cli.run({"-j", "connection", "up", "--all"}, {},
                       {{"IBNM_FAKE_FAIL", "op=createIpoibChild,nth=3,errno=EIO"}});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    JsonValue v = parseJson(r.out);
    ASSERT_NE(v.get("report"), nullptr) << r.out;
    EXPECT_FALSE(v.get("report")->get("success")->b);
    EXPECT_TRUE(v.get("report")->get("rolled-back")->b);
    EXPECT_EQ(devices(cli), before);
}

TEST(CliFleet, UnknownIdChangesNothingAndAllWithIdsIsAUsageError)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(addChild("8002")).status, 0);
    auto before = devices(cli);
    Result r = cli.run({"connection", "up", "mlx4_ib0.8002", "nosuch"});
    EXPECT_EQ(r.status, 10);
    EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
    EXPECT_EQ(devices(cli), before);
    Result mixed = cli.run({"connection", "up", "--all", "mlx4_ib0.8002"});
    EXPECT_EQ(mixed.status, 2);
    EXPECT_NE(mixed.err.find("--all"), std::string::npos) << mixed.err;
    EXPECT_EQ(devices(cli), before);
}

} // namespace
