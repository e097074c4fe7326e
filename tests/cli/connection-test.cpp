// SPDX-License-Identifier: LGPL-2.1-or-later
// `ibnm connection`: exit codes, nothing written on error, --offline against
// nmcli --offline, show in its formats.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"
#include "tests/nmcli-oracle.hpp"

#include <glib.h>
#include <glib/gstdio.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

using ibnm::test::Cli;
using ibnm::test::lines;
using ibnm::test::parseJson;
using ibnm::test::Result;

namespace {

const std::vector<std::string> &kAddMlx4 = ibnm::test::kAddMlx4;

TEST(CliConnection, AddStoresAKeyfileAndShowListsIt)
{
    Cli cli;
    Result r = cli.run(kAddMlx4);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("Connection 'mlx4_ib0' ("), std::string::npos) << r.out;
    ASSERT_EQ(cli.keyfiles().size(), 1u);
    EXPECT_EQ(cli.keyfiles()[0], "mlx4_ib0.nmconnection");

    Result show = cli.run({"connection", "show"});
    ASSERT_EQ(show.status, 0) << show.err;
    auto l = lines(show.out);
    ASSERT_EQ(l.size(), 2u) << show.out;
    EXPECT_EQ(l[0].substr(0, 4), "NAME");
    EXPECT_NE(l[0].find("UUID"), std::string::npos);
    EXPECT_NE(l[1].find("infiniband"), std::string::npos);
}

// add and modify show the errors a change causes: those about its profile
// and those on other profiles that involve it (its bond's mode), not the
// errors other stored profiles had without it.
TEST(CliConnection, AddShowsTheErrorsItCausesNotThoseThatWereThere)
{
    Cli cli;
    ASSERT_EQ(cli.run({"connection", "add", "type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                       "mode=balance-rr"})
                  .status,
              0);
    // A stored profile with an error of its own (written past ibnm's rules).
    Result kf = cli.run({"--offline", "connection", "add", "type", "ethernet", "con-name", "rxe-v1", "ifname",
                         "enp1s0", "rdma.link-type", "rxe", "rdma.roce-mode", "v1"});
    ASSERT_EQ(kf.status, 0) << kf.err;
    std::string path = cli.keyfileDir() + "/rxe-v1.nmconnection";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), kf.out.c_str(), -1, nullptr));
    g_chmod(path.c_str(), 0600);
    std::string before = cli.snapshot();

    Result port = cli.run({"connection", "add", "type", "infiniband", "con-name", "port", "ifname", "ib0", "master",
                           "bond0", "slave-type", "bond"});
    EXPECT_EQ(port.status, 1) << port.out << port.err;
    EXPECT_EQ(port.err.find("Error: bond.options: mode balance-rr; IPoIB ports can only join an active-backup bond"),
              0u)
        << port.err;
    EXPECT_EQ(port.err.find("rdma.roce-mode"), std::string::npos) << port.err;
    EXPECT_NE(port.err.find("profile 'port' is not valid; nothing was written"), std::string::npos) << port.err;
    EXPECT_EQ(cli.snapshot(), before);

    // A profile that involves neither is added, the old error notwithstanding.
    Result other = cli.run({"connection", "add", "type", "infiniband", "con-name", "ib1", "ifname", "ib1"});
    EXPECT_EQ(other.status, 0) << other.err;
    EXPECT_EQ(other.err.find("rdma.roce-mode"), std::string::npos) << other.err;
}

struct BadArgs {
    const char *name;
    std::vector<std::string> args;
    int status;
    const char *message; // part of stderr
};

class CliConnectionErrors : public ::testing::TestWithParam<BadArgs> {};

TEST_P(CliConnectionErrors, ExitCodeMessageAndNothingWritten)
{
    const BadArgs &c = GetParam();
    Cli cli;
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    std::string before = cli.snapshot();
    Result r = cli.run(c.args);
    EXPECT_EQ(r.status, c.status) << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Error: "), 0u) << r.err;
    EXPECT_EQ(cli.snapshot(), before);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliConnectionErrors,
    ::testing::Values(
        BadArgs{"UnknownProperty", {"connection", "modify", "mlx4_ib0", "infiniband.bogus", "1"}, 2, "bogus"},
        BadArgs{"UnknownWord", {"connection", "add", "type", "infiniband", "frobnicate", "1"}, 2, "frobnicate"},
        BadArgs{"BadValue", {"connection", "modify", "mlx4_ib0", "mtu", "big"}, 2, "mtu"},
        BadArgs{"MissingValue", {"connection", "modify", "mlx4_ib0", "ipv4.addresses"}, 2, "ipv4.addresses"},
        BadArgs{"PkeyOutOfRange", {"connection", "modify", "mlx4_ib0", "infiniband.p-key", "0x10000"}, 2, "p-key"},
        // The values parse; the profile as a whole does not verify (nmcli: 1).
        BadArgs{"Pkey0x8000",
                {"connection", "add", "type", "infiniband", "ifname", "ib0.8000", "parent", "ib0", "p-key", "0x8000"},
                1, "p-key"},
        BadArgs{"PkeyWithoutParent", {"connection", "modify", "mlx4_ib0", "infiniband.p-key", "0x8002"}, 1,
                "parent"},
        BadArgs{"NoType", {"connection", "add", "con-name", "x", "ifname", "ib0"}, 2, "'type' argument is required"},
        BadArgs{"UnknownConnection", {"connection", "modify", "nosuch", "mtu", "2044"}, 10, "nosuch"},
        // Differences 5 and 6 (docs/differences-from-nmcli.md): nmcli sets
        // the value for `+mtu`/`-mtu`, and `modify ID` alone does nothing.
        BadArgs{"ModifierOnASingleValue", {"connection", "modify", "mlx4_ib0", "-mtu", "2044"}, 2,
                "infiniband.mtu: '+' and '-' are allowed only for properties with several values"},
        BadArgs{"ModifyWithoutAProperty", {"connection", "modify", "mlx4_ib0"}, 2, "no property to modify"},
        BadArgs{"UnknownCommand", {"connection", "frob"}, 2, "frob"},
        BadArgs{"UnknownObject", {"frob"}, 2, "frob"},
        BadArgs{"BadField", {"-f", "NAME,BOGUS", "connection", "show"}, 2, "BOGUS"}),
    [](const ::testing::TestParamInfo<BadArgs> &p) { return std::string(p.param.name); });

TEST(CliConnection, ValidationAgainstTheHostFailsWithOneAndWritesNothing)
{
    // mlx5 Enhanced IPoIB has no connected mode: the host rules refuse it.
    Cli cli("cx6-mlx5-ib.host");
    Result r = cli.run({"connection", "add", "type", "infiniband", "con-name", "ib0", "ifname", "ib0", "transport-mode",
                     "connected"});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
    EXPECT_TRUE(cli.keyfiles().empty());
}

// An interface the host lacks (yet) is no reason to refuse its profile, as
// nmcli stores it: Ansible's nmcli module adds a P_Key-named profile without
// p-key (its first run failed), the seeds add a profile for the name a udev
// rule gives at the next boot. add and check warn (naming ibnm's rule where
// it gives the name); `up` fails as nmcli's (exit 4); names the kernel
// refuses are still refused.
TEST(CliConnection, AnInterfaceNotThereYetIsAddedWithAWarningAndUpFailsAsNmcli)
{
    Cli cli("mlx4-dual-port.host");
    Result r = cli.run({"connection", "add", "type", "infiniband", "con-name", "ibstor", "ifname", "ibstor",
                        "ipv4.method", "disabled"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("Warning: connection.interface-name: 'ibstor' does not exist on this host (yet)"),
              std::string::npos)
        << r.err;
    Result ansible = cli.run({"connection", "add", "type", "infiniband", "con-name", "mlx4_ib0.8002", "ifname",
                              "mlx4_ib0.8002", "ipv4.method", "disabled"});
    EXPECT_EQ(ansible.status, 0) << ansible.err;
    Result renamed = cli.run({"connection", "add", "type", "infiniband", "con-name", "fast", "ifname", "ibfast", "mac",
                              "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f2", "ipv4.method",
                              "disabled"});
    EXPECT_EQ(renamed.status, 0) << renamed.err;
    EXPECT_NE(renamed.err.find("'ibfast' does not exist on this host yet: 'mlx4_ib0'"), std::string::npos)
        << renamed.err;
    EXPECT_NE(renamed.err.find("renamed at next boot by 70-ibnm-persistent-ipoib.rules"), std::string::npos)
        << renamed.err;
    EXPECT_EQ(cli.keyfiles().size(), 3u);

    Result check = cli.run({"check"});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("'ibstor' does not exist on this host (yet)"), std::string::npos) << check.out;

    // nmcli 1.42's words (NetworkManager names the device it tried; ibnm the
    // profile's own), and for a P_Key child whose parent is absent its other
    // words, without a period, as nmcli prints them (NM lab).
    Result up = cli.run({"connection", "up", "ibstor"});
    EXPECT_EQ(up.status, 4) << up.out << up.err;
    EXPECT_NE(up.err.find("Error: Connection activation failed: No suitable device found for this connection (device "
                          "ibstor not available because it does not exist on this host).\n"),
              std::string::npos)
        << up.err;
    EXPECT_EQ(up.out.find("successfully"), std::string::npos) << up.out;
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "orphan", "ifname", "mlx4_ib7.8002",
                       "parent", "mlx4_ib7", "p-key", "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    Result child = cli.run({"connection", "up", "orphan"});
    EXPECT_EQ(child.status, 4) << child.out << child.err;
    EXPECT_NE(child.err.find("Error: Connection activation failed: Failed to find a compatible device for this "
                             "connection\n"),
              std::string::npos)
        << child.err;

    // Names the kernel refuses (dev_valid_name(): '/', more than 15 bytes).
    for (const char *bad : {"ib/0", "ibstor0123456789"}) {
        Result refused = cli.run({"connection", "add", "type", "infiniband", "con-name", "bad", "ifname", bad});
        EXPECT_EQ(refused.status, 1) << bad << ": " << refused.err;
        EXPECT_NE(refused.err.find("interface-name"), std::string::npos) << refused.err;
    }
    EXPECT_EQ(cli.keyfiles().size(), 4u);
}

// nmcli's warning for a `master` that names no profile (by UUID, name or
// interface name), on standard output before the rest, as nmcli prints it
// (offline: CliOffline.AddIsByteEqualToNmcli). ibnm then refuses the port,
// which no bond profile takes (documented difference).
TEST(CliConnection, MasterNamingNoProfileIsWarnedAsNmcli)
{
    Cli cli;
    ASSERT_EQ(cli.run({"connection", "add", "type", "bond", "con-name", "b", "ifname", "bond0", "mode",
                       "active-backup"})
                  .status,
              0);
    Result known = cli.run({"connection", "add", "type", "infiniband", "con-name", "p2", "ifname", "ib2", "master",
                            "bond0", "slave-type", "bond"});
    EXPECT_EQ(known.status, 0) << known.err;
    EXPECT_EQ(known.out.find("Warning"), std::string::npos) << known.out;
    Result unknown = cli.run({"connection", "add", "type", "infiniband", "con-name", "p1", "ifname", "ib1", "master",
                              "bond9", "slave-type", "bond"});
    EXPECT_EQ(unknown.out.find("Warning: master='bond9' doesn't refer to any existing profile.\n"), 0u)
        << unknown.out;
    Result modified = cli.run({"connection", "modify", "p2", "master", "bond8"});
    EXPECT_EQ(modified.out.find("Warning: master='bond8' doesn't refer to any existing profile.\n"), 0u)
        << modified.out;
}

// Without NetworkManager, an IPoIB profile addressed by DHCP is stored (as
// nmcli stores it: NetworkManager activates it) with a warning, since
// standalone `up` refuses it.
TEST(CliConnection, DhcpOnIpoibIsWarnedAtAddWithoutNetworkManager)
{
    Cli cli;
    Result r = cli.run({"connection", "add", "type", "infiniband", "con-name", "ib", "ifname", "ib0"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("Warning: ipv4.method: automatic (DHCP) addressing on IPoIB is done by NetworkManager"),
              std::string::npos)
        << r.err;
    Result manual = cli.run({"connection", "add", "type", "infiniband", "con-name", "ib1", "ifname", "ib1",
                             "ipv4.method", "manual", "ipv4.addresses", "192.0.2.1/24"});
    EXPECT_EQ(manual.status, 0) << manual.err;
    EXPECT_EQ(manual.err.find("ipv4.method"), std::string::npos) << manual.err;
}

// A deactivation that fails exits 5, as nmcli's
// (NMC_RESULT_ERROR_CON_DEACTIVATION).
TEST(CliConnection, FailedDownExitsFiveAsNmcli)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "c", "parent", "mlx4_ib0", "p-key",
                       "0x8002", "ipv4.method", "disabled"})
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "up", "c"}).status, 0);
    Result down = cli.run({"connection", "down", "c"}, {}, {{"IBNM_FAKE_FAIL", "op=deleteIpoibChild,nth=1,errno=EIO"}});
    EXPECT_EQ(down.status, 5) << down.out << down.err;
}

TEST(CliConnection, ShowIdPrintsSettingProperties)
{
    Cli cli;
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    ASSERT_EQ(cli.run({"connection", "modify", "mlx4_ib0", "ipv4.method", "manual", "ipv4.addresses", "192.0.2.1/24",
                       "ipv4.gateway", "192.0.2.254", "ipv4.dns", "192.0.2.253", "rdma.roce-mode", "v2"})
                  .status,
              0);
    Result r = cli.run({"connection", "show", "mlx4_ib0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("connection.id:"), std::string::npos);
    EXPECT_NE(r.out.find("infiniband.transport-mode:"), std::string::npos);
    EXPECT_NE(r.out.find("192.0.2.1/24"), std::string::npos);
    EXPECT_NE(r.out.find("rdma.roce-mode:"), std::string::npos);

    Result g = cli.run({"-g", "infiniband.mtu,ipv4.addresses", "connection", "show", "id", "mlx4_ib0"});
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_EQ(g.out, "65520\n192.0.2.1/24\n");

    Result t = cli.run({"-t", "-f", "ipv4.gateway", "connection", "show", "mlx4_ib0"});
    EXPECT_EQ(t.out, "ipv4.gateway:192.0.2.254\n");

    Result j = cli.run({"-j", "-f", "infiniband", "connection", "show", "mlx4_ib0"});
    ASSERT_EQ(j.status, 0);
    auto v = parseJson(j.out);
    const auto *c = v.get("connection");
    ASSERT_TRUE(c);
    ASSERT_TRUE(c->get("infiniband.mtu"));
    EXPECT_EQ(c->get("infiniband.mtu")->s, "65520");
    EXPECT_FALSE(c->get("ipv4.method"));
}

TEST(CliConnection, TerseGetValuesAndJsonOfTheList)
{
    Cli cli;
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    ASSERT_EQ(cli.run({"connection", "add", "type", "infiniband", "con-name", "a:b\\c", "ifname", "ib1"}).status, 0);

    Result t = cli.run({"-t", "-f", "NAME,TYPE", "connection", "show"});
    ASSERT_EQ(t.status, 0) << t.err;
    auto l = lines(t.out);
    ASSERT_EQ(l.size(), 2u);
    // nmcli's escaping of ':' and '\' in terse output.
    EXPECT_NE(std::find(l.begin(), l.end(), "a\\:b\\\\c:infiniband"), l.end()) << t.out;
    EXPECT_NE(std::find(l.begin(), l.end(), "mlx4_ib0:infiniband"), l.end()) << t.out;

    Result g = cli.run({"-g", "name", "connection", "show"});
    EXPECT_EQ(lines(g.out).size(), 2u);
    EXPECT_EQ(g.out.find("NAME"), std::string::npos);

    Result j = cli.run({"--json", "connection", "show"});
    auto v = parseJson(j.out);
    const auto *list = v.get("connections");
    ASSERT_TRUE(list);
    ASSERT_EQ(list->items.size(), 2u);
    for (const auto &row : list->items) {
        EXPECT_TRUE(row.get("name"));
        EXPECT_TRUE(row.get("uuid"));
        EXPECT_TRUE(row.get("type"));
        EXPECT_TRUE(row.get("device"));
        EXPECT_FALSE(row.get("filename")); // not a common field
    }
    Result all = cli.run({"-j", "-f", "all", "connection", "show"});
    EXPECT_TRUE(parseJson(all.out).get("connections")->items[0].get("filename"));

    // FILENAME, when asked for, is each row's own file.
    Result f = cli.run({"-t", "-f", "NAME,FILENAME", "connection", "show"});
    ASSERT_EQ(f.status, 0) << f.err;
    auto fl = lines(f.out);
    ASSERT_EQ(fl.size(), 2u);
    for (const auto &line : fl) {
        bool mlx4 = line.rfind("mlx4_ib0:", 0) == 0;
        EXPECT_EQ(line.find("/mlx4_ib0.nmconnection") != std::string::npos, mlx4) << line;
        EXPECT_NE(line.find(".nmconnection"), std::string::npos) << line;
    }
}

TEST(CliConnection, DeleteExportImport)
{
    Cli cli;
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    Result e = cli.run({"connection", "export", "mlx4_ib0"});
    ASSERT_EQ(e.status, 0);
    EXPECT_NE(e.out.find("[infiniband]"), std::string::npos);
    std::string path = cli.tmp() / "exported.nmconnection";
    ASSERT_EQ(cli.run({"connection", "export", "mlx4_ib0", path}).status, 0);
    Result d = cli.run({"connection", "delete", "mlx4_ib0"});
    EXPECT_EQ(d.status, 0) << d.err;
    EXPECT_TRUE(cli.keyfiles().empty());
    EXPECT_EQ(cli.run({"connection", "delete", "mlx4_ib0"}).status, 10);
    Result i = cli.run({"connection", "import", "type", "keyfile", "file", path});
    EXPECT_EQ(i.status, 0) << i.err;
    EXPECT_EQ(cli.keyfiles().size(), 1u);
}

// nmcli's --temporary keeps a change in NetworkManager's memory; ibnm keeps
// no profile in memory, so it refuses (exit 2) and writes nothing: never a
// "temporary" change made permanent on disk. nmcli takes the option as any
// prefix with one or two dashes (`--temp`, `-t`): so does the refusal.
TEST(CliConnection, TemporaryModifyAndImportAreRefusedAndWriteNothing)
{
    Cli cli;
    ASSERT_EQ(cli.run(kAddMlx4).status, 0);
    ASSERT_EQ(cli.keyfiles().size(), 1u);
    const std::string file = cli.keyfileDir() + "/" + cli.keyfiles()[0];
    const std::string before = cli.snapshot();
    struct stat was {};
    ASSERT_EQ(stat(file.c_str(), &was), 0);
    const std::string refused = "Error: '--temporary' is not supported: ibnm keeps no in-memory profiles (use nmcli "
                                "with NetworkManager running). Try passing --help instead.\n";
    for (const char *option : {"--temporary", "--temp", "-t"}) {
        Result m = cli.run({"connection", "modify", option, "mlx4_ib0", "mtu", "2044"}, {}, {{"LC_ALL", "C"}});
        EXPECT_EQ(m.status, 2) << option << ": " << m.err;
        EXPECT_EQ(m.err, refused) << option;
        EXPECT_EQ(m.out, "") << option;
        // The keyfile byte for byte, not even rewritten, and no other file.
        EXPECT_EQ(cli.snapshot(), before) << option;
        struct stat is {};
        ASSERT_EQ(stat(file.c_str(), &is), 0);
        EXPECT_EQ(is.st_ino, was.st_ino) << option;
        EXPECT_EQ(is.st_mtim.tv_sec, was.st_mtim.tv_sec) << option;
        EXPECT_EQ(is.st_mtim.tv_nsec, was.st_mtim.tv_nsec) << option;
    }

    std::string path = cli.tmp() / "exported.nmconnection";
    ASSERT_EQ(cli.run({"connection", "export", "mlx4_ib0", path}).status, 0);
    ASSERT_EQ(cli.run({"connection", "delete", "mlx4_ib0"}).status, 0);
    for (const char *option : {"--temporary", "--temp"}) {
        Result i = cli.run({"connection", "import", option, "type", "keyfile", "file", path}, {}, {{"LC_ALL", "C"}});
        EXPECT_EQ(i.status, 2) << option << ": " << i.err;
        EXPECT_EQ(i.err, refused) << option;
        EXPECT_TRUE(cli.keyfiles().empty()) << option;
    }
}

// With --offline nothing is stored: --temporary (any prefix, as nmcli) is
// taken, as nmcli --offline takes it, and the keyfile goes to stdout.
TEST(CliOffline, TemporaryModifyPrintsTheKeyfile)
{
    Result base = ibnm::test::spawn({ibnm::test::cliPath(), "--offline", "connection", "add", "type", "infiniband",
                                  "con-name", "mlx4_ib0", "ifname", "mlx4_ib0"});
    ASSERT_EQ(base.status, 0) << base.err;
    for (const char *option : {"--temporary", "--temp"}) {
        Result r = ibnm::test::spawn(
            {ibnm::test::cliPath(), "--offline", "connection", "modify", option, "mtu", "2044"}, {}, base.out);
        EXPECT_EQ(r.status, 0) << option << ": " << r.err;
        EXPECT_NE(r.out.find("mtu=2044"), std::string::npos) << option << ": " << r.out;
    }
}

TEST(CliConnection, CommandWordsMatchByPrefixAsNmcli)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run({"c", "a", "type", "infiniband", "con-name", "x", "ifname", "mlx4_ib0"}).status, 0);
    Result r = cli.run({"con", "sh"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("x "), std::string::npos);
    // As nmcli: the first word in nmcli's order; "d" is down, "m" modify.
    EXPECT_EQ(cli.run({"con", "m", "x", "mtu", "2044"}).status, 0);
    // x is not active: nmcli's answer to `down` of it.
    Result down = cli.run({"--dry-run", "connection", "d", "x"});
    EXPECT_EQ(down.status, 10) << down.err;
    EXPECT_NE(down.err.find("Error: 'x' is not an active connection."), std::string::npos) << down.err;
    EXPECT_EQ(cli.keyfiles().size(), 1u);
    EXPECT_EQ(cli.run({"connection", "de", "x"}).status, 0);
    EXPECT_TRUE(cli.keyfiles().empty());
    EXPECT_EQ(cli.run({"c", "nonsense"}).status, 2);
    EXPECT_EQ(cli.run({"dev", "st"}).status, 0);
}

// --- --offline against nmcli --offline ---------------------------------------------

const std::vector<std::vector<std::string>> kOfflineAdds = {
    {"type", "infiniband", "con-name", "mlx4_ib0", "ifname", "mlx4_ib0", "transport-mode", "Connected", "mtu",
     "65520"},
    {"type", "infiniband", "con-name", "ib0.8002", "ifname", "ib0.8002", "parent", "ib0", "p-key", "0x8002"},
    {"type", "infiniband", "con-name", "ib0", "ifname", "ib0", "ipv4.method", "manual", "ipv4.addresses",
     "192.0.2.1/24", "ipv4.gateway", "192.0.2.254", "ipv4.dns", "192.0.2.253", "ipv6.method", "manual",
     "ipv6.addresses", "2001:db8:1::1/32", "ipv6.gateway", "2001:db8:1::fffe"},
    {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", "mode=active-backup,miimon=100"},
    // nmcli's warning (stdout, before the keyfile) for a master naming no profile.
    {"type", "infiniband", "con-name", "p1", "ifname", "ib1", "master", "bond0", "slave-type", "bond"},
    // Routes, as nmstate's routes: writes them (ipv4.routes with a table).
    {"type", "infiniband", "con-name", "r", "ifname", "ib0", "ipv4.method", "manual", "ipv4.addresses",
     "192.0.2.251/24", "ipv4.routes", "0.0.0.0/0 192.0.2.1 150 table=254, 198.51.100.0/24", "ipv6.routes",
     "::/0 2001:db8::1"},
};

TEST(CliOffline, AddIsByteEqualToNmcli)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    for (auto args : kOfflineAdds) {
        args.insert(args.end(), {"connection.uuid", "5e9d2bc6-4c1f-4d3e-9b7e-2f2a8d0e6a11"});
        std::vector<std::string> n = {nmcli, "--offline", "connection", "add"};
        n.insert(n.end(), args.begin(), args.end());
        Result expected = ibnm::test::spawn(n);
        ASSERT_EQ(expected.status, 0) << expected.err;
        std::vector<std::string> i = {ibnm::test::cliPath(), "--offline", "connection", "add"};
        i.insert(i.end(), args.begin(), args.end());
        Result got = ibnm::test::spawn(i);
        EXPECT_EQ(got.status, 0) << got.err;
        EXPECT_EQ(got.out, expected.out) << args[3];
    }
}

TEST(CliOffline, ModifyReadsStdinLikeNmcli)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    Result base = ibnm::test::spawn({ibnm::test::cliPath(), "--offline", "connection", "add", "type", "infiniband",
                                  "con-name", "mlx4_ib0", "ifname", "mlx4_ib0", "connection.uuid",
                                  "5e9d2bc6-4c1f-4d3e-9b7e-2f2a8d0e6a11"});
    ASSERT_EQ(base.status, 0);
    std::vector<std::string> mod = {"ipv4.method", "manual", "ipv4.addresses", "192.0.2.1/24", "+ipv4.dns",
                                    "192.0.2.253", "mtu", "2044"};
    std::vector<std::string> n = {nmcli, "--offline", "connection", "modify"};
    n.insert(n.end(), mod.begin(), mod.end());
    std::vector<std::string> i = {ibnm::test::cliPath(), "--offline", "connection", "modify"};
    i.insert(i.end(), mod.begin(), mod.end());
    Result expected = ibnm::test::spawn(n, {}, base.out);
    Result got = ibnm::test::spawn(i, {}, base.out);
    ASSERT_EQ(expected.status, 0) << expected.err;
    EXPECT_EQ(got.status, 0) << got.err;
    EXPECT_EQ(got.out, expected.out);
}

TEST(CliOffline, TouchesNoStore)
{
    ibnm::test::TempDir home;
    Result r = ibnm::test::spawn({ibnm::test::cliPath(), "--offline", "connection", "add", "type", "infiniband",
                               "ifname", "ib0"},
                              {{"HOME", home.path()}});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("[connection]"), 0u);
}

} // namespace
