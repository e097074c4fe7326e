// SPDX-License-Identifier: LGPL-2.1-or-later
// The profile rules, one table per rule: each row a profile (nmcli-style
// arguments), a host, and the finding expected - or none.
#include "config.h"

#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "tests/profiles/profile-test-util.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

using namespace ibnm::test;
using ibnm::GErrorPtr;
using ibnm::GObjectPtr;
using ibnm::outPtr;
using ibnm::rules::Finding;

namespace {

using Args = std::vector<std::string>;

std::vector<NMConnection *> connections(const std::vector<GObjectPtr<IbnmProfile>> &profiles)
{
    std::vector<NMConnection *> v;
    for (const auto &p : profiles)
        v.push_back(connectionOf(p.get()));
    return v;
}

std::string dump(const std::vector<Finding> &fs)
{
    std::string s;
    for (const auto &f : fs)
        s += "  [" + std::to_string(f.severity) + "] " + f.property.str() + " | " + f.message + " | " + f.hint.str() + "\n";
    return s.empty() ? "  (none)\n" : s;
}

const Finding *find(const std::vector<Finding> &fs, const std::string &property)
{
    for (const auto &f : fs)
        if (f.property == property)
            return &f;
    return nullptr;
}

// A host with mlx4 (connected mode), mlx5 (Enhanced IPoIB) and a port whose
// broadcast group is smaller than its link.
ibnm::model::Host testHost(ibnm::model::ChildNaming naming = ibnm::model::ChildNaming::Upstream)
{
    HostBuilder b;
    b.ibPort("ib0", "mlx4_0", 2048, 2048, {0xffff, 0x8001, 0x0003});
    b.ibPort("ib1", "mlx4_1", 4096, 4096);
    b.ibPort("ib2", "mlx5_0", 4096, 2048, {0xffff}, /*enhanced=*/true);
    b.ibPort("ib3", "mlx4_2", 4096, std::nullopt, {0xffff}, false, /*cm=*/false);
    b.host.childNaming = naming;
    return b.host;
}

} // namespace

// Rule 1: what NetworkManager's verify() rejects, with its property prefix.
// The connections are built with libnm directly: the grammar would refuse them.
TEST(ProfileRules, NetworkManagerVerifyParity)
{
    struct Row {
        const char *name;
        int pkey;
        const char *parent;
        const char *ifname;
        guint mtu;
        const char *mode;
        const char *mac;
        const char *property; // nullptr: valid
    } rows[] = {
        {"valid", -1, nullptr, "ib0", 2044, "datagram", nullptr, nullptr},
        {"pkey 0x8000", 0x8000, "ib0", nullptr, 0, "datagram", nullptr, "infiniband.p-key"},
        {"pkey 0", 0, "ib0", nullptr, 0, "datagram", nullptr, "infiniband.p-key"},
        {"pkey without parent", 2, nullptr, nullptr, 0, "datagram", nullptr, "infiniband.parent"},
        {"pkey with mac, no parent", 2, nullptr, nullptr, 0, "datagram",
         "80:00:00:48:FE:80:00:00:00:00:00:00:00:02:C9:03:00:31:78:51", nullptr},
        {"ifname must be the child's", 2, "ib0", "ib0", 0, "datagram", nullptr, "connection.interface-name"},
        {"child's ifname", 2, "ib0", "ib0.0002", 0, "datagram", nullptr, nullptr},
        // libnm 1.42 compares with the untruncated "<parent>.%04x": a child of
        // a long parent can only leave interface-name unset.
        {"child's truncated ifname", 2, "x2345678901234", "x2345678901234.", 0, "datagram", nullptr,
         "connection.interface-name"},
        {"mtu above 65520", -1, nullptr, "ib0", 65521, "datagram", nullptr, "infiniband.mtu"},
        {"no transport mode", -1, nullptr, "ib0", 0, nullptr, nullptr, "infiniband.transport-mode"},
        {"6-byte mac", -1, nullptr, "ib0", 0, "datagram", "00:11:22:33:44:55", "infiniband.mac-address"},
        {"ifname too long", -1, nullptr, "x234567890123456", 0, "datagram", nullptr, "connection.interface-name"},
    };
    for (const auto &r : rows) {
        auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
        auto *sc = nm_setting_connection_new();
        g_object_set(sc, NM_SETTING_CONNECTION_ID, r.name, NM_SETTING_CONNECTION_UUID,
                     "6a1c0d3e-3f43-4c1a-9d6e-0d5a1c3b2e11", NM_SETTING_CONNECTION_TYPE, "infiniband",
                     NM_SETTING_CONNECTION_INTERFACE_NAME, r.ifname, nullptr);
        nm_connection_add_setting(c.get(), sc);
        auto *ib = nm_setting_infiniband_new();
        g_object_set(ib, NM_SETTING_INFINIBAND_P_KEY, r.pkey, NM_SETTING_INFINIBAND_PARENT, r.parent,
                     NM_SETTING_INFINIBAND_MTU, r.mtu, NM_SETTING_INFINIBAND_TRANSPORT_MODE, r.mode,
                     NM_SETTING_INFINIBAND_MAC_ADDRESS, r.mac, nullptr);
        nm_connection_add_setting(c.get(), ib);
        nm_connection_add_setting(c.get(), nm_setting_ip4_config_new());
        g_object_set(nm_connection_get_setting_ip4_config(c.get()), NM_SETTING_IP_CONFIG_METHOD, "auto", nullptr);
        nm_connection_add_setting(c.get(), nm_setting_ip6_config_new());
        g_object_set(nm_connection_get_setting_ip6_config(c.get()), NM_SETTING_IP_CONFIG_METHOD, "auto", nullptr);
        nm_connection_add_setting(c.get(), nm_setting_proxy_new());

        auto findings = ibnm::rules::checkNetworkManager(c.get());
        auto profile = GObjectPtr<IbnmProfile>::adopt(ibnm_profile_new(c.get()));
        GErrorPtr err;
        gboolean ok = ibnm_profile_verify(profile.get(), outPtr(err));
        if (r.property == nullptr) {
            EXPECT_TRUE(findings.empty()) << r.name << "\n" << dump(findings);
            EXPECT_TRUE(ok) << r.name << ": " << err->message;
            continue;
        }
        ASSERT_EQ(findings.size(), 1u) << r.name << "\n" << dump(findings);
        EXPECT_EQ(findings[0].property, r.property) << r.name << ": " << findings[0].message;
        EXPECT_EQ(findings[0].severity, IBNM_SEVERITY_ERROR) << r.name;
        EXPECT_TRUE(g_str_has_prefix(findings[0].message.c_str(), (std::string(r.property) + ": ").c_str()))
            << r.name << ": " << findings[0].message;
        ASSERT_FALSE(ok) << r.name;
        EXPECT_EQ(findings[0].message, err->message) << r.name;
        EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_INVALID_PROPERTY));
    }
}

TEST(ProfileRules, NetworkManagerBondCarryingInfinibandMustBeActiveBackup)
{
    auto bond = mustProfile({"type", "bond", "ifname", "bond0", "bond.options", "mode=balance-rr"});
    NMConnection *c = connectionOf(bond.get());
    auto *ib = nm_setting_infiniband_new();
    g_object_set(ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, "datagram", nullptr);
    nm_connection_add_setting(c, ib);
    auto findings = ibnm::rules::checkNetworkManager(c);
    ASSERT_EQ(findings.size(), 1u) << dump(findings);
    EXPECT_EQ(findings[0].severity, IBNM_SEVERITY_ERROR);
    EXPECT_EQ(findings[0].property, "bond.options");
    EXPECT_NE(findings[0].message.find("mode=balance-rr"), std::string::npos) << findings[0].message;

    nm_setting_bond_add_option(nm_connection_get_setting_bond(c), "mode", "active-backup");
    EXPECT_TRUE(ibnm::rules::checkNetworkManager(c).empty()) << dump(ibnm::rules::checkNetworkManager(c));
}

// Rule 2: the profile against the host.
TEST(ProfileRules, HostRules)
{
    using ibnm::model::ChildNaming;
    struct Row {
        const char *name;
        Args args;
        ChildNaming naming;
        const char *property;          // the finding expected, nullptr: none at all
        std::optional<IbnmSeverity> severity;
        const char *message;           // exact message, or substring when `exact` is false
        bool exact;
    } rows[] = {
        // ipoib_change_mtu(): above the port's maximum IB MTU - 4 is EINVAL;
        // below it the kernel clamps to the link and broadcast group.
        {"datagram MTU above the port's maximum", {"ifname", "ib0", "mtu", "4093"}, ChildNaming::Upstream,
         "infiniband.mtu", IBNM_SEVERITY_ERROR,
         "infiniband.mtu: 4093 exceeds the datagram maximum 4092 (the port's IB MTU - 4); the kernel refuses it",
         true},
        {"datagram MTU above the link's", {"ifname", "ib0", "mtu", "4092"}, ChildNaming::Upstream,
         "infiniband.mtu", IBNM_SEVERITY_WARNING, "the kernel uses 2044, not 4092", false},
        {"datagram MTU at the link's maximum", {"ifname", "ib0", "mtu", "2044"}, ChildNaming::Upstream, nullptr,
         std::nullopt, nullptr, false},
        {"datagram MTU on a 4096 link", {"ifname", "ib1", "mtu", "4092"}, ChildNaming::Upstream, nullptr,
         std::nullopt, nullptr, false},
        {"connected mode takes 65520", {"ifname", "ib0", "transport-mode", "connected", "mtu", "65520"},
         ChildNaming::Upstream, nullptr, std::nullopt, nullptr, false},
        {"broadcast group clamps an explicit MTU", {"ifname", "ib2", "mtu", "4092"}, ChildNaming::Upstream,
         "infiniband.mtu", IBNM_SEVERITY_WARNING, "the kernel uses 2044, not 4092", false},
        {"broadcast group clamps the automatic MTU", {"ifname", "ib2"}, ChildNaming::Upstream, "infiniband.mtu",
         IBNM_SEVERITY_INFO, "the effective MTU is 2044", false},
        {"connected mode on Enhanced IPoIB", {"ifname", "ib2", "transport-mode", "connected"},
         ChildNaming::Upstream, "infiniband.transport-mode", IBNM_SEVERITY_ERROR,
         "infiniband.transport-mode: mlx5_0 uses Enhanced IPoIB, which supports datagram mode only", true},
        {"connected mode without IPoIB CM", {"ifname", "ib3", "transport-mode", "connected"},
         ChildNaming::Upstream, "infiniband.transport-mode", IBNM_SEVERITY_ERROR, "not available on mlx4_2",
         false},
        {"P_Key in the table", {"parent", "ib0", "p-key", "0x8001"}, ChildNaming::Upstream, nullptr, std::nullopt,
         nullptr, false},
        {"P_Key missing from the table", {"parent", "ib0", "p-key", "0x8002"}, ChildNaming::Upstream,
         "infiniband.p-key", IBNM_SEVERITY_WARNING,
         "infiniband.p-key: 0x8002 is not in the P_Key table of mlx4_0 port 1", false},
        {"limited membership, upstream kernel", {"parent", "ib0", "p-key", "0x0001"}, ChildNaming::Upstream,
         "infiniband.p-key", IBNM_SEVERITY_INFO,
         "infiniband.p-key: 0x0001 has the full-membership bit clear; the kernel uses 0x8001 and names the "
         "child 'ib0.0001' on this host",
         true},
        {"limited membership, kernel setting the bit first", {"parent", "ib0", "p-key", "0x0001"},
         ChildNaming::FullMembershipBit, "infiniband.p-key", IBNM_SEVERITY_WARNING, "names the child 'ib0.8001'",
         false},
        {"full membership, kernel setting the bit first", {"parent", "ib0", "p-key", "0x8001"},
         ChildNaming::FullMembershipBit, nullptr, std::nullopt, nullptr, false},
        {"interface name cut to 15", {"parent", "x2345678901234", "p-key", "0x8001"}, ChildNaming::Upstream,
         "connection.interface-name", IBNM_SEVERITY_INFO,
         "connection.interface-name: the kernel cuts 'x2345678901234.8001' to 15 characters: 'x2345678901234.'",
         true},
        // A device not on the host (yet) is rule 7's (checkPresence): no
        // host rule applies.
        {"device not on the host", {"ifname", "ib9", "mtu", "65520"}, ChildNaming::Upstream, nullptr, std::nullopt,
         nullptr, false},
        {"the parent's own P_Key", {"parent", "ib0", "p-key", "0x7fff"}, ChildNaming::Upstream, "infiniband.p-key",
         IBNM_SEVERITY_ERROR, "0x7fff is the P_Key of ib0 itself", false},
        {"parent not on the host", {"parent", "ib9", "p-key", "0x8002"}, ChildNaming::Upstream, nullptr, std::nullopt,
         nullptr, false},
    };
    for (const auto &r : rows) {
        Args args = {"type", "infiniband"};
        args.insert(args.end(), r.args.begin(), r.args.end());
        auto p = mustProfile(args);
        ASSERT_TRUE(p) << r.name;
        auto host = testHost(r.naming);
        auto findings = ibnm::rules::checkHost(connectionOf(p.get()), &host);
        if (r.property == nullptr) {
            EXPECT_TRUE(findings.empty()) << r.name << "\n" << dump(findings);
            continue;
        }
        const Finding *f = find(findings, r.property);
        ASSERT_NE(f, nullptr) << r.name << "\n" << dump(findings);
        EXPECT_EQ(f->severity, *r.severity) << r.name << "\n" << dump(findings);
        if (r.exact)
            EXPECT_EQ(f->message, r.message) << r.name;
        else
            EXPECT_NE(f->message.find(r.message), std::string::npos) << r.name << ": " << f->message;
        EXPECT_TRUE(g_str_has_prefix(f->message.c_str(), (std::string(r.property) + ": ").c_str())) << f->message;
        if (f->severity != IBNM_SEVERITY_INFO) {
            EXPECT_FALSE(f->hint.empty()) << r.name << ": a warning or error says how to fix it";
        }
    }
}

TEST(ProfileRules, DatagramMtuHintOffersConnectedModeOnlyWhereItExists)
{
    auto host = testHost();
    auto onMlx4 = mustProfile({"type", "infiniband", "ifname", "ib0", "mtu", "4093"});
    auto f = ibnm::rules::checkHost(connectionOf(onMlx4.get()), &host);
    ASSERT_NE(find(f, "infiniband.mtu"), nullptr);
    EXPECT_NE(find(f, "infiniband.mtu")->hint.view().find("connected"), std::string::npos);
    auto onNoCm = mustProfile({"type", "infiniband", "ifname", "ib3", "mtu", "4093"});
    f = ibnm::rules::checkHost(connectionOf(onNoCm.get()), &host);
    ASSERT_NE(find(f, "infiniband.mtu"), nullptr) << dump(f);
    EXPECT_NE(find(f, "infiniband.mtu")->hint.view().find("no connected mode"), std::string::npos);
}

TEST(ProfileRules, ProfileWithOnlyAMacIsFoundByItsPortGuid)
{
    auto host = testHost();
    host.ipoib[0].address = "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51";
    // Only the last 8 bytes (the port GUID) need to match.
    auto p = mustProfile({"type", "infiniband", "p-key", "0x8002", "mac",
                          "00:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51", "mtu", "4092"});
    auto findings = ibnm::rules::checkHost(connectionOf(p.get()), &host);
    const Finding *f = find(findings, "infiniband.mtu");
    ASSERT_NE(f, nullptr) << dump(findings);
    EXPECT_NE(f->message.find("the kernel uses 2044, not 4092"), std::string::npos) << f->message;

    auto other = mustProfile({"type", "infiniband", "p-key", "0x8002", "mac",
                              "00:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:52"});
    findings = ibnm::rules::checkHost(connectionOf(other.get()), &host);
    // ibnm creates a child under the parent it is told; NetworkManager may
    // find it by mac-address, ibnm cannot.
    ASSERT_NE(find(findings, "infiniband.parent"), nullptr) << dump(findings);
    EXPECT_EQ(find(findings, "infiniband.parent")->severity, IBNM_SEVERITY_ERROR);
    EXPECT_NE(find(findings, "infiniband.parent")->message.find("needs a parent"), std::string::npos);
}

// Rule 7: a profile for an interface that is not there yet is kept, as
// NetworkManager keeps it: a warning (code NOT_FOUND: `up` fails until it
// appears), naming the udev rule of ibnm's that gives the name at the next
// boot; profiles that are there are still planned.
TEST(ProfileRules, AnInterfaceNotThereYetIsAWarning)
{
    HostBuilder b;
    b.ibPort("ib0", "mlx4_0", 2048);
    b.host.ipoib[0].address = "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51";
    auto absent = mustProfile({"type", "infiniband", "con-name", "a", "ifname", "ibstor", "ipv4.method", "disabled"});
    auto renamed = mustProfile({"type", "infiniband", "con-name", "r", "ifname", "ibfast", "mac",
                                "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51", "ipv4.method",
                                "disabled"});
    auto child = mustProfile({"type", "infiniband", "con-name", "c", "parent", "ib9", "p-key", "0x8002",
                              "ipv4.method", "disabled"});
    auto eth = mustProfile({"type", "ethernet", "con-name", "e", "ifname", "enp9s0", "ipv4.method", "disabled"});
    auto macOnly = mustProfile({"type", "infiniband", "con-name", "m", "mac",
                                "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:99", "ipv4.method",
                                "disabled"});
    // Present, and wrong: still refused (datagram 65520 on a 2048 link).
    auto present = mustProfile({"type", "infiniband", "con-name", "p", "ifname", "ib0", "mtu", "65520",
                                "ipv4.method", "disabled"});
    auto profiles = connections({absent, renamed, child, eth, macOnly, present});
    for (bool standalone : {false, true}) {
        auto all = ibnm::activation::checkProfiles(profiles, &b.host, nullptr, standalone);
        auto about = [&](const std::string &id, const std::string &property) -> const Finding * {
            for (const auto &f : all)
                if (f.profileId == id && f.property == property)
                    return &f;
            return nullptr;
        };
        struct Row {
            const char *id, *property, *text;
        } rows[] = {
            {"a", "connection.interface-name", "connection.interface-name: 'ibstor' does not exist on this host (yet)"},
            {"r", "connection.interface-name",
             "connection.interface-name: 'ibfast' does not exist on this host yet: 'ib0' (port GUID "
             "00:02:c9:03:00:31:78:51) is renamed at next boot by 70-ibnm-persistent-ipoib.rules"},
            {"c", "infiniband.parent", "infiniband.parent: 'ib9' does not exist on this host (yet)"},
            {"e", "connection.interface-name", "connection.interface-name: 'enp9s0' does not exist on this host (yet)"},
            {"m", "infiniband.mac-address",
             "infiniband.mac-address: '80:00:02:08:FE:80:00:00:00:00:00:00:00:02:C9:03:00:31:78:99' does not exist on "
             "this host (yet)"},
        };
        for (const auto &r : rows) {
            const Finding *f = about(r.id, r.property);
            ASSERT_NE(f, nullptr) << r.id << "\n" << dump(all);
            EXPECT_EQ(f->severity, IBNM_SEVERITY_WARNING) << r.id;
            EXPECT_EQ(f->code, IBNM_ERROR_NOT_FOUND) << r.id;
            EXPECT_EQ(f->message, r.text);
            EXPECT_FALSE(f->hint.empty());
        }
        for (const auto &f : all) {
            if (f.severity == IBNM_SEVERITY_ERROR) {
                EXPECT_EQ(f.profileId, "p") << "standalone " << standalone << ": " << f.message;
            }
        }
        ASSERT_NE(about("p", "infiniband.mtu"), nullptr) << dump(all);
        EXPECT_EQ(about("p", "infiniband.mtu")->severity, IBNM_SEVERITY_ERROR);
    }
}

TEST(ProfileRules, NoInventoryGivesOneInfoPerIpoibProfile)
{
    auto p = mustProfile({"type", "infiniband", "ifname", "ib0", "mtu", "4092"});
    auto findings = ibnm::rules::checkHost(connectionOf(p.get()), nullptr);
    ASSERT_EQ(findings.size(), 1u) << dump(findings);
    EXPECT_EQ(findings[0].severity, IBNM_SEVERITY_INFO);
    EXPECT_NE(findings[0].message.find("no inventory"), std::string::npos);

    auto bond = mustProfile({"type", "bond", "ifname", "bond0"});
    EXPECT_TRUE(ibnm::rules::checkHost(connectionOf(bond.get()), nullptr).empty());
}

// Rule 3: bonds of IPoIB ports.
TEST(ProfileRules, BondRules)
{
    struct Row {
        const char *name;
        std::vector<Args> profiles; // the first is the one the finding is about
        const char *property;       // nullptr: no finding at all
        const char *message;
    } rows[] = {
        {"active-backup IPoIB bond",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup,miimon=100"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"},
          {"type", "infiniband", "ifname", "ib1", "master", "bond0", "slave-type", "bond"}},
         nullptr, nullptr},
        {"balance-rr with IPoIB ports",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=balance-rr"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"}},
         "bond.options", "IPoIB ports can only join an active-backup bond"},
        {"Ethernet and IPoIB ports",
         {{"type", "ethernet", "ifname", "eth0", "master", "bond0", "slave-type", "bond"},
          {"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"}},
         "connection.master", "Ethernet and IPoIB ports cannot share a bond"},
        // bond_enslave() switches a bond without ports to fail_over_mac=active
        // at its first IPoIB port (an info, not an error: the NVIDIA page's
        // fail_over_mac=0 works).
        {"fail_over_mac=follow",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup,fail_over_mac=follow"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"}},
         nullptr, nullptr},
        {"fail_over_mac=0",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup,fail_over_mac=0"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"}},
         nullptr, nullptr},
        {"fail_over_mac=active",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup,fail_over_mac=active"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"}},
         nullptr, nullptr},
        // At enslave the port takes the bond's MTU: a datagram port refuses one
        // above its maximum, a connected port takes 65520.
        {"bond MTU above a datagram port's maximum",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup", "mtu", "65520"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond", "mtu", "2044"}},
         "802-3-ethernet.mtu", "the kernel sets the bond's MTU 65520 on its port ib0 at enslave"},
        {"bond MTU the datagram port clamps",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup", "mtu", "4092"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond"}},
         nullptr, nullptr},
        {"bond MTU 65520 over connected ports",
         {{"type", "bond", "ifname", "bond0", "bond.options", "mode=active-backup", "mtu", "65520"},
          {"type", "infiniband", "ifname", "ib0", "master", "bond0", "slave-type", "bond", "transport-mode",
           "connected", "mtu", "2044"}},
         nullptr, nullptr},
        {"port of a bond without profile",
         {{"type", "infiniband", "ifname", "ib0", "master", "bond7", "slave-type", "bond"}}, "connection.master",
         "connection.master: no bond profile has the interface name or UUID 'bond7'"},
        {"Ethernet bond is not ours",
         {{"type", "bond", "ifname", "bond1", "bond.options", "mode=balance-rr"},
          {"type", "ethernet", "ifname", "eth0", "master", "bond1", "slave-type", "bond"}},
         nullptr, nullptr},
    };
    auto host = testHost();
    for (const auto &r : rows) {
        std::vector<GObjectPtr<IbnmProfile>> profiles;
        for (const auto &a : r.profiles)
            profiles.push_back(mustProfile(a));
        auto findings = ibnm::rules::checkBonds(connections(profiles), &host);
        findings.erase(std::remove_if(findings.begin(), findings.end(),
                                      [](const Finding &f) { return f.severity == IBNM_SEVERITY_INFO; }),
                       findings.end());
        if (r.property == nullptr) {
            EXPECT_TRUE(findings.empty()) << r.name << "\n" << dump(findings);
            continue;
        }
        ASSERT_EQ(findings.size(), 1u) << r.name << "\n" << dump(findings);
        EXPECT_EQ(findings[0].property, r.property) << r.name;
        EXPECT_EQ(findings[0].severity, IBNM_SEVERITY_ERROR) << r.name;
        EXPECT_EQ(findings[0].profileId, ibnm_profile_get_id(profiles[0].get())) << r.name;
        EXPECT_NE(findings[0].message.find(r.message), std::string::npos) << r.name << ": " << findings[0].message;
        EXPECT_FALSE(findings[0].hint.empty()) << r.name;
    }
}

// Rule 4: across profiles.
TEST(ProfileRules, AcrossProfiles)
{
    struct Row {
        const char *name;
        std::vector<Args> profiles; // the last is the one the finding is about
        bool withHost;
        const char *property;
        std::optional<IbnmSeverity> severity;
        const char *message;
    } rows[] = {
        {"same child twice",
         {{"type", "infiniband", "con-name", "a", "parent", "ib0", "p-key", "0x8002"},
          {"type", "infiniband", "con-name", "b", "parent", "ib0", "p-key", "0x8002"}},
         true, "infiniband.p-key", IBNM_SEVERITY_ERROR,
         "infiniband.p-key: profile 'a' already defines the child of ib0 with P_Key 0x8002"},
        {"limited and full membership are the same child",
         {{"type", "infiniband", "con-name", "a", "parent", "ib0", "p-key", "0x8002"},
          {"type", "infiniband", "con-name", "b", "parent", "ib0", "p-key", "0x0002"}},
         true, "infiniband.p-key", IBNM_SEVERITY_ERROR, "already defines the child"},
        {"different parents", 
         {{"type", "infiniband", "con-name", "a", "parent", "ib0", "p-key", "0x8002"},
          {"type", "infiniband", "con-name", "b", "parent", "ib1", "p-key", "0x8002"}},
         true, nullptr, std::nullopt, nullptr},
        // With an inventory the host rule names a parent that is not there.
        {"parent with neither profile nor device",
         {{"type", "infiniband", "con-name", "a", "parent", "ib9", "p-key", "0x8002"}}, true, nullptr, std::nullopt,
         nullptr},
        {"children cut to one name",
         {{"type", "infiniband", "con-name", "a", "parent", "x2345678901234", "p-key", "0x8002"},
          {"type", "infiniband", "con-name", "b", "parent", "x2345678901234", "p-key", "0x8003"}},
         true, "infiniband.p-key", IBNM_SEVERITY_ERROR,
         "infiniband.p-key: the kernel names this child x2345678901234., as the child of profile 'a'"},
        {"one interface, two modes",
         {{"type", "infiniband", "con-name", "a", "ifname", "ib0", "transport-mode", "connected"},
          {"type", "infiniband", "con-name", "b", "ifname", "ib0", "transport-mode", "datagram"}},
         true, "connection.interface-name", IBNM_SEVERITY_ERROR, "profile 'a' configures ib0 too"},
        {"one interface, two identical profiles",
         {{"type", "ethernet", "con-name", "a", "ifname", "eth0", "mtu", "1500"},
          {"type", "ethernet", "con-name", "b", "ifname", "eth0", "mtu", "1500"}},
         true, "connection.interface-name", IBNM_SEVERITY_ERROR, "profile 'a' configures eth0 too"},
        {"one port GUID, two persistent names",
         {{"type", "infiniband", "con-name", "a", "ifname", "ib0", "mac",
           "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51"},
          {"type", "infiniband", "con-name", "b", "ifname", "ib7", "mac",
           "00:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51"}},
         true, "infiniband.mac-address", IBNM_SEVERITY_ERROR, "one port cannot have two persistent names"},
        {"two profiles, one rxe link",
         {{"type", "ethernet", "con-name", "a", "ifname", "eth0", "rdma.link-type", "rxe", "rdma.link-name", "rxe0"},
          {"type", "ethernet", "con-name", "b", "ifname", "eth1", "rdma.link-type", "rxe", "rdma.link-name", "rxe0"}},
         true, "rdma.link-name", IBNM_SEVERITY_ERROR, "profile 'a' creates the RDMA link rxe0 too"},
        {"parent with a profile only",
         {{"type", "infiniband", "ifname", "ib9"},
          {"type", "infiniband", "con-name", "a", "parent", "ib9", "p-key", "0x8002"}},
         true, nullptr, std::nullopt, nullptr},
        {"parent with a device only",
         {{"type", "infiniband", "con-name", "a", "parent", "ib0", "p-key", "0x8002"}}, true, nullptr, std::nullopt,
         nullptr},
        {"no inventory, no parent profile",
         {{"type", "infiniband", "con-name", "a", "parent", "ib0", "p-key", "0x8002"}}, false, "infiniband.parent",
         IBNM_SEVERITY_WARNING, "no inventory"},
    };
    auto host = testHost();
    for (const auto &r : rows) {
        std::vector<GObjectPtr<IbnmProfile>> profiles;
        for (const auto &a : r.profiles)
            profiles.push_back(mustProfile(a));
        auto findings = ibnm::rules::checkAcross(connections(profiles), r.withHost ? &host : nullptr);
        if (r.property == nullptr) {
            EXPECT_TRUE(findings.empty()) << r.name << "\n" << dump(findings);
            continue;
        }
        ASSERT_EQ(findings.size(), 1u) << r.name << "\n" << dump(findings);
        EXPECT_EQ(findings[0].property, r.property) << r.name;
        EXPECT_EQ(findings[0].severity, *r.severity) << r.name;
        EXPECT_EQ(findings[0].profileId, ibnm_profile_get_id(profiles.back().get())) << r.name;
        EXPECT_NE(findings[0].message.find(r.message), std::string::npos) << r.name << ": " << findings[0].message;
    }
}

// Rule 5: ibnm's [user] options the kernel refuses together, whatever the
// host: rxe has RoCE v2 only.
TEST(ProfileRules, OptionRules)
{
    const char *const rxeV1 =
        "rdma.roce-mode: an rxe (Soft-RoCE) link has RoCE v2 only; the kernel refuses v1 (IB/RoCE v1) at activation";
    const char *const rxeHint = "Set rdma.roce-mode v2, or remove it (rxe uses RoCE v2).";
    const char *const siwV2 =
        "rdma.roce-mode: a siw (Soft-iWARP) link is iWARP, not RoCE; the kernel refuses RoCE v2 at activation";
    const char *const siwHint = "Remove rdma.roce-mode: RoCE modes do not apply to iWARP.";
    struct Row {
        const char *name;
        Args args;
        const char *message; // the one finding expected, nullptr: none
    } rows[] = {
        {"rxe with RoCE v1", {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "rxe", "rdma.roce-mode", "v1"},
         rxeV1},
        {"rxe with RoCE v1 spelt as configfs does",
         {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "RXE", "rdma.roce-mode", "IB/RoCE v1"}, rxeV1},
        {"rxe over an IPoIB child with RoCE v1",
         {"type", "infiniband", "parent", "ib0", "p-key", "0x8002", "rdma.link-type", "rxe", "rdma.roce-mode", "1"},
         rxeV1},
        {"rxe with RoCE v2", {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "rxe", "rdma.roce-mode", "v2"},
         nullptr},
        {"rxe without a RoCE mode", {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "rxe"}, nullptr},
        {"siw with RoCE v1", {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "siw", "rdma.roce-mode", "v1"},
         nullptr},
        {"siw with RoCE v2", {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "siw", "rdma.roce-mode", "v2"},
         siwV2},
        {"siw with RoCE v2 spelt as configfs does",
         {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "siw", "rdma.roce-mode", "RoCE v2"}, siwV2},
        {"siw without a RoCE mode", {"type", "ethernet", "ifname", "enp1s0", "rdma.link-type", "siw"}, nullptr},
        {"RoCE v1 on a device the profile does not create",
         {"type", "ethernet", "ifname", "p4p2", "rdma.roce-mode", "v1"}, nullptr},
        {"no options", {"type", "infiniband", "ifname", "ib0"}, nullptr},
    };
    for (const auto &r : rows) {
        auto p = mustProfile(r.args);
        ASSERT_TRUE(p) << r.name;
        auto findings = ibnm::rules::checkOptions(connectionOf(p.get()));
        if (r.message == nullptr) {
            EXPECT_TRUE(findings.empty()) << r.name << "\n" << dump(findings);
            continue;
        }
        ASSERT_EQ(findings.size(), 1u) << r.name << "\n" << dump(findings);
        EXPECT_EQ(findings[0].property, "rdma.roce-mode") << r.name;
        EXPECT_EQ(findings[0].severity, IBNM_SEVERITY_ERROR) << r.name;
        EXPECT_EQ(findings[0].message, r.message) << r.name;
        EXPECT_EQ(findings[0].hint, r.message == siwV2 ? siwHint : rxeHint) << r.name;
        EXPECT_EQ(findings[0].profileId, ibnm_profile_get_id(p.get())) << r.name;
    }
}

// The public entry point: all rules, as IbnmFinding objects, errors first.
TEST(CheckProfiles, ReturnsFindingsErrorsFirst)
{
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm::inventoryNewFromHost(testHost()));
    std::vector<GObjectPtr<IbnmProfile>> profiles = {
        mustProfile({"type", "infiniband", "con-name", "limited", "parent", "ib0", "p-key", "0x0001"}),
        mustProfile({"type", "infiniband", "con-name", "big", "ifname", "ib0", "mtu", "4093"}),
        mustProfile({"type", "infiniband", "con-name", "missing", "parent", "ib0", "p-key", "0x8005"}),
    };
    ibnm::GPtrArrayPtr array(g_ptr_array_new());
    for (auto &p : profiles)
        g_ptr_array_add(array.get(), ibnm_profile_get_connection(p.get()));
    ibnm::GPtrArrayPtr findings(ibnm_check_profiles(array.get(), inv.get(), IBNM_CHECK_FLAGS_NONE));
    ASSERT_EQ(findings->len, 3u);
    auto at = [&](guint i) { return static_cast<IbnmFinding *>(g_ptr_array_index(findings.get(), i)); };
    EXPECT_EQ(ibnm_finding_get_severity(at(0)), IBNM_SEVERITY_ERROR);
    EXPECT_STREQ(ibnm_finding_get_profile_id(at(0)), "big");
    EXPECT_STREQ(ibnm_finding_get_property(at(0)), "infiniband.mtu");
    EXPECT_EQ(ibnm_finding_get_severity(at(1)), IBNM_SEVERITY_WARNING);
    EXPECT_STREQ(ibnm_finding_get_profile_id(at(1)), "missing");
    EXPECT_EQ(ibnm_finding_get_severity(at(2)), IBNM_SEVERITY_INFO);
    EXPECT_STREQ(ibnm_finding_get_profile_id(at(2)), "limited");

    ibnm::GPtrArrayPtr without(ibnm_check_profiles(array.get(), nullptr, IBNM_CHECK_FLAGS_NONE));
    guint infos = 0;
    for (guint i = 0; i < without->len; i++)
        if (g_str_has_suffix(ibnm_finding_get_message(static_cast<IbnmFinding *>(g_ptr_array_index(without.get(), i))),
                             "the host checks were skipped"))
            infos++;
    EXPECT_EQ(infos, 3u);
}

// Rule 5 runs in ibnm_check_profiles() (`ibnm check`), with or without a
// host: it needs none.
TEST(CheckProfiles, RxeLinkWithRoceV1IsAnErrorWithoutAHost)
{
    auto bad = mustProfile({"type", "ethernet", "con-name", "rxe-v1", "ifname", "enp1s0", "rdma.link-type", "rxe",
                            "rdma.roce-mode", "v1"});
    auto good = mustProfile({"type", "ethernet", "con-name", "rxe-v2", "ifname", "enp2s0", "rdma.link-type", "rxe",
                             "rdma.roce-mode", "v2"});
    ibnm::GPtrArrayPtr array(g_ptr_array_new());
    g_ptr_array_add(array.get(), ibnm_profile_get_connection(bad.get()));
    g_ptr_array_add(array.get(), ibnm_profile_get_connection(good.get()));
    ibnm::GPtrArrayPtr findings(ibnm_check_profiles(array.get(), nullptr, IBNM_CHECK_FLAGS_NONE));
    ASSERT_EQ(findings->len, 1u);
    auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(findings.get(), 0));
    EXPECT_EQ(ibnm_finding_get_severity(f), IBNM_SEVERITY_ERROR);
    EXPECT_STREQ(ibnm_finding_get_profile_id(f), "rxe-v1");
    EXPECT_STREQ(ibnm_finding_get_property(f), "rdma.roce-mode");
    EXPECT_TRUE(g_str_has_prefix(ibnm_finding_get_message(f), "rdma.roce-mode: ")) << ibnm_finding_get_message(f);
}

// A finding names the other profiles it involves: the IPoIB port that makes
// its bond's mode wrong, the profile claiming the same interface; a finding
// about one profile alone involves no other.
TEST(CheckProfiles, FindingsNameTheProfilesTheyInvolve)
{
    auto bond =
        mustProfile({"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", "mode=balance-rr"});
    auto port = mustProfile({"type", "infiniband", "con-name", "port", "ifname", "ib0", "master", "bond0",
                             "slave-type", "bond"});
    auto rxe = mustProfile({"type", "ethernet", "con-name", "rxe-v1", "ifname", "enp1s0", "rdma.link-type", "rxe",
                            "rdma.roce-mode", "v1"});
    auto twin = mustProfile({"type", "ethernet", "con-name", "twin", "ifname", "enp1s0"});
    ibnm::GPtrArrayPtr array(g_ptr_array_new());
    for (auto *p : {bond.get(), port.get(), rxe.get(), twin.get()})
        g_ptr_array_add(array.get(), ibnm_profile_get_connection(p));
    ibnm::GPtrArrayPtr findings(ibnm_check_profiles(array.get(), nullptr, IBNM_CHECK_FLAGS_NONE));
    auto about = [&](const char *id, const char *property) -> IbnmFinding * {
        for (guint i = 0; i < findings->len; i++) {
            auto *f = static_cast<IbnmFinding *>(g_ptr_array_index(findings.get(), i));
            if (g_strcmp0(ibnm_finding_get_profile_id(f), id) == 0 &&
                g_strcmp0(ibnm_finding_get_property(f), property) == 0)
                return f;
        }
        return nullptr;
    };
    IbnmFinding *mode = about("bond0", "bond.options");
    ASSERT_NE(mode, nullptr);
    EXPECT_EQ(ibnm_finding_get_severity(mode), IBNM_SEVERITY_ERROR);
    const char *const *related = ibnm_finding_get_related_profiles(mode);
    ASSERT_NE(related, nullptr);
    EXPECT_EQ(g_strv_length(const_cast<char **>(related)), 1u);
    EXPECT_STREQ(related[0], "port");
    EXPECT_TRUE(ibnm_finding_involves(mode, "port"));
    EXPECT_TRUE(ibnm_finding_involves(mode, "bond0"));
    EXPECT_FALSE(ibnm_finding_involves(mode, "rxe-v1"));

    IbnmFinding *same = about("twin", "connection.interface-name");
    ASSERT_NE(same, nullptr);
    EXPECT_TRUE(ibnm_finding_involves(same, "rxe-v1"));
    EXPECT_FALSE(ibnm_finding_involves(same, "port"));

    IbnmFinding *alone = about("rxe-v1", "rdma.roce-mode");
    ASSERT_NE(alone, nullptr);
    ASSERT_NE(ibnm_finding_get_related_profiles(alone), nullptr);
    EXPECT_EQ(ibnm_finding_get_related_profiles(alone)[0], nullptr);
    EXPECT_FALSE(ibnm_finding_involves(alone, "port"));

    // The property, for bindings.
    GStrv viaProperty = nullptr;
    g_object_get(mode, IBNM_FINDING_RELATED_PROFILES, &viaProperty, nullptr);
    ASSERT_NE(viaProperty, nullptr);
    EXPECT_STREQ(viaProperty[0], "port");
    g_strfreev(viaProperty);
}

// Each plans alone, both together do not (the bond's MTU is more than its
// Ethernet port takes): the profile whose addition makes the plan fail is
// involved, found among those before it.
TEST(CheckPlan, TogetherTheProfileThatMakesThePlanFailIsInvolved)
{
    HostBuilder b;
    b.ibPort("ib0", "mlx4_0", 2048);
    ibnm::model::Netdev eth;
    eth.name = "enp1s0";
    eth.type = 1;
    eth.mtu = 1500;
    eth.maxMtu = 9000;
    b.host.netdevs.push_back(eth);
    auto port = mustProfile({"type", "ethernet", "con-name", "port", "ifname", "enp1s0", "master", "bond0",
                             "slave-type", "bond"});
    auto bond = mustProfile({"type", "bond", "con-name", "bond0", "ifname", "bond0", "802-3-ethernet.mtu", "9500"});
    for (const auto &order : {std::vector<IbnmProfile *>{port.get(), bond.get()},
                              std::vector<IbnmProfile *>{bond.get(), port.get()}}) {
        std::vector<NMConnection *> cs;
        for (IbnmProfile *p : order)
            cs.push_back(connectionOf(p));
        auto fs = ibnm::activation::checkPlan(cs, b.host);
        ASSERT_EQ(fs.size(), 1u) << dump(fs);
        EXPECT_EQ(fs[0].profileId, "port") << dump(fs);
        EXPECT_NE(fs[0].message.find("9500"), std::string::npos) << dump(fs);
        // The bond, when it came last, is what made the port's plan fail.
        bool bondLast = order.back() == bond.get();
        EXPECT_EQ(fs[0].related, bondLast ? std::vector<std::string>{"bond0"} : std::vector<std::string>{})
            << dump(fs);
    }
}

// A plan error about a profile and property a rule already named is not a
// second finding: the profiles the plan involves join the rule's. The port
// claims twin's interface (rule 4: involves twin); its interface is not on
// the host, which the plan of the RoCE bond (it brings its Ethernet ports)
// refuses naming the port (involves bond0).
TEST(CheckAll, APlanErrorARuleGaveAddsItsProfilesToThatFinding)
{
    HostBuilder b;
    b.ibPort("ib0", "mlx4_0", 2048);
    auto twin = mustProfile({"type", "ethernet", "con-name", "twin", "ifname", "enp9s0"});
    auto port = mustProfile({"type", "ethernet", "con-name", "port", "ifname", "enp9s0", "master", "bond0",
                             "slave-type", "bond"});
    auto bond = mustProfile({"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options",
                             "mode=active-backup", "rdma.roce-mode", "v2"});
    auto profiles = connections({twin, port, bond});

    // The rule alone, and the plan alone: the same profile and property,
    // each involving another profile.
    auto across = ibnm::rules::checkAcross(profiles, &b.host);
    const Finding *rule = find(across, "connection.interface-name");
    ASSERT_NE(rule, nullptr) << dump(across);
    EXPECT_EQ(rule->profileId, "port");
    EXPECT_EQ(rule->related, std::vector<std::string>{"twin"}) << dump(across);
    auto plan = ibnm::activation::checkPlan(profiles, b.host);
    bool planInvolvesBond = false;
    for (const auto &f : plan)
        planInvolvesBond = planInvolvesBond || (f.profileId == "port" && f.property == "connection.interface-name" &&
                                                f.related == std::vector<std::string>{"bond0"});
    ASSERT_TRUE(planInvolvesBond) << dump(plan);

    auto all = ibnm::activation::checkProfiles(profiles, &b.host);
    std::vector<const Finding *> aboutPort;
    for (const auto &f : all)
        if (f.profileId == "port" && f.property == "connection.interface-name" && f.severity == IBNM_SEVERITY_ERROR)
            aboutPort.push_back(&f);
    ASSERT_EQ(aboutPort.size(), 1u) << dump(all);
    EXPECT_EQ(aboutPort[0]->severity, IBNM_SEVERITY_ERROR);
    // The rule's message, with both profiles involved, each once.
    EXPECT_EQ(aboutPort[0]->message, rule->message);
    EXPECT_EQ(aboutPort[0]->related, (std::vector<std::string>{"twin", "bond0"})) << dump(all);
}

// What check reads the GID tables for (ibnm_check_reload_inventory): a
// netdev without an RDMA device that a profile names (interface, parent,
// master), or that the rules find without a name (a bond: RoCE LAG; an IPoIB
// interface: by MAC). A netdev with a device, or one no rule asks about,
// needs none.
TEST(ProfileRules, GidTablesOnlyForNetdevsTheRulesAskAbout)
{
    ibnm::model::Host host;
    host.withGidTables = false;
    ibnm::model::Netdev mapped;
    mapped.name = "eth0";
    mapped.type = 1;
    mapped.rdmaDevice = "mlx5_0";
    mapped.rdmaPort = 1;
    ibnm::model::Netdev vlan;
    vlan.name = "eth0.100";
    vlan.type = 1;
    vlan.kind = "vlan";
    host.netdevs = {mapped, vlan};
    auto onEth0 = mustProfile({"type", "ethernet", "con-name", "a", "ifname", "eth0", "rdma.roce-mode", "v2"});
    auto onVlan = mustProfile({"type", "ethernet", "con-name", "b", "ifname", "eth0.100", "rdma.roce-mode", "v2"});
    auto port = mustProfile({"type", "ethernet", "con-name", "c", "ifname", "eth1", "master", "eth0.100",
                             "slave-type", "bond"});
    auto child = mustProfile({"type", "infiniband", "con-name", "d", "parent", "eth0.100", "p-key", "0x8002"});
    EXPECT_FALSE(ibnm::rules::needsGidTables({}, host));
    EXPECT_FALSE(ibnm::rules::needsGidTables(connections({onEth0}), host));
    EXPECT_TRUE(ibnm::rules::needsGidTables(connections({onVlan}), host));
    EXPECT_TRUE(ibnm::rules::needsGidTables(connections({port}), host));
    EXPECT_TRUE(ibnm::rules::needsGidTables(connections({child}), host));

    ibnm::model::Host withBond = host;
    ibnm::model::Netdev bond;
    bond.name = "bond0";
    bond.kind = "bond";
    withBond.netdevs.push_back(bond);
    EXPECT_TRUE(ibnm::rules::needsGidTables(connections({onEth0}), withBond));
    withBond.netdevs.back().rdmaDevice = "mlx5_bond_0";
    EXPECT_FALSE(ibnm::rules::needsGidTables(connections({onEth0}), withBond));

    ibnm::model::Host withIpoib = host;
    ibnm::model::Netdev ib;
    ib.name = "ib0";
    ib.type = 32;
    withIpoib.netdevs.push_back(ib);
    ibnm::model::IpoibNetdev ipoib;
    ipoib.name = "ib0";
    withIpoib.ipoib.push_back(ipoib);
    EXPECT_TRUE(ibnm::rules::needsGidTables(connections({onEth0}), withIpoib));
}
