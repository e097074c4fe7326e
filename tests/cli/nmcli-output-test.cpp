// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli's global options and output bytes (issue 15): -t, -g, -e, -m, -p as
// nmcli 1.42 prints them (the expected bytes below were printed by nmcli
// 1.42.4 in ../shared/labs/nm for the same three profiles), -s and -w
// accepted, -a refused; `connection show`'s TYPE and DEVICE columns.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::JsonValue;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

// Three profiles whose names need escaping and whose types have short names.
void addThree(const Cli &cli)
{
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "eth:one\\x", "ifname", "veth0",
                       "connection.uuid", "11111111-1111-4111-8111-111111111111"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "ib0", "ifname", "ib0",
                       "connection.uuid", "22222222-2222-4222-8222-222222222222"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                       "mode=active-backup", "connection.uuid", "33333333-3333-4333-8333-333333333333"})
                  .status,
              0);
}

struct Format {
    const char *name;
    std::vector<std::string> options;
    const char *out;
};

class CliNmcliOutput : public ::testing::TestWithParam<Format> {};

TEST_P(CliNmcliOutput, ConnectionShowPrintsNmclisBytes)
{
    const Format &f = GetParam();
    Cli cli;
    addThree(cli);
    std::vector<std::string> args = f.options;
    args.insert(args.end(), {"connection", "show"});
    Result r = cli.run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, f.out);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, CliNmcliOutput,
    ::testing::Values(
        // Every column is padded to its widest cell plus one, so lines end in
        // a space; TYPE is the short name in tables.
        Format{"Tabular", {},
               "NAME       UUID                                  TYPE        DEVICE \n"
               "bond0      33333333-3333-4333-8333-333333333333  bond        --     \n"
               "eth:one\\x  11111111-1111-4111-8111-111111111111  ethernet    --     \n"
               "ib0        22222222-2222-4222-8222-222222222222  infiniband  --     \n"},
        // Terse: ':' and '\' escaped, the type's full name, no "--".
        Format{"Terse", {"-t"},
               "bond0:33333333-3333-4333-8333-333333333333:bond:\n"
               "eth\\:one\\\\x:11111111-1111-4111-8111-111111111111:802-3-ethernet:\n"
               "ib0:22222222-2222-4222-8222-222222222222:infiniband:\n"},
        Format{"TerseNoEscape", {"-e", "no", "-t"},
               "bond0:33333333-3333-4333-8333-333333333333:bond:\n"
               "eth:one\\x:11111111-1111-4111-8111-111111111111:802-3-ethernet:\n"
               "ib0:22222222-2222-4222-8222-222222222222:infiniband:\n"},
        Format{"GetValues", {"-g", "name,type,device"},
               "bond0:bond:\neth\\:one\\\\x:802-3-ethernet:\nib0:infiniband:\n"},
        Format{"GetValuesNoEscape", {"--escape=no", "-g", "name,device"}, "bond0:\neth:one\\x:\nib0:\n"},
        Format{"Multiline", {"-m", "multiline", "-f", "name,type,device"},
               "NAME:                                   bond0\n"
               "TYPE:                                   bond\n"
               "DEVICE:                                 --\n"
               "NAME:                                   eth:one\\x\n"
               "TYPE:                                   ethernet\n"
               "DEVICE:                                 --\n"
               "NAME:                                   ib0\n"
               "TYPE:                                   infiniband\n"
               "DEVICE:                                 --\n"},
        // Terse multiline: no padding and no escaping (nmcli's).
        Format{"TerseMultiline", {"-t", "-m", "multi", "-f", "name,type"},
               "NAME:bond0\nTYPE:bond\nNAME:eth:one\\x\nTYPE:802-3-ethernet\nNAME:ib0\nTYPE:infiniband\n"},
        Format{"Pretty", {"-p"},
               "======================================\n"
               "  NetworkManager connection profiles\n"
               "======================================\n"
               "NAME       UUID                                  TYPE        DEVICE \n"
               "-----------------------------------------------------------------------------------------------"
               "------------\n"
               "bond0      33333333-3333-4333-8333-333333333333  bond        --     \n"
               "eth:one\\x  11111111-1111-4111-8111-111111111111  ethernet    --     \n"
               "ib0        22222222-2222-4222-8222-222222222222  infiniband  --     \n"},
        Format{"PrettyMultiline", {"--pretty", "--mode", "multiline", "-f", "name"},
               "===============================================================================\n"
               "                      NetworkManager connection profiles\n"
               "===============================================================================\n"
               "NAME:                                   bond0\n"
               "-------------------------------------------------------------------------------\n"
               "NAME:                                   eth:one\\x\n"
               "-------------------------------------------------------------------------------\n"
               "NAME:                                   ib0\n"
               "-------------------------------------------------------------------------------\n"},
        // -s is accepted (ibnm's profiles hold no secrets), before the object
        // and in `connection show`; -w takes seconds; nmcli's prefixes.
        Format{"ShowSecretsAndWait", {"-s", "--wait", "5", "-te", "--show-secrets", "-w", "0"},
               "bond0:33333333-3333-4333-8333-333333333333:bond:\n"
               "eth\\:one\\\\x:11111111-1111-4111-8111-111111111111:802-3-ethernet:\n"
               "ib0:22222222-2222-4222-8222-222222222222:infiniband:\n"}),
    [](const auto &p) { return std::string(p.param.name); });

TEST(CliNmcliOutput, RecordFormatsAsNmcli)
{
    Cli cli;
    addThree(cli);
    // -g: the values, escaped; -e no: as they are.
    Result r = cli.run({"-g", "connection.id,connection.uuid", "connection", "show", "eth:one\\x"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "eth\\:one\\\\x\n11111111-1111-4111-8111-111111111111\n");
    r = cli.run({"-e", "no", "-g", "connection.id", "connection", "show", "eth:one\\x"});
    EXPECT_EQ(r.out, "eth:one\\x\n");
    // -t on a record: name:value, not escaped.
    r = cli.run({"-t", "-f", "connection.id,connection.type", "connection", "show", "eth:one\\x"});
    EXPECT_EQ(r.out, "connection.id:eth:one\\x\nconnection.type:802-3-ethernet\n");
    // Multiline (the default for a record): values at column 41.
    r = cli.run({"-f", "connection.id,bond.options", "connection", "show", "bond0"});
    EXPECT_EQ(r.out, "connection.id:                          bond0\n"
                     "bond.options:                           mode=active-backup\n");
    // -p: a title, a line after each setting.
    r = cli.run({"-p", "-f", "connection.id,bond.options", "connection", "show", "-s", "bond0"});
    EXPECT_EQ(r.out, "===============================================================================\n"
                     "                      Connection profile details (bond0)\n"
                     "===============================================================================\n"
                     "connection.id:                          bond0\n"
                     "-------------------------------------------------------------------------------\n"
                     "bond.options:                           mode=active-backup\n"
                     "-------------------------------------------------------------------------------\n");
    // -m tabular: a table a setting.
    r = cli.run({"-m", "tabular", "-f", "connection.id,connection.type", "connection", "show", "eth:one\\x"});
    EXPECT_EQ(r.out, "name        id         type           \nconnection  eth:one\\x  802-3-ethernet \n\n");
}

struct BadOption {
    const char *name;
    std::vector<std::string> args;
    const char *message;
};

class CliNmcliOptionErrors : public ::testing::TestWithParam<BadOption> {};

TEST_P(CliNmcliOptionErrors, ExitTwoNamingTheOption)
{
    Cli cli;
    Result r = cli.run(GetParam().args);
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliNmcliOptionErrors,
    ::testing::Values(
        BadOption{"Ask", {"-a", "connection", "show"}, "option '-a' is not supported: ibnm's profiles have no secrets"},
        BadOption{"AskLong", {"--ask", "connection", "up", "x"}, "option '--ask' is not supported"},
        BadOption{"UpAsk", {"connection", "up", "--ask", "x"}, "option '--ask' is not supported"},
        BadOption{"PrettyTerse", {"-t", "-p", "connection", "show"}, "'--pretty' is mutually exclusive with '--terse'"},
        BadOption{"GetValuesPretty", {"-p", "-g", "name", "connection", "show"},
                  "'--terse' is mutually exclusive with '--pretty'"},
        BadOption{"BadMode", {"-m", "MULTILINE", "connection", "show"}, "invalid value 'MULTILINE' for '-m'"},
        BadOption{"BadEscape", {"-e", "on", "connection", "show"}, "invalid value 'on' for '-e'"},
        BadOption{"BadWait", {"-w", "1.5", "connection", "show"}, "'1.5' is not a valid timeout for '-w'"},
        BadOption{"NegativeWait", {"-w", "-1", "connection", "show"}, "'-1' is not a valid timeout"},
        BadOption{"WaitWithoutValue", {"--wait"}, "option '--wait' requires an argument"}),
    [](const auto &p) { return std::string(p.param.name); });

// DEVICE: only a profile active on the host, on the interface it is active
// on (a P_Key child as the kernel named it); --active lists those, first.
TEST(CliNmcliOutput, DeviceOnlyWhereTheProfileIsActive)
{
    Cli cli("mlx4-dual-port.host");
    // ipv4.method disabled: standalone ibnm does no DHCP on IPoIB.
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "base", "ifname", "mlx4_ib0",
                       "transport-mode", "connected", "mtu", "65520", "ipv4.method", "disabled"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "child", "parent", "mlx4_ib0",
                       "p-key", "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    auto show = [&]() { return cli.run({"-t", "-f", "name,device", "connection", "show"}).out; };
    // mlx4_ib0 exists, but in datagram mode: the profile was never brought up.
    EXPECT_EQ(show(), "base:\nchild:\n");
    EXPECT_EQ(cli.run({"-t", "connection", "show", "--active"}).out, "");

    ASSERT_EQ(cli.run({"connection", "up", "child"}).status, 0);
    EXPECT_EQ(show(), "child:mlx4_ib0.8002\nbase:\n") << "active first, on the child the kernel made";
    ASSERT_EQ(cli.run({"connection", "up", "base"}).status, 0);
    EXPECT_EQ(show(), "base:mlx4_ib0\nchild:mlx4_ib0.8002\n");
    EXPECT_EQ(cli.run({"-g", "name", "connection", "show", "-a"}).out, "base\nchild\n");

    ASSERT_EQ(cli.run({"connection", "down", "child"}).status, 0);
    EXPECT_EQ(show(), "base:mlx4_ib0\nchild:\n");
}

// nmcli's order (active first) whatever the fields asked: `-g NAME,TYPE`
// shows no DEVICE but lists the active profile first all the same.
TEST(CliNmcliOutput, ActiveFirstWhateverTheFields)
{
    Cli cli("mlx4-dual-port.host");
    for (const char *name : {"a-base", "b-child"}) {
        std::vector<std::string> add = {"connection", "add", "type", "infiniband", "con-name", name, "ipv4.method", "disabled"};
        if (name[0] == 'a')
            add.insert(add.end(), {"ifname", "mlx4_ib0", "transport-mode", "connected", "mtu", "65520"});
        else
            add.insert(add.end(), {"parent", "mlx4_ib0", "p-key", "0x8002"});
        ASSERT_EQ(cli.run(add).status, 0);
    }
    EXPECT_EQ(cli.run({"-g", "NAME,TYPE", "connection", "show"}).out, "a-base:infiniband\nb-child:infiniband\n");
    ASSERT_EQ(cli.run({"connection", "up", "b-child"}).status, 0);
    EXPECT_EQ(cli.run({"-g", "NAME,TYPE", "connection", "show"}).out, "b-child:infiniband\na-base:infiniband\n");
    EXPECT_EQ(cli.run({"-t", "-f", "NAME", "connection", "show"}).out, "b-child\na-base\n");
}

// A profile the host already matches is not active until `up` brings it up
// (nothing to change then), and one found by its port GUID shows the
// interface that has it; `down` ends it.
TEST(CliNmcliOutput, DeviceOnlyAfterUpEvenWhereTheHostMatches)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "bymac", "mac",
                       "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2", "ipv4.method", "disabled"})
                  .status,
              0);
    auto show = [&]() { return cli.run({"-t", "-f", "name,device", "connection", "show"}).out; };
    EXPECT_EQ(show(), "bymac:\n");
    Result up = cli.run({"connection", "up", "bymac"});
    ASSERT_EQ(up.status, 0) << up.err;
    EXPECT_NE(up.out.find("Nothing to do"), std::string::npos) << up.out;
    EXPECT_EQ(show(), "bymac:mlx4_ib0\n");
    ASSERT_EQ(cli.run({"connection", "down", "bymac"}).status, 0);
    EXPECT_EQ(show(), "bymac:\n");
}

// nmcli's ACTIVE and STATE columns (with -f): standalone, a profile `up`
// brought up is "yes" and "activated", one not up "no" and no state; tables
// translate the words, terse output shows them as nmcli's.
TEST(CliNmcliOutput, ActiveAndStateColumnsAsNmcli)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "child", "parent", "mlx4_ib0",
                       "p-key", "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    auto show = [&]() { return cli.run({"-t", "-f", "name,active,device,state,active-path", "connection", "show"}); };
    EXPECT_EQ(show().out, "child:no:::\n");
    ASSERT_EQ(cli.run({"connection", "up", "child"}).status, 0);
    Result r = show();
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "child:yes:mlx4_ib0.8002:activated:\n");
    EXPECT_EQ(cli.run({"-f", "ACTIVE,STATE", "connection", "show"}).out,
              "ACTIVE  STATE     \nyes     activated \n");
}

// -j applies to every command, version too.
TEST(CliNmcliOutput, VersionPrintsJsonWithJ)
{
    Cli cli;
    for (const auto &args : {std::vector<std::string>{"-j", "version"}, std::vector<std::string>{"-j", "-v"}}) {
        Result r = cli.run(args);
        ASSERT_EQ(r.status, 0) << r.err;
        auto json = parseJson(r.out);
        ASSERT_TRUE(json.get("version")) << r.out;
        EXPECT_EQ(json.get("version")->s, PACKAGE_VERSION);
    }
    EXPECT_EQ(cli.run({"version"}).out, "ibnm version " PACKAGE_VERSION "\n");
}

// `rdma roce-mode` takes what rdma.roce-mode takes; errors of the rdma
// commands name their own words, not the transient profile behind them.
TEST(CliNmcliOutput, RdmaCommandsTakeTheKeysValuesAndSpeakTheirWords)
{
    Cli cli("mlx5-roce.host");
    for (const char *mode : {"1", "2", "v1", "IB/RoCE v1", "RoCE v2"}) {
        Result r = cli.run({"--dry-run", "rdma", "roce-mode", "mlx5_0", "1", mode});
        EXPECT_EQ(r.status, 0) << mode << ": " << r.err;
        EXPECT_NE(r.out.find("set-roce-mode"), std::string::npos) << mode << ": " << r.out;
    }
    Result bad = cli.run({"--dry-run", "rdma", "roce-mode", "mlx5_0", "1", "v3"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("invalid RoCE mode 'v3'"), std::string::npos) << bad.err;

    Result r = cli.run({"--dry-run", "rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "nosuch"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "Error: netdev: no interface nosuch on this host.\n");
    r = cli.run({"--dry-run", "rdma", "link", "add", "rx/e", "type", "rxe", "netdev", "p4p1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.find("Error: link name: 'rx/e' is not a valid RDMA device name"), 0u) << r.err;
    EXPECT_EQ(r.err.find("rdma-link-"), std::string::npos) << r.err;
}

// The PROFILE of a step is the profile it serves: a typed rdma command
// (rdma link add|delete, roce-mode, traffic-class, roce-enable) changes the
// host for no profile, so its steps have none ("--" with -f all, null in -j),
// and nothing brings the change back; the same change asked by a profile
// names it.
TEST(CliNmcliOutput, StepsOfTypedRdmaCommandsServeNoProfile)
{
    Cli cli("mlx5-roce.host");
    // The PROFILE cell of each step row of `--dry-run -f all` (aligned columns).
    auto profileCells = [](const std::string &out) {
        std::vector<std::string> cells;
        auto ls = lines(out);
        if (ls.empty())
            return cells;
        size_t at = ls[0].find("PROFILE");
        size_t end = ls[0].find("ERROR");
        if (at == std::string::npos || end == std::string::npos)
            return cells;
        for (size_t i = 1; i < ls.size() && ls[i].rfind("planned ", 0) == 0; i++) { // then "Dry run: ..."
            std::string cell = ls[i].size() > at ? ls[i].substr(at, end - at) : std::string();
            cell.erase(cell.find_last_not_of(' ') + 1);
            cells.push_back(cell);
        }
        return cells;
    };
    // The "profile" member of each step of -j, "(null)" for null.
    auto profileValues = [](const std::string &out) {
        std::vector<std::string> values;
        JsonValue v = parseJson(out);
        const JsonValue *report = v.get("report");
        const JsonValue *steps = report ? report->get("steps") : nullptr;
        for (const auto &s : steps ? steps->items : std::vector<JsonValue>{}) {
            const JsonValue *p = s.get("profile");
            values.push_back(p == nullptr ? "(absent)" : p->kind == JsonValue::Null ? "(null)" : p->s);
        }
        return values;
    };
    const std::vector<std::vector<std::string>> typed = {
        {"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "p4p2"},
        {"rdma", "roce-mode", "mlx5_0", "1", "v1"},
        {"rdma", "traffic-class", "mlx5_0/1", "dscp:26", "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"},
        {"rdma", "roce-enable", "mlx5_1", "no"},
    };
    for (const auto &command : typed) {
        std::vector<std::string> plain = {"--dry-run", "-f", "all"}, json = {"--dry-run", "-j"};
        plain.insert(plain.end(), command.begin(), command.end());
        json.insert(json.end(), command.begin(), command.end());
        Result p = cli.run(plain);
        ASSERT_EQ(p.status, 0) << command[1] << ": " << p.err;
        auto cells = profileCells(p.out);
        ASSERT_FALSE(cells.empty()) << p.out;
        EXPECT_EQ(cells, std::vector<std::string>(cells.size(), "--")) << p.out;
        Result j = cli.run(json);
        ASSERT_EQ(j.status, 0) << command[1] << ": " << j.err;
        auto values = profileValues(j.out);
        ASSERT_EQ(values.size(), cells.size()) << j.out;
        EXPECT_EQ(values, std::vector<std::string>(values.size(), "(null)")) << j.out;
    }
    // rdma link delete of a link the command added.
    ASSERT_EQ(cli.run({"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "p4p2"}).status, 0);
    Result del = cli.run({"--dry-run", "-f", "all", "rdma", "link", "delete", "rxe0"});
    ASSERT_EQ(del.status, 0) << del.err;
    auto delCells = profileCells(del.out);
    ASSERT_FALSE(delCells.empty()) << del.out;
    EXPECT_EQ(delCells, std::vector<std::string>(delCells.size(), "--")) << del.out;
    Result delJson = cli.run({"--dry-run", "-j", "rdma", "link", "delete", "rxe0"});
    ASSERT_EQ(delJson.status, 0) << delJson.err;
    EXPECT_EQ(profileValues(delJson.out), std::vector<std::string>(delCells.size(), "(null)")) << delJson.out;

    // The same RoCE mode asked by a profile: its steps name it.
    ASSERT_EQ(cli.run({"connection", "add", "type", "ethernet", "con-name", "roce-p4p1", "ifname", "p4p1",
                       "rdma.roce-mode", "v1"})
                  .status,
              0);
    Result up = cli.run({"--dry-run", "-f", "all", "connection", "up", "roce-p4p1"});
    ASSERT_EQ(up.status, 0) << up.err;
    EXPECT_EQ(profileCells(up.out), std::vector<std::string>{"roce-p4p1"}) << up.out;
    Result upJson = cli.run({"--dry-run", "-j", "connection", "up", "roce-p4p1"});
    ASSERT_EQ(upJson.status, 0) << upJson.err;
    EXPECT_EQ(profileValues(upJson.out), std::vector<std::string>{"roce-p4p1"}) << upJson.out;
}

// Options that would be ignored are refused, naming the key (exit 1,
// nothing written).
TEST(CliNmcliOutput, IgnoredOptionsAreRefused)
{
    Cli cli;
    Result r = cli.run({"connection", "add", "type", "bond", "ifname", "bond0", "ipoib.umcast", "yes"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.find("Error: ipoib.umcast: only an infiniband profile's interface has IPoIB multicast"), 0u)
        << r.err;
    r = cli.run({"connection", "add", "type", "ethernet", "ifname", "eth0", "rdma.link-name", "rxe9"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.find("Error: rdma.link-name: "), 0u) << r.err;
    EXPECT_TRUE(cli.keyfiles().empty());
    r = cli.run({"connection", "add", "type", "infiniband", "ifname", "ib0", "ipoib.umcast", "yes"});
    EXPECT_EQ(r.status, 0) << r.err;
}

// `connection import type ifcfg-rh file DIR`: every ifcfg file of the
// directory in one command, bonds before their ports whatever the names'
// order; other types skipped; on an error nothing stays imported.
TEST(CliNmcliOutput, ImportsAnIfcfgDirectoryInDependencyOrder)
{
    Cli cli;
    ibnm::test::TempDir dir;
    // "ifcfg-a-port" sorts before "ifcfg-bond0": the port comes first by name.
    dir.write("ifcfg-a-port", "TYPE=InfiniBand\nDEVICE=ib0\nMASTER=bond0\nONBOOT=yes\n");
    dir.write("ifcfg-bond0", "TYPE=Bond\nDEVICE=bond0\nBONDING_OPTS=\"mode=active-backup miimon=100\"\n"
                             "BOOTPROTO=none\nIPADDR=192.0.2.10\nPREFIX=24\n");
    dir.write("ifcfg-lo", "DEVICE=lo\nIPADDR=127.0.0.1\n");
    dir.write("ifcfg-bond0.bak", "garbage\n");
    Result r = cli.run({"connection", "import", "type", "ifcfg-rh", "file", dir.path()});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    auto l = lines(r.out);
    ASSERT_EQ(l.size(), 2u) << r.out;
    EXPECT_EQ(l[0].find("Connection 'Bond bond0' ("), 0u) << r.out;
    EXPECT_EQ(l[1].find("Connection 'System a-port' ("), 0u) << r.out;
    EXPECT_NE(r.err.find("ifcfg-lo: TYPE is ''"), std::string::npos) << r.err;
    EXPECT_EQ(cli.run({"-g", "name,type", "connection", "show"}).out, "Bond bond0:bond\nSystem a-port:infiniband\n");

    // A bad file: nothing of the directory stays.
    Cli other;
    dir.write("ifcfg-z-bad", "TYPE=InfiniBand\nDEVICE=ib1\nMTU=big\n");
    r = other.run({"connection", "import", "type", "ifcfg-rh", "file", dir.path()});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("ifcfg-z-bad:3: MTU"), std::string::npos) << r.err;
    EXPECT_TRUE(other.keyfiles().empty());
}

} // namespace
