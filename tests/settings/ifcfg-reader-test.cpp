// SPDX-License-Identifier: LGPL-2.1-or-later
// ifcfg-rh import: the values NetworkManager's ifcfg-rh reader gives the
// conformance files, and shell quoting as svUnescape() reads it.
#include "config.h"

#include "ibnm-settings.h"
#include "settings-test-util.hpp"
#include "settings/ifcfg-reader.hpp"

#include <optional>
#include <set>

using namespace ibnm::test;
using ibnm::settings::shellUnescape;

namespace {

const char kIbMac[] = "80:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:00:11:22";

struct IfcfgCase {
    const char *file;
    const char *error;    // part of the expected error; nullptr if it imports
    const char *id;
    const char *ifname;   // connection.interface-name (nullptr: unset)
    const char *mac;
    guint32 mtu;
    const char *mode;
    int pKey;
    const char *parent;
    const char *master;
    const char *portType;
    bool autoconnect;
    const char *ip4Method; // nullptr: no [ipv4] (a port)
    const char *ip4Address;
    const char *gateway;
};

// Expectations from NetworkManager's ifcfg-rh reader
// (nms-ifcfg-rh-reader.c: make_infiniband_setting, parse_infiniband_p_key,
// the MASTER/TEAM_MASTER handling) and test-ifcfg-rh.c (test_read_infiniband,
// test_read_bond_slave_ib, the P_Key tests): PKEY_ID is read with the
// full-membership bit 0x8000 set, PKEY_ID_NM as is; DEVICE must then be
// PHYSDEV.<p-key>; ports get no IP configuration.
const IfcfgCase kConformance[] = {
    {"ifcfg-test-infiniband0", nullptr, "System test-infiniband0", "ib0", kIbMac, 65520, "connected", -1, nullptr,
     nullptr, nullptr, true, "manual", "192.168.2.2/24", "192.168.2.1"},
    {"ifcfg-test-infiniband1", nullptr, "System test-infiniband1", "ib0.80c1", kIbMac, 65520, "connected", 0x80c1,
     "ib0", nullptr, nullptr, true, "manual", "192.168.2.2/24", "192.168.2.1"},
    {"ifcfg-test-infiniband2", ": DEVICE: 'ib0.00c1' does not match PHYSDEV and the P_Key", nullptr, nullptr,
     nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr, true, nullptr, nullptr, nullptr},
    {"ifcfg-test-ipoib", nullptr, "ib012", nullptr, nullptr, 0, "connected", 0x800c, "ib0", nullptr, nullptr, true,
     "manual", "192.168.2.2/24", "192.168.2.1"},
    {"ifcfg-test-bond-port-ib", nullptr, "System test-bond-port-ib", "ib0", kIbMac, 0, "datagram", -1, nullptr,
     "bond0", "bond", false, nullptr, nullptr, nullptr},
};

std::string ifcfgDir()
{
    auto shared = sharedDir();
    return shared ? *shared + "/conformance/networkmanager/ifcfg-rh" : std::string();
}

void checkImported(NMConnection *c, const IfcfgCase &tc)
{
    NMSettingConnection *s_con = nm_connection_get_setting_connection(c);
    EXPECT_STREQ(nm_connection_get_id(c), tc.id);
    EXPECT_STREQ(nm_connection_get_connection_type(c), NM_SETTING_INFINIBAND_SETTING_NAME);
    EXPECT_STREQ(nm_setting_connection_get_interface_name(s_con), tc.ifname);
    EXPECT_STREQ(nm_setting_connection_get_master(s_con), tc.master);
    EXPECT_STREQ(nm_setting_connection_get_slave_type(s_con), tc.portType);
    EXPECT_EQ(bool(nm_setting_connection_get_autoconnect(s_con)), tc.autoconnect);
    NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
    ASSERT_NE(ib, nullptr);
    const char *mac = nm_setting_infiniband_get_mac_address(ib);
    if (tc.mac == nullptr)
        EXPECT_EQ(mac, nullptr);
    else
        EXPECT_TRUE(mac && nm_utils_hwaddr_matches(mac, -1, tc.mac, -1)) << (mac ? mac : "(none)");
    EXPECT_EQ(nm_setting_infiniband_get_mtu(ib), tc.mtu);
    EXPECT_STREQ(nm_setting_infiniband_get_transport_mode(ib), tc.mode);
    EXPECT_EQ(nm_setting_infiniband_get_p_key(ib), tc.pKey);
    EXPECT_STREQ(nm_setting_infiniband_get_parent(ib), tc.parent);
    NMSettingIPConfig *ip4 = nm_connection_get_setting_ip4_config(c);
    if (tc.ip4Method == nullptr) {
        EXPECT_EQ(ip4, nullptr);
        EXPECT_EQ(nm_connection_get_setting_ip6_config(c), nullptr);
        return;
    }
    ASSERT_NE(ip4, nullptr);
    EXPECT_STREQ(nm_setting_ip_config_get_method(ip4), tc.ip4Method);
    ASSERT_EQ(nm_setting_ip_config_get_num_addresses(ip4), 1u);
    NMIPAddress *a = nm_setting_ip_config_get_address(ip4, 0);
    EXPECT_EQ(std::string(nm_ip_address_get_address(a)) + "/" + std::to_string(nm_ip_address_get_prefix(a)),
              tc.ip4Address);
    EXPECT_STREQ(nm_setting_ip_config_get_gateway(ip4), tc.gateway);
}

NMConnection *importText(const TempDir &dir, const std::string &name, const std::string &text, GError **err)
{
    dir.write(name, text);
    return ibnm_ifcfg_import((dir / name).c_str(), err);
}

} // namespace

TEST(IfcfgConformance, EachFileImportsWithNetworkManagersValues)
{
    std::string dir = ifcfgDir();
    if (dir.empty())
        IBNM_LAB_SKIP("no shared directory (set IBNM_SHARED_DIR): conformance ifcfg files absent");
    std::set<std::string> covered;
    for (const auto &tc : kConformance) {
        SCOPED_TRACE(tc.file);
        covered.insert(tc.file);
        std::string path = dir + "/" + tc.file;
        GError *err = nullptr;
        NMConnection *c = ibnm_ifcfg_import(path.c_str(), &err);
        if (tc.error != nullptr) {
            EXPECT_EQ(c, nullptr);
            ASSERT_NE(err, nullptr);
            EXPECT_EQ(std::string(err->message).rfind(path + ":", 0), 0u) << err->message;
            EXPECT_NE(std::string(err->message).find(tc.error), std::string::npos) << err->message;
            g_error_free(err);
            continue;
        }
        ASSERT_NE(c, nullptr) << err->message;
        checkImported(c, tc);
        // It becomes a keyfile that reads back the same.
        char *data = ibnm_keyfile_to_data(c, &err);
        ASSERT_NE(data, nullptr) << err->message;
        NMConnection *back = ibnm_keyfile_from_data(data, "/etc/NetworkManager/system-connections/x.nmconnection", &err);
        ASSERT_NE(back, nullptr) << err->message;
        EXPECT_TRUE(nm_connection_compare(c, back, NM_SETTING_COMPARE_FLAG_EXACT));
        g_object_unref(back);
        g_free(data);
        g_object_unref(c);
    }
    covered.insert("ifcfg-Test_Write_Team_Infiniband_Port.cexpected"); // TeamPortFromWriterOutput
    GDir *d = g_dir_open(dir.c_str(), 0, nullptr);
    ASSERT_NE(d, nullptr);
    while (const char *name = g_dir_read_name(d))
        EXPECT_TRUE(covered.count(name)) << "no expectations for " << name;
    g_dir_close(d);
}

// NetworkManager's writer output for test_write_team_infiniband_port(); its
// test replaces ${UUID} before comparing, and so does this one.
TEST(IfcfgConformance, TeamPortFromWriterOutput)
{
    // The team-port config is JSON: libnm loads libjansson for it.
    IBNM_SKIP_IF_LIBNM_LOADS_JANSSON();
    std::string dir = ifcfgDir();
    if (dir.empty())
        IBNM_LAB_SKIP("no shared directory (set IBNM_SHARED_DIR): conformance ifcfg files absent");
    std::string path = dir + "/ifcfg-Test_Write_Team_Infiniband_Port.cexpected";
    std::string text = readFile(path);

    // As it is, ${UUID} is an unquoted expansion: an error naming FILE:LINE.
    GError *err = nullptr;
    EXPECT_EQ(ibnm_ifcfg_import(path.c_str(), &err), nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(std::string(err->message).rfind(path + ":5: UUID: ", 0), 0u) << err->message;
    g_clear_error(&err);

    const std::string uuid = "5f1e2d3c-4b5a-4968-8776-655443322110";
    text.replace(text.find("${UUID}"), 7, uuid);
    TempDir tmp;
    NMConnection *c = importText(tmp, "ifcfg-Test_Write_Team_Infiniband_Port", text, &err);
    ASSERT_NE(c, nullptr) << err->message;
    NMSettingConnection *s_con = nm_connection_get_setting_connection(c);
    EXPECT_STREQ(nm_connection_get_id(c), "Test Write Team Infiniband Port");
    EXPECT_STREQ(nm_connection_get_uuid(c), uuid.c_str());
    EXPECT_STREQ(nm_setting_connection_get_interface_name(s_con), "inf1");
    EXPECT_STREQ(nm_setting_connection_get_master(s_con), "team0");
    EXPECT_STREQ(nm_setting_connection_get_slave_type(s_con), "team");
    EXPECT_TRUE(nm_setting_connection_get_autoconnect(s_con));
    EXPECT_STREQ(nm_setting_infiniband_get_transport_mode(nm_connection_get_setting_infiniband(c)), "datagram");
    auto *tp = NM_SETTING_TEAM_PORT(nm_connection_get_setting(c, NM_TYPE_SETTING_TEAM_PORT));
    ASSERT_NE(tp, nullptr);
    // TEAM_PORT_CONFIG is kept as the team-port JSON config, as NetworkManager
    // keeps it (the test wrote it keyed by the port's name, so no prio is parsed).
    EXPECT_STREQ(nm_setting_team_port_get_config(tp), "{\"inf1\": {\"prio\": -10, \"sticky\": true}}");
    g_object_unref(c);
}

struct PkeyCase {
    const char *vars;
    int pKey;
    const char *ifname;
};

// PKEY_ID gets 0x8000; PKEY_ID_NM is the P_Key as NetworkManager uses it and wins.
const PkeyCase kPkeys[] = {
    {"PKEY_ID=2\n", 0x8002, nullptr},
    {"PKEY_ID=0x8002\n", 0x8002, nullptr},
    {"PKEY_ID=2\nPKEY_ID_NM=0x0002\n", 0x0002, nullptr},
    {"PKEY_ID_NM=0x0002\nPKEY_ID=0x0003\nDEVICE=ib0.0002\n", 0x0002, "ib0.0002"},
    {"PKEY_ID=0x0002\nDEVICE=ib0.8002\n", 0x8002, "ib0.8002"},
    {"PKEY_ID='0x00c1'\n", 0x80c1, nullptr},
};

TEST(IfcfgImport, PkeyIdNmWinsAndPkeyIdGetsFullMembership)
{
    TempDir dir;
    for (const auto &tc : kPkeys) {
        SCOPED_TRACE(tc.vars);
        GError *err = nullptr;
        NMConnection *c =
            importText(dir, "ifcfg-ib0.x", std::string("TYPE=InfiniBand\nPKEY=yes\nPHYSDEV=ib0\n") + tc.vars, &err);
        ASSERT_NE(c, nullptr) << err->message;
        NMSettingInfiniband *ib = nm_connection_get_setting_infiniband(c);
        EXPECT_EQ(nm_setting_infiniband_get_p_key(ib), tc.pKey);
        EXPECT_STREQ(nm_setting_infiniband_get_parent(ib), "ib0");
        EXPECT_STREQ(nm_connection_get_interface_name(c), tc.ifname);
        g_object_unref(c);
    }
}

struct ErrorCase {
    const char *text;
    const char *error; // after "<path>"
};

const ErrorCase kErrors[] = {
    {"TYPE=InfiniBand\nMTU=big\n", ":2: MTU: 'big' is not an MTU"},
    {"TYPE=InfiniBand\nPKEY=yes\nPKEY_ID=2\n", ": PHYSDEV: PKEY=yes needs PHYSDEV"},
    {"TYPE=InfiniBand\nPKEY=yes\nPHYSDEV=ib0\n", ": PKEY_ID: PKEY=yes needs PKEY_ID"},
    {"TYPE=InfiniBand\nPKEY=yes\nPHYSDEV=ib0\n\nPKEY_ID=0x10000\n", ":5: PKEY_ID: '0x10000' is not a P_Key"},
    {"TYPE=InfiniBand\nHWADDR=00:11:22:33:44:55\n", ":2: HWADDR: '00:11:22:33:44:55' is not a 20-byte"},
    {"TYPE=Ethernet\n", ": TYPE is 'Ethernet'; only TYPE=InfiniBand and TYPE=Bond"},
    {"TYPE=Bond\nBONDING_OPTS=mode=1\n", ": DEVICE: a bond needs its interface name"},
    {"TYPE=Bond\nDEVICE=bond0\nBONDING_OPTS=\"mode=active-backup frob=1\"\n",
     ":3: BONDING_OPTS: 'frob=1' is not a bonding option NetworkManager takes"},
    {"TYPE=Bond\nDEVICE=bond0\nBONDING_OPTS=miimon\n", ":3: BONDING_OPTS: 'miimon' is not a bonding option"},
    {"TYPE=InfiniBand\nNAME=\"open\n", ":2: NAME: unterminated quote"},
    {"TYPE=InfiniBand\nDEVICE=ib0 ib1\n", ":2: DEVICE: the value is not a plain shell string"},
    {"TYPE=InfiniBand\nBOOTPROTO=carrier-pigeon\n", ":2: BOOTPROTO: unknown value 'carrier-pigeon'"},
};

TEST(IfcfgImport, ErrorsNameFileLineAndKey)
{
    TempDir dir;
    for (const auto &tc : kErrors) {
        SCOPED_TRACE(tc.text);
        GError *err = nullptr;
        EXPECT_EQ(importText(dir, "ifcfg-bad", tc.text, &err), nullptr);
        ASSERT_NE(err, nullptr);
        std::string expected = dir / "ifcfg-bad" + tc.error;
        EXPECT_EQ(std::string(err->message).rfind(expected, 0), 0u) << err->message;
        g_error_free(err);
    }
}

TEST(IfcfgImport, QuotedValuesAndDefaults)
{
    TempDir dir;
    GError *err = nullptr;
    NMConnection *c = importText(dir, "ifcfg-ib1",
                                 "# comment\n"
                                 "TYPE='InfiniBand'\n"
                                 "  NAME=\"Lab \\\"A\\\" ib1\"   # trailing comment\n"
                                 "DEVICE=$'ib1'\n"
                                 "UUID=\"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\"\n"
                                 "ONBOOT=no\n"
                                 "BOOTPROTO=dhcp\n"
                                 "IPV6INIT=yes\n"
                                 "MTU=\"2044\"\n",
                                 &err);
    ASSERT_NE(c, nullptr) << err->message;
    EXPECT_STREQ(nm_connection_get_id(c), "Lab \"A\" ib1");
    EXPECT_STREQ(nm_connection_get_interface_name(c), "ib1");
    EXPECT_STREQ(nm_connection_get_uuid(c), "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
    EXPECT_FALSE(nm_setting_connection_get_autoconnect(nm_connection_get_setting_connection(c)));
    EXPECT_EQ(nm_setting_infiniband_get_mtu(nm_connection_get_setting_infiniband(c)), 2044u);
    EXPECT_STREQ(nm_setting_infiniband_get_transport_mode(nm_connection_get_setting_infiniband(c)), "datagram");
    EXPECT_STREQ(nm_setting_ip_config_get_method(nm_connection_get_setting_ip4_config(c)), "auto");
    EXPECT_STREQ(nm_setting_ip_config_get_method(nm_connection_get_setting_ip6_config(c)), "auto");
    g_object_unref(c);

    // Without UUID the profile gets a stable one derived from the path.
    NMConnection *a = importText(dir, "ifcfg-ib2", "TYPE=InfiniBand\nDEVICE=ib2\n", &err);
    NMConnection *b = importText(dir, "ifcfg-ib2", "TYPE=InfiniBand\nDEVICE=ib2\n", &err);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_STREQ(nm_connection_get_uuid(a), nm_connection_get_uuid(b));
    EXPECT_STREQ(nm_connection_get_id(a), "System ib2");
    EXPECT_STREQ(nm_setting_ip_config_get_method(nm_connection_get_setting_ip4_config(a)), "disabled");
    EXPECT_STREQ(nm_setting_ip_config_get_method(nm_connection_get_setting_ip6_config(a)), "ignore");
    g_object_unref(a);
    g_object_unref(b);
}

struct QuoteCase {
    const char *raw;
    std::optional<std::string> value;
};

// sh semantics as NetworkManager's svUnescape() implements them.
const QuoteCase kQuotes[] = {
    {"plain", std::string("plain")},
    {"", std::string("")},
    {"''", std::string("")},
    {"'a b'", std::string("a b")},
    {"'no \\escapes $here'", std::string("no \\escapes $here")},
    {"\"a \\\"b\\\" \\\\ \\$x \\`\"", std::string("a \"b\" \\ $x `")},
    {"\"keep \\n and \\a\"", std::string("keep \\n and \\a")},
    {"$'a\\nb\\tc'", std::string("a\nb\tc")},
    {"$'\\x41\\101\\'\\\\'", std::string("AA'\\")},
    {"a'b'\"c\"$'d'", std::string("abcd")},
    {"a\\ b", std::string("a b")},
    {"value   # comment", std::string("value")},
    {"\"#not a comment\"", std::string("#not a comment")},
    {"a#b", std::string("a#b")},
    {"a b", std::nullopt},
    {"$HOME", std::nullopt},
    {"\"$HOME\"", std::nullopt},
    {"`id`", std::nullopt},
    {"a;b", std::nullopt},
    {"'open", std::nullopt},
    {"\"open", std::nullopt},
    {"trailing\\", std::nullopt},
};

TEST(ShellVars, UnescapesAsSh)
{
    for (const auto &tc : kQuotes)
        EXPECT_EQ(shellUnescape(tc.raw), tc.value) << tc.raw;
}

TEST(ShellVars, LastAssignmentWinsAndQuotesSpanLines)
{
    auto vars = ibnm::settings::ShellVars::parse("A=1\nnot an assignment\nB=\"two\nlines\"\nA=3\n", "/x/ifcfg-t");
    ASSERT_TRUE(vars.ok()) << vars.error().toString();
    EXPECT_EQ(*vars->get("A"), "3");
    EXPECT_EQ(vars->line("A"), 5u);
    EXPECT_EQ(*vars->get("B"), "two\nlines");
    EXPECT_EQ(vars->get("C"), nullptr);
}

TEST(IfcfgImport, ControllerOrderIsNetworkManagers)
{
    TempDir dir;
    struct Case {
        const char *vars;
        const char *master;
        const char *type;
    };
    const Case cases[] = {
        {"MASTER=bond0\n", "bond0", "bond"},
        {"MASTER=bond0\nSLAVE=yes\n", "bond0", "bond"},
        {"MASTER_UUID=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\nMASTER=bond0\n",
         "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "bond"},
        {"TEAM_MASTER=team0\n", "team0", "team"},
        {"TEAM_MASTER=team0\nMASTER=bond0\n", "bond0", "bond"}, // MASTER is checked first
    };
    for (const auto &tc : cases) {
        SCOPED_TRACE(tc.vars);
        GError *err = nullptr;
        NMConnection *c = importText(dir, "ifcfg-port", std::string("TYPE=InfiniBand\nDEVICE=ib0\n") + tc.vars, &err);
        ASSERT_NE(c, nullptr) << err->message;
        NMSettingConnection *s_con = nm_connection_get_setting_connection(c);
        EXPECT_STREQ(nm_setting_connection_get_master(s_con), tc.master);
        EXPECT_STREQ(nm_setting_connection_get_slave_type(s_con), tc.type);
        EXPECT_EQ(nm_connection_get_setting_ip4_config(c), nullptr);
        g_object_unref(c);
    }
}

// TYPE=Bond as NetworkManager's ifcfg-rh reader reads it (bond_connection_
// from_ifcfg(): make_bond_setting() and make_wired_setting()); also a file
// that says BONDING_MASTER=yes without TYPE.
TEST(IfcfgImport, BondFiles)
{
    TempDir dir;
    GError *err = nullptr;
    NMConnection *c = importText(dir, "ifcfg-bond0",
                                 "DEVICE=bond0\nTYPE=Bond\nNAME=\"IB bond\"\n"
                                 "BONDING_OPTS=\"mode=active-backup miimon=100  fail_over_mac=active\"\n"
                                 "MTU=2044\nBOOTPROTO=none\nIPADDR=192.0.2.10\nPREFIX=24\nONBOOT=yes\n",
                                 &err);
    ASSERT_NE(c, nullptr) << err->message;
    EXPECT_STREQ(nm_connection_get_connection_type(c), NM_SETTING_BOND_SETTING_NAME);
    EXPECT_STREQ(nm_connection_get_id(c), "IB bond");
    EXPECT_STREQ(nm_connection_get_interface_name(c), "bond0");
    NMSettingBond *bond = nm_connection_get_setting_bond(c);
    ASSERT_NE(bond, nullptr);
    EXPECT_STREQ(nm_setting_bond_get_option_by_name(bond, "mode"), "active-backup");
    EXPECT_STREQ(nm_setting_bond_get_option_by_name(bond, "miimon"), "100");
    EXPECT_STREQ(nm_setting_bond_get_option_by_name(bond, "fail_over_mac"), "active");
    ASSERT_NE(nm_connection_get_setting_wired(c), nullptr);
    EXPECT_EQ(nm_setting_wired_get_mtu(nm_connection_get_setting_wired(c)), 2044u);
    NMSettingIPConfig *ip4 = nm_connection_get_setting_ip4_config(c);
    ASSERT_NE(ip4, nullptr);
    EXPECT_STREQ(nm_setting_ip_config_get_method(ip4), "manual");
    ASSERT_EQ(nm_setting_ip_config_get_num_addresses(ip4), 1u);
    g_object_unref(c);

    c = importText(dir, "ifcfg-bond1", "DEVICE=bond1\nBONDING_MASTER=yes\n", &err);
    ASSERT_NE(c, nullptr) << err->message;
    EXPECT_STREQ(nm_connection_get_connection_type(c), NM_SETTING_BOND_SETTING_NAME);
    EXPECT_STREQ(nm_connection_get_id(c), "Bond bond1");
    g_object_unref(c);
}
