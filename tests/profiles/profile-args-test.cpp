// SPDX-License-Identifier: LGPL-2.1-or-later
// nmcli's argument grammar (ibnm_profile_new_from_args / modify_from_args):
// the forms, the errors naming the word, and ibnm's deliberate differences
// from nmcli (docs/differences-from-nmcli.md).
#include "config.h"

#include "tests/profiles/profile-test-util.hpp"

#include <gtest/gtest.h>

using namespace ibnm::test;
using ibnm::GErrorPtr;
using ibnm::GObjectPtr;
using ibnm::outPtr;

namespace {
using Args = std::vector<std::string>;
}

TEST(ProfileArgs, ValueForms)
{
    struct Row {
        Args args;
        int pkey;
        guint mtu;
        const char *mode;
    } rows[] = {
        {{"p-key", "0x8002"}, 0x8002, 0, "datagram"},
        {{"p-key", "32770"}, 0x8002, 0, "datagram"},
        {{"p-key", "0X8002"}, 0x8002, 0, "datagram"},
        {{"infiniband.p-key", "default"}, -1, 0, "datagram"},
        {{"p-key", "-1"}, -1, 0, "datagram"},
        {{"mtu", "65521"}, -1, 65520, "datagram"}, // normalized as NetworkManager does
        {{"mtu", " 2044"}, -1, 2044, "datagram"},
        {{"mtu", "auto"}, -1, 0, "datagram"},
        {{"transport-mode", "Connected"}, -1, 0, "connected"},
        {{"transport-mode", "conn"}, -1, 0, "connected"},
        {{"infiniband.transport-mode", "DATAGRAM"}, -1, 0, "datagram"},
    };
    for (const auto &r : rows) {
        Args args = {"type", "infiniband", "parent", "ib0"};
        args.insert(args.end(), r.args.begin(), r.args.end());
        auto p = mustProfile(args);
        ASSERT_TRUE(p) << r.args[0] << " " << r.args[1];
        EXPECT_EQ(ibnm_profile_get_p_key(p.get()), r.pkey) << r.args[1];
        EXPECT_EQ(ibnm_profile_get_mtu(p.get()), r.mtu) << r.args[1];
        EXPECT_STREQ(ibnm_profile_get_transport_mode(p.get()), r.mode) << r.args[1];
    }
}

TEST(ProfileArgs, ErrorsNameTheWordOrProperty)
{
    // The code tells nmcli's two refusals apart: a value its property does
    // not take (INVALID_VALUE, nmcli exits 2) or a word naming nothing
    // (INVALID_ARGUMENT, 2), and a profile that parses but does not verify
    // (INVALID_PROPERTY, 1).
    struct Row {
        Args args;
        IbnmError code;
        const char *prefix;
    } rows[] = {
        {{"type", "infiniband", "p-key", "0x10000"}, IBNM_ERROR_INVALID_VALUE, "infiniband.p-key: "},
        {{"type", "infiniband", "p-key", "Default"}, IBNM_ERROR_INVALID_VALUE, "infiniband.p-key: "},
        {{"type", "infiniband", "parent", "ib0", "p-key", "0x8000"}, IBNM_ERROR_INVALID_PROPERTY,
         "infiniband.p-key: "},
        {{"type", "infiniband", "p-key", "2"}, IBNM_ERROR_INVALID_PROPERTY, "infiniband.parent: "},
        {{"type", "infiniband", "mtu", "abc"}, IBNM_ERROR_INVALID_VALUE, "infiniband.mtu: "},
        {{"type", "infiniband", "transport-mode", "junk"}, IBNM_ERROR_INVALID_VALUE,
         "infiniband.transport-mode: 'junk' not among [datagram, connected]"},
        {{"type", "infiniband", "transport-mode", ""}, IBNM_ERROR_INVALID_PROPERTY, "infiniband.transport-mode: "},
        {{"type", "infiniband", "mac", "00:11:22:33:44:55"}, IBNM_ERROR_INVALID_VALUE, "infiniband.mac-address: "},
        {{"type", "infiniband", "ifname", "ib/0"}, IBNM_ERROR_INVALID_PROPERTY, "connection.interface-name: "},
        {{"type", "infiniband", "bogus", "1"}, IBNM_ERROR_INVALID_ARGUMENT, "invalid <setting>.<property> 'bogus'"},
        {{"type", "infiniband", "infiniband.bogus", "1"}, IBNM_ERROR_INVALID_ARGUMENT, "infiniband.bogus: "},
        {{"type", "infiniband", "bond.options", "mode=1"}, IBNM_ERROR_INVALID_ARGUMENT,
         "invalid or not allowed setting 'bond'"},
        {{"ifname", "ib0"}, IBNM_ERROR_INVALID_ARGUMENT, "'type' argument is required"},
        {{"type", "infiniband", "ifname"}, IBNM_ERROR_INVALID_ARGUMENT, "value is missing for 'ifname'"},
        {{"type", "bond", "bond.options", "mode=junk"}, IBNM_ERROR_INVALID_VALUE, "bond.options: "},
        {{"type", "bond", "mode", "junk"}, IBNM_ERROR_INVALID_VALUE, "bond.options: "},
        {{"type", "wifi"}, IBNM_ERROR_NOT_SUPPORTED, "connection.type: "},
        {{"type", "b"}, IBNM_ERROR_INVALID_VALUE, "connection.type: 'b' is ambiguous"},
        {{"type", "infiniband", "type", "bond"}, IBNM_ERROR_INVALID_PROPERTY, "connection.type: "},
        {{"type", "infiniband", "rdma.link-typo", "rxe"}, IBNM_ERROR_INVALID_ARGUMENT, "rdma.link-typo: "},
        {{"type", "infiniband", "rdma.roce-tos", "300"}, IBNM_ERROR_INVALID_VALUE, "rdma.roce-tos: "},
        {{"type", "infiniband", "ipv4.method", "manual"}, IBNM_ERROR_INVALID_PROPERTY, "ipv4.addresses: "},
        {{"type", "infiniband", "ipv4.addresses", "192.0.2.1/33"}, IBNM_ERROR_INVALID_VALUE, "ipv4.addresses: "},
        {{"type", "infiniband", "ipv4.dns", "dns.example"}, IBNM_ERROR_INVALID_PROPERTY, "ipv4.dns: "},
        {{"type", "infiniband", "+mtu", "2044"}, IBNM_ERROR_INVALID_ARGUMENT, "infiniband.mtu: "},
    };
    for (const auto &r : rows) {
        GErrorPtr err;
        auto p = GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new_from_args(argvOf(r.args).data(), outPtr(err)));
        EXPECT_FALSE(p) << r.prefix;
        ASSERT_TRUE(err) << r.prefix;
        EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, r.code)) << err->message;
        EXPECT_TRUE(g_str_has_prefix(err->message, r.prefix)) << "expected '" << r.prefix << "', got '"
                                                              << err->message << "'";
    }
}

TEST(ProfileArgs, MultiValuedPropertiesTakePlusAndMinus)
{
    auto p = mustProfile({"type", "infiniband", "ifname", "ib0", "ipv4.method", "manual", "ipv4.addresses",
                          "192.0.2.1/24", "+ipv4.addresses", "192.0.2.2/24", "ipv4.dns", "192.0.2.53 192.0.2.54",
                          "-ipv4.dns", "192.0.2.53"});
    auto *ip4 = nm_connection_get_setting_ip4_config(connectionOf(p.get()));
    ASSERT_EQ(nm_setting_ip_config_get_num_addresses(ip4), 2u);
    EXPECT_STREQ(nm_ip_address_get_address(nm_setting_ip_config_get_address(ip4, 1)), "192.0.2.2");
    ASSERT_EQ(nm_setting_ip_config_get_num_dns(ip4), 1u);
    EXPECT_STREQ(nm_setting_ip_config_get_dns(ip4, 0), "192.0.2.54");
}

TEST(ProfileArgs, BondAndPorts)
{
    auto bond = mustProfile({"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                             "mode=active-backup,miimon=100"});
    auto *sb = nm_connection_get_setting_bond(connectionOf(bond.get()));
    EXPECT_STREQ(nm_setting_bond_get_option_by_name(sb, "mode"), "active-backup");
    EXPECT_STREQ(nm_setting_bond_get_option_by_name(sb, "miimon"), "100");

    auto port = mustProfile({"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"});
    NMConnection *c = connectionOf(port.get());
    EXPECT_NE(nm_connection_get_setting_by_name(c, NM_SETTING_BOND_PORT_SETTING_NAME), nullptr);
    EXPECT_EQ(nm_connection_get_setting_ip4_config(c), nullptr);
}

TEST(ProfileArgs, ModifyChangesInPlaceAndKeepsTheProfileOnError)
{
    auto p = mustProfile({"type", "infiniband", "con-name", "ib0", "ifname", "ib0"});
    std::string before = keyfileBytes(p.get());
    Args good = {"mtu", "2044", "transport-mode", "connected", "rdma.link-type", "rxe"};
    GErrorPtr err;
    ASSERT_TRUE(ibnm_profile_modify_from_args(p.get(), argvOf(good).data(), outPtr(err))) << err->message;
    EXPECT_EQ(ibnm_profile_get_mtu(p.get()), 2044u);
    EXPECT_STREQ(ibnm_profile_get_transport_mode(p.get()), "connected");
    EXPECT_STREQ(ibnm_profile_get_user_option(p.get(), "rdma.link-type"), "rxe");

    std::string after = keyfileBytes(p.get());
    Args bad = {"mtu", "1000", "p-key", "0x8000"}; // the p-key fails verification
    EXPECT_FALSE(ibnm_profile_modify_from_args(p.get(), argvOf(bad).data(), outPtr(err)));
    EXPECT_EQ(keyfileBytes(p.get()), after);
    EXPECT_NE(before, after);

    Args type = {"type", "bond"};
    EXPECT_FALSE(ibnm_profile_modify_from_args(p.get(), argvOf(type).data(), outPtr(err)));
    EXPECT_TRUE(g_str_has_prefix(err->message, "connection.type: ")) << err->message;

    Args remove = {"-rdma.link-type", ""};
    ASSERT_TRUE(ibnm_profile_modify_from_args(p.get(), argvOf(remove).data(), outPtr(err))) << err->message;
    EXPECT_EQ(ibnm_profile_get_user_option(p.get(), "rdma.link-type"), nullptr);
    // The last key gone, no empty [user] group is left behind (libnm would
    // write one; nmcli and NetworkManager never do).
    EXPECT_EQ(keyfileBytes(p.get()).find("[user]"), std::string::npos) << keyfileBytes(p.get());
}

// A [user] setting that holds another tool's key keeps it when ibnm's last
// key goes.
TEST(ProfileArgs, RemovingIbnmKeysKeepsOtherToolsUserKeys)
{
    auto p = mustProfile({"type", "infiniband", "con-name", "ib0", "ifname", "ib0", "rdma.link-type", "rxe"});
    NMConnection *c = ibnm_profile_get_connection(p.get());
    auto *user = NM_SETTING_USER(nm_connection_get_setting(c, NM_TYPE_SETTING_USER));
    ASSERT_NE(user, nullptr);
    ASSERT_TRUE(nm_setting_user_set_data(user, "org.example.tag", "x", nullptr));
    GErrorPtr err;
    Args remove = {"rdma.link-type", ""};
    ASSERT_TRUE(ibnm_profile_modify_from_args(p.get(), argvOf(remove).data(), outPtr(err))) << err->message;
    std::string text = keyfileBytes(p.get());
    EXPECT_NE(text.find("[user]\norg.example.tag=x\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("rdma."), std::string::npos) << text;
}

// Difference 1 (docs/differences-from-nmcli.md): ibnm's [user] keys are
// properties; nmcli 1.42 rejects them as an unknown setting.
TEST(ProfileArgs, DifferenceUserKeysAreProperties)
{
    auto p = mustProfile({"type", "infiniband", "ifname", "ib0", "rdma.link-type", "RXE", "ipoib.umcast", "yes"});
    EXPECT_STREQ(ibnm_profile_get_user_option(p.get(), "rdma.link-type"), "RXE");
    std::string kf = keyfileBytes(p.get());
    EXPECT_NE(kf.find("[user]\nipoib.umcast=yes\nrdma.link-type=RXE\n"), std::string::npos) << kf;
}

// Difference 2: a key in ibnm's namespaces that ibnm does not know is an
// error naming it, never stored.
TEST(ProfileArgs, DifferenceUnknownIbnmKeyIsAnError)
{
    std::string message;
    auto p = profileFromArgs({"type", "infiniband", "ifname", "ib0", "ipoib.umcats", "yes"}, &message);
    EXPECT_FALSE(p);
    EXPECT_TRUE(g_str_has_prefix(message.c_str(), "ipoib.umcats: ")) << message;
}

// Difference 3: profile types other than infiniband, bond and ethernet are
// refused (nmcli makes them).
TEST(ProfileArgs, DifferenceOnlyInfinibandBondAndEthernet)
{
    for (const char *type : {"vlan", "wifi", "bridge", "team"}) {
        std::string message;
        EXPECT_FALSE(profileFromArgs({"type", type, "ifname", "x0"}, &message)) << type;
        EXPECT_NE(message.find("ibnm handles infiniband, bond and ethernet profiles"), std::string::npos)
            << message;
    }
}

// Difference 5: nmcli 1.42 takes `+mtu 2044` and even `-mtu 2044` as
// `mtu 2044`; ibnm refuses a modifier on a property with one value.
TEST(ProfileArgs, DifferenceModifierOnASingleValueIsAnError)
{
    for (const char *word : {"+mtu", "-mtu", "+infiniband.p-key"}) {
        std::string message;
        EXPECT_FALSE(profileFromArgs({"type", "infiniband", "ifname", "ib0", word, "2044"}, &message)) << word;
        EXPECT_NE(message.find("'+' and '-' are allowed only for properties with several values"), std::string::npos)
            << message;
    }
}

// Difference 4: nmcli 1.42 exits 0 and writes nothing for a bad bond alias
// value (`mode junk`); ibnm reports the error.
TEST(ProfileArgs, DifferenceBadBondAliasIsAnError)
{
    std::string message;
    EXPECT_FALSE(profileFromArgs({"type", "bond", "ifname", "bond0", "mode", "junk"}, &message));
    EXPECT_TRUE(g_str_has_prefix(message.c_str(), "bond.options: 'junk' not among")) << message;
}
