// SPDX-License-Identifier: LGPL-2.1-or-later
// connectionUnchangedBy(), `ibnm apply`'s fast "this entry leaves its stored
// profile as it is": it may say so only where connectionModified() and
// nm_connection_compare() agree, it notices each changed value, and it does
// not touch the profile it looks at.
#include "config.h"

#include "libcore/profiles/nmcli-args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using ibnm::GObjectPtr;

namespace {

using Args = std::vector<std::string>;

GObjectPtr<NMConnection> added(const Args &args)
{
    auto c = ibnm::nmcli::connectionAdd(args);
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().toString());
    return c.ok() ? std::move(c).value() : GObjectPtr<NMConnection>();
}

// What the full path says: the words applied to a copy, normalized, compared.
bool fullPathUnchanged(NMConnection *c, const Args &args)
{
    auto m = ibnm::nmcli::connectionModified(c, args);
    return m.ok() && nm_connection_compare(c, m->get(), NM_SETTING_COMPARE_FLAG_EXACT);
}

const Args kChild = {"type", "infiniband", "con-name", "ib0.8002", "ifname", "ib0.8002", "parent", "ib0",
                     "p-key", "0x8002", "mtu", "2044", "infiniband.transport-mode", "datagram",
                     "ipv4.method", "manual", "ipv4.addresses", "198.18.0.1/16", "ipv6.method", "disabled",
                     "ipoib.umcast", "yes"};
const Args kBond = {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                    "mode=active-backup,miimon=100", "ipv4.method", "disabled", "ipv6.method", "disabled"};
const Args kEthernet = {"type", "ethernet", "con-name", "eth0", "ifname", "eth0", "ipv4.method", "manual",
                        "ipv4.addresses", "192.0.2.1/24,192.0.2.2/24", "ipv4.gateway", "192.0.2.254",
                        "ipv4.dns", "192.0.2.53", "ipv4.dns-search", "example.org"};
const Args kPort = {"type", "infiniband", "con-name", "ib1", "ifname", "ib1", "master", "bond0", "slave-type", "bond"};

// Words, each with a value a profile above has and one it has not (or one
// that does not parse, or names nothing).
const std::vector<std::pair<std::string, std::vector<std::string>>> kWords = {
    {"mtu", {"2044", "4092", "", "auto", "x"}},
    {"p-key", {"0x8002", "32770", "0x8003", ""}},
    {"infiniband.p-key", {"0x8002", "default"}},
    {"parent", {"ib0", "ib1"}},
    {"infiniband.parent", {"ib0", ""}},
    {"transport-mode", {"datagram", "connected", "conn"}},
    {"infiniband.mtu", {"2044", "65521"}},
    {"ipv4.addresses", {"198.18.0.1/16", "198.18.0.1/24", "198.18.0.2/16", "", "192.0.2.1/24,192.0.2.2/24",
                        "192.0.2.2/24,192.0.2.1/24"}},
    {"+ipv4.addresses", {"198.18.0.1/16", "192.0.2.1/24", "198.18.0.3/16"}},
    {"-ipv4.addresses", {"198.18.0.1/16", "0", "192.0.2.9/24"}},
    {"ip4", {"198.18.0.1/16", "", "192.0.2.1/24"}},
    {"ipv4.method", {"manual", "disabled", "auto", "bogus"}},
    {"ipv6.method", {"disabled", "auto", "ignore"}},
    {"ipv6.addresses", {"", "2001:db8::1/64"}},
    {"ipv4.gateway", {"192.0.2.254", "", "192.0.2.1"}},
    {"ipv4.dns", {"192.0.2.53", "192.0.2.54", "", "not-an-address"}},
    {"+ipv4.dns", {"192.0.2.53"}},
    {"ipv4.dns-search", {"example.org", "example.net", ""}},
    {"ipoib.umcast", {"yes", "no", ""}},
    {"rdma.roce-mode", {"", "2"}},
    {"connection.autoconnect", {"yes", "no"}},
    {"autoconnect", {"yes", "no"}},
    {"con-name", {"ib0.8002", "bond0", "eth0", "other"}},
    {"connection.interface-name", {"ib0.8002", "eth0", "ib1"}},
    {"bond.options", {"mode=active-backup,miimon=100", "miimon=100,mode=active-backup", "mode=balance-rr"}},
    {"+bond.options", {"miimon=100", "updelay=200"}},
    {"mode", {"active-backup", "balance-rr"}},
    {"miimon", {"100", "200"}},
    {"master", {"bond0", "bond1"}},
    {"connection.master", {"bond0", ""}},
    {"connection.slave-type", {"bond", ""}},
    {"slave-type", {"bond"}},
    {"type", {"infiniband", "bond"}},
    {"connection.type", {"infiniband"}},
    {"802-3-ethernet.mtu", {"0", "1500"}},
    {"ethernet.mtu", {"0"}},
    {"no-such.word", {"x"}},
    {"nosuchalias", {"x"}},
    {"ipv4.no-such-property", {"x"}},
};

} // namespace

// Generated: for a fixed seed, 4,000 random lists of 1-4 words on four
// kinds of profile. Whenever the fast path says "unchanged", the full path
// agrees; the profile is never modified; and the fast path does answer
// "unchanged" often (it is the path a second apply takes).
TEST(NmcliUnchanged, SaysUnchangedOnlyWhereModifyAndCompareAgree)
{
    std::vector<GObjectPtr<NMConnection>> profiles;
    for (const Args *a : {&kChild, &kBond, &kEthernet, &kPort})
        profiles.push_back(added(*a));
    for (const auto &p : profiles)
        ASSERT_TRUE(p);
    GRand *rand = g_rand_new_with_seed(16);
    int yes = 0, agreedNo = 0, missed = 0;
    for (int i = 0; i < 4000; i++) {
        NMConnection *c = profiles[g_rand_int_range(rand, 0, gint32(profiles.size()))].get();
        Args args;
        int n = g_rand_int_range(rand, 1, 5);
        for (int w = 0; w < n; w++) {
            const auto &word = kWords[g_rand_int_range(rand, 0, gint32(kWords.size()))];
            args.push_back(word.first);
            args.push_back(word.second[g_rand_int_range(rand, 0, gint32(word.second.size()))]);
        }
        auto before = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new_clone(c));
        bool fast = ibnm::nmcli::connectionUnchangedBy(c, args);
        bool full = fullPathUnchanged(c, args);
        std::string shown;
        for (const auto &a : args)
            shown += "'" + a + "' ";
        ASSERT_TRUE(nm_connection_compare(before.get(), c, NM_SETTING_COMPARE_FLAG_EXACT)) << shown;
        if (fast) {
            ASSERT_TRUE(full) << "fast path says unchanged, the full path does not: " << nm_connection_get_id(c) << ": "
                              << shown;
        }
        yes += fast;
        agreedNo += !fast && !full;
        missed += !fast && full;
    }
    g_rand_free(rand);
    EXPECT_GT(yes, 200);
    EXPECT_GT(agreedNo, 1000);
    // A proof it cannot make is allowed (the full path then decides), but
    // it is rare for these words.
    EXPECT_LT(missed, yes);
}

// A second apply's words (as `ibnm apply` makes them of an nmstate entry)
// leave the profile they made unchanged; any one value changed, as in an
// edited keyfile, and the fast path no longer says so.
TEST(NmcliUnchanged, NoticesEachChangedValue)
{
    auto c = added(kChild);
    ASSERT_TRUE(c);
    const Args entry = {"mtu", "2044", "infiniband.parent", "ib0", "infiniband.p-key", "0x8002",
                        "infiniband.transport-mode", "datagram", "ipv4.addresses", "198.18.0.1/16", "ipv4.method",
                        "manual", "ipv6.addresses", "", "ipv6.method", "disabled", "ipoib.umcast", "yes"};
    EXPECT_TRUE(ibnm::nmcli::connectionUnchangedBy(c.get(), entry));
    const std::vector<std::pair<size_t, std::string>> edits = {
        {1, "4092"},          {3, "ib1"},      {5, "0x8003"},         {7, "connected"},
        {9, "198.18.0.2/16"}, {9, "198.18.0.1/24"}, {9, "198.18.0.1/16,198.18.0.2/16"}, {11, "disabled"},
        {13, "2001:db8::1/64"}, {15, "auto"}, {17, "no"}};
    for (const auto &e : edits) {
        Args changed = entry;
        changed[e.first] = e.second;
        EXPECT_FALSE(ibnm::nmcli::connectionUnchangedBy(c.get(), changed)) << entry[e.first - 1] << " " << e.second;
        EXPECT_FALSE(fullPathUnchanged(c.get(), changed)) << entry[e.first - 1] << " " << e.second;
    }
}
