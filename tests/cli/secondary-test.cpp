// SPDX-License-Identifier: LGPL-2.1-or-later
// RDMA secondaries in the CLI: `connection add type rdma ... [secondary-of
// BASE]` writes the settings into vpn.data of a VPN profile of ibnm's
// service, as nmcli's `type vpn vpn-type ibnm vpn.data ...` does (byte for
// byte), and lists it in BASE's connection.secondaries; `check` plans it on
// the base's device and warns when the base carries the keys too; `show`
// shows its keys.
#include "config.h"

#include "tests/cli/cli-test-util.hpp"
#include "tests/nmcli-oracle.hpp"

#include <glib.h>
#include <glib/gstdio.h>
#include <gtest/gtest.h>

using ibnm::test::Cli;
using ibnm::test::Result;

namespace {

constexpr const char *kUuid = "3e5c7a90-1b2d-4f6e-8a0c-9d8e7f6a5b4c";

std::string readFile(const std::string &path)
{
    char *s = nullptr;
    if (!g_file_get_contents(path.c_str(), &s, nullptr, nullptr))
        return "";
    std::string out = s;
    g_free(s);
    return out;
}

// A base Ethernet profile on enp1s0 (a NIC of the simulated
// ethernet-only.host), with `extra` words.
void addBase(const Cli &cli, std::vector<std::string> extra = {})
{
    std::vector<std::string> args = {"connection", "add", "type", "ethernet", "con-name", "base", "ifname",
                                     "enp1s0", "ipv4.method", "disabled", "ipv6.method", "disabled"};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = cli.run(args);
    ASSERT_EQ(r.status, 0) << r.err;
}

} // namespace

TEST(CliSecondary, AddTypeRdmaWritesVpnDataAndAttachesToTheBase)
{
    Cli cli;
    addBase(cli);
    Result r = cli.run({"connection", "add", "type", "rdma", "con-name", "rdma-a", "connection.uuid", kUuid,
                        "secondary-of", "base", "rdma.link-type", "rxe", "rdma.roce-tos", "dscp:26"});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("is a secondary connection of 'base' now"), std::string::npos) << r.out;
    std::string kf = readFile(cli.keyfileDir() + "/rdma-a.nmconnection");
    EXPECT_NE(kf.find("type=vpn\n"), std::string::npos) << kf;
    EXPECT_NE(kf.find("[vpn]\nrdma.link-type=rxe\nrdma.roce-tos=dscp:26\n"
                      "service-type=org.freedesktop.NetworkManager.ibnm\n"),
              std::string::npos)
        << kf;
    EXPECT_EQ(kf.find("[user]"), std::string::npos) << kf;
    std::string base = readFile(cli.keyfileDir() + "/base.nmconnection");
    EXPECT_NE(base.find(std::string("secondaries=") + kUuid + ";\n"), std::string::npos) << base;

    // modify writes vpn.data too, with the same checks.
    Result m = cli.run({"connection", "modify", "rdma-a", "rdma.roce-mode", "v2"});
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_NE(readFile(cli.keyfileDir() + "/rdma-a.nmconnection").find("rdma.roce-mode=v2\n"), std::string::npos);
    std::string before = cli.snapshot();
    Result bad = cli.run({"connection", "modify", "rdma-a", "rdma.ttl", "300"});
    EXPECT_NE(bad.status, 0);
    EXPECT_NE(bad.err.find("rdma.ttl"), std::string::npos) << bad.err;
    EXPECT_EQ(cli.snapshot(), before);

    // show: one property per key, as [user] keys show.
    Result show = cli.run({"-t", "-f", "rdma.link-type,rdma.roce-mode,vpn.service-type", "connection", "show", "rdma-a"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_EQ(show.out, "rdma.link-type:rxe\nrdma.roce-mode:v2\nvpn.service-type:org.freedesktop.NetworkManager.ibnm\n");
    Result json = cli.run({"-j", "connection", "show", "rdma-a"});
    ASSERT_EQ(json.status, 0) << json.err;
    EXPECT_NE(json.out.find("\"rdma.roce-tos\" : \"dscp:26\""), std::string::npos) << json.out;
}

// What ibnm writes for an RDMA secondary is what nmcli writes for the same
// settings given as vpn.data (with ibnm's .name file installed, nmcli maps
// `vpn-type ibnm` to the service).
TEST(CliSecondary, OfflineAddEqualsNmcliOfflineWithVpnData)
{
    IBNM_NMCLI_ORACLE_OR_SKIP(nmcli);
    ibnm::test::TempDir vpn;
    vpn.write("nm-ibnm-service.name", "[VPN Connection]\nname=ibnm\nservice=org.freedesktop.NetworkManager.ibnm\n"
                                      "program=/usr/libexec/nm-ibnm-service\nsupports-multiple-connections=true\n");
    Cli cli;
    Result ours = cli.run({"--offline", "connection", "add", "type", "rdma", "con-name", "rdma-a", "connection.uuid",
                           kUuid, "rdma.link-type", "rxe", "rdma.link-name", "rxe0", "rdma.roce-tos", "106",
                           "rdma.traffic-class-rules", "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"});
    ASSERT_EQ(ours.status, 0) << ours.err;
    Result theirs = ibnm::test::spawn(
        {nmcli, "--offline", "connection", "add", "type", "vpn", "vpn-type", "ibnm", "con-name", "rdma-a",
         "connection.uuid", kUuid, "vpn.data",
         "rdma.link-type=rxe, rdma.link-name=rxe0, rdma.roce-tos=106, "
         "rdma.traffic-class-rules=tclass\\=16\\,src_ip\\=1.1.1.2\\,dst_ip\\=1.1.1.0/24"},
        {{"NM_VPN_PLUGIN_DIR", vpn.path()}});
    ASSERT_EQ(theirs.status, 0) << theirs.err;
    EXPECT_EQ(ours.out, theirs.out);
    // nmcli's own words work in ibnm too.
    Result words = cli.run({"--offline", "connection", "add", "type", "vpn", "vpn-type", "ibnm", "con-name", "rdma-a",
                            "connection.uuid", kUuid, "rdma.link-type", "rxe", "rdma.link-name", "rxe0",
                            "rdma.roce-tos", "106", "rdma.traffic-class-rules",
                            "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"});
    ASSERT_EQ(words.status, 0) << words.err;
    EXPECT_EQ(words.out, theirs.out);
}

TEST(CliSecondary, WhatASecondaryCannotHoldIsRefusedWithNothingWritten)
{
    Cli cli;
    addBase(cli);
    std::string before = cli.snapshot();
    struct Case {
        std::vector<std::string> args;
        const char *message;
        int status;
    } cases[] = {
        {{"type", "rdma", "con-name", "x", "ipoib.umcast", "yes"}, "ipoib.umcast: not a setting of an RDMA secondary", 2},
        {{"type", "rdma", "con-name", "x", "rdma.roce-tos", "256"}, "rdma.roce-tos: '256'", 2},
        {{"type", "rdma", "con-name", "x", "vpn.data", "rdma.ttl=1"}, "vpn.data", 2},
        {{"type", "vpn", "vpn-type", "openvpn", "con-name", "x"}, "the VPN type ibnm", 2},
        {{"type", "rdma", "con-name", "x", "secondary-of", "nosuch", "rdma.link-type", "rxe"}, "nosuch", 10},
        {{"type", "ethernet", "con-name", "x", "ifname", "eth9", "secondary-of", "base"}, "only an RDMA secondary", 2},
    };
    for (const auto &c : cases) {
        std::vector<std::string> args = {"connection", "add"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        Result r = cli.run(args);
        EXPECT_EQ(r.status, c.status) << c.message << ": " << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(cli.snapshot(), before) << c.message;
    }
}

// check plans the secondary on its base's device, as nm-ibnm-service would
// apply it there: RoCE v1 on rxe is an error of the secondary; keys in both
// the base's [user] and its secondary are a warning on the base.
TEST(CliSecondary, CheckPlansTheSecondaryOnItsBaseAndWarnsAboutBoth)
{
    Cli cli("ethernet-only.host");
    addBase(cli, {"rdma.link-type", "rxe", "rdma.link-name", "rxe1"});
    Result a = cli.run({"connection", "add", "type", "rdma", "con-name", "rdma-a", "secondary-of", "base",
                        "rdma.link-type", "rxe", "rdma.link-name", "rxe0", "rdma.roce-mode", "v1"});
    // The rule against RoCE v1 on rxe holds without a device: add refuses.
    EXPECT_EQ(a.status, 1) << a.out << a.err;
    EXPECT_NE(a.err.find("rdma.roce-mode"), std::string::npos) << a.err;
    Result b = cli.run({"connection", "add", "type", "rdma", "con-name", "rdma-b", "secondary-of", "base",
                        "rdma.link-type", "rxe", "rdma.link-name", "rxe0", "rdma.roce-tos", "106"});
    ASSERT_EQ(b.status, 0) << b.out << b.err;
    Result check = cli.run({"check"});
    EXPECT_NE(check.out.find("'base' carries rdma.* keys in [user] and has the RDMA secondary 'rdma-b'"),
              std::string::npos)
        << check.out << check.err;
    // A planner error only the device shows: rxe over a netdev that is not
    // there.
    // (A stored profile for a NIC this host lacks, written past the check.)
    Result c = cli.run({"--offline", "connection", "add", "type", "ethernet", "con-name", "base-x", "ifname", "eth-x",
                        "ipv4.method", "disabled", "ipv6.method", "disabled"});
    ASSERT_EQ(c.status, 0) << c.err;
    std::string path = cli.keyfileDir() + "/base-x.nmconnection";
    ASSERT_TRUE(g_file_set_contents(path.c_str(), c.out.c_str(), -1, nullptr));
    g_chmod(path.c_str(), 0600);
    Result e = cli.run({"connection", "add", "type", "rdma", "con-name", "rdma-x", "secondary-of", "base-x",
                        "rdma.link-type", "rxe"});
    EXPECT_EQ(e.status, 0) << e.err;
    Result j = cli.run({"-j", "check"});
    EXPECT_NE(j.out.find("no interface eth-x on this host"), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("the device of the base profile 'base-x'"), std::string::npos) << j.out;
}

// Standalone ibnm activates a base's RDMA secondaries with it, on its
// interface, as NetworkManager does, and takes them down with it; a
// secondary no profile lists has no device to be provisioned on.
TEST(CliSecondary, StandaloneUpAndDownOfTheBaseBringTheSecondary)
{
    Cli cli("ethernet-only.host");
    addBase(cli);
    ASSERT_EQ(cli.run({"connection", "add", "type", "rdma", "con-name", "rdma-a", "secondary-of", "base",
                       "rdma.link-type", "rxe", "rdma.link-name", "rxe0"})
                  .status,
              0);
    Result up = cli.run({"connection", "up", "base"});
    ASSERT_EQ(up.status, 0) << up.out << up.err;
    EXPECT_NE(up.out.find("add the rxe link rxe0 over enp1s0"), std::string::npos) << up.out;
    EXPECT_NE(cli.run({"rdma", "link", "show"}).out.find("rxe0/1"), std::string::npos);
    Result down = cli.run({"connection", "down", "base"});
    ASSERT_EQ(down.status, 0) << down.out << down.err;
    EXPECT_EQ(cli.run({"rdma", "link", "show"}).out.find("rxe0/1"), std::string::npos);

    ASSERT_EQ(cli.run({"connection", "add", "type", "rdma", "con-name", "lone", "rdma.link-type", "siw"}).status, 0);
    std::string before = cli.snapshot();
    Result lone = cli.run({"connection", "up", "lone"});
    EXPECT_NE(lone.status, 0) << lone.out;
    EXPECT_NE(lone.err.find("no profile does"), std::string::npos) << lone.err;
    EXPECT_EQ(cli.run({"rdma", "link", "show"}).out.find("siw"), std::string::npos);
}
