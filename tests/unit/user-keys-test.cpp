// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/profiles/user-keys.hpp"
#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

using namespace ibnm;
using namespace ibnm::userkeys;

struct KeyCase {
    const char *key;
    const char *value;
    bool ok;
};

void PrintTo(const KeyCase &c, std::ostream *os)
{
    *os << c.key << "=" << c.value << (c.ok ? " (valid)" : " (invalid)");
}

class UserKeysValidate : public ::testing::TestWithParam<KeyCase> {};

TEST_P(UserKeysValidate, AcceptsOrRejectsNamingTheKey)
{
    const KeyCase &c = GetParam();
    Status s = validate(c.key, c.value);
    EXPECT_EQ(s.ok(), c.ok) << c.key << "=" << c.value;
    if (!s.ok()) {
        EXPECT_EQ(s.error().context(), c.key);
        // A key ibnm does not know is a bad word, as nmcli's unknown
        // property; a value the key does not take is a bad value.
        EXPECT_EQ(s.error().code(), find(c.key) ? IBNM_ERROR_INVALID_VALUE : IBNM_ERROR_INVALID_ARGUMENT);
        EXPECT_EQ(s.error().toString().rfind(std::string(c.key) + ": ", 0), 0u) << s.error().toString();
    }
}

INSTANTIATE_TEST_SUITE_P(Table, UserKeysValidate,
                         ::testing::Values(KeyCase{"rdma.link-type", "rxe", true},
                                           KeyCase{"rdma.link-type", "SIW", true},
                                           KeyCase{"rdma.link-type", "iwarp", false},
                                           KeyCase{"rdma.link-type", "", false},
                                           KeyCase{"rdma.link-name", "rxe0", true},
                                           KeyCase{"rdma.link-name", "rxe_veth-a", true},
                                           KeyCase{"rdma.link-name", "a/b", false},
                                           KeyCase{"rdma.link-name", "rxe %d", false},
                                           KeyCase{"rdma.link-name", "", false},
                                           KeyCase{"rdma.roce-mode", "v1", true},
                                           KeyCase{"rdma.roce-mode", "V2", true},
                                           KeyCase{"rdma.roce-mode", "RoCE v2", true},
                                           KeyCase{"rdma.roce-mode", "IB/RoCE v1", true},
                                           KeyCase{"rdma.roce-mode", "v3", false},
                                           KeyCase{"rdma.roce-tos", "0", true},
                                           KeyCase{"rdma.roce-tos", "106", true},
                                           KeyCase{"rdma.roce-tos", "255", true},
                                           KeyCase{"rdma.roce-tos", "256", false},
                                           KeyCase{"rdma.roce-tos", "-1", false},
                                           KeyCase{"rdma.roce-tos", "0x10", false},
                                           KeyCase{"rdma.roce-tos", " 1", false},
                                           KeyCase{"rdma.traffic-class", "16", true},
                                           KeyCase{"rdma.traffic-class", "1000", false},
                                           KeyCase{"rdma.ttl", "64", true},
                                           KeyCase{"rdma.ttl", "abc", false},
                                           KeyCase{"ipoib.umcast", "yes", true},
                                           KeyCase{"ipoib.umcast", "No", true},
                                           KeyCase{"ipoib.umcast", "maybe", false},
                                           KeyCase{"rdma.linktype", "rxe", false},
                                           KeyCase{"ipoib.mode", "connected", false},
                                           KeyCase{"other.key", "anything", true}));

TEST(UserKeys, LinkNameOf64CharactersIsRejected)
{
    // (A std::string temporary in the table above would dangle; check here.)
    std::string longName(64, 'x');
    EXPECT_FALSE(validate("rdma.link-name", longName).ok());
    EXPECT_TRUE(validate("rdma.link-name", std::string(63, 'x')).ok());
}

TEST(UserKeys, ParsesTypedOptions)
{
    auto r = parse({{"rdma.link-type", "rxe"},
                    {"rdma.link-name", "rxe0"},
                    {"rdma.roce-mode", "RoCE v2"},
                    {"rdma.roce-tos", "106"},
                    {"rdma.traffic-class", "16"},
                    {"rdma.ttl", "64"},
                    {"ipoib.umcast", "yes"},
                    {"other.thing", "kept elsewhere"}});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->linkType, model::SoftLinkType::Rxe);
    EXPECT_EQ(r->linkName, "rxe0");
    EXPECT_EQ(r->roceMode, model::RoceMode::V2);
    EXPECT_EQ(r->roceTos, 106u);
    EXPECT_EQ(r->trafficClass, 16u);
    EXPECT_EQ(r->ttl, 64u);
    EXPECT_EQ(r->umcast, true);
}

TEST(UserKeys, ParseFailsOnFirstBadKey)
{
    auto r = parse({{"rdma.link-type", "rxe"}, {"rdma.ttl", "300"}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().context(), "rdma.ttl");
}

TEST(UserKeys, FormatIsCanonicalAndRoundTrips)
{
    auto r = parse({{"rdma.link-type", "SIW"}, {"rdma.roce-mode", "IB/RoCE v1"}, {"ipoib.umcast", "true"}});
    ASSERT_TRUE(r.ok());
    auto m = format(*r);
    EXPECT_EQ(m, (std::map<std::string, std::string>{
                     {"rdma.link-type", "siw"}, {"rdma.roce-mode", "v1"}, {"ipoib.umcast", "yes"}}));
    auto again = parse(m);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(format(*again), m);
}

TEST(UserKeys, TableListsEveryDocumentedKey)
{
    std::vector<std::string> names;
    for (const auto &k : keys())
        names.emplace_back(k.name);
    EXPECT_EQ(names, (std::vector<std::string>{"rdma.link-type", "rdma.link-name", "rdma.roce-mode", "rdma.roce-tos",
                                               "rdma.traffic-class", "rdma.traffic-class-rules", "rdma.roce-enable",
                                               "rdma.ttl", "ipoib.umcast"}));
}

// DSCP x is ToS 4x; rules keep their order and are written canonically.
TEST(UserKeys, DscpValuesAndTrafficClassRules)
{
    auto r = parse({{"rdma.roce-tos", "DSCP:26"},
                    {"rdma.traffic-class", "dscp:24"},
                    {"rdma.traffic-class-rules", "16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24 ; tclass=-1,dst_ip=10.0.0.0/8"},
                    {"rdma.roce-enable", "no"}});
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->roceTos, std::optional<unsigned>(104));
    EXPECT_EQ(r->trafficClass, std::optional<unsigned>(96));
    ASSERT_EQ(r->tcRules.size(), 2u);
    EXPECT_EQ(r->tcRules[1].tclass, -1);
    EXPECT_EQ(r->roceEnable, std::optional<bool>(false));
    auto m = format(*r);
    EXPECT_EQ(m.at("rdma.traffic-class-rules"),
              "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24;tclass=-1,dst_ip=10.0.0.0/8");
    EXPECT_EQ(m.at("rdma.roce-tos"), "104");
    for (const char *bad : {"dscp:64", "dscp:", "dscp:1.5", "256"})
        EXPECT_FALSE(validate("rdma.roce-tos", bad).ok()) << bad;
    EXPECT_FALSE(validate("rdma.roce-enable", "maybe").ok());
}

// --- RDMA secondaries: vpn.data, read by the same parser -------------------

namespace {

// A VPN profile of nm-ibnm-service (an RDMA secondary) with `items` in its
// vpn.data, or an Ethernet profile with them in [user].
GObjectPtr<NMConnection> profileWith(bool secondary, const std::map<std::string, std::string> &items)
{
    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    NMSetting *sc = nm_setting_connection_new();
    g_object_set(sc, NM_SETTING_CONNECTION_ID, "p", NM_SETTING_CONNECTION_UUID, "5c7e3a60-3a2b-4f0e-8a55-9d1e2f3a4b5c",
                 NM_SETTING_CONNECTION_TYPE, secondary ? NM_SETTING_VPN_SETTING_NAME : NM_SETTING_WIRED_SETTING_NAME,
                 nullptr);
    nm_connection_add_setting(c.get(), sc);
    if (secondary) {
        NMSetting *vpn = nm_setting_vpn_new();
        g_object_set(vpn, NM_SETTING_VPN_SERVICE_TYPE, kVpnServiceType, nullptr);
        for (const auto &[k, v] : items)
            nm_setting_vpn_add_data_item(NM_SETTING_VPN(vpn), k.c_str(), v.c_str());
        nm_connection_add_setting(c.get(), vpn);
    } else {
        NMSetting *user = nm_setting_user_new();
        for (const auto &[k, v] : items)
            nm_setting_user_set_data(NM_SETTING_USER(user), k.c_str(), v.c_str(), nullptr);
        nm_connection_add_setting(c.get(), user);
    }
    return c;
}

} // namespace

// Every case of the key table gives the same verdict, value and error in
// vpn.data as in [user]: one parser reads both (the RDMA keys; ipoib.*
// configures the IPoIB interface of a base profile and is refused there).
TEST(UserKeysSecondary, EveryRdmaKeyParsesAsInUserKeys)
{
    unsigned compared = 0;
    for (const char *key : {"rdma.link-type", "rdma.link-name", "rdma.roce-mode", "rdma.roce-tos",
                            "rdma.traffic-class", "rdma.traffic-class-rules", "rdma.roce-enable", "rdma.ttl"}) {
        for (const char *value : {"rxe", "SIW", "rxe0", "v1", "RoCE v2", "106", "dscp:26", "256", "-1", "yes", "no",
                                  "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24", "", "a b"}) {
            auto asUser = parse(profileWith(false, {{key, value}}).get());
            auto asVpn = parse(profileWith(true, {{key, value}}).get());
            ASSERT_EQ(asUser.ok(), asVpn.ok()) << key << "=" << value;
            if (asUser.ok()) {
                EXPECT_EQ(format(*asUser), format(*asVpn)) << key << "=" << value;
            } else {
                EXPECT_EQ(asUser.error().toString(), asVpn.error().toString());
                EXPECT_EQ(asUser.error().code(), asVpn.error().code());
            }
            compared++;
        }
    }
    EXPECT_EQ(compared, 8u * 14u);
}

TEST(UserKeysSecondary, ReadsVpnDataNotUserOfASecondary)
{
    auto c = profileWith(true, {{"rdma.link-type", "rxe"}, {"rdma.roce-tos", "dscp:26"}});
    EXPECT_TRUE(isSecondary(c.get()));
    EXPECT_EQ(storeOf(c.get()), Store::VpnData);
    // [user] keys of a secondary are not its settings.
    NMSetting *user = nm_setting_user_new();
    nm_setting_user_set_data(NM_SETTING_USER(user), "rdma.ttl", "9", nullptr);
    nm_connection_add_setting(c.get(), user);
    auto r = parse(c.get());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(r->linkType, model::SoftLinkType::Rxe);
    EXPECT_EQ(r->roceTos, std::optional<unsigned>(104));
    EXPECT_FALSE(r->ttl);
    EXPECT_STREQ(get(c.get(), "rdma.roce-tos"), "dscp:26");
    // Another VPN service's profile is no secondary.
    g_object_set(nm_connection_get_setting_vpn(c.get()), NM_SETTING_VPN_SERVICE_TYPE,
                 "org.freedesktop.NetworkManager.openvpn", nullptr);
    EXPECT_FALSE(isSecondary(c.get()));
}

TEST(UserKeysSecondary, RefusesWhatIsNoRdmaKeyNamingIt)
{
    for (const char *key : {"ipoib.umcast", "other.key", "rdma.linktype", "remote"}) {
        auto r = parse(profileWith(true, {{key, "yes"}}).get());
        ASSERT_FALSE(r.ok()) << key;
        EXPECT_EQ(r.error().code(), IBNM_ERROR_INVALID_ARGUMENT) << key;
        EXPECT_EQ(r.error().toString().rfind(std::string(key) + ": ", 0), 0u) << r.error().toString();
    }
    // In [user] a key of another namespace belongs to someone else.
    EXPECT_TRUE(parse(profileWith(false, {{"other.key", "yes"}}).get()).ok());
}

TEST(UserKeysSecondary, SetWritesTheProfilesOwnStore)
{
    auto vpn = profileWith(true, {});
    ASSERT_TRUE(set(vpn.get(), "rdma.roce-tos", "106").ok());
    EXPECT_STREQ(nm_setting_vpn_get_data_item(nm_connection_get_setting_vpn(vpn.get()), "rdma.roce-tos"), "106");
    EXPECT_EQ(nm_connection_get_setting(vpn.get(), NM_TYPE_SETTING_USER), nullptr);
    Status bad = set(vpn.get(), "rdma.ttl", "300");
    EXPECT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().context(), "rdma.ttl");
    EXPECT_EQ(nm_setting_vpn_get_data_item(nm_connection_get_setting_vpn(vpn.get()), "rdma.ttl"), nullptr);
    EXPECT_FALSE(set(vpn.get(), "ipoib.umcast", "yes").ok());
    ASSERT_TRUE(set(vpn.get(), "rdma.roce-tos", nullptr).ok());
    EXPECT_EQ(nm_setting_vpn_get_num_data_items(nm_connection_get_setting_vpn(vpn.get())), 0u);

    auto eth = profileWith(false, {});
    ASSERT_TRUE(set(eth.get(), "rdma.roce-tos", "106").ok());
    auto *user = NM_SETTING_USER(nm_connection_get_setting(eth.get(), NM_TYPE_SETTING_USER));
    ASSERT_NE(user, nullptr);
    EXPECT_STREQ(nm_setting_user_get_data(user, "rdma.roce-tos"), "106");
}

// A profile's [user] keys are read in place, in the order of data()'s map
// (sorted), whatever order they were set in: the first bad one is the
// error, as parse() of the map gives, and every good one is read.
TEST(UserKeysSecondary, AProfileParsesAsItsDataMap)
{
    auto c = profileWith(false, {});
    auto *user = NM_SETTING_USER(nm_connection_get_setting(c.get(), NM_TYPE_SETTING_USER));
    ASSERT_NE(user, nullptr);
    for (const char *kv : {"rdma.ttl=300", "rdma.roce-mode=v9", "ipoib.umcast=yes", "rdma.link-type=rxe"}) {
        std::string k(kv);
        size_t eq = k.find('=');
        ASSERT_TRUE(nm_setting_user_set_data(user, k.substr(0, eq).c_str(), k.c_str() + eq + 1, nullptr));
    }
    auto fromProfile = parse(c.get());
    auto fromMap = parse(data(c.get()));
    ASSERT_FALSE(fromProfile.ok());
    ASSERT_FALSE(fromMap.ok());
    EXPECT_EQ(fromProfile.error().context(), "rdma.roce-mode");
    EXPECT_EQ(fromProfile.error().toString(), fromMap.error().toString());
    auto good = profileWith(false, {{"rdma.ttl", "64"}, {"ipoib.umcast", "yes"}, {"rdma.link-type", "siw"}});
    auto r = parse(good.get());
    ASSERT_TRUE(r.ok()) << r.error().toString();
    EXPECT_EQ(format(*r), format(*parse(data(good.get()))));
    EXPECT_EQ(r->ttl, 64u);
    EXPECT_EQ(r->umcast, true);
    EXPECT_EQ(r->linkType, ibnm::model::SoftLinkType::Siw);
}

// hasRdmaKey() (what resolve() sizes its RDMA list by): an rdma.* key of
// [user], valid or not; ipoib.* keys and other namespaces are none.
TEST(UserKeysSecondary, HasRdmaKeyLooksAtTheRdmaNamespaceOnly)
{
    EXPECT_TRUE(hasRdmaKey(profileWith(false, {{"rdma.roce-mode", "v2"}}).get()));
    EXPECT_TRUE(hasRdmaKey(profileWith(false, {{"ipoib.umcast", "yes"}, {"rdma.ttl", "300"}}).get()));
    EXPECT_FALSE(hasRdmaKey(profileWith(false, {{"ipoib.umcast", "yes"}}).get()));
    EXPECT_FALSE(hasRdmaKey(profileWith(false, {{"rdmax.ttl", "1"}}).get()));
    EXPECT_FALSE(hasRdmaKey(profileWith(false, {}).get()));
}
