// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/profiles/user-keys.hpp"

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
