// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmProfile: the profile is the NMConnection; getters read through libnm
// and ibnm's options live in [user].
#include "config.h"

#include "tests/profiles/profile-test-util.hpp"

#include <gtest/gtest.h>

using namespace ibnm::test;
using ibnm::GErrorPtr;
using ibnm::GObjectPtr;
using ibnm::outPtr;

TEST(Profile, GettersReadThroughLibnm)
{
    auto p = mustProfile({"type", "infiniband", "con-name", "child", "parent", "mlx4_ib0", "p-key", "0x8002",
                          "mtu", "2044", "transport-mode", "Connected"});
    EXPECT_STREQ(ibnm_profile_get_id(p.get()), "child");
    EXPECT_STREQ(ibnm_profile_get_connection_type(p.get()), "infiniband");
    EXPECT_EQ(ibnm_profile_get_p_key(p.get()), 0x8002);
    EXPECT_STREQ(ibnm_profile_get_parent(p.get()), "mlx4_ib0");
    EXPECT_EQ(ibnm_profile_get_mtu(p.get()), 2044u);
    EXPECT_STREQ(ibnm_profile_get_transport_mode(p.get()), "connected");
    EXPECT_EQ(ibnm_profile_get_interface_name(p.get()), nullptr);
    EXPECT_EQ(ibnm_profile_get_master(p.get()), nullptr);
    EXPECT_TRUE(g_uuid_string_is_valid(ibnm_profile_get_uuid(p.get())));

    // One store: a change made with libnm shows in the getters.
    NMConnection *c = connectionOf(p.get());
    g_object_set(nm_connection_get_setting_infiniband(c), NM_SETTING_INFINIBAND_MTU, 1500u, nullptr);
    EXPECT_EQ(ibnm_profile_get_mtu(p.get()), 1500u);
}

TEST(Profile, NewTakesAReferenceToTheConnection)
{
    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    auto p = GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new(c.get()));
    EXPECT_EQ(ibnm_profile_get_connection(p.get()), c.get());
    EXPECT_EQ(G_OBJECT(c.get())->ref_count, 2u);
    // Getters on a connection without [connection] or [infiniband].
    EXPECT_EQ(ibnm_profile_get_id(p.get()), nullptr);
    EXPECT_EQ(ibnm_profile_get_p_key(p.get()), -1);
    EXPECT_EQ(ibnm_profile_get_mtu(p.get()), 0u);
    p.reset();
    EXPECT_EQ(G_OBJECT(c.get())->ref_count, 1u);
}

TEST(Profile, PortGetters)
{
    auto p = mustProfile({"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"});
    EXPECT_STREQ(ibnm_profile_get_master(p.get()), "bond0");
    EXPECT_STREQ(ibnm_profile_get_slave_type(p.get()), "bond");
    EXPECT_STREQ(ibnm_profile_get_id(p.get()), "bond-slave-ib0");
}

TEST(Profile, MacAddressIsCanonical)
{
    auto p = mustProfile(
        {"type", "infiniband", "ifname", "ib0", "mac", "80-00-00-48-fe-80-00-00-00-00-00-00-00-02-c9-03-00-31-78-51"});
    EXPECT_STREQ(ibnm_profile_get_mac_address(p.get()), "80:00:00:48:FE:80:00:00:00:00:00:00:00:02:C9:03:00:31:78:51");
}

TEST(Profile, UserOptionsLiveInNMSettingUser)
{
    auto p = mustProfile({"type", "infiniband", "ifname", "ib0"});
    GErrorPtr err;
    ASSERT_TRUE(ibnm_profile_set_user_option(p.get(), "ipoib.umcast", "yes", outPtr(err))) << err->message;
    EXPECT_STREQ(ibnm_profile_get_user_option(p.get(), "ipoib.umcast"), "yes");
    auto *user = NM_SETTING_USER(nm_connection_get_setting(connectionOf(p.get()), NM_TYPE_SETTING_USER));
    ASSERT_NE(user, nullptr);
    EXPECT_STREQ(nm_setting_user_get_data(user, "ipoib.umcast"), "yes");

    ASSERT_TRUE(ibnm_profile_set_user_option(p.get(), "ipoib.umcast", nullptr, outPtr(err)));
    EXPECT_EQ(ibnm_profile_get_user_option(p.get(), "ipoib.umcast"), nullptr);
    // Keys of other namespaces belong to others and pass.
    EXPECT_TRUE(ibnm_profile_set_user_option(p.get(), "org.example.x", "1", nullptr));
}

TEST(Profile, UserOptionErrorsNameTheKey)
{
    auto p = mustProfile({"type", "infiniband", "ifname", "ib0"});
    struct Row {
        const char *key;
        const char *value;
    } rows[] = {{"rdma.roce-tos", "256"}, {"rdma.link-typo", "rxe"}, {"ipoib.umcast", "perhaps"},
                {"rdma.link-typo", nullptr}};
    for (const auto &r : rows) {
        GErrorPtr err;
        EXPECT_FALSE(ibnm_profile_set_user_option(p.get(), r.key, r.value, outPtr(err))) << r.key;
        ASSERT_TRUE(err) << r.key;
        EXPECT_TRUE(g_str_has_prefix(err->message, (std::string(r.key) + ": ").c_str())) << err->message;
        EXPECT_EQ(ibnm_profile_get_user_option(p.get(), r.key), nullptr);
    }
}

TEST(Profile, VerifyNamesTheProperty)
{
    auto p = mustProfile({"type", "infiniband", "parent", "ib0", "p-key", "0x8002"});
    ASSERT_TRUE(ibnm_profile_verify(p.get(), nullptr));
    g_object_set(nm_connection_get_setting_infiniband(connectionOf(p.get())), NM_SETTING_INFINIBAND_P_KEY, 0x8000,
                 nullptr);
    GErrorPtr err;
    ASSERT_FALSE(ibnm_profile_verify(p.get(), outPtr(err)));
    EXPECT_STREQ(err->message, "infiniband.p-key: the values 0 and 0x8000 are not allowed");
}
