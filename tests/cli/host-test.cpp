// SPDX-License-Identifier: LGPL-2.1-or-later
// Commands that read or change the (simulated) host: connection up/down,
// device status/show, rdma link/gid/roce-mode, check, memlock; the step
// report in its formats; --dry-run.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"

#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::JsonValue;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

const std::vector<std::string> &kAddMlx4 = ibnm::test::kAddMlx4;

// The device status row of `name` in terse output, split at ':'.
std::vector<std::string> statusRow(const Cli &cli, const std::string &name)
{
    Result r = cli.run({"-t", "-f", "DEVICE,TYPE,MTU,MODE,P-KEY", "device", "status"});
    EXPECT_EQ(r.status, 0) << r.err;
    for (const auto &l : lines(r.out)) {
        if (l.compare(0, name.size() + 1, name + ":") == 0) {
            std::vector<std::string> f;
            char **parts = g_strsplit(l.c_str(), ":", -1);
            for (char **p = parts; *p; p++)
                f.emplace_back(*p);
            g_strfreev(parts);
            return f;
        }
    }
    return {};
}

// The CLI opens libibnm-simulator only for a simulated host: from
// IBNM_SIMULATE (state in IBNM_SIMULATE_STATE) as from --simulate, and a
// host file that cannot be read is named in the error.
TEST(CliHost, SimulatedHostFromTheEnvironment)
{
    ibnm::test::TempDir dir;
    Result r = ibnm::test::spawn({ibnm::test::cliPath(), "-t", "-f", "DEVICE", "device", "status"},
                                 {{"IBNM_SIMULATE", ibnm::test::hostFile("mlx4-dual-port.host")},
                                  {"IBNM_SIMULATE_STATE", dir / "st"}});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("mlx4_ib0"), std::string::npos) << r.out;
    EXPECT_TRUE(g_file_test((dir / "st").c_str(), G_FILE_TEST_IS_DIR));

    r = ibnm::test::spawn({ibnm::test::cliPath(), "device", "status"}, {{"IBNM_SIMULATE", dir / "missing.host"}});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find("missing.host"), std::string::npos) << r.err;
}

TEST(CliHost, UpChangesTheSimulatedHostAndDownUndoesIt)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "mlx4_ib0.8002", "ifname",
                       "mlx4_ib0.8002", "parent", "mlx4_ib0", "p-key", "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    EXPECT_EQ(statusRow(cli, "mlx4_ib0")[3], "datagram");

    Result up = cli.run({"connection", "up", "mlx4_ib0"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_NE(up.out.find("successfully activated"), std::string::npos);
    auto row = statusRow(cli, "mlx4_ib0");
    ASSERT_EQ(row.size(), 5u);
    EXPECT_EQ(row[2], "65520");
    EXPECT_EQ(row[3], "connected");

    ASSERT_EQ(cli.run({"connection", "up", "mlx4_ib0.8002"}).status, 0);
    row = statusRow(cli, "mlx4_ib0.8002");
    ASSERT_EQ(row.size(), 5u) << "the child was not created";
    EXPECT_EQ(row[4], "0x8002");

    // A second up has nothing to do.
    Result again = cli.run({"connection", "up", "mlx4_ib0.8002"});
    EXPECT_EQ(again.status, 0);
    EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;

    ASSERT_EQ(cli.run({"connection", "down", "mlx4_ib0.8002"}).status, 0);
    EXPECT_TRUE(statusRow(cli, "mlx4_ib0.8002").empty());
}

TEST(CliHost, DryRunPlansAndChangesNothing)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    Result r = cli.run({"--dry-run", "connection", "up", "mlx4_ib0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("planned"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("done "), std::string::npos) << r.out;
    EXPECT_EQ(statusRow(cli, "mlx4_ib0")[3], "datagram");
}

TEST(CliHost, ReportAsJson)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    Result r = cli.run({"-j", "connection", "up", "mlx4_ib0"});
    ASSERT_EQ(r.status, 0) << r.err;
    JsonValue v = parseJson(r.out);
    const JsonValue *rep = v.get("report");
    ASSERT_TRUE(rep);
    ASSERT_TRUE(rep->get("success"));
    EXPECT_TRUE(rep->get("success")->b);
    EXPECT_FALSE(rep->get("rolled-back")->b);
    ASSERT_EQ(rep->get("steps")->kind, JsonValue::Array);
    ASSERT_FALSE(rep->get("steps")->items.empty());
    // Datagram to connected: the mode change itself sets the MTU to 65520
    // (ipoib_set_mode()), so no set-mtu step follows.
    bool mode = false, mtu = false;
    for (const auto &s : rep->get("steps")->items) {
        EXPECT_EQ(s.get("state")->s, "done");
        EXPECT_EQ(s.get("profile")->s, "mlx4_ib0");
        mode = mode || s.get("action")->s == "set-transport-mode";
        mtu = mtu || s.get("action")->s == "set-mtu";
    }
    EXPECT_TRUE(mode);
    EXPECT_FALSE(mtu);
    EXPECT_EQ(rep->get("notes")->kind, JsonValue::Array);
}

// A failed activation exits 4, as nmcli's (NMC_RESULT_ERROR_CON_ACTIVATION).
TEST(CliHost, FailedUpRollsBackAndExitsFourAsNmcli)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    Result r = cli.run({"-j", "connection", "up", "mlx4_ib0"}, {},
                       {{"IBNM_FAKE_FAIL", "op=setIpoibMode,nth=1,errno=EINVAL"}});
    EXPECT_EQ(r.status, 4);
    JsonValue v = parseJson(r.out);
    EXPECT_FALSE(v.get("report")->get("success")->b);
    EXPECT_TRUE(v.get("report")->get("rolled-back")->b);
    EXPECT_EQ(statusRow(cli, "mlx4_ib0")[3], "datagram");
}

TEST(CliHost, ReportNotesTheEffectiveMtu)
{
    // A profile written past ibnm's rules (a keyfile from elsewhere) asking
    // for more than the datagram maximum: up reports the kernel's clamp.
    Cli cli("mlx4-dual-port.host");
    Result kf = cli.run({"--offline", "connection", "add", "type", "infiniband", "con-name", "big", "ifname",
                         "mlx4_ib0", "mtu", "4092", "ipv4.method", "disabled"});
    ASSERT_EQ(kf.status, 0) << kf.err;
    std::string path = cli.keyfileDir() + "/big.nmconnection";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), kf.out.c_str(), -1, nullptr));
    g_chmod(path.c_str(), 0600);
    Result up = cli.run({"--dry-run", "connection", "up", "big"});
    EXPECT_NE(up.out.find("Note: "), std::string::npos) << up.out << up.err;
    EXPECT_NE(up.out.find("2044"), std::string::npos) << up.out;
    Result j = cli.run({"-j", "--dry-run", "connection", "up", "big"});
    JsonValue v = parseJson(j.out);
    ASSERT_TRUE(v.get("report"));
    EXPECT_EQ(v.get("report")->get("notes")->items.size(), 1u);
    EXPECT_TRUE(v.get("report")->get("dry-run")->b);
}

TEST(CliHost, RdmaLinkAddShowDelete)
{
    Cli cli("ethernet-only.host");
    Result add = cli.run({"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "enp1s0"});
    ASSERT_EQ(add.status, 0) << add.err;
    Result show = cli.run({"-t", "-f", "LINK,NETDEV,SOFT-TYPE", "rdma", "link", "show"});
    EXPECT_NE(show.out.find("rxe0/1:enp1s0:rxe"), std::string::npos) << show.out;

    Result gids = cli.run({"-j", "rdma", "gid", "show", "rxe0"});
    ASSERT_EQ(gids.status, 0) << gids.err;
    JsonValue v = parseJson(gids.out);
    ASSERT_TRUE(v.get("gids"));
    ASSERT_FALSE(v.get("gids")->items.empty());
    for (const auto &g : v.get("gids")->items) {
        EXPECT_EQ(g.get("dev")->s, "rxe0");
        EXPECT_EQ(g.get("type")->s, "RoCE v2"); // rxe has only v2 entries
        EXPECT_EQ(g.get("netdev")->s, "enp1s0");
    }

    EXPECT_EQ(cli.run({"rdma", "link", "add", "rxe1", "type", "bogus", "netdev", "enp1s0"}).status, 2);
    EXPECT_EQ(cli.run({"rdma", "link", "add", "rxe1", "type", "rxe", "netdev", "nosuch0"}).status, 1);

    ASSERT_EQ(cli.run({"rdma", "link", "delete", "rxe0"}).status, 0);
    Result after = cli.run({"-t", "rdma", "link", "show"});
    EXPECT_EQ(after.out.find("rxe0"), std::string::npos) << after.out;
    EXPECT_EQ(cli.run({"rdma", "link", "delete", "rxe0"}).status, 10);
}

TEST(CliHost, RoceModeV1WhereTheDeviceAllowsItAndRefusalOnRxe)
{
    Cli roce("mlx5-roce.host");
    ASSERT_EQ(roce.run({"rdma", "roce-mode", "mlx5_0", "1", "v1"}).status, 0);
    Result show = roce.run({"-g", "MODE", "rdma", "roce-mode", "mlx5_0", "1"});
    EXPECT_EQ(show.out, "IB/RoCE v1\n");

    Cli rxe("ethernet-only.host");
    ASSERT_EQ(rxe.run({"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "enp1s0"}).status, 0);
    Result refused = rxe.run({"rdma", "roce-mode", "rxe0", "v1"});
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.err.find("v1"), std::string::npos) << refused.err;
    EXPECT_EQ(rxe.run({"rdma", "roce-mode", "rxe0", "v3"}).status, 2);
}

// The same refusal before activation: an rxe link with RoCE v1 is refused
// at add (nothing written), and `check` reports such a profile written past
// ibnm's rules (a keyfile from elsewhere).
TEST(CliHost, RxeLinkWithRoceV1IsRefusedBeforeActivation)
{
    Cli cli("ethernet-only.host");
    const std::vector<std::string> profile = {"type", "ethernet", "con-name", "rxe-v1", "ifname", "enp1s0",
                                              "rdma.link-type", "rxe", "rdma.roce-mode", "v1"};
    std::vector<std::string> add = {"connection", "add"};
    add.insert(add.end(), profile.begin(), profile.end());
    Result refused = cli.run(add);
    EXPECT_EQ(refused.status, 1) << refused.out << refused.err;
    EXPECT_NE(refused.err.find("rdma.roce-mode: an rxe (Soft-RoCE) link has RoCE v2 only"), std::string::npos)
        << refused.err;
    EXPECT_TRUE(cli.keyfiles().empty());

    std::vector<std::string> offline = {"--offline", "connection", "add"};
    offline.insert(offline.end(), profile.begin(), profile.end());
    Result kf = cli.run(offline);
    ASSERT_EQ(kf.status, 0) << kf.err;
    std::string path = cli.keyfileDir() + "/rxe-v1.nmconnection";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), kf.out.c_str(), -1, nullptr));
    g_chmod(path.c_str(), 0600);
    Result check = cli.run({"-t", "-f", "SEVERITY,PROPERTY", "check"});
    EXPECT_EQ(check.status, 1) << check.out << check.err;
    EXPECT_NE(check.out.find("error:rdma.roce-mode"), std::string::npos) << check.out;

    // One rxe link per netdev: the v2 profile replaces the v1 one.
    ASSERT_EQ(g_unlink(path.c_str()), 0);
    add.back() = "v2";
    add[5] = "rxe-v2";
    EXPECT_EQ(cli.run(add).status, 0);
}

TEST(CliHost, GidShowListsV1AndV2WithIpv4)
{
    Cli cli("mlx5-roce.host");
    Result r = cli.run({"-t", "-f", "DEV,IPV4,TYPE,NETDEV", "rdma", "gid", "show", "mlx5_0"});
    ASSERT_EQ(r.status, 0) << r.err;
    int v1 = 0, v2 = 0, ipv4 = 0;
    for (const auto &l : lines(r.out)) {
        EXPECT_EQ(l.compare(0, 7, "mlx5_0:"), 0) << l;
        v1 += l.find("IB/RoCE v1") != std::string::npos;
        v2 += l.find("RoCE v2") != std::string::npos && l.find("IB/RoCE") == std::string::npos;
        ipv4 += l.find(":.") == std::string::npos && l.find("::") == std::string::npos;
    }
    EXPECT_GT(v1, 0);
    EXPECT_EQ(v1, v2);
    EXPECT_EQ(cli.run({"rdma", "gid", "show", "nosuch"}).status, 10);
}

TEST(CliHost, CheckExitsOneOnErrors)
{
    Cli cli("cx6-mlx5-ib.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "good", "ifname", "ib0", "ipv4.method",
                       "disabled"})
                  .status,
              0);
    Result ok = cli.run({"check"});
    EXPECT_EQ(ok.status, 0) << ok.out << ok.err;

    // Connected mode on Enhanced IPoIB, written past the CLI's own
    // validation (a keyfile from elsewhere): an error on this host.
    Result kf = cli.run({"--offline", "connection", "add", "type", "infiniband", "con-name", "bad", "ifname", "ib0",
                      "transport-mode", "connected"});
    ASSERT_EQ(kf.status, 0);
    std::string path = cli.keyfileDir() + "/bad.nmconnection";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), kf.out.c_str(), -1, nullptr));
    g_chmod(path.c_str(), 0600);
    Result bad = cli.run({"check", "bad"});
    EXPECT_EQ(bad.status, 1) << bad.out << bad.err;
    EXPECT_NE(bad.out.find("error"), std::string::npos) << bad.out;
    Result j = cli.run({"-j", "check"});
    EXPECT_EQ(j.status, 1);
    JsonValue v = parseJson(j.out);
    ASSERT_TRUE(v.get("findings"));
    bool error = false;
    for (const auto &f : v.get("findings")->items)
        error = error || (f.get("severity")->s == "error" && f.get("profile")->s == "bad");
    EXPECT_TRUE(error);
    EXPECT_EQ(cli.run({"check", "nosuch"}).status, 10);
}

// A table of more findings than print() gathers at once (it writes its text
// in blocks of 64 KiB): every finding is one line, in -j's order, and every
// line is as wide as the header (the columns stay aligned across blocks).
TEST(CliHost, CheckPrintsALargeTableWhole)
{
    Cli cli("cx6-mlx5-ib.host");
    // P_Key children with the full-membership bit clear: a finding each.
    for (unsigned i = 0; i < 600; i++) {
        char uuid[40];
        std::snprintf(uuid, sizeof uuid, "5c0d1e2f-0000-4000-8000-%012x", i);
        std::string text = std::string("[connection]\nid=child-") + std::to_string(i) + "\nuuid=" + uuid
            + "\ntype=infiniband\n\n[infiniband]\nmtu=2044\np-key=" + std::to_string(0x100 + i)
            + "\nparent=ib0\ntransport-mode=datagram\n\n[ipv4]\n"
              "method=disabled\n\n[ipv6]\nmethod=ignore\n";
        std::string path = cli.keyfileDir() + "/child-" + std::to_string(i) + ".nmconnection";
        ASSERT_TRUE(g_file_set_contents(path.c_str(), text.c_str(), -1, nullptr));
        g_chmod(path.c_str(), 0600);
    }
    Result table = cli.run({"check"});
    Result j = cli.run({"-j", "check"});
    EXPECT_EQ(table.status, j.status) << table.err;
    JsonValue v = parseJson(j.out);
    ASSERT_TRUE(v.get("findings"));
    const auto &findings = v.get("findings")->items;
    ASSERT_GE(findings.size(), 600u);
    EXPECT_GT(table.out.size(), 2 * 64 * 1024u);
    auto rows = lines(table.out);
    ASSERT_EQ(rows.size(), findings.size() + 1) << table.err;
    for (size_t i = 0; i < findings.size(); i++) {
        EXPECT_EQ(rows[i + 1].size(), rows[0].size()) << rows[i + 1];
        // The table's PROPERTY column says what the message's "property: "
        // prefix says (-j keeps it): the row holds the message without it.
        std::string message = findings[i].get("message")->s;
        std::string prefix = findings[i].get("property")->s + ": ";
        ASSERT_EQ(message.rfind(prefix, 0), 0u) << message;
        EXPECT_NE(rows[i + 1].find(findings[i].get("property")->s + "  " + message.substr(prefix.size())),
                  std::string::npos)
            << i << ": " << rows[i + 1];
        EXPECT_EQ(rows[i + 1].find(message), std::string::npos) << i << ": " << rows[i + 1];
    }
}

TEST(CliHost, DeviceShowAndStatusFormats)
{
    Cli cli("mlx4-dual-port.host");
    Result r = cli.run({"device", "show", "mlx4_0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("GENERAL.NODE-GUID:"), std::string::npos);
    EXPECT_NE(r.out.find("0002:c903:0031:78f0"), std::string::npos);
    Result g = cli.run({"-g", "PORT1.MAX-MTU,PORT1.ACTIVE-MTU", "device", "show", "mlx4_0"});
    EXPECT_EQ(g.out, "4096\n2048\n");
    Result j = cli.run({"-j", "device", "status"});
    JsonValue v = parseJson(j.out);
    ASSERT_TRUE(v.get("devices"));
    bool ib0 = false;
    for (const auto &d : v.get("devices")->items)
        ib0 = ib0 || (d.get("device")->s == "mlx4_ib0" && d.get("type")->s == "ipoib");
    EXPECT_TRUE(ib0);
    EXPECT_EQ(cli.run({"device", "show", "nosuch"}).status, 10);
}

TEST(CliHost, ColourOnlyWhenAskedOrOnATerminal)
{
    Cli cli("mlx4-dual-port.host");
    Result plain = cli.run({"device", "status"});
    EXPECT_EQ(plain.out.find('\033'), std::string::npos);
    Result colour = cli.run({"--color", "yes", "device", "status"});
    EXPECT_NE(colour.out.find("\033[32m"), std::string::npos);
    EXPECT_EQ(cli.run({"--color", "maybe", "device", "status"}).status, 2);
}

TEST(CliHost, MemlockShowsThePlanAndWritesThePolicy)
{
    Cli cli("ethernet-only.host");
    Result show = cli.run({"-t", "-f", "STATE,OBJECT", "rdma", "memlock"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("planned:/etc/security/limits.d/"), std::string::npos) << show.out;
    ASSERT_EQ(cli.run({"rdma", "memlock", "write"}).status, 0);
    // Written under the simulated host's state directory, not in /etc.
    EXPECT_TRUE(g_file_test((cli.stateDir() + "/root/etc/security/limits.d/90-ibnm-rdma-memlock.conf").c_str(),
                            G_FILE_TEST_IS_REGULAR));
    Result again = cli.run({"-t", "-f", "STATE,OBJECT", "rdma", "memlock"});
    EXPECT_EQ(again.out.find("limits.d"), std::string::npos) << again.out;
    // Each file only when asked for (issue 33): no udev rules from memlock,
    EXPECT_FALSE(g_file_test((cli.stateDir() + "/root/etc/udev").c_str(), G_FILE_TEST_EXISTS));
    // and no memlock policy from udev-rules.
    Cli other("ethernet-only.host");
    Result udev = other.run({"udev-rules", "write"});
    ASSERT_EQ(udev.status, 0) << udev.err;
    EXPECT_TRUE(g_file_test((other.stateDir() + "/root/etc/udev/rules.d/70-ibnm-persistent-ipoib.rules").c_str(),
                            G_FILE_TEST_IS_REGULAR));
    EXPECT_FALSE(g_file_test((other.stateDir() + "/root/etc/security").c_str(), G_FILE_TEST_EXISTS));
}

} // namespace

// Output that does not reach standard output is a failure, never success:
// a full disk (/dev/full) or a closed pipe with SIGPIPE ignored, for the
// read-only commands and for those of the full CLI module alike.
TEST(CliHost, OutputThatCannotBeWrittenFails)
{
    if (!g_file_test("/dev/full", G_FILE_TEST_EXISTS))
        GTEST_SKIP() << "/dev/full is absent";
    ibnm::test::TempDir tmp;
    const std::string state = tmp / "state";
    tmp.mkdir("sys/class/infiniband");
    tmp.mkdir("sys/class/net");
    const std::map<std::string, std::string> env = {{"IBNM_SIMULATE_STATE", state},
                                                    {"IBNM_SYSFS_ROOT", tmp / "sys"}};
    const std::vector<std::vector<std::string>> commands = {
        {"device", "status"}, {"--simulate", ibnm::test::hostFile("mlx4-dual-port.host"), "device", "status"},
        {"--simulate", ibnm::test::hostFile("mlx4-dual-port.host"), "check"}};
    for (const auto &command : commands) {
        std::string line = "'" + ibnm::test::cliPath() + "'";
        for (const auto &word : command)
            line += " '" + word + "'";
        Result ok = ibnm::test::spawn({"/bin/sh", "-c", line + " >/dev/null"}, env);
        ASSERT_EQ(ok.status, 0) << line << ok.err;
        Result full = ibnm::test::spawn({"/bin/sh", "-c", line + " >/dev/full"}, env);
        EXPECT_EQ(full.status, 1) << line << full.err;
        EXPECT_NE(full.err.find("could not write the output"), std::string::npos) << line << full.err;
    }
}
