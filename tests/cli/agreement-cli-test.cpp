// SPDX-License-Identifier: LGPL-2.1-or-later
// "Know before you apply" from the command line, case by case as a new user
// found them (issue "One home for the IPoIB and RDMA facts"): check, --dry-run
// and up agree; --dry-run changes nothing for any command; delete takes down
// what the profile brought up; up configures everything a profile says.
#include "config.h"

#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "tests/cli/cli-test-util.hpp"

#include <glib.h>
#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::lines;
using ibnm::test::Result;

namespace {

using Args = std::vector<std::string>;

Args add(std::initializer_list<const char *> words)
{
    Args a = {"connection", "add"};
    for (const char *w : words)
        a.push_back(w);
    return a;
}

// The simulated host as its description file would hold it now (its state
// directory keeps a snapshot and a journal; this reads both).
std::string hostState(const Cli &cli)
{
    auto p = ibnm::platform::FakePlatform::open(ibnm::test::hostFile(cli.host()), cli.stateDir());
    EXPECT_TRUE(p.ok()) << p.error().toString();
    if (!p.ok())
        return {};
    auto h = (*p)->readHost();
    EXPECT_TRUE(h.ok());
    ibnm::platform::FakeState st;
    st.host = *h;
    return ibnm::platform::formatHostDescription(st);
}

// The same verdict from check, up --dry-run and up, on the host as it is.
void expectAgreement(Cli &cli, const std::string &id, bool ok)
{
    Result check = cli.run({"check", id});
    Result dry = cli.run({"--dry-run", "connection", "up", id});
    std::string before = hostState(cli);
    Result up = cli.run({"connection", "up", id});
    EXPECT_EQ(check.status == 0, ok) << check.out << check.err;
    EXPECT_EQ(dry.status == 0, ok) << dry.out << dry.err;
    EXPECT_EQ(up.status == 0, ok) << up.out << up.err;
    if (!ok) {
        EXPECT_EQ(hostState(cli), before) << "a refused up changed the host";
        EXPECT_EQ(up.out.find("successfully activated"), std::string::npos) << up.out;
    }
}

// cx6-mlx5-ib.host: Enhanced IPoIB, datagram only. A connected-mode child
// is refused by check, by the dry run and by up alike.
TEST(CliAgreement, ConnectedChildOnEnhancedIpoib)
{
    Cli cli("cx6-mlx5-ib.host");
    std::string path = cli.keyfileDir() + "/child.nmconnection";
    Result kf = cli.run({"--offline", "connection", "add", "type", "infiniband", "con-name", "child", "parent", "ib0",
                         "p-key", "0x8002", "transport-mode", "connected"});
    ASSERT_EQ(kf.status, 0) << kf.err;
    ASSERT_TRUE(g_file_set_contents(path.c_str(), kf.out.c_str(), -1, nullptr));
    g_chmod(path.c_str(), 0600);
    expectAgreement(cli, "child", false);
}

// The kernel refuses a datagram MTU above the port's maximum: an error, not
// a clamp, whatever mode the port is in now.
TEST(CliAgreement, DatagramMtuAboveTheMaximumIsAnError)
{
    Cli cli("mlx4-dual-port.host");
    Result a = cli.run(add({"type", "infiniband", "con-name", "big", "ifname", "mlx4_ib0", "transport-mode",
                            "datagram", "mtu", "65520"}));
    EXPECT_EQ(a.status, 1) << a.out << a.err;
    EXPECT_NE(a.err.find("infiniband.mtu: 65520 exceeds the datagram maximum 4092"), std::string::npos) << a.err;
    EXPECT_TRUE(cli.keyfiles().empty());
}

// P_Key 0x7fff is the partition of a parent whose own P_Key is 0xffff.
TEST(CliAgreement, ChildInTheParentsOwnPartitionIsRefused)
{
    Cli cli("mlx4-dual-port.host");
    for (const char *pkey : {"0xffff", "0x7fff"}) {
        Result a = cli.run(add({"type", "infiniband", "con-name", "own", "parent", "mlx4_ib0", "p-key", pkey}));
        EXPECT_EQ(a.status, 1) << pkey << a.out << a.err;
        EXPECT_NE(a.err.find("is the P_Key of mlx4_ib0 itself"), std::string::npos) << a.err;
    }
    EXPECT_TRUE(cli.keyfiles().empty());
}

// The error about a duplicate child names the profile that has it already.
TEST(CliAgreement, DuplicateChildNamesTheExistingProfile)
{
    Cli cli;
    ASSERT_EQ(cli.run(add({"type", "infiniband", "con-name", "first", "parent", "ib0", "p-key", "0x8002"})).status, 0);
    Result r = cli.run(add({"type", "infiniband", "con-name", "second", "parent", "ib0", "p-key", "0x0002"}));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("profile 'first' already defines the child of ib0"), std::string::npos) << r.err;
    EXPECT_EQ(cli.keyfiles().size(), 1u);
}

// --dry-run writes and deletes nothing, for every command.
TEST(CliAgreement, DryRunChangesNothing)
{
    Cli cli("mlx4-dual-port.host");
    Result a = cli.run({"--dry-run", "connection", "add", "type", "infiniband", "con-name", "x", "ifname", "mlx4_ib0"});
    EXPECT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("Dry run"), std::string::npos) << a.out;
    EXPECT_TRUE(cli.keyfiles().empty());
    ASSERT_EQ(cli.run(add({"type", "infiniband", "con-name", "x", "ifname", "mlx4_ib0"})).status, 0);
    std::string before = cli.snapshot();
    Result m = cli.run({"--dry-run", "connection", "modify", "x", "mtu", "1500"});
    EXPECT_EQ(m.status, 0) << m.err;
    EXPECT_EQ(cli.snapshot(), before);
    Result d = cli.run({"--dry-run", "connection", "delete", "x"});
    EXPECT_EQ(d.status, 0) << d.err;
    EXPECT_EQ(cli.snapshot(), before);
}

// check cannot vouch for a profile it could not read.
TEST(CliAgreement, CheckFailsWhenAKeyfileWasSkipped)
{
    Cli cli("mlx4-dual-port.host");
    std::string path = cli.keyfileDir() + "/bad.nmconnection";
    const char *bad = "[connection]\nid=bad\nuuid=0c7d1b1e-6a44-4a54-9b59-3f0f2a5b7c11\ntype=infiniband\n"
                      "interface-name=mlx4_ib0\n\n[infiniband]\ntransport-mode=datagram\n\n[user]\nrdma.ttl=300\n";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), bad, -1, nullptr));
    g_chmod(path.c_str(), 0600);
    Result r = cli.run({"check"});
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_EQ(r.out.find("No findings"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("not checked"), std::string::npos) << r.err;
}

// nmcli deactivates a profile it deletes; so does ibnm in standalone mode.
TEST(CliAgreement, DeletingAnActiveChildTakesItDown)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(add({"type", "infiniband", "con-name", "c", "parent", "mlx4_ib0", "p-key", "0x8002",
                           "ipv4.method", "disabled"}))
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "up", "c"}).status, 0);
    Result st = cli.run({"-t", "-f", "DEVICE", "device", "status"});
    EXPECT_NE(st.out.find("mlx4_ib0.8002"), std::string::npos) << st.out;
    Result d = cli.run({"connection", "delete", "c"});
    EXPECT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("delete-ipoib-child"), std::string::npos) << d.out;
    st = cli.run({"-t", "-f", "DEVICE", "device", "status"});
    EXPECT_EQ(st.out.find("mlx4_ib0.8002"), std::string::npos) << st.out;
    EXPECT_TRUE(cli.keyfiles().empty());
}

// In standalone mode an Ethernet profile's MTU and addresses are applied,
// and an address that left the profile is removed at the next up.
TEST(CliAgreement, EthernetProfileIsConfiguredAndAddressesFollowTheProfile)
{
    Cli cli("ethernet-only.host");
    ASSERT_EQ(cli.run(add({"type", "ethernet", "con-name", "e", "ifname", "enp1s0", "mtu", "9000", "ipv4.method",
                           "manual", "ipv4.addresses", "192.0.2.7/24"}))
                  .status,
              0);
    ASSERT_EQ(cli.run({"connection", "up", "e"}).status, 0);
    std::string state = hostState(cli);
    EXPECT_NE(state.find("addresses=192.0.2.7/24"), std::string::npos) << state;
    EXPECT_NE(state.find("mtu=9000"), std::string::npos) << state;
    ASSERT_EQ(cli.run({"connection", "modify", "e", "ipv4.addresses", "192.0.2.8/24"}).status, 0);
    ASSERT_EQ(cli.run({"connection", "up", "e"}).status, 0);
    state = hostState(cli);
    EXPECT_NE(state.find("192.0.2.8/24"), std::string::npos) << state;
    EXPECT_EQ(state.find("192.0.2.7/24"), std::string::npos) << state;
    Result again = cli.run({"connection", "up", "e"});
    EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
    ASSERT_EQ(cli.run({"connection", "down", "e"}).status, 0);
    state = hostState(cli);
    EXPECT_EQ(state.find("192.0.2.8/24"), std::string::npos) << state;
}

// Traffic class and TTL exist on mlx5 only; a MAC whose GUID is another
// port's: refused by add, check and up. rdma.* on a netdev that does not
// exist (yet) is stored, as nmcli stores it, with a warning; up fails (4).
TEST(CliAgreement, RefusedBeforeUp)
{
    Cli cli("mlx4-dual-port.host");
    Result tc = cli.run(add({"type", "ethernet", "con-name", "tc", "ifname", "ens2d1", "rdma.traffic-class", "96"}));
    EXPECT_EQ(tc.status, 1) << tc.out << tc.err;
    EXPECT_NE(tc.err.find("rdma.traffic-class"), std::string::npos) << tc.err;
    Result mac = cli.run(add({"type", "infiniband", "con-name", "mac", "ifname", "mlx4_ib0", "mac",
                              "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:f3"}));
    EXPECT_EQ(mac.status, 1) << mac.out << mac.err;
    EXPECT_NE(mac.err.find("infiniband.mac-address"), std::string::npos) << mac.err;
    EXPECT_TRUE(cli.keyfiles().empty());
    Result nd = cli.run(add({"type", "ethernet", "con-name", "nd", "ifname", "nosuch0", "rdma.link-type", "rxe"}));
    EXPECT_EQ(nd.status, 0) << nd.out << nd.err;
    EXPECT_NE(nd.err.find("'nosuch0' does not exist on this host (yet)"), std::string::npos) << nd.err;
    Result up = cli.run({"connection", "up", "nd"});
    EXPECT_EQ(up.status, 4) << up.out << up.err;
}

// As NetworkManager activates a port's controller with it, up of a port
// whose bond is not there brings the bond profile up too; the port of an
// existing bond names it without the bond being brought up again.
TEST(CliAgreement, PortBringsItsBondUp)
{
    Cli cli("mlx4-dual-port.host");
    ASSERT_EQ(cli.run(add({"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                           "mode=active-backup,fail_over_mac=0"}))
                  .status,
              0);
    ASSERT_EQ(cli.run(add({"type", "infiniband", "con-name", "port", "ifname", "mlx4_ib0", "master", "bond0",
                           "slave-type", "bond"}))
                  .status,
              0);
    Result up = cli.run({"connection", "up", "port"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_NE(up.out.find("create-bond"), std::string::npos) << up.out;
    EXPECT_NE(up.out.find("enslave"), std::string::npos) << up.out;
    std::string state = hostState(cli);
    EXPECT_NE(state.find("master=bond0"), std::string::npos) << state;
    // The kernel switched fail_over_mac to active at the first IPoIB port.
    EXPECT_NE(state.find("fail-over-mac=active"), std::string::npos) << state;
    Result again = cli.run({"connection", "up", "port"});
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.out.find("Nothing to do"), std::string::npos) << again.out;
}

// The keyfiles of ibnm-keyfile(5)'s EXAMPLE section pass check on hosts
// that have their interfaces, and come up.
TEST(CliAgreement, KeyfileManPageExamplesComeUp)
{
    char *raw = nullptr;
    std::string page = std::string(IBNM_TOP_SRCDIR) + "/doc/ibnm-keyfile.5";
    ASSERT_TRUE(g_file_get_contents(page.c_str(), &raw, nullptr, nullptr)) << page;
    std::string text = raw;
    g_free(raw);
    text = text.substr(text.find(".SH EXAMPLE"));
    std::vector<std::string> examples;
    for (size_t at = text.find(".nf\n"); at != std::string::npos; at = text.find(".nf\n", at + 1))
        examples.push_back(text.substr(at + 4, text.find(".fi\n", at) - at - 4));
    ASSERT_EQ(examples.size(), 2u);
    struct Case {
        const char *host, *id;
    } cases[] = {{"cx6-mlx5-ib.host", "ib0.8002"}, {"ethernet-only.host", "enp1s0"}};
    for (size_t i = 0; i < 2; i++) {
        Cli cli(cases[i].host);
        std::string path = cli.keyfileDir() + "/example.nmconnection";
        ASSERT_TRUE(g_file_set_contents(path.c_str(), examples[i].c_str(), -1, nullptr));
        g_chmod(path.c_str(), 0600);
        Result check = cli.run({"check"});
        EXPECT_EQ(check.status, 0) << cases[i].host << "\n" << check.out << check.err;
        Result up = cli.run({"connection", "up", cases[i].id});
        EXPECT_EQ(up.status, 0) << cases[i].host << "\n" << up.out << up.err;
    }
}

} // namespace
