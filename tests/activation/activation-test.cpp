// SPDX-License-Identifier: LGPL-2.1-or-later
// Activation on the simulated host: minimal steps in dependency order, the
// kernel's names read back, idempotency, and rollback at every step.
#include "config.h"

#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/profiles/host-files.hpp"
#include "tests/activation/activation-test-util.hpp"
#include "tests/simulator/fake-test-util.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <set>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace ibnm;
using namespace ibnm::activation;
using ibnm::platform::FakePlatform;
using namespace ibnm::test;

namespace {

// An InfiniBand host: a dual-port mlx4 HCA (port 1 IB with a 2048-byte link
// and broadcast MTU, port 2 InfiniBand too for the bond), a ConnectX-6 with
// Enhanced IPoIB, and an Ethernet NIC for soft RDMA.
const char *kHost = R"([host]
kernel-release=6.1.0-56-amd64
child-naming=upstream

[device mlx4_0]
driver=mlx4_core
node-type=1: CA
node-guid=0002:c903:0031:7850
fw-ver=2.42.5000
hca-type=MT4099

[port mlx4_0/1]
link-layer=InfiniBand
state=4: ACTIVE
phys-state=5: LinkUp
active-mtu=2048
max-mtu=4096
broadcast-mtu=2048
pkeys=0xffff;0x8002
port-guid=0002:c903:0031:7851

[port mlx4_0/2]
link-layer=InfiniBand
state=4: ACTIVE
phys-state=5: LinkUp
active-mtu=4096
max-mtu=4096
broadcast-mtu=4096
pkeys=0xffff
port-guid=0002:c903:0031:7852

[device mlx5_0]
driver=mlx5_core
node-type=1: CA
enhanced-ipoib=true
connected-mode=false

[port mlx5_0/1]
link-layer=InfiniBand
state=4: ACTIVE
active-mtu=4096
max-mtu=4096
pkeys=0xffff
port-guid=9803:9b03:0078:0001

[netdev mlx4_ib0]
type=32
kind=ipoib
rdma-port=mlx4_0/1
mtu=2044
mode=datagram
pkey=0xffff

[netdev mlx4_ib1]
type=32
kind=ipoib
rdma-port=mlx4_0/2
mtu=2044
mode=datagram
pkey=0xffff

[netdev ib0]
type=32
kind=ipoib
rdma-port=mlx5_0/1
mtu=4092
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
    return test::makeTestFake(kHost);
}

ConnPtr ipoib(const char *id, const char *ifname, const char *mode, unsigned mtu, int pkey = -1,
              const char *parent = nullptr)
{
    auto c = connection(id, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
    NMSetting *ib = nm_setting_infiniband_new();
    g_object_set(ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, mode, NM_SETTING_INFINIBAND_MTU, mtu,
                 NM_SETTING_INFINIBAND_P_KEY, pkey, NM_SETTING_INFINIBAND_PARENT, parent, nullptr);
    nm_connection_add_setting(c.get(), ib);
    return c;
}

ConnPtr bond(const char *id, const char *ifname, const char *primary)
{
    auto c = connection(id, NM_SETTING_BOND_SETTING_NAME, ifname);
    NMSetting *b = nm_setting_bond_new();
    nm_setting_bond_add_option(NM_SETTING_BOND(b), "mode", "active-backup");
    nm_setting_bond_add_option(NM_SETTING_BOND(b), "miimon", "100");
    if (primary)
        nm_setting_bond_add_option(NM_SETTING_BOND(b), "primary", primary);
    nm_connection_add_setting(c.get(), b);
    return c;
}

ConnPtr port(const char *id, const char *ifname, const char *master)
{
    auto c = ipoib(id, ifname, "datagram", 0);
    g_object_set(nm_connection_get_setting_connection(c.get()), NM_SETTING_CONNECTION_MASTER, master,
                 NM_SETTING_CONNECTION_SLAVE_TYPE, "bond", nullptr);
    return c;
}

Report upAll(FakePlatform &p, const std::vector<ConnPtr> &profiles, bool dryRun = false)
{
    Options o;
    o.dryRun = dryRun;
    return test::resolveAndUp(p, profiles, true, o);
}

Report downAll(FakePlatform &p, const std::vector<ConnPtr> &profiles)
{
    auto d = resolve(raw(profiles), raw(profiles), true);
    EXPECT_TRUE(d.ok()) << d.error().toString();
    return down(p, *d, Options{});
}

std::vector<std::string> actions(const Report &r)
{
    std::vector<std::string> v;
    for (const auto &s : r.steps)
        v.push_back(std::string(ibnm_step_action_to_string(s.action)) + " " + s.object);
    return v;
}

// The seeds' procedures together: mlx4_ib0 connected 65520, its P_Key
// 0x8002 child, an IPoIB active-backup bond of... (mlx4_ib1 alone, since
// mlx4_ib0 is used standalone), rxe over the Ethernet NIC with RoCE v2.
std::vector<ConnPtr> seedProfiles()
{
    std::vector<ConnPtr> v;
    v.push_back(ipoib("mlx4_ib0", "mlx4_ib0", "connected", 65520));
    v.push_back(ipoib("mlx4_ib0.8002", "mlx4_ib0.8002", "connected", 65520, 0x8002, "mlx4_ib0"));
    v.push_back(bond("bond0", "bond0", "mlx4_ib1"));
    v.push_back(port("bond0-port1", "mlx4_ib1", "bond0"));
    v.push_back(ethernet("rxe-enp1s0", "enp1s0",
                         {{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-mode", "v2"},
                          {"rdma.roce-tos", "106"}}));
    return v;
}

} // namespace

TEST(Activation, ChildGetsTheKernelsNameAndSettings)
{
    auto p = makeHost();
    ASSERT_TRUE(p);
    std::vector<ConnPtr> v{ipoib("c", "mlx4_ib0.8002", "datagram", 2044, 0x8002, "mlx4_ib0")};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    auto h = p->readHost();
    ASSERT_TRUE(h.ok());
    const auto *child = h->findIpoib("mlx4_ib0.8002");
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->parent, "mlx4_ib0");
    EXPECT_EQ(child->pkey, 0x8002);
    EXPECT_TRUE(h->findNetdev("mlx4_ib0.8002")->up);
}

TEST(Activation, LimitedMembershipChildUsesNameTheKernelGave)
{
    // Upstream names the child with the value as written: P_Key 0x0002 gives
    // mlx4_ib0.0002 while its pkey file shows 0x8002.
    auto p = makeHost();
    std::vector<ConnPtr> v{ipoib("c", nullptr, "datagram", 0, 0x0002, "mlx4_ib0")};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    auto h = p->readHost();
    const auto *child = h->findIpoib("mlx4_ib0.0002");
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->pkey, 0x8002);
}

TEST(Activation, SeedProceduresApplyInDependencyOrder)
{
    auto p = makeHost();
    auto profiles = seedProfiles();
    Report r = upAll(*p, profiles);
    ASSERT_TRUE(r.ok) << r.error;
    auto a = actions(r);
    auto pos = [&](const std::string &s) {
        return std::find(a.begin(), a.end(), s) - a.begin();
    };
    // Parent configured before the child is created; the bond exists before
    // its port joins; the port joins before the bond comes up.
    EXPECT_LT(pos("set-transport-mode mlx4_ib0"), pos("create-ipoib-child mlx4_ib0.8002"));
    EXPECT_LT(pos("create-bond bond0"), pos("enslave mlx4_ib1"));
    EXPECT_LT(pos("enslave mlx4_ib1"), pos("set-up bond0"));
    EXPECT_LT(pos("add-rdma-link rxe0"), pos("set-roce-tos rxe0/1"));
    EXPECT_EQ(size_t(pos("add-rdma-link rxe0")) < a.size(), true);

    auto h = p->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->findIpoib("mlx4_ib0")->mode, model::IpoibMode::Connected);
    EXPECT_EQ(h->findNetdev("mlx4_ib0")->mtu, 65520u);
    EXPECT_EQ(h->findNetdev("mlx4_ib1")->master, "bond0");
    ASSERT_EQ(h->softLinks.size(), 1u);
    EXPECT_EQ(h->softLinks[0].netdev, "enp1s0");
    const auto *rxe = h->findDevice("rxe0");
    ASSERT_NE(rxe, nullptr);
    EXPECT_EQ(rxe->ports.at(0).defaultRoceMode, model::RoceMode::V2);
    EXPECT_EQ(rxe->ports.at(0).defaultRoceTos, 106u);
}

TEST(Activation, SecondApplyPerformsNoOperation)
{
    auto p = makeHost();
    auto profiles = seedProfiles();
    ASSERT_TRUE(upAll(*p, profiles).ok);
    uint64_t before = p->operationCount();
    Report again = upAll(*p, profiles);
    EXPECT_TRUE(again.ok) << again.error;
    EXPECT_EQ(again.operations, 0u);
    EXPECT_TRUE(again.steps.empty()) << ::testing::PrintToString(actions(again));
    EXPECT_EQ(p->operationCount(), before);
}

TEST(Activation, DatagramMtuClampIsReportedAndVerified)
{
    auto p = makeHost();
    std::vector<ConnPtr> v{ipoib("ib", "mlx4_ib0", "datagram", 4092)};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_NE(r.notes[0].message.find("2044"), std::string::npos) << r.notes[0].message;
    EXPECT_EQ(p->readHost()->findNetdev("mlx4_ib0")->mtu, 2044u);
    // The clamped value counts as applied: no step the second time.
    EXPECT_EQ(upAll(*p, v).operations, 0u);
}

TEST(Activation, ConnectedModeOnEnhancedIpoibFailsBeforeAnyChange)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    std::vector<ConnPtr> v{ipoib("mlx4", "mlx4_ib0", "connected", 65520), ipoib("cx6", "ib0", "connected", 65520)};
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("infiniband.transport-mode"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("Enhanced IPoIB"), std::string::npos) << r.error;
    EXPECT_EQ(r.operations, 0u);
    EXPECT_EQ(p->operationCount(), 0u);
    EXPECT_EQ(snapshot(*p), before);
}

TEST(Activation, MissingParentIsAPlanningError)
{
    auto p = makeHost();
    std::vector<ConnPtr> v{ipoib("c", "ib9.8002", "datagram", 0, 0x8002, "ib9")};
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error.rfind("c: infiniband.parent: ", 0), 0u) << r.error;
    EXPECT_EQ(p->operationCount(), 0u);
}

TEST(Activation, DryRunPlansButChangesNothing)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    Report r = upAll(*p, seedProfiles(), true);
    EXPECT_TRUE(r.ok);
    EXPECT_FALSE(r.steps.empty());
    for (const auto &s : r.steps)
        EXPECT_EQ(s.state, StepState::Planned);
    EXPECT_EQ(p->operationCount(), 0u);
    EXPECT_EQ(snapshot(*p), before);
}

// Inject a failure at every mutating operation of a multi-profile apply: each
// time the apply fails, undoes what it did, and the host is as before.
TEST(Activation, FailureAtEveryStepRollsBackCompletely)
{
    auto probe = makeHost();
    auto profiles = seedProfiles();
    Report full = upAll(*probe, profiles);
    ASSERT_TRUE(full.ok) << full.error;
    const size_t n = full.steps.size();
    ASSERT_GE(n, 8u);
    for (size_t i = 1; i <= n; i++) {
        auto p = makeHost();
        std::string before = snapshot(*p);
        p->addFaults({{"", unsigned(i), EIO, 0}});
        Report r = upAll(*p, profiles);
        EXPECT_FALSE(r.ok) << "fault at operation " << i;
        EXPECT_TRUE(r.rolledBack);
        size_t failed = 0, undone = 0;
        for (const auto &s : r.steps) {
            failed += s.state == StepState::Failed;
            undone += s.state == StepState::Undone;
            EXPECT_NE(s.state, StepState::UndoFailed) << ibnm_step_action_to_string(s.action) << " " << s.object << ": " << s.error;
        }
        EXPECT_EQ(failed, 1u);
        p->clearFaults();
        EXPECT_EQ(snapshot(*p), before) << "host differs after a fault at operation " << i << " ("
                                        << ibnm_step_action_to_string(full.steps[i - 1].action) << " " << full.steps[i - 1].object << ")";
    }
}

// rxe is RoCE v2 only (model::roceModeSupported): the planner refuses v1
// before anything changes, naming the property.
TEST(Activation, RoceModeTheDeviceLacksIsRefusedBeforeAnyChange)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    uint64_t ops = p->operationCount();
    std::vector<ConnPtr> v{ethernet("r", "enp1s0", {{"rdma.link-type", "rxe"}, {"rdma.roce-mode", "v1"}})};
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.steps.empty());
    EXPECT_EQ(r.errorCode, IBNM_ERROR_NOT_SUPPORTED);
    ASSERT_TRUE(r.failure);
    EXPECT_EQ(r.failure->property(), "rdma.roce-mode");
    EXPECT_EQ(r.failure->profile(), "r");
    EXPECT_EQ(p->operationCount(), ops);
    EXPECT_EQ(snapshot(*p), before);
}

TEST(Activation, KernelRefusalRollsBack)
{
    // The configfs write fails: the link created just before is removed
    // again, and the report says the host is as before.
    auto p = makeHost();
    std::string before = snapshot(*p);
    std::vector<ConnPtr> v{ethernet("r", "enp1s0", {{"rdma.link-type", "rxe"}, {"rdma.roce-mode", "v2"}})};
    p->failNext("setDefaultRoceMode", EINVAL);
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.rolledBack);
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].action, IBNM_STEP_ACTION_ADD_RDMA_LINK);
    EXPECT_EQ(r.steps[0].state, StepState::Undone);
    EXPECT_EQ(r.steps[1].state, StepState::Failed);
    EXPECT_EQ(snapshot(*p), before);
}

TEST(Activation, DownRemovesWhatUpCreated)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    auto profiles = seedProfiles();
    ASSERT_TRUE(upAll(*p, profiles).ok);
    Report d = downAll(*p, profiles);
    ASSERT_TRUE(d.ok) << d.error;
    auto h = p->readHost();
    EXPECT_EQ(h->findIpoib("mlx4_ib0.8002"), nullptr);
    EXPECT_TRUE(h->softLinks.empty());
    EXPECT_TRUE(h->bonds.empty());
    EXPECT_FALSE(h->findNetdev("mlx4_ib0")->up);
    // A second down has nothing left to do.
    EXPECT_EQ(downAll(*p, profiles).operations, 0u);
}

TEST(Activation, SoftLinkNeedsItsNetdev)
{
    auto p = makeHost();
    std::vector<ConnPtr> v{ethernet("r", "eth7", {{"rdma.link-type", "siw"}})};
    Report r = upAll(*p, v);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("eth7"), std::string::npos);
    EXPECT_EQ(p->operationCount(), 0u);
}

TEST(Activation, DefaultSoftLinkName)
{
    EXPECT_EQ(model::defaultSoftLinkName(model::SoftLinkType::Rxe, "enp1s0"), "rxe_enp1s0");
    EXPECT_EQ(model::defaultSoftLinkName(model::SoftLinkType::Siw, "veth0"), "siw_veth0");
}

TEST(Activation, BadUserKeyNamesProfileAndKey)
{
    std::vector<ConnPtr> v{ethernet("r", "enp1s0", {{"rdma.ttl", "300"}})};
    auto d = resolve(raw(v), raw(v), true);
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.error().toString().rfind("r: rdma.ttl: ", 0), 0u) << d.error().toString();
    EXPECT_EQ(d.error().property(), "rdma.ttl");
    EXPECT_EQ(d.error().profile(), "r");
}

TEST(Activation, RdmaOnlyLeavesInterfacesToNetworkManager)
{
    // The dispatcher plugin's mode: NetworkManager has configured mlx4_ib0
    // (mode, MTU) itself; ibnm adds only the soft link and umcast.
    auto p = makeHost();
    auto profiles = std::vector<ConnPtr>{
        withUser(ipoib("ib", "mlx4_ib0", "connected", 65520), {{"ipoib.umcast", "yes"}}),
        ethernet("r", "enp1s0", {{"rdma.link-type", "siw"}}),
    };
    auto d = resolve(raw(profiles), raw(profiles), false);
    ASSERT_TRUE(d.ok());
    Options o;
    o.rdmaOnly = true;
    Report r = up(*p, *d, o);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(actions(r), (std::vector<std::string>{"set-umcast mlx4_ib0", "add-rdma-link siw_enp1s0"}));
    auto h = p->readHost();
    EXPECT_EQ(h->findIpoib("mlx4_ib0")->mode, model::IpoibMode::Datagram) << "mode is NetworkManager's";
    EXPECT_TRUE(h->findIpoib("mlx4_ib0")->umcast);
    Report dn = down(*p, *d, o);
    ASSERT_TRUE(dn.ok) << dn.error;
    EXPECT_EQ(actions(dn), (std::vector<std::string>{"delete-rdma-link siw_enp1s0"}));
}

TEST(Activation, RdmaOnlyProbesConnectedMode)
{
    auto p = makeHost();
    auto profiles = std::vector<ConnPtr>{ipoib("cx6", "ib0", "connected", 0)};
    auto d = resolve(raw(profiles), raw(profiles), false);
    Options o;
    o.rdmaOnly = true;
    Report r = up(*p, *d, o);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("cx6: infiniband.transport-mode: mlx5_0 uses Enhanced IPoIB, which supports datagram mode "
                           "only"),
              std::string::npos)
        << r.error;
}

namespace {

// mlx4_ib0 standalone with the seed's static IPv4 and IPv6 settings.
ConnPtr withStaticIp(ConnPtr c, const char *gw4 = "192.0.2.254")
{
    NMSetting *ip4 = nm_setting_ip4_config_new();
    g_object_set(ip4, NM_SETTING_IP_CONFIG_METHOD, "manual", NM_SETTING_IP_CONFIG_GATEWAY, gw4, nullptr);
    nm_setting_ip_config_add_address(NM_SETTING_IP_CONFIG(ip4), nm_ip_address_new(AF_INET, "192.0.2.1", 24, nullptr));
    NMIPRoute *r = nm_ip_route_new(AF_INET, "198.51.100.0", 24, "192.0.2.253", 10, nullptr);
    nm_setting_ip_config_add_route(NM_SETTING_IP_CONFIG(ip4), r);
    nm_ip_route_unref(r);
    nm_connection_add_setting(c.get(), ip4);
    NMSetting *ip6 = nm_setting_ip6_config_new();
    g_object_set(ip6, NM_SETTING_IP_CONFIG_METHOD, "manual", NM_SETTING_IP_CONFIG_GATEWAY, "2001:db8:1::fffe",
                 nullptr);
    nm_setting_ip_config_add_address(NM_SETTING_IP_CONFIG(ip6),
                                     nm_ip_address_new(AF_INET6, "2001:db8:1::1", 64, nullptr));
    nm_connection_add_setting(c.get(), ip6);
    return c;
}

} // namespace

TEST(ActivationIp, StandaloneAddressesRoutesAndGateways)
{
    auto p = makeHost();
    std::vector<ConnPtr> v{withStaticIp(ipoib("mlx4_ib0", "mlx4_ib0", "connected", 65520))};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    auto h = p->readHost();
    const auto *nd = h->findNetdev("mlx4_ib0");
    ASSERT_NE(nd, nullptr);
    EXPECT_EQ(nd->addresses, (std::vector<std::string>{"192.0.2.1/24", "2001:db8:1::1/64"}));
    EXPECT_EQ(nd->routes, (std::vector<model::Route>{{"0.0.0.0/0", "192.0.2.254", 0},
                                                     {"198.51.100.0/24", "192.0.2.253", 10},
                                                     {"::/0", "2001:db8:1::fffe", 0}}));
    // Routes come after the addresses that make their gateways reachable.
    auto a = actions(r);
    EXPECT_LT(std::find(a.begin(), a.end(), "add-address mlx4_ib0") - a.begin(),
              std::find(a.begin(), a.end(), "add-route mlx4_ib0") - a.begin());
    EXPECT_EQ(upAll(*p, v).operations, 0u);

    Report d = downAll(*p, v);
    ASSERT_TRUE(d.ok) << d.error;
    h = p->readHost();
    EXPECT_TRUE(h->findNetdev("mlx4_ib0")->routes.empty());
    EXPECT_TRUE(h->findNetdev("mlx4_ib0")->addresses.empty());
}

TEST(ActivationIp, ModeChangeOnAnUpLinkReaddsItsRoutes)
{
    // Going down for the mode change flushes the routes; the plan adds them
    // again afterwards and verification checks they are there.
    auto p = makeHost();
    std::vector<ConnPtr> v{withStaticIp(ipoib("ib", "mlx4_ib0", "datagram", 0))};
    ASSERT_TRUE(upAll(*p, v).ok);
    std::vector<ConnPtr> w{withStaticIp(ipoib("ib", "mlx4_ib0", "connected", 0))};
    Report r = upAll(*p, w);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(p->readHost()->findNetdev("mlx4_ib0")->routes.size(), 3u);
}

// A gateway outside the profile's subnets: a host route to it first, as
// NetworkManager adds (model::withOnlinkRoutes; the kernel alone refuses the
// default route). A route the kernel refuses still rolls everything back.
TEST(ActivationIp, OffLinkGatewayGetsAHostRouteAndARefusedRouteRollsBack)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    std::vector<ConnPtr> v{withStaticIp(ipoib("ib", "mlx4_ib0", "datagram", 0), "203.0.113.1")};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    auto h = p->readHost();
    const auto &routes = h->findNetdev("mlx4_ib0")->routes;
    auto at = [&](const model::Route &x) { return std::find(routes.begin(), routes.end(), x) - routes.begin(); };
    // Listed in the kernel's order; that the host route came first shows in
    // the up succeeding (the simulated kernel refuses the off-link gateway).
    EXPECT_LT(at({"203.0.113.1/32", "", 0}), ptrdiff_t(routes.size()));
    EXPECT_LT(at({"0.0.0.0/0", "203.0.113.1", 0}), ptrdiff_t(routes.size()));

    auto q = makeHost();
    q->failNext("addRoute", ENETUNREACH);
    Report f = upAll(*q, v);
    EXPECT_FALSE(f.ok);
    EXPECT_TRUE(f.rolledBack);
    EXPECT_EQ(snapshot(*q), before);
}

TEST(ActivationIp, FailureAtEveryStepWithRoutesRollsBack)
{
    auto profiles = seedProfiles();
    profiles[0] = withStaticIp(ipoib("mlx4_ib0", "mlx4_ib0", "connected", 65520));
    auto probe = makeHost();
    Report full = upAll(*probe, profiles);
    ASSERT_TRUE(full.ok) << full.error;
    for (size_t i = 1; i <= full.steps.size(); i++) {
        auto p = makeHost();
        std::string before = snapshot(*p);
        p->addFaults({{"", unsigned(i), EIO, 0}});
        Report r = upAll(*p, profiles);
        EXPECT_FALSE(r.ok);
        p->clearFaults();
        EXPECT_EQ(snapshot(*p), before) << "fault at " << i << " (" << ibnm_step_action_to_string(full.steps[i - 1].action) << ")";
    }
}

TEST(Activation, NumericBondOptionsAsNmcliWritesThem)
{
    // nmcli keeps "mode=1,fail_over_mac=1" as written; the kernel names them.
    auto p = makeHost();
    auto b = connection("bond0", NM_SETTING_BOND_SETTING_NAME, "bond0");
    NMSetting *s = nm_setting_bond_new();
    nm_setting_bond_add_option(NM_SETTING_BOND(s), "mode", "1");
    nm_setting_bond_add_option(NM_SETTING_BOND(s), "fail_over_mac", "1");
    nm_connection_add_setting(b.get(), s);
    std::vector<ConnPtr> v{b, port("p", "mlx4_ib1", "bond0")};
    Report r = upAll(*p, v);
    ASSERT_TRUE(r.ok) << r.error;
    // A named snapshot: a pointer into readHost()'s temporary would dangle.
    auto host = p->readHost();
    ASSERT_TRUE(host.ok());
    const auto *bond = host->findBond("bond0");
    ASSERT_NE(bond, nullptr);
    EXPECT_EQ(bond->mode, "active-backup");
    EXPECT_EQ(bond->failOverMac, "active");
    EXPECT_EQ(upAll(*p, v).operations, 0u);
}

// miimon and primary change under the bond's ports (as NetworkManager's
// reapply does); the change is one step, verified, and undone on failure.
TEST(Activation, ChangedBondOptionsApplyUnderThePorts)
{
    auto withOptions = [](const char *miimon, const char *primary) {
        auto b = connection("bond0", NM_SETTING_BOND_SETTING_NAME, "bond0");
        NMSetting *s = nm_setting_bond_new();
        nm_setting_bond_add_option(NM_SETTING_BOND(s), "mode", "active-backup");
        nm_setting_bond_add_option(NM_SETTING_BOND(s), "miimon", miimon);
        nm_setting_bond_add_option(NM_SETTING_BOND(s), "primary", primary);
        nm_connection_add_setting(b.get(), s);
        return std::vector<ConnPtr>{b, port("p0", "mlx4_ib0", "bond0"), port("p1", "mlx4_ib1", "bond0")};
    };
    auto p = makeHost();
    ASSERT_TRUE(upAll(*p, withOptions("100", "mlx4_ib0")).ok);
    std::string before = snapshot(*p);

    auto changed = withOptions("250", "mlx4_ib1");
    p->addFaults({{"setBondOptions", 1, EIO, 0}});
    Report failed = upAll(*p, changed);
    EXPECT_FALSE(failed.ok);
    p->clearFaults();
    EXPECT_EQ(snapshot(*p), before) << "nothing changed when the step failed";

    Report r = upAll(*p, changed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(actions(r), std::vector<std::string>{"set-bond-options bond0"});
    EXPECT_EQ(r.operations, 1u);
    // A named snapshot: a pointer into readHost()'s temporary would dangle.
    auto host = p->readHost();
    ASSERT_TRUE(host.ok());
    const auto *bond = host->findBond("bond0");
    ASSERT_NE(bond, nullptr);
    EXPECT_EQ(bond->miimon, 250u);
    EXPECT_EQ(bond->primary, "mlx4_ib1");
    EXPECT_EQ(bond->activePort, "mlx4_ib1") << "primary_reselect always: the primary port takes over";
    EXPECT_EQ(upAll(*p, changed).operations, 0u);
}

namespace {

// Fault injection at every mutating operation of `profiles`' up (down when
// `goingDown`, after `setup` was brought up): each run fails, rolls back and
// leaves the host byte-identical to before. Returns the number of runs.
// The lines only in `a` (-) and only in `b` (+).
std::string lineDiff(const std::string &a, const std::string &b)
{
    auto split = [](const std::string &t) {
        std::multiset<std::string> m;
        size_t start = 0;
        for (size_t nl; (nl = t.find('\n', start)) != std::string::npos; start = nl + 1)
            m.insert(t.substr(start, nl - start));
        return m;
    };
    auto ma = split(a), mb = split(b);
    std::string out;
    for (const auto &l : ma)
        if (mb.count(l) < ma.count(l))
            out += "-" + l + "\n";
    for (const auto &l : mb)
        if (ma.count(l) < mb.count(l))
            out += "+" + l + "\n";
    return out;
}

// The example host with mlx5 RoCE ports (traffic class and TTL files).
std::unique_ptr<FakePlatform> makeRoceHost()
{
    auto st = platform::loadHostDescription(IBNM_TOP_SRCDIR "/examples/hosts/mlx5-roce.host");
    EXPECT_TRUE(st.ok()) << st.error().toString();
    if (!st.ok())
        return nullptr;
    return std::make_unique<FakePlatform>(std::move(st).value());
}

size_t faultAtEveryStep(const char *scenario, const std::vector<ConnPtr> &setup, const std::vector<ConnPtr> &profiles,
                        bool goingDown, bool roceHost)
{
    auto prepare = [&]() {
        auto p = roceHost ? makeRoceHost() : makeHost();
        if (!setup.empty()) {
            Report r = upAll(*p, setup);
            EXPECT_TRUE(r.ok) << scenario << ": setup: " << r.error;
        }
        return p;
    };
    auto probe = prepare();
    Report full = goingDown ? downAll(*probe, profiles) : upAll(*probe, profiles);
    EXPECT_TRUE(full.ok) << scenario << ": " << full.error;
    EXPECT_GE(full.operations, 2u) << scenario << ": not a multi-step scenario";
    for (unsigned nth = 1; nth <= full.operations; nth++) {
        auto p = prepare();
        std::string before = snapshot(*p);
        uint64_t opsBefore = p->operationCount();
        p->addFaults({{"", nth, EIO, 0}});
        Report r = goingDown ? downAll(*p, profiles) : upAll(*p, profiles);
        p->clearFaults();
        EXPECT_FALSE(r.ok) << scenario << ": fault at operation " << nth;
        EXPECT_TRUE(r.rolledBack) << scenario << ": fault at operation " << nth;
        for (const auto &st : r.steps)
            EXPECT_NE(st.state, StepState::UndoFailed) << scenario << ": " << ibnm_step_action_to_string(st.action) << " " << st.object;
        // nth counts every mutating call: the failing one is the nth since
        // the faults were added.
        EXPECT_GE(p->operationCount() - opsBefore, uint64_t(nth)) << scenario;
        std::string after = snapshot(*p);
        EXPECT_TRUE(after == before) << scenario << ": host differs after a fault at operation " << nth << " of "
                                     << full.operations << ":\n"
                                     << lineDiff(before, after);
    }
    return full.operations;
}

} // namespace

// Every multi-step scenario, up and down, with a fault at each operation:
// the steps' side effects (the MTU a mode switch changes, RoCE defaults and
// traffic classes that were unset) are undone too.
TEST(Rollback, FaultAtEveryStepOfEveryScenarioLeavesTheHostByteIdentical)
{
    struct Scenario {
        const char *name;
        std::vector<ConnPtr> setup;
        std::vector<ConnPtr> profiles;
        bool down;
        bool roceHost = false;
    };
    auto hw = ethernet("hw", "p4p1",
                       {{"rdma.roce-mode", "v1"}, {"rdma.roce-tos", "96"}, {"rdma.traffic-class", "106"}});
    auto roce = ethernet("r", "enp1s0",
                         {{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-mode", "v2"},
                          {"rdma.roce-tos", "106"}});
    std::vector<Scenario> scenarios = {
        {"connected mode and MTU", {}, {ipoib("a", "mlx4_ib0", "connected", 65520)}, false},
        {"back to datagram", {ipoib("a", "mlx4_ib0", "connected", 65520)}, {ipoib("a", "mlx4_ib0", "datagram", 0)},
         false},
        {"P_Key child with static IP",
         {},
         {withStaticIp(ipoib("c", "mlx4_ib0.8002", "connected", 65520, 0x8002, "mlx4_ib0"))},
         false},
        {"RoCE defaults and traffic class", {}, {roce}, false},
        {"seed procedures", {}, seedProfiles(), false},
        {"down of RoCE", {roce}, {roce}, true},
        {"down of the seed procedures", seedProfiles(), seedProfiles(), true},
        {"RoCE defaults and traffic class of an mlx5 port (unset before)", {}, {hw}, false, true},
        {"down of an mlx5 port's RoCE settings", {hw}, {hw}, true, true},
    };
    size_t runs = 0;
    for (const auto &sc : scenarios)
        runs += faultAtEveryStep(sc.name, sc.setup, sc.profiles, sc.down, sc.roceHost);
    std::printf("rollback: %zu scenarios, %zu injected faults, each one rolled back to a byte-identical host\n",
                scenarios.size(), runs);
}

// down undoes what up applied, RoCE settings included, and says so.
TEST(Rollback, DownTakesRoceSettingsBack)
{
    auto p = makeHost();
    std::string before = snapshot(*p);
    std::vector<ConnPtr> v{ethernet("r", "enp1s0",
                                    {{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-mode", "v2"},
                                     {"rdma.roce-tos", "106"}})};
    ASSERT_TRUE(upAll(*p, v).ok);
    Report d = downAll(*p, v);
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_GT(d.operations, 0u);
    // The soft link and its RDMA-CM defaults are gone (down also takes the
    // Ethernet link down).
    auto soft = p->readHost();
    ASSERT_TRUE(soft.ok());
    EXPECT_EQ(soft->findDevice("rxe0"), nullptr);
    EXPECT_TRUE(soft->softLinks.empty());

    // On hardware: the RoCE defaults and the traffic class, unset before,
    // are unset again.
    auto hwHost = makeRoceHost();
    ASSERT_TRUE(hwHost);
    before = snapshot(*hwHost);
    std::vector<ConnPtr> hw{ethernet("hw", "p4p1",
                                     {{"rdma.roce-mode", "v1"}, {"rdma.roce-tos", "96"}, {"rdma.traffic-class", "106"}})};
    Report u = upAll(*hwHost, hw);
    ASSERT_TRUE(u.ok) << u.error;
    EXPECT_EQ(u.operations, 3u);
    Report hd = downAll(*hwHost, hw);
    ASSERT_TRUE(hd.ok) << hd.error;
    EXPECT_GT(hd.operations, 0u) << "down did nothing";
    // down also takes the Ethernet link's addresses down; the RDMA port's
    // settings are as before.
    auto after = hwHost->readHost();
    ASSERT_TRUE(after.ok());
    const auto *dev = after->findDevice("mlx5_0");
    ASSERT_NE(dev, nullptr);
    ASSERT_FALSE(dev->ports.empty());
    const auto *port = &dev->ports[0];
    EXPECT_FALSE(port->defaultRoceMode);
    EXPECT_FALSE(port->defaultRoceTos);
    EXPECT_FALSE(port->trafficClass) << "traffic class left at " << *port->trafficClass;
}

// A generated udev rule never ends its string early: an interface name the
// kernel takes with a quote in it becomes an e"..." string, and udev's
// substitution characters are doubled.
TEST(HostFiles, UdevRulesEscapeInterfaceNames)
{
    auto named = [](const char *ifname) {
        auto c = connection(ifname, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
        NMSetting *ib = nm_setting_infiniband_new();
        g_object_set(ib, NM_SETTING_INFINIBAND_MAC_ADDRESS,
                     "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51", nullptr);
        nm_connection_add_setting(c.get(), ib);
        return c;
    };
    auto hostile = named("a\",RUN+=\"x");
    auto percent = named("ib%k$x");
    std::string rules = hostfiles::udevRules({hostile.get(), percent.get()});
    EXPECT_NE(rules.find("NAME=e\"a\\\",RUN+=\\\"x\"\n"), std::string::npos) << rules;
    EXPECT_NE(rules.find("NAME=\"ib%%k$$x\"\n"), std::string::npos) << rules;
    EXPECT_EQ(rules.find("NAME=\"a\""), std::string::npos) << rules;
}

// A port's bond reference (connection.master) is a uuid, an id or an
// interface name; the first profile with it wins, as a scan of every profile
// found it. ProfileIndex (resolve()'s lookups, shared by check's per-profile
// plans) answers the same, in O(1).
TEST(Activation, PortMasterResolvesByUuidIdOrInterfaceNameFirstProfileFirst)
{
    auto b1 = bond("storage", "bond1", nullptr);
    auto b2 = bond("bond1", "bond2", nullptr); // its id is b1's interface name
    const char *uuid = nm_connection_get_uuid(b1.get());
    auto byUuid = port("p-uuid", "ib0", uuid);
    auto byId = port("p-id", "ib1", "storage");
    auto byName = port("p-name", "ib2", "bond1");    // b1 by ifname comes before b2 by id
    auto unknown = port("p-none", "ib3", "bond9");   // no profile: the name itself
    std::vector<ConnPtr> all;
    all.push_back(std::move(b1));
    all.push_back(std::move(b2));
    for (auto *p : {&byUuid, &byId, &byName, &unknown})
        all.push_back(std::move(*p));
    auto everything = raw(all);
    ProfileIndex shared(everything);
    for (const ProfileIndex *idx : std::vector<const ProfileIndex *>{nullptr, &shared}) {
        for (size_t i = 2; i < everything.size(); i++) {
            auto d = resolve({everything[i]}, everything, false, false, idx);
            ASSERT_TRUE(d.ok()) << d.error().toString();
            ASSERT_EQ(d->ipoib.size(), 1u);
            EXPECT_EQ(d->ipoib[0].master, i == 5 ? "bond9" : "bond1") << nm_connection_get_id(everything[i]);
        }
    }
    EXPECT_EQ(shared.findMaster("bond1"), everything[0]);
    EXPECT_EQ(shared.findMaster("bond2"), everything[1]);
    EXPECT_EQ(shared.findMaster("bond9"), nullptr);
}

// A profile's IP settings read back as they were given, whether they have
// lists (held apart) or only which families ibnm manages (held in place),
// through copies and reassignment.
TEST(Activation, CompactIpReadsBackWhatItWasGiven)
{
    for (bool four : {false, true})
        for (bool six : {false, true}) {
            DesiredIp flags;
            flags.manage4 = four;
            flags.manage6 = six;
            CompactIp ip(flags);
            CompactIp copy(ip);
            for (const CompactIp *c : {&ip, &copy}) {
                EXPECT_EQ((*c)->manage4, four);
                EXPECT_EQ((*c)->manage6, six);
                EXPECT_TRUE((*c)->addresses.empty());
                EXPECT_TRUE((*c)->routes.empty());
                EXPECT_TRUE((*c)->dns.empty());
            }
        }
    DesiredIp full;
    full.manage4 = true;
    full.addresses = {"192.0.2.1/24"};
    full.dns.servers = {"192.0.2.53"};
    CompactIp ip(full);
    CompactIp copy = ip;
    ip = DesiredIp{}; // the copy keeps its own lists
    EXPECT_TRUE(ip->addresses.empty());
    EXPECT_FALSE(ip->manage4);
    const DesiredIp &read = copy;
    EXPECT_EQ(read.addresses, std::vector<std::string>{"192.0.2.1/24"});
    EXPECT_EQ(read.dns.servers, std::vector<std::string>{"192.0.2.53"});
    EXPECT_TRUE(read.manage4);
    EXPECT_FALSE(read.manage6);
    EXPECT_TRUE(read.manages("198.51.100.7/24"));
    EXPECT_FALSE(read.manages("2001:db8::1/64"));
}

// The index is a table of the profiles' own strings: with thousands of
// profiles whose names collide across kinds (one's id is another's
// interface name), each lookup answers what a scan of the profiles in
// order finds, and a name no profile has finds none.
TEST(Activation, ProfileIndexAnswersAsAScanOfManyProfiles)
{
    std::vector<ConnPtr> all;
    const int n = 1000;
    for (int i = 0; i < n; i++) {
        // Profile i's id is profile i+1's interface name, and every tenth
        // repeats an earlier id.
        std::string id = i % 10 == 9 ? "bond" + std::to_string(i / 2) : "bond" + std::to_string(i + 1);
        all.push_back(bond(id.c_str(), ("bond" + std::to_string(i)).c_str(), nullptr));
    }
    auto everything = raw(all);
    ProfileIndex index(everything);
    auto scan = [&](const std::string &ref) -> NMConnection * {
        for (NMConnection *c : everything)
            for (const char *r : {nm_connection_get_uuid(c), nm_connection_get_id(c), nm_connection_get_interface_name(c)})
                if (r && ref == r)
                    return c;
        return nullptr;
    };
    for (int i = 0; i <= n + 1; i++) {
        std::string ref = "bond" + std::to_string(i);
        EXPECT_EQ(index.findMaster(ref), scan(ref)) << ref;
    }
    for (int i = 0; i < n; i += 97)
        EXPECT_EQ(index.findMaster(nm_connection_get_uuid(everything[i])), everything[i]);
    EXPECT_EQ(index.findMaster("bond" + std::to_string(n + 5)), nullptr);
    EXPECT_EQ(index.findMaster(""), nullptr);
}
