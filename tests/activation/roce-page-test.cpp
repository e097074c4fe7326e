// SPDX-License-Identifier: LGPL-2.1-or-later
// NVIDIA's RoCE page on the simulated host: traffic-class rules, roce_enable,
// DSCP values, and standalone DHCP over IPoIB refused (issue 19).
#include "config.h"

#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "tests/activation/activation-test-util.hpp"
#include "tests/simulator/fake-test-util.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace ibnm;
using namespace ibnm::activation;
using ibnm::platform::FakePlatform;
using namespace ibnm::test;

namespace {

// Two mlx5 RoCE functions (one port each), an mlx4 InfiniBand HCA with an
// IPoIB interface, and an Ethernet NIC for rxe.
const char *kHost = R"([host]
kernel-release=6.1.0-13-amd64

[device mlx5_0]
driver=mlx5_core
node-type=1: CA
roce-enable=true

[port mlx5_0/1]
link-layer=Ethernet
traffic-class-rules=tclass=8,dst_ip=198.51.100.0/24

[device mlx5_1]
driver=mlx5_core
node-type=1: CA
roce-enable=true

[port mlx5_1/1]
link-layer=Ethernet

[device mlx4_0]
driver=mlx4_core
node-type=1: CA

[port mlx4_0/1]
link-layer=InfiniBand
active-mtu=2048
max-mtu=4096
broadcast-mtu=2048
pkeys=0xffff
port-guid=0002:c903:0031:7851

[netdev p4p1]
rdma-port=mlx5_0/1
address=b8:59:9f:1a:e3:ea
mtu=1500
up=true
addresses=10.10.10.1/24

[netdev p4p2]
rdma-port=mlx5_1/1
address=b8:59:9f:1a:e3:eb
mtu=1500
up=true
addresses=10.10.11.1/24

[netdev mlx4_ib0]
type=32
kind=ipoib
rdma-port=mlx4_0/1
mtu=2044
mode=datagram
pkey=0xffff

[netdev enp1s0]
type=1
address=52:54:00:12:34:56
mtu=1500
up=true
addresses=192.0.2.10/24
)";

std::unique_ptr<FakePlatform> makeHost()
{
    return test::makeTestFake(kHost, "roce.host");
}

ConnPtr ipoib(const char *id, const char *ifname, const char *method4)
{
    auto c = connection(id, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
    NMSetting *ib = nm_setting_infiniband_new();
    g_object_set(ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, "datagram", nullptr);
    nm_connection_add_setting(c.get(), ib);
    if (method4) {
        NMSetting *ip4 = nm_setting_ip4_config_new();
        g_object_set(ip4, NM_SETTING_IP_CONFIG_METHOD, method4, nullptr);
        nm_connection_add_setting(c.get(), ip4);
    }
    return c;
}

Report upAll(FakePlatform &p, const std::vector<ConnPtr> &profiles, bool dryRun = false)
{
    Options o;
    o.dryRun = dryRun;
    return test::resolveAndUp(p, profiles, false, o);
}

const model::Port &port(const model::Host &h, const char *device)
{
    return h.findDevice(device)->ports.at(0);
}

std::vector<std::string> tcRules(FakePlatform &p, const char *device)
{
    auto h = p.readHost();
    std::vector<std::string> out;
    for (const auto &r : port(*h, device).tcRules)
        out.push_back(model::formatTcRule(r));
    return out;
}

} // namespace

TEST(TrafficClassRules, AddReplaceAndRemoveAsProfileKeys)
{
    auto p = makeHost();
    // The page's rule without the optional prefix, a replacement of the
    // host's rule for 198.51.100.0/24, and a removal of a rule not there.
    std::vector<ConnPtr> v{ethernet("tc", "p4p1",
                                    {{"rdma.traffic-class-rules",
                                      "16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24; tclass=24,dst_ip=198.51.100.0/24;"
                                      "tclass=-1,src_ip=203.0.113.1"}})};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].action, IBNM_STEP_ACTION_SET_TRAFFIC_CLASS_RULE);
    EXPECT_EQ(tcRules(*p, "mlx5_0"), (std::vector<std::string>{"tclass=24,dst_ip=198.51.100.0/24",
                                                              "tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"}));
    // Applied again: nothing to do.
    Report again = upAll(*p, v);
    ASSERT_TRUE(again.ok) << again.error;
    EXPECT_TRUE(again.steps.empty());
    // tclass=-1 removes the rule with that match.
    std::vector<ConnPtr> rm{ethernet("tc", "p4p1", {{"rdma.traffic-class-rules", "tclass=-1,dst_ip=198.51.100.0/24"}})};
    Report removed = upAll(*p, rm);
    ASSERT_TRUE(removed.ok) << removed.error;
    ASSERT_EQ(removed.steps.size(), 1u);
    EXPECT_EQ(removed.steps[0].action, IBNM_STEP_ACTION_REMOVE_TRAFFIC_CLASS_RULE);
    EXPECT_EQ(tcRules(*p, "mlx5_0"), (std::vector<std::string>{"tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24"}));
}

TEST(TrafficClassRules, FailureAtEveryStepRestoresTheRules)
{
    std::vector<ConnPtr> v{ethernet("tc", "p4p1",
                                    {{"rdma.traffic-class", "dscp:26"},
                                     {"rdma.traffic-class-rules",
                                      "16,dst_ip=1.1.1.0/24;tclass=24,dst_ip=198.51.100.0/24;tclass=32,src_ip=10.10.10.1"}})};
    auto probe = makeHost();
    Report full = upAll(*probe, v);
    ASSERT_TRUE(full.ok) << full.error;
    ASSERT_EQ(full.steps.size(), 4u);
    EXPECT_EQ(port(*probe->readHost(), "mlx5_0").trafficClass, 104u); // DSCP 26 is ToS 104
    for (size_t i = 1; i <= full.steps.size(); i++) {
        auto p = makeHost();
        std::string before = snapshot(*p);
        p->addFaults({{"", unsigned(i), EIO, 0}});
        Report r = upAll(*p, v);
        EXPECT_FALSE(r.ok);
        EXPECT_TRUE(r.rolledBack) << "fault at " << i;
        p->clearFaults();
        EXPECT_EQ(snapshot(*p), before) << "fault at operation " << i;
    }
}

TEST(TrafficClassRules, DeviceWithoutTcFilesIsRefusedNamingTheKey)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    std::vector<ConnPtr> v{ethernet("tc", "enp1s0",
                                    {{"rdma.link-type", "rxe"}, {"rdma.traffic-class-rules", "16,dst_ip=1.1.1.0/24"}})};
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.steps.empty());
    ASSERT_TRUE(r.failure);
    EXPECT_EQ(r.failure->property(), "rdma.traffic-class-rules");
    EXPECT_EQ(r.errorCode, IBNM_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(snapshot(*p), before);
}

TEST(TrafficClassRules, BadRuleNamesTheKey)
{
    for (const char *bad : {"tclass=16", "tclass=256,dst_ip=1.1.1.1", "16,src_ip=1.1.1.0/24", "16,dst_ip=1.1.1.0/33",
                            "16,via=1.1.1.1", "16,dst_ip=1.1.1.1;17,dst_ip=1.1.1.1", ""}) {
        auto c = ethernet("tc", "p4p1", {{"rdma.traffic-class-rules", bad}});
        auto d = resolve({c.get()}, {c.get()}, false);
        ASSERT_FALSE(d.ok()) << bad;
        EXPECT_EQ(d.error().property(), "rdma.traffic-class-rules") << bad;
        EXPECT_EQ(d.error().code(), IBNM_ERROR_INVALID_VALUE) << bad;
    }
}

TEST(RoceEnable, DisablingDropsTheGidsOfThatFunctionOnly)
{
    auto p = makeHost();
    auto before = p->readHost();
    ASSERT_FALSE(port(*before, "mlx5_0").gids.empty());
    std::vector<ConnPtr> v{ethernet("off", "p4p1", {{"rdma.roce-enable", "no"}})};
    // check warns about what disabling does.
    bool warned = false;
    for (const auto &f : activation::checkProfiles(raw(v), &*before))
        warned = warned || (f.severity == IBNM_SEVERITY_WARNING && f.property == "rdma.roce-enable");
    EXPECT_TRUE(warned);
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    auto after = p->readHost();
    EXPECT_EQ(after->findDevice("mlx5_0")->roceEnabled, false);
    EXPECT_TRUE(port(*after, "mlx5_0").gids.empty());
    EXPECT_EQ(port(*after, "mlx5_1").gids.size(), port(*before, "mlx5_1").gids.size());
    // Enabled again, the table comes back as it was.
    std::vector<ConnPtr> on{ethernet("on", "p4p1", {{"rdma.roce-enable", "yes"}})};
    ASSERT_TRUE(upAll(*p, on).ok);
    auto again = p->readHost();
    ASSERT_EQ(port(*again, "mlx5_0").gids.size(), port(*before, "mlx5_0").gids.size());
    EXPECT_EQ(port(*again, "mlx5_0").gids[0].gid, port(*before, "mlx5_0").gids[0].gid);
}

TEST(RoceEnable, FailureAfterDisablingBringsTheGidsBack)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    std::vector<ConnPtr> v{ethernet("off", "p4p1", {{"rdma.roce-enable", "no"}, {"rdma.ttl", "64"}})};
    p->failNext("setTtl", EIO);
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.rolledBack);
    EXPECT_EQ(snapshot(*p), before);
}

TEST(RoceEnable, DeviceWithoutTheFileIsRefusedNamingTheKey)
{
    auto p = makeHost();
    std::vector<ConnPtr> v{ethernet("off", "enp1s0", {{"rdma.link-type", "rxe"}, {"rdma.roce-enable", "no"}})};
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    ASSERT_TRUE(r.failure);
    EXPECT_EQ(r.failure->property(), "rdma.roce-enable");
}

TEST(Dscp, RoceTosTakesADscpValue)
{
    auto p = makeHost();
    std::vector<ConnPtr> v{ethernet("tos", "p4p2", {{"rdma.roce-tos", "dscp:26"}})};
    ASSERT_TRUE(upAll(*p, v).ok);
    EXPECT_EQ(port(*p->readHost(), "mlx5_1").defaultRoceTos, 104u);
    for (const char *bad : {"dscp:64", "dscp:", "dscp:-1", "DSCP:x"}) {
        auto c = ethernet("tos", "p4p2", {{"rdma.roce-tos", bad}});
        auto d = resolve({c.get()}, {c.get()}, false);
        ASSERT_FALSE(d.ok()) << bad;
        EXPECT_EQ(d.error().property(), "rdma.roce-tos");
    }
}

TEST(StandaloneDhcp, IpoibOnDhcpIsRefusedNamingIpv4Method)
{
    auto p = makeHost();
    auto host = p->readHost();
    for (const char *method : {"auto", static_cast<const char *>(nullptr)}) {
        auto c = ipoib("ib", "mlx4_ib0", method);
        auto d = resolve({c.get()}, {c.get()}, true, true);
        ASSERT_FALSE(d.ok());
        EXPECT_EQ(d.error().property(), "ipv4.method");
        EXPECT_NE(d.error().message().find("NetworkManager"), std::string::npos);
        // check in standalone mode says the same; with NetworkManager it is fine.
        bool standaloneError = false, nmError = false;
        for (const auto &f : activation::checkProfiles({c.get()}, &*host, nullptr, true))
            standaloneError = standaloneError || (f.severity == IBNM_SEVERITY_ERROR && f.property == "ipv4.method");
        for (const auto &f : activation::checkProfiles({c.get()}, &*host, nullptr, false))
            nmError = nmError || f.severity == IBNM_SEVERITY_ERROR;
        EXPECT_TRUE(standaloneError);
        EXPECT_FALSE(nmError);
        // The dispatcher hook (RDMA only, NetworkManager does IP) is not concerned.
        EXPECT_TRUE(resolve({c.get()}, {c.get()}, false, false).ok());
    }
    for (const char *method : {"disabled", "link-local"}) {
        auto c = ipoib("ib", "mlx4_ib0", method);
        EXPECT_TRUE(resolve({c.get()}, {c.get()}, true, true).ok()) << method;
    }
}

namespace {

std::string lagHost()
{
    char *raw = nullptr;
    std::string path = IBNM_TOP_SRCDIR "/examples/hosts/mlx5-roce-lag.host";
    EXPECT_TRUE(g_file_get_contents(path.c_str(), &raw, nullptr, nullptr)) << path;
    std::string s = raw ? raw : "";
    g_free(raw);
    return s;
}

ConnPtr bondProfile(const char *mode, std::map<std::string, std::string> user = {})
{
    auto c = connection("bond0", NM_SETTING_BOND_SETTING_NAME, "bond0");
    NMSetting *b = nm_setting_bond_new();
    nm_setting_bond_add_option(NM_SETTING_BOND(b), "mode", mode);
    nm_setting_bond_add_option(NM_SETTING_BOND(b), "miimon", "100");
    nm_connection_add_setting(c.get(), b);
    if (!user.empty()) {
        NMSetting *u = nm_setting_user_new();
        for (const auto &[k, v] : user)
            EXPECT_TRUE(nm_setting_user_set_data(NM_SETTING_USER(u), k.c_str(), v.c_str(), nullptr));
        nm_connection_add_setting(c.get(), u);
    }
    return c;
}

ConnPtr bondPort(const char *id, const char *ifname)
{
    auto c = connection(id, NM_SETTING_WIRED_SETTING_NAME, ifname);
    nm_connection_add_setting(c.get(), nm_setting_wired_new());
    g_object_set(nm_connection_get_setting_connection(c.get()), NM_SETTING_CONNECTION_MASTER, "bond0",
                 NM_SETTING_CONNECTION_SLAVE_TYPE, "bond", nullptr);
    return c;
}

bool lagWarning(const std::vector<ConnPtr> &v, const model::Host &h)
{
    for (const auto &f : activation::checkProfiles(raw(v), &h))
        if (f.severity == IBNM_SEVERITY_WARNING && f.message.find("RoCE LAG") != std::string::npos)
            return true;
    return false;
}

} // namespace

// NVIDIA's RoCE page: modes 1, 2 and 4 with exactly both ports of the card
// keep RoCE LAG; another mode, a third port or a port of another card leave it.
TEST(RoceLag, CheckWarnsWhenAProfileWouldLeaveLagMode)
{
    auto st = platform::parseHostDescription(lagHost(), "mlx5-roce-lag.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    FakePlatform p(std::move(st).value());
    auto h = p.readHost();
    ASSERT_TRUE(h.ok());
    auto lags = model::roceLags(*h);
    ASSERT_EQ(lags.size(), 1u);
    EXPECT_EQ(lags[0].device, "mlx5_bond_0");
    EXPECT_EQ(lags[0].ports, (std::vector<std::string>{"p4p1", "p4p2"}));
    for (const char *mode : {"active-backup", "balance-xor", "802.3ad", "4"})
        EXPECT_FALSE(lagWarning({bondProfile(mode), bondPort("p1", "p4p1"), bondPort("p2", "p4p2")}, *h)) << mode;
    EXPECT_TRUE(lagWarning({bondProfile("balance-rr"), bondPort("p1", "p4p1"), bondPort("p2", "p4p2")}, *h));
    EXPECT_TRUE(lagWarning({bondProfile("802.3ad"), bondPort("p1", "p4p1"), bondPort("p2", "p4p2"),
                            bondPort("p3", "enp5s0")},
                           *h));
    EXPECT_TRUE(lagWarning({bondProfile("802.3ad"), bondPort("p1", "p4p1"), bondPort("p3", "enp5s0")}, *h));
    EXPECT_TRUE(lagWarning({bondProfile("802.3ad"), bondPort("p1", "p4p1")}, *h));
}

// rdma.* keys on the bond's profile go to the bonded RDMA device.
TEST(RoceLag, RdmaKeysOfTheBondProfileApplyToTheBondedDevice)
{
    auto st = platform::parseHostDescription(lagHost(), "mlx5-roce-lag.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    FakePlatform p(std::move(st).value());
    std::vector<ConnPtr> v{bondProfile("802.3ad", {{"rdma.roce-tos", "dscp:26"}, {"rdma.traffic-class", "96"}}),
                           bondPort("p1", "p4p1"), bondPort("p2", "p4p2")};
    Report r = upAll(p, v);
    ASSERT_TRUE(r.ok) << r.error;
    auto h = p.readHost();
    EXPECT_EQ(port(*h, "mlx5_bond_0").defaultRoceTos, 104u);
    EXPECT_EQ(port(*h, "mlx5_bond_0").trafficClass, 96u);
}

// The simulated driver merges the card's devices when the bond qualifies and
// splits them when it stops to; the re-created devices lose their settings.
TEST(RoceLag, SimulatedDriverMergesAndSplits)
{
    auto st = platform::parseHostDescription(lagHost(), "mlx5-roce-lag.host");
    ASSERT_TRUE(st.ok()) << st.error().toString();
    FakePlatform p(std::move(st).value());
    auto h = p.readHost();
    ASSERT_NE(h->findDevice("mlx5_bond_0"), nullptr);
    EXPECT_EQ(h->findDevice("mlx5_0"), nullptr);
    EXPECT_EQ(h->findDevice("mlx5_1"), nullptr);
    EXPECT_EQ(h->findNetdev("bond0")->rdmaDevice, "mlx5_bond_0");
    // The bonded device's GIDs are the bond's.
    const auto &gids = port(*h, "mlx5_bond_0").gids;
    ASSERT_FALSE(gids.empty());
    for (const auto &g : gids)
        EXPECT_EQ(g.netdev, "bond0");
    ASSERT_TRUE(p.setTrafficClass("mlx5_bond_0", 1, 96).ok());
    EXPECT_FALSE(p.setTrafficClass("mlx5_1", 1, 96).ok()) << "hidden while in LAG";
    EXPECT_EQ(port(*p.readHost(), "mlx5_bond_0").trafficClass, 96u);

    // A port leaves: mlx5_0 and mlx5_1 are back, each with its netdev and
    // without the bonded device's settings.
    ASSERT_TRUE(p.release("p4p2").ok());
    h = p.readHost();
    EXPECT_EQ(h->findDevice("mlx5_bond_0"), nullptr);
    ASSERT_NE(h->findDevice("mlx5_0"), nullptr);
    ASSERT_NE(h->findDevice("mlx5_1"), nullptr);
    EXPECT_EQ(h->findNetdev("p4p2")->rdmaDevice, "mlx5_1");
    EXPECT_FALSE(port(*h, "mlx5_0").trafficClass.has_value());
    // A port of another card does not make a LAG; the card's second does.
    ASSERT_TRUE(p.enslave("enp5s0", "bond0").ok());
    EXPECT_EQ(p.readHost()->findDevice("mlx5_bond_0"), nullptr);
    ASSERT_TRUE(p.release("enp5s0").ok());
    ASSERT_TRUE(p.enslave("p4p2", "bond0").ok());
    EXPECT_NE(p.readHost()->findDevice("mlx5_bond_0"), nullptr);
}

// ibnm brings such a bond up from per-port devices: afterwards the card
// shows one RDMA device; a balance-rr bond of the same ports leaves two.
TEST(RoceLag, BringingTheBondUpMergesTheDevices)
{
    std::string text = lagHost();
    // The same card with its ports outside any bond.
    for (const char *cut : {"master=bond0\n", "master=bond0\n"})
        text.erase(text.find(cut), std::string(cut).size());
    text.erase(text.find("[netdev bond0]"), text.find("[netdev enp5s0]") - text.find("[netdev bond0]"));
    for (const char *mode : {"802.3ad", "balance-rr"}) {
        auto st = platform::parseHostDescription(text, "split.host");
        ASSERT_TRUE(st.ok()) << st.error().toString();
        FakePlatform p(std::move(st).value());
        ASSERT_NE(p.readHost()->findDevice("mlx5_0"), nullptr);
        std::vector<ConnPtr> v{bondProfile(mode), bondPort("p1", "p4p1"), bondPort("p2", "p4p2")};
        if (std::string(mode) == "802.3ad") // rdma.* keys on the bond profile: the bonded device's
            v[0] = bondProfile(mode, {{"rdma.traffic-class", "dscp:26"}, {"rdma.roce-mode", "v2"}});
        auto d = resolve(raw(v), raw(v), true);
        ASSERT_TRUE(d.ok()) << d.error().toString();
        Report r = up(p, *d, Options{});
        ASSERT_TRUE(r.ok) << r.error;
        auto h = p.readHost();
        bool lag = std::string(mode) == "802.3ad";
        EXPECT_EQ(h->findDevice("mlx5_bond_0") != nullptr, lag) << mode;
        EXPECT_EQ(h->findDevice("mlx5_0") != nullptr, !lag) << mode;
        if (lag) {
            EXPECT_EQ(port(*h, "mlx5_bond_0").trafficClass, 104u);
            EXPECT_EQ(port(*h, "mlx5_bond_0").defaultRoceMode, model::RoceMode::V2);
        }
    }
}

// A failure at any step of forming the LAG with its settings leaves the
// card as it was: two devices, no settings.
TEST(RoceLag, FailureWhileFormingTheLagRollsBack)
{
    std::string text = lagHost();
    for (const char *cut : {"master=bond0\n", "master=bond0\n"})
        text.erase(text.find(cut), std::string(cut).size());
    text.erase(text.find("[netdev bond0]"), text.find("[netdev enp5s0]") - text.find("[netdev bond0]"));
    std::vector<ConnPtr> v{bondProfile("802.3ad", {{"rdma.traffic-class", "96"}, {"rdma.roce-tos", "dscp:26"}}),
                           bondPort("p1", "p4p1"), bondPort("p2", "p4p2")};
    auto d = resolve(raw(v), raw(v), true);
    ASSERT_TRUE(d.ok()) << d.error().toString();
    auto probe = platform::parseHostDescription(text, "split.host");
    ASSERT_TRUE(probe.ok());
    FakePlatform full(std::move(probe).value());
    Report all = up(full, *d, Options{});
    ASSERT_TRUE(all.ok) << all.error;
    ASSERT_GE(all.steps.size(), 5u); // the bond, two enslavings, ToS, traffic class
    EXPECT_EQ(all.steps.back().object, "mlx5_bond_0/1");
    for (size_t i = 1; i <= all.steps.size(); i++) {
        auto st = platform::parseHostDescription(text, "split.host");
        FakePlatform p(std::move(st).value());
        std::string before = snapshot(p);
        p.addFaults({{"", unsigned(i), EIO, 0}});
        Report r = up(p, *d, Options{});
        EXPECT_FALSE(r.ok) << i;
        EXPECT_TRUE(r.rolledBack) << i;
        p.clearFaults();
        EXPECT_EQ(snapshot(p), before) << "fault at " << i << " (" << ibnm_step_action_to_string(all.steps[i - 1].action) << ")";
    }
}
