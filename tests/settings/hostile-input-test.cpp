// SPDX-License-Identifier: LGPL-2.1-or-later
// Hostile and odd input to the profile store: bytes that are not UTF-8,
// interface names the kernel refuses, huge and unterminated files; and the
// promise that whatever ibnm writes it reads back, over generated nmcli
// argument sets and ifcfg files (fixed seeds, counts printed).
#include "config.h"

#include "ibnm-profile.h"
#include "ibnm-settings.h"
#include "libcore/support/raii.hpp"
#include "settings-test-util.hpp"
#include "settings/ifcfg-reader.hpp"
#include "settings/keyfile-backend.hpp"
#include "settings/keyfile-codec.hpp"

#include <cstdio>
#include <random>

using namespace ibnm::test;
namespace settings = ibnm::settings;
using ibnm::GObjectPtr;

namespace {

GObjectPtr<NMConnection> infiniband(const char *ifname, const char *parent, int pkey)
{
    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    NMSetting *s = nm_setting_connection_new();
    g_object_set(s, NM_SETTING_CONNECTION_ID, "p", NM_SETTING_CONNECTION_UUID, "8a0c0b1e-6a5b-4bd0-9b55-6f7e1ad1f001",
                 NM_SETTING_CONNECTION_TYPE, NM_SETTING_INFINIBAND_SETTING_NAME, NM_SETTING_CONNECTION_INTERFACE_NAME,
                 ifname, nullptr);
    nm_connection_add_setting(c.get(), s);
    NMSetting *ib = nm_setting_infiniband_new();
    g_object_set(ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, "datagram", nullptr);
    if (parent)
        g_object_set(ib, NM_SETTING_INFINIBAND_PARENT, parent, NM_SETTING_INFINIBAND_P_KEY, pkey, nullptr);
    nm_connection_add_setting(c.get(), ib);
    return c;
}

TEST(HostileInput, NonUtf8ValuesAreRefusedNamingTheProperty)
{
    auto c = infiniband("ib0.8001", "ib\xe9", 0x8001);
    auto data = settings::keyfileToData(c.get());
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.error().code(), IBNM_ERROR_INVALID_VALUE);
    EXPECT_EQ(data.error().toString().rfind("infiniband.parent: ", 0), 0u) << data.error().toString();

    auto id = infiniband("ib0", nullptr, -1);
    g_object_set(nm_connection_get_setting_connection(id.get()), NM_SETTING_CONNECTION_ID, "caf\xe9", nullptr);
    auto d2 = settings::keyfileToData(id.get());
    ASSERT_FALSE(d2.ok());
    EXPECT_EQ(d2.error().toString().rfind("connection.id: ", 0), 0u) << d2.error().toString();
}

TEST(HostileInput, InterfaceNamesAreCheckedAsTheKernelDoes)
{
    for (const char *bad : {"ib 0", "a/b", "ib0:1", "abcdefghijklmnop", ".", ".."}) {
        auto c = infiniband(bad, nullptr, -1);
        auto data = settings::keyfileToData(c.get());
        ASSERT_FALSE(data.ok()) << bad;
        EXPECT_NE(data.error().toString().find("connection.interface-name"), std::string::npos)
            << data.error().toString();
    }
    // The kernel takes quotes: such a name is valid (and escaped in udev rules).
    auto c = infiniband("a\",RUN+=\"x", nullptr, -1);
    EXPECT_TRUE(settings::keyfileToData(c.get()).ok());
}

TEST(HostileInput, IfcfgParsingIsLinearAndBounded)
{
    // An unclosed multi-line quote used to rescan the value once per line.
    std::string text = "TYPE=InfiniBand\nNAME=\"x\n";
    while (text.size() < settings::kMaxIfcfgSize - 100)
        text += "a line of an unclosed quote\n";
    gint64 start = g_get_monotonic_time();
    auto r = settings::ShellVars::parse(text, "ifcfg-x");
    double seconds = double(g_get_monotonic_time() - start) / G_USEC_PER_SEC;
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find("unterminated quote"), std::string::npos) << r.error().toString();
    EXPECT_LT(seconds, 0.5) << "an unclosed quote over " << text.size() << " bytes took " << seconds << " s";
    std::printf("ifcfg: an unclosed quote over %zu bytes parsed in %.4f s\n", text.size(), seconds);

    TempDir dir;
    dir.write("ifcfg-big", "TYPE=InfiniBand\n" + std::string(settings::kMaxIfcfgSize, '#') + "\n");
    auto big = settings::ShellVars::load(dir / "ifcfg-big");
    ASSERT_FALSE(big.ok());
    EXPECT_NE(big.error().toString().find("larger than"), std::string::npos) << big.error().toString();
    EXPECT_NE(big.error().toString().find(dir / "ifcfg-big"), std::string::npos) << big.error().toString();

    // Multi-line values still read as before.
    auto ok = settings::ShellVars::parse("A=\"one\ntwo\"\nB='x' # c\nC=y\\\nz\n", "f");
    ASSERT_TRUE(ok.ok()) << ok.error().toString();
    EXPECT_EQ(*ok->get("A"), "one\ntwo");
    EXPECT_EQ(*ok->get("B"), "x");
    EXPECT_EQ(*ok->get("C"), "yz");
    EXPECT_EQ(ok->line("C"), 4u);
}

TEST(HostileInput, HugeKeyfilesAreRefusedNamingTheLimit)
{
    TempDir dir;
    std::string huge = "[connection]\nid=x\nuuid=8a0c0b1e-6a5b-4bd0-9b55-6f7e1ad1f002\ntype=infiniband\n# " +
                       std::string(IBNM_KEYFILE_MAX_SIZE, 'x') + "\n";
    dir.write("x.nmconnection", huge);
    g_chmod((dir / "x.nmconnection").c_str(), 0600);
    settings::KeyfileBackend store(dir.path());
    store.setRequiredOwner(getuid());
    ASSERT_TRUE(store.load().ok());
    EXPECT_TRUE(store.profiles().empty());
    ASSERT_EQ(store.warnings().size(), 1u);
    EXPECT_NE(store.warnings()[0].find("larger than"), std::string::npos) << store.warnings()[0];
    EXPECT_NE(store.warnings()[0].find(dir / "x.nmconnection"), std::string::npos) << store.warnings()[0];
    auto parsed = settings::keyfileFromData(huge, "x.nmconnection");
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.error().toString().find("the most a keyfile may have"), std::string::npos);
}

// What ibnm writes, it reads back: the written keyfile parses to the same
// profile, or nothing is written.
void expectRoundTrip(NMConnection *c, const std::string &what, unsigned &written, unsigned &refused)
{
    auto data = settings::keyfileToData(c);
    if (!data.ok()) {
        refused++;
        return;
    }
    written++;
    auto back = settings::keyfileFromData(*data, "/x.nmconnection");
    ASSERT_TRUE(back.ok()) << what << ": " << back.error().toString() << "\n" << *data;
    auto again = settings::keyfileToData(back->get());
    ASSERT_TRUE(again.ok()) << what;
    EXPECT_EQ(*again, *data) << what;
}

TEST(HostileInput, GeneratedAddArgumentsRoundTrip)
{
    const std::vector<std::vector<std::string>> pool = {
        {"ifname", "ib0"}, {"ifname", "ib0.8001"}, {"ifname", "a\",RUN+=\"x"}, {"ifname", "ib%k$x"},
        {"ifname", "ib\xe9"}, {"ifname", "ib 0"}, {"con-name", "caf\xc3\xa9"}, {"con-name", "caf\xe9"},
        {"con-name", "a\nb"}, {"con-name", "\x1b[31mred"}, {"parent", "ib0"}, {"parent", "ib\xe9"},
        {"p-key", "0x8001"}, {"p-key", "32770"}, {"mtu", "2044"}, {"mtu", "65520"}, {"mtu", "70000"},
        {"transport-mode", "connected"}, {"transport-mode", "datagram"},
        {"ipv4.method", "manual"}, {"ipv4.addresses", "192.0.2.1/24"}, {"ipv4.gateway", "192.0.2.254"},
        {"ipv4.dns", "192.0.2.53"}, {"ipv6.method", "disabled"}, {"mac", "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51"},
        {"ipoib.pkey-check", "strict"}, {"rdma.link-type", "rxe"}, {"autoconnect", "no"},
    };
    std::mt19937 rng(20);
    unsigned sets = 0, parsed = 0, written = 0, refused = 0;
    for (int round = 0; round < 400; round++) {
        std::vector<std::string> args = {"type", "infiniband"};
        int n = 1 + int(rng() % 6);
        for (int i = 0; i < n; i++) {
            const auto &kv = pool[rng() % pool.size()];
            args.insert(args.end(), kv.begin(), kv.end());
        }
        std::vector<const char *> argv;
        std::string what;
        for (const auto &a : args) {
            argv.push_back(a.c_str());
            what += a + " ";
        }
        argv.push_back(nullptr);
        sets++;
        GError *err = nullptr;
        auto profile = GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argv.data(), &err));
        if (err)
            g_error_free(err);
        if (!profile)
            continue;
        parsed++;
        expectRoundTrip(ibnm_profile_get_connection(profile.get()), what, written, refused);
    }
    std::printf("round trip: %u generated argument sets, %u parsed, %u written and read back byte-identical, %u "
                "refused before writing\n",
                sets, parsed, written, refused);
    EXPECT_GT(written, 50u);
}

TEST(HostileInput, GeneratedIfcfgFilesRoundTrip)
{
    const std::vector<std::string> pool = {
        "DEVICE=ib0", "DEVICE=ib0.8002", "DEVICE='a\",RUN+=\"x'", "DEVICE=$'ib\\xe9'", "PHYSDEV=ib0",
        "PHYSDEV=$'ib\\xe9'", "PKEY=yes", "PKEY_ID=2", "PKEY_ID=0x8002", "PKEY_ID=70000", "CONNECTED_MODE=yes",
        "CONNECTED_MODE=no", "MTU=2044", "MTU=65520", "MTU=x", "NAME=caf\xc3\xa9", "NAME=$'caf\\xe9'",
        "NAME=\"multi\nline\"", "NAME=$'\\e[31mred'", "BOOTPROTO=dhcp", "BOOTPROTO=none", "IPADDR=192.0.2.1",
        "PREFIX=24", "PREFIX=40", "GATEWAY=192.0.2.254", "ONBOOT=no", "HWADDR=80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51",
        "MASTER=bond0", "SLAVE=yes", "UUID=8a0c0b1e-6a5b-4bd0-9b55-6f7e1ad1f003", "UUID=not-a-uuid",
        "IPV6INIT=yes", "IPV6ADDR=2001:db8::1/64",
    };
    std::mt19937 rng(2020);
    unsigned files = 0, imported = 0, written = 0, refused = 0;
    for (int round = 0; round < 400; round++) {
        std::string text = "TYPE=InfiniBand\n";
        int n = 1 + int(rng() % 7);
        for (int i = 0; i < n; i++)
            text += pool[rng() % pool.size()] + "\n";
        files++;
        auto vars = settings::ShellVars::parse(text, "/etc/sysconfig/network-scripts/ifcfg-gen");
        if (!vars.ok())
            continue;
        auto c = settings::importIfcfg(*vars);
        if (!c.ok())
            continue;
        imported++;
        expectRoundTrip(c->get(), text, written, refused);
    }
    std::printf("round trip: %u generated ifcfg files, %u imported, %u written and read back byte-identical, %u "
                "refused before writing\n",
                files, imported, written, refused);
    EXPECT_GT(written, 50u);
}

} // namespace
