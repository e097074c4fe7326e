// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel and NetworkManager facts of issue 27 (item 4), each on a
// hand-made case: `ibnm check` refuses  <=>  `up --dry-run` refuses  <=>
// `up` fails, a failed up leaves the simulated host as it was, a successful
// one holds what the case says and a second up changes nothing. The
// simulated host states the kernel's behaviour on its own (libcore/
// simulator), so a planner that gets a fact wrong disagrees with it here.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/support/raii.hpp"
#include "tests/profiles/profile-test-util.hpp"
#include "tests/simulator/fake-test-util.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace ibnm;
using platform::FakePlatform;

namespace {

std::string exampleHost(const char *name)
{
    std::string path = test::srcPath(std::string("examples/hosts/") + name);
    char *raw = nullptr;
    gsize len = 0;
    EXPECT_TRUE(g_file_get_contents(path.c_str(), &raw, &len, nullptr)) << path;
    GCharPtr text(raw);
    return raw ? std::string(raw, len) : std::string();
}

// What check, the dry run and up said of one set of profiles.
struct Outcome {
    std::vector<rules::Finding> errors;   // check's errors
    std::vector<rules::Finding> warnings; // check's warnings
    bool dryOk = false;
    bool upOk = false;
    std::string upError;
    std::string before, after;            // the host as its description file holds it
    unsigned operations = 0;              // of the up
    unsigned againOperations = 0;         // of a second up (when the first succeeded)
    std::vector<std::string> notes;       // the up's notes
    std::unique_ptr<model::Host> host;    // read back after up

    bool checkRefuses() const { return !errors.empty(); }
    bool hasError(const std::string &property) const
    {
        return std::any_of(errors.begin(), errors.end(), [&](const rules::Finding &f) { return f.property == property; });
    }
};

std::string describe(const std::vector<std::vector<std::string>> &set)
{
    std::string s;
    for (const auto &a : set) {
        s += "  ibnm connection add";
        for (const auto &w : a)
            s += " '" + w + "'";
        s += "\n";
    }
    return s;
}

// check (standalone, every profile of `set` together, `stored` as the
// other known profiles), up --dry-run and up of `set` on a fresh simulated
// host from `hostText`; the invariant is asserted here. `prepare`: changes
// the simulated host before (a fault to inject, a state to start from).
Outcome agree(const std::string &hostText, const std::vector<std::vector<std::string>> &set,
              const std::vector<std::vector<std::string>> &stored = {},
              const std::function<void(FakePlatform &)> &prepare = {})
{
    Outcome o;
    auto state = platform::parseHostDescription(hostText, "case.host");
    EXPECT_TRUE(state.ok()) << state.error().toString();
    if (!state.ok())
        return o;
    std::vector<GObjectPtr<IbnmProfile>> profiles;
    std::vector<NMConnection *> selected, everything;
    GPtrArrayPtr array(g_ptr_array_new()), all(g_ptr_array_new());
    for (const auto *list : {&set, &stored})
        for (const auto &a : *list) {
            profiles.push_back(test::mustProfile(a));
            if (!profiles.back())
                return o;
            NMConnection *c = test::connectionOf(profiles.back().get());
            everything.push_back(c);
            g_ptr_array_add(all.get(), c);
            if (list == &set) {
                selected.push_back(c);
                g_ptr_array_add(array.get(), c);
            }
        }
    auto *fake = new FakePlatform(*state);
    auto host = GObjectPtr<IbnmHost>::adopt(
        hostNewFromPlatform(std::unique_ptr<platform::Platform>(fake), IBNM_HOST_KIND_SIMULATED, "case"));
    if (prepare)
        prepare(*fake);
    o.before = test::snapshot(*fake, true);
    auto snap = fake->readHost();
    EXPECT_TRUE(snap.ok());
    // As ibnm_check_reload_inventory(): systemd-resolved's state when a
    // profile has DNS for it.
    if (std::any_of(selected.begin(), selected.end(), [](NMConnection *c) { return rules::needsResolver(c); }))
        if (auto r = fake->readResolver(); r.ok())
            snap->resolver = std::move(r).value();
    for (auto &f : activation::checkProfiles(selected, &*snap, &everything, true)) {
        if (f.severity == IBNM_SEVERITY_ERROR)
            o.errors.push_back(std::move(f));
        else if (f.severity == IBNM_SEVERITY_WARNING)
            o.warnings.push_back(std::move(f));
    }
    GErrorPtr dryErr;
    IbnmApplyReport *raw = nullptr;
    o.dryOk = ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), all.get(), IBNM_APPLY_FLAGS_DRY_RUN), &raw, outPtr(dryErr));
    GObjectPtr<IbnmApplyReport>::adopt(raw);
    EXPECT_EQ(test::snapshot(*fake, true), o.before) << "the dry run changed the host\n" << describe(set);

    GErrorPtr upErr;
    raw = nullptr;
    o.upOk = ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), all.get(), IBNM_APPLY_FLAGS_NONE), &raw, outPtr(upErr));
    auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    o.upError = upErr ? upErr->message : "";
    if (report) {
        o.operations = ibnm_apply_report_get_operations(report.get());
        for (const char *const *n = ibnm_apply_report_get_notes(report.get()); n && *n; n++)
            o.notes.push_back(*n);
    }
    o.after = test::snapshot(*fake, true);
    auto back = fake->readHost();
    if (back.ok())
        o.host = std::make_unique<model::Host>(std::move(back).value());

    std::string firstError = o.errors.empty() ? "" : o.errors.front().message;
    EXPECT_EQ(o.checkRefuses(), !o.dryOk) << "check: " << firstError << "\ndry run: "
                                          << (dryErr ? dryErr->message : "ok") << "\n" << describe(set);
    EXPECT_EQ(o.dryOk, o.upOk) << "dry run: " << (dryErr ? dryErr->message : "ok") << "\nup: " << o.upError << "\n"
                               << describe(set);
    for (const auto &f : o.errors) {
        EXPECT_FALSE(f.property.empty()) << f.message;
        EXPECT_FALSE(f.profileId.empty()) << f.message;
    }
    if (!o.upOk) {
        EXPECT_EQ(o.after, o.before) << "up failed (" << o.upError << ") and left the host changed\n" << describe(set);
        return o;
    }
    raw = nullptr;
    EXPECT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), all.get(), IBNM_APPLY_FLAGS_NONE), &raw, nullptr))
        << describe(set);
    auto again = GObjectPtr<IbnmApplyReport>::adopt(raw);
    if (again)
        o.againOperations = ibnm_apply_report_get_operations(again.get());
    EXPECT_EQ(o.againOperations, 0u) << "a second up changed the host again\n" << describe(set);
    return o;
}

// Every single-operation fault of the up of `set`: each fails it, and the
// host reads back as before (the rollback undid everything, kernel side
// effects included).
void everyFaultRollsBack(const std::string &hostText, const std::vector<std::vector<std::string>> &set,
                         unsigned operations, const std::vector<std::vector<std::string>> &stored = {})
{
    auto state = platform::parseHostDescription(hostText, "case.host");
    ASSERT_TRUE(state.ok());
    ASSERT_GT(operations, 0u);
    for (unsigned nth = 1; nth <= operations; nth++) {
        std::vector<GObjectPtr<IbnmProfile>> profiles;
        GPtrArrayPtr array(g_ptr_array_new()), all(g_ptr_array_new());
        for (const auto *list : {&set, &stored})
            for (const auto &a : *list) {
                profiles.push_back(test::mustProfile(a));
                g_ptr_array_add(all.get(), test::connectionOf(profiles.back().get()));
                if (list == &set)
                    g_ptr_array_add(array.get(), test::connectionOf(profiles.back().get()));
            }
        auto *fake = new FakePlatform(*state);
        auto host = GObjectPtr<IbnmHost>::adopt(
            hostNewFromPlatform(std::unique_ptr<platform::Platform>(fake), IBNM_HOST_KIND_SIMULATED, "case"));
        std::string before = test::snapshot(*fake, true);
        fake->addFaults({platform::FaultRule{"", nth, EIO, 0}});
        IbnmApplyReport *raw = nullptr;
        EXPECT_FALSE(ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), all.get(), IBNM_APPLY_FLAGS_NONE), &raw, nullptr))
            << "fault at operation " << nth;
        auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
        fake->clearFaults();
        EXPECT_EQ(test::snapshot(*fake, true), before) << "fault at operation " << nth << " of " << operations << "\n"
                                                       << describe(set);
        if (report) {
            EXPECT_TRUE(ibnm_apply_report_get_rolled_back(report.get())) << "fault at operation " << nth;
        }
    }
}

} // namespace

// --- Ethernet and bond MTU below ETH_MIN_MTU -------------------------------------

// The kernel refuses 60 ("mtu less than device minimum"); before, check and
// the dry run passed and up failed on the simulated kernel's refusal.
TEST(FactLinkMinMtu, EthernetBelow68IsRefusedByCheckDryRunAndUp)
{
    auto o = agree(exampleHost("ethernet-only.host"),
                   {{"type", "ethernet", "con-name", "e0", "ifname", "enp1s0", "mtu", "60", "ipv4.method", "disabled"}});
    EXPECT_TRUE(o.hasError("802-3-ethernet.mtu"));
    EXPECT_FALSE(o.upOk);
    // 68 itself is the minimum the kernel takes.
    auto ok = agree(exampleHost("ethernet-only.host"),
                    {{"type", "ethernet", "con-name", "e0", "ifname", "enp1s0", "mtu", "68", "ipv4.method", "disabled"}});
    EXPECT_TRUE(ok.upOk) << ok.upError;
    ASSERT_TRUE(ok.host);
    EXPECT_EQ(ok.host->findNetdev("enp1s0")->mtu, 68u);
}

TEST(FactLinkMinMtu, BondBelow68IsRefusedNamingItsMtuProperty)
{
    auto o = agree(exampleHost("ethernet-only.host"),
                   {{"type", "bond", "con-name", "b0", "ifname", "bond7", "bond.options", "mode=active-backup", "mtu",
                     "60", "ipv4.method", "disabled", "ipv6.method", "disabled"}});
    EXPECT_TRUE(o.hasError("802-3-ethernet.mtu"));
    EXPECT_FALSE(o.upOk);
    // The rule needs no host: the keyfile alone is refused.
    auto p = test::mustProfile({"type", "bond", "con-name", "b0", "ifname", "bond7", "mtu", "60"});
    auto findings = activation::checkProfiles({test::connectionOf(p.get())}, nullptr);
    EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [](const rules::Finding &f) {
        return f.severity == IBNM_SEVERITY_ERROR && f.property == "802-3-ethernet.mtu";
    }));
}

// A bond port's own MTU is not set (it takes its bond's): not refused.
TEST(FactLinkMinMtu, PortMtuIsNotTheInterfaceMtu)
{
    auto p = test::mustProfile(
        {"type", "ethernet", "con-name", "port", "ifname", "enp1s0", "master", "bond7", "slave-type", "bond", "mtu", "60"});
    EXPECT_TRUE(rules::checkLinkMtu(test::connectionOf(p.get())).empty());
}

// --- a gateway outside the profile's subnets ----------------------------------------

// NetworkManager adds a host route to the gateway first (FACTS.md); the
// kernel alone refuses the default route (ENETUNREACH). Before, check and
// the dry run passed and up failed on the simulated kernel's refusal.
TEST(FactOffLinkGateway, UpAddsTheHostRouteFirstAndDownRemovesBoth)
{
    std::vector<std::vector<std::string>> set = {{"type", "ethernet", "con-name", "e0", "ifname", "enp0s1",
                                                  "ipv4.method", "manual", "ipv4.addresses", "192.168.122.10/24",
                                                  "ipv4.gateway", "198.51.100.1", "ipv6.method", "disabled"}};
    auto o = agree(exampleHost("ethernet-only.host"), set);
    ASSERT_TRUE(o.upOk) << o.upError;
    ASSERT_TRUE(o.host);
    // Both there (listed in the kernel's order, not the order added: the
    // simulated kernel refuses the default route before the host route).
    const auto &routes = o.host->findNetdev("enp0s1")->routes;
    ASSERT_EQ(routes.size(), 2u);
    EXPECT_EQ(model::formatRoute(routes[0]), "0.0.0.0/0 via 198.51.100.1");
    EXPECT_EQ(model::formatRoute(routes[1]), "198.51.100.1/32");
    // Every single fault rolls back, the host route included.
    everyFaultRollsBack(exampleHost("ethernet-only.host"), set, o.operations);
}

TEST(FactOffLinkGateway, DownRemovesTheHostRouteToo)
{
    auto state = platform::parseHostDescription(exampleHost("ethernet-only.host"), "case.host");
    ASSERT_TRUE(state.ok());
    auto *fake = new FakePlatform(*state);
    auto host = GObjectPtr<IbnmHost>::adopt(
        hostNewFromPlatform(std::unique_ptr<platform::Platform>(fake), IBNM_HOST_KIND_SIMULATED, "case"));
    auto p = test::mustProfile({"type", "ethernet", "con-name", "e0", "ifname", "enp0s1", "ipv4.method", "manual",
                                "ipv4.addresses", "192.168.122.10/24", "ipv4.gateway", "198.51.100.1",
                                "ipv6.method", "disabled"});
    // A static route through the same gateway with another metric (the
    // grammar has no ipv4.routes: libnm's own call).
    NMIPRoute *route = nm_ip_route_new(AF_INET, "203.0.113.0", 24, "198.51.100.1", 5, nullptr);
    nm_setting_ip_config_add_route(
        NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(test::connectionOf(p.get()))), route);
    nm_ip_route_unref(route);
    GPtrArrayPtr array(g_ptr_array_new());
    g_ptr_array_add(array.get(), test::connectionOf(p.get()));
    GErrorPtr err;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)))
        << err->message;
    auto up = fake->readHost();
    ASSERT_TRUE(up.ok());
    // One host route per metric of the routes through the gateway (in the
    // kernel's order: by destination, then metric).
    std::vector<std::string> shown;
    for (const auto &r : up->findNetdev("enp0s1")->routes)
        shown.push_back(model::formatRoute(r));
    EXPECT_EQ(shown, (std::vector<std::string>{"0.0.0.0/0 via 198.51.100.1", "198.51.100.1/32",
                                               "198.51.100.1/32 metric 5", "203.0.113.0/24 via 198.51.100.1 metric 5"}));
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_down(host.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)))
        << err->message;
    auto down = fake->readHost();
    ASSERT_TRUE(down.ok());
    EXPECT_TRUE(down->findNetdev("enp0s1")->routes.empty());
}

// The simulated kernel refuses the route alone, as the kernel does.
TEST(FactOffLinkGateway, TheSimulatedKernelRefusesAnOffLinkGateway)
{
    auto state = platform::parseHostDescription(exampleHost("ethernet-only.host"), "case.host");
    ASSERT_TRUE(state.ok());
    FakePlatform fake(*state);
    auto st = fake.addRoute("enp1s0", {"0.0.0.0/0", "198.51.100.1", 0});
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errnum(), ENETUNREACH);
    // With the host route first it takes it.
    EXPECT_TRUE(fake.addRoute("enp1s0", {"198.51.100.1/32", "", 0}).ok());
    EXPECT_TRUE(fake.addRoute("enp1s0", {"0.0.0.0/0", "198.51.100.1", 0}).ok());
    // IPv6: a link-local gateway is on link.
    EXPECT_TRUE(fake.addRoute("enp1s0", {"::/0", "fe80::1", 0}).ok());
}

// --- P_Key children go down with their parent ---------------------------------------

namespace {

// ib0 (mlx4, connected mode available) with two children: ib0.8002 up with
// IPv4, IPv6 and a route, ib0.8003 down with an IPv6 address; ib1 and ib2
// ports of the active-backup bond bond0 (MTU 2044), ib1 with a child up.
const char *kChildrenHost = R"([host]
kernel-release=6.1.0-13-amd64
child-naming=ofed

[device mlx4_0]
driver=mlx4_core
node-type=1: CA
connected-mode=true

[port mlx4_0/1]
link-layer=InfiniBand
state=4: ACTIVE
active-mtu=2048
max-mtu=4096
broadcast-mtu=2048
pkeys=0xffff;0x8002;0x8003
port-guid=0002:c903:0031:7851

[port mlx4_0/2]
link-layer=InfiniBand
state=4: ACTIVE
active-mtu=2048
max-mtu=4096
broadcast-mtu=2048
pkeys=0xffff;0x8004
port-guid=0002:c903:0031:7852

[device mlx4_1]
driver=mlx4_core
node-type=1: CA
connected-mode=true

[port mlx4_1/1]
link-layer=InfiniBand
state=4: ACTIVE
active-mtu=2048
max-mtu=4096
broadcast-mtu=2048
pkeys=0xffff
port-guid=0002:c903:0031:7861

[netdev ib0]
kind=ipoib
rdma-port=mlx4_0/1
mtu=2044
mode=datagram
up=true
addresses=192.0.2.10/24

[netdev ib0.8002]
kind=ipoib
parent=ib0
pkey=0x8002
rdma-port=mlx4_0/1
mtu=2044
mode=datagram
up=true
addresses=10.2.0.2/24;2001:db8:2::2/64
routes=203.0.113.0/24 via 10.2.0.1

[netdev ib0.8003]
kind=ipoib
parent=ib0
pkey=0x8003
rdma-port=mlx4_0/1
mtu=2044
mode=datagram
up=false
addresses=2001:db8:3::3/64

[netdev ib1]
kind=ipoib
rdma-port=mlx4_0/2
mtu=2044
mode=datagram
up=true
master=bond0

[netdev ib1.8004]
kind=ipoib
parent=ib1
pkey=0x8004
rdma-port=mlx4_0/2
mtu=2044
mode=datagram
up=true
addresses=2001:db8:4::4/64

[netdev ib2]
kind=ipoib
rdma-port=mlx4_1/1
mtu=2044
mode=datagram
up=true
master=bond0

[netdev bond0]
kind=bond
type=32
mtu=2044
up=true
addresses=192.0.2.20/24

[bond bond0]
mode=active-backup
miimon=100
active-port=ib1
fail-over-mac=active
)";

const model::Netdev &netdev(const model::Host &h, const std::string &name)
{
    static const model::Netdev none;
    const model::Netdev *n = h.findNetdev(name);
    EXPECT_NE(n, nullptr) << name;
    return n ? *n : none;
}

std::vector<std::string> sorted(std::vector<std::string> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

// The simulated kernel: ipoib_stop() takes the children down (the IPv6
// address and the route go), ipoib_open() brings every child up, without
// what it lost.
TEST(FactChildrenFollowParent, TheSimulatedKernelTakesChildrenWithTheParent)
{
    auto state = platform::parseHostDescription(kChildrenHost, "case.host");
    ASSERT_TRUE(state.ok()) << state.error().toString();
    FakePlatform fake(*state);
    ASSERT_TRUE(fake.setUp("ib0", false).ok());
    auto down = fake.readHost();
    ASSERT_TRUE(down.ok());
    EXPECT_FALSE(netdev(*down, "ib0.8002").up);
    EXPECT_EQ(netdev(*down, "ib0.8002").addresses, std::vector<std::string>{"10.2.0.2/24"});
    EXPECT_TRUE(netdev(*down, "ib0.8002").routes.empty());
    ASSERT_TRUE(fake.setUp("ib0", true).ok());
    auto up = fake.readHost();
    ASSERT_TRUE(up.ok());
    EXPECT_TRUE(netdev(*up, "ib0.8002").up);
    EXPECT_TRUE(netdev(*up, "ib0.8003").up) << "ipoib_open() brings up every child";
    EXPECT_EQ(netdev(*up, "ib0.8002").addresses, std::vector<std::string>{"10.2.0.2/24"});
    // A bond port's release closes it (dev_close), with its children.
    ASSERT_TRUE(fake.release("ib1").ok());
    auto released = fake.readHost();
    ASSERT_TRUE(released.ok());
    EXPECT_FALSE(netdev(*released, "ib1.8004").up);
    EXPECT_TRUE(netdev(*released, "ib1.8004").addresses.empty());
}

// A mode change takes ib0 down and up: its children go down with it and
// come up without their IPv6 address and route. The plan puts them back in
// the same transaction. Before, up succeeded and left ib0.8002 without
// 2001:db8:2::2/64 and its route, and ib0.8003 up.
TEST(FactChildrenFollowParent, ModeChangeOfTheParentPutsItsChildrenBack)
{
    std::vector<std::vector<std::string>> set = {{"type", "infiniband", "con-name", "ib0", "ifname", "ib0",
                                                  "transport-mode", "connected", "ipv4.method", "manual",
                                                  "ipv4.addresses", "192.0.2.10/24", "ipv6.method", "disabled"}};
    auto o = agree(kChildrenHost, set);
    ASSERT_TRUE(o.upOk) << o.upError;
    ASSERT_TRUE(o.host);
    EXPECT_EQ(o.host->findIpoib("ib0")->mode, model::IpoibMode::Connected);
    const auto &c2 = netdev(*o.host, "ib0.8002");
    EXPECT_TRUE(c2.up);
    EXPECT_EQ(sorted(c2.addresses), (std::vector<std::string>{"10.2.0.2/24", "2001:db8:2::2/64"}));
    ASSERT_EQ(c2.routes.size(), 1u);
    EXPECT_EQ(model::formatRoute(c2.routes[0]), "203.0.113.0/24 via 10.2.0.1");
    const auto &c3 = netdev(*o.host, "ib0.8003");
    EXPECT_FALSE(c3.up) << "a child that was down stays down";
    EXPECT_EQ(c3.addresses, std::vector<std::string>{"2001:db8:3::3/64"});
    // Each fault, wherever it falls, leaves ib0 and both children as before.
    everyFaultRollsBack(kChildrenHost, set, o.operations);
}

// Taken down by hand, the parent left its child without its IPv6 address;
// up of the parent's profile brings the child back, and a later up of the
// child's own profile has nothing left to do.
TEST(FactChildrenFollowParent, ALaterUpBringsTheChildBack)
{
    std::vector<std::string> parent = {"type", "infiniband", "con-name", "ib0", "ifname", "ib0", "transport-mode",
                                       "datagram", "ipv4.method", "manual", "ipv4.addresses", "192.0.2.10/24",
                                       "ipv6.method", "disabled"};
    std::vector<std::string> child = {"type", "infiniband", "con-name", "ib0.8002", "parent", "ib0", "p-key",
                                      "0x8002", "transport-mode", "datagram", "ipv4.method", "manual",
                                      "ipv4.addresses", "10.2.0.2/24", "ipv6.method", "manual", "ipv6.addresses",
                                      "2001:db8:2::2/64"};
    auto takeParentDown = [](FakePlatform &p) { ASSERT_TRUE(p.setUp("ib0", false).ok()); };
    // The child's profile alone: its link up, its IPv6 address again.
    auto c = agree(kChildrenHost, {child}, {}, takeParentDown);
    ASSERT_TRUE(c.upOk) << c.upError;
    EXPECT_TRUE(netdev(*c.host, "ib0.8002").up);
    EXPECT_EQ(sorted(netdev(*c.host, "ib0.8002").addresses),
              (std::vector<std::string>{"10.2.0.2/24", "2001:db8:2::2/64"}));
    // The parent's profile: it comes up, and its children as they were
    // before it went down are not known any more: the host's now (down,
    // without the IPv6 address) is what the plan keeps.
    auto p = agree(kChildrenHost, {parent, child}, {}, takeParentDown);
    ASSERT_TRUE(p.upOk) << p.upError;
    EXPECT_TRUE(netdev(*p.host, "ib0").up);
    EXPECT_TRUE(netdev(*p.host, "ib0.8002").up);
    EXPECT_EQ(sorted(netdev(*p.host, "ib0.8002").addresses),
              (std::vector<std::string>{"10.2.0.2/24", "2001:db8:2::2/64"}));
    EXPECT_FALSE(netdev(*p.host, "ib0.8003").up) << "ipoib_open() brought it up; it was down";
}

// --- a mode change of an IPoIB port in a bond ---------------------------------------

// The mode change sets ib1's MTU (65520 in connected mode); only enslaving
// gives it the bond's again. The plan releases the port, changes the mode
// and enslaves it again. Before, check and the dry run passed and up failed
// verifying ib1's MTU (65520, not the bond's 2044) and left the port down.
TEST(FactBondPortModeChange, ThePortLeavesAndJoinsItsBondAgain)
{
    std::vector<std::vector<std::string>> set = {{"type", "infiniband", "con-name", "ib1", "ifname", "ib1",
                                                  "transport-mode", "connected", "master", "bond0", "slave-type",
                                                  "bond"}};
    std::vector<std::vector<std::string>> stored = {{"type", "bond", "con-name", "bond0", "ifname", "bond0",
                                                     "bond.options", "mode=active-backup,miimon=100", "mtu", "2044",
                                                     "ipv4.method", "manual", "ipv4.addresses", "192.0.2.20/24",
                                                     "ipv6.method", "disabled"}};
    auto o = agree(kChildrenHost, set, stored);
    ASSERT_TRUE(o.upOk) << o.upError;
    ASSERT_TRUE(o.host);
    EXPECT_EQ(o.host->findIpoib("ib1")->mode, model::IpoibMode::Connected);
    const auto &ib1 = netdev(*o.host, "ib1");
    EXPECT_EQ(ib1.master, "bond0");
    EXPECT_TRUE(ib1.up);
    EXPECT_EQ(ib1.mtu, 2044u) << "the bond's MTU, set at enslave";
    // ib1's child went down with it and is back, with its IPv6 address.
    EXPECT_TRUE(netdev(*o.host, "ib1.8004").up);
    EXPECT_EQ(netdev(*o.host, "ib1.8004").addresses, std::vector<std::string>{"2001:db8:4::4/64"});
    everyFaultRollsBack(kChildrenHost, set, o.operations, stored);
}

// Back to datagram under a bond whose MTU datagram mode cannot take: check,
// the dry run and up all refuse, naming the bond's MTU.
TEST(FactBondPortModeChange, AModeTheBondsMtuExcludesIsRefusedByAll)
{
    std::string host = kChildrenHost;
    // bond0 at 65520, its ports connected.
    for (auto [from, to] : {std::pair<std::string, std::string>{"mtu=2044\nmode=datagram\nup=true\nmaster=bond0",
                                                                "mtu=65520\nmode=connected\nup=true\nmaster=bond0"},
                            {"type=32\nmtu=2044", "type=32\nmtu=65520"}})
        for (size_t at = host.find(from); at != std::string::npos; at = host.find(from, at + to.size()))
            host.replace(at, from.size(), to);
    auto o = agree(host, {{"type", "infiniband", "con-name", "ib1", "ifname", "ib1", "transport-mode", "datagram",
                           "master", "bond0", "slave-type", "bond"}});
    EXPECT_TRUE(o.hasError("connection.master"));
    EXPECT_FALSE(o.upOk);
}

// --- DNS servers and search domains -------------------------------------------------

namespace {

std::string withResolved(std::string host, const std::string &extraNetdevKeys = {})
{
    host.replace(host.find("[host]\n"), 7, "[host]\nresolved=true\n");
    if (!extraNetdevKeys.empty())
        host.replace(host.find("[netdev enp0s1]\n"), 16, "[netdev enp0s1]\n" + extraNetdevKeys);
    return host;
}

model::Resolver resolverOf(FakePlatform &p)
{
    auto r = p.readResolver();
    EXPECT_TRUE(r.ok());
    return r.ok() ? std::move(r).value() : model::Resolver{};
}

const std::vector<std::string> kDnsProfile = {"type", "ethernet", "con-name", "e0", "ifname", "enp0s1",
                                              "ipv4.method", "manual", "ipv4.addresses", "192.168.122.10/24",
                                              "ipv4.dns", "192.0.2.53", "ipv4.dns-search", "example.com",
                                              "ipv6.method", "manual", "ipv6.addresses", "2001:db8:5::10/64",
                                              "ipv6.dns", "2001:db8::53"};

} // namespace

// Where systemd-resolved runs, up gives it the profile's servers (IPv4 then
// IPv6) and search domains for the link, down gives the link back
// (RevertLink). Before, nothing gave them to anyone.
TEST(FactDns, UpGivesThemToSystemdResolvedAndDownRevertsThem)
{
    std::string host = withResolved(exampleHost("ethernet-only.host"));
    auto o = agree(host, {kDnsProfile});
    ASSERT_TRUE(o.upOk) << o.upError;
    EXPECT_TRUE(o.warnings.empty()) << o.warnings.front().message;
    EXPECT_NE(o.after.find("dns=192.0.2.53;2001:db8::53"), std::string::npos) << o.after;
    EXPECT_NE(o.after.find("dns-search=example.com"), std::string::npos) << o.after;
    everyFaultRollsBack(host, {kDnsProfile}, o.operations);

    auto state = platform::parseHostDescription(host, "case.host");
    ASSERT_TRUE(state.ok());
    auto *fake = new FakePlatform(*state);
    auto h = GObjectPtr<IbnmHost>::adopt(
        hostNewFromPlatform(std::unique_ptr<platform::Platform>(fake), IBNM_HOST_KIND_SIMULATED, "case"));
    auto p = test::mustProfile(kDnsProfile);
    GPtrArrayPtr array(g_ptr_array_new());
    g_ptr_array_add(array.get(), test::connectionOf(p.get()));
    GErrorPtr err;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(h.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)));
    auto up = resolverOf(*fake);
    ASSERT_EQ(up.links.count("enp0s1"), 1u);
    EXPECT_EQ(up.links.at("enp0s1").servers, (std::vector<std::string>{"192.0.2.53", "2001:db8::53"}));
    EXPECT_EQ(up.links.at("enp0s1").domains, std::vector<std::string>{"example.com"});
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_down(h.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)))
        << err->message;
    EXPECT_EQ(resolverOf(*fake).links.count("enp0s1"), 0u);
}

// What the link held before comes back when the up fails.
TEST(FactDns, AFailedUpGivesBackWhatTheLinkHad)
{
    std::string host = withResolved(exampleHost("ethernet-only.host"), "dns=198.51.100.53\ndns-search=old.example\n");
    auto o = agree(host, {kDnsProfile});
    ASSERT_TRUE(o.upOk) << o.upError;
    EXPECT_NE(o.before.find("dns=198.51.100.53"), std::string::npos);
    EXPECT_NE(o.after.find("dns=192.0.2.53;2001:db8::53"), std::string::npos);
    everyFaultRollsBack(host, {kDnsProfile}, o.operations);
}

// Where it does not run, check says they are not applied (a warning naming
// ipv4.dns) and up says so in its notes: never silent. Before, both were.
TEST(FactDns, WithoutSystemdResolvedCheckWarnsAndUpSaysSo)
{
    auto o = agree(exampleHost("ethernet-only.host"), {kDnsProfile});
    ASSERT_TRUE(o.upOk) << o.upError;
    ASSERT_EQ(o.warnings.size(), 1u);
    EXPECT_EQ(o.warnings[0].property, "ipv4.dns");
    EXPECT_NE(o.warnings[0].message.find("systemd-resolved"), std::string::npos) << o.warnings[0].message;
    EXPECT_FALSE(o.warnings[0].hint.empty());
    bool noted = std::any_of(o.notes.begin(), o.notes.end(), [](const std::string &n) {
        return n.find("not applied") != std::string::npos && n.find("systemd-resolved") != std::string::npos;
    });
    EXPECT_TRUE(noted);
    // Search domains alone name their own property.
    auto p = test::mustProfile({"type", "ethernet", "con-name", "e1", "ifname", "enp1s0", "ipv4.method", "disabled",
                                "ipv6.method", "manual", "ipv6.addresses", "2001:db8:6::1/64", "ipv6.dns-search",
                                "example.org"});
    auto state = platform::parseHostDescription(exampleHost("ethernet-only.host"), "case.host");
    ASSERT_TRUE(state.ok());
    FakePlatform fake(*state);
    auto h = fake.readHost();
    ASSERT_TRUE(h.ok());
    h->resolver = resolverOf(fake);
    auto findings = rules::checkDns(test::connectionOf(p.get()), &*h, true);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].property, "ipv6.dns-search");
    // With NetworkManager, NetworkManager applies them: nothing to say.
    EXPECT_TRUE(rules::checkDns(test::connectionOf(p.get()), &*h, false).empty());
}

// --- RoCE LAG ---------------------------------------------------------------------------

namespace {

// The RoCE LAG example host without its bond: p4p1 (mlx5_0) and p4p2
// (mlx5_1), the two functions of one card, each with its own device.
std::string unbondedLagHost()
{
    std::string h = exampleHost("mlx5-roce-lag.host");
    for (const char *cut : {"master=bond0\n", "master=bond0\n"})
        h.erase(h.find(cut), std::string(cut).size());
    h.erase(h.find("[netdev bond0]"), h.find("[netdev enp5s0]") - h.find("[netdev bond0]"));
    return h;
}

const std::vector<std::vector<std::string>> kLagBond = {
    {"type", "bond", "con-name", "bond0", "ifname", "bond0", "bond.options", "mode=802.3ad,miimon=100", "ipv4.method",
     "manual", "ipv4.addresses", "10.10.10.1/24", "ipv6.method", "disabled"},
    {"type", "ethernet", "con-name", "bond0-p4p1", "ifname", "p4p1", "master", "bond0", "slave-type", "bond"},
    {"type", "ethernet", "con-name", "bond0-p4p2", "ifname", "p4p2", "master", "bond0", "slave-type", "bond"}};

} // namespace

// A profile for a LAG port without master takes it out of the bond: the
// device splits and the port's own comes back (mlx5_0), which its rdma.*
// keys configure. Before, check, the dry run and up refused it ("no RDMA
// device is behind p4p1"), judged on the host before the release.
TEST(FactRoceLag, APortLeavingTheLagIsJudgedOnTheDeviceItGetsBack)
{
    std::vector<std::vector<std::string>> set = {{"type", "ethernet", "con-name", "p4p1", "ifname", "p4p1",
                                                  "ipv4.method", "disabled", "ipv6.method", "disabled",
                                                  "rdma.roce-mode", "v2", "rdma.roce-tos", "106"}};
    std::string host = exampleHost("mlx5-roce-lag.host");
    auto o = agree(host, set);
    ASSERT_TRUE(o.upOk) << o.upError;
    ASSERT_TRUE(o.host);
    EXPECT_EQ(o.host->findDevice("mlx5_bond_0"), nullptr);
    const auto *dev = o.host->findDevice("mlx5_0");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->ports.at(0).defaultRoceMode, model::RoceMode::V2);
    EXPECT_EQ(dev->ports.at(0).defaultRoceTos, 106u);
    EXPECT_EQ(o.host->findNetdev("p4p1")->rdmaDevice, "mlx5_0");
    // check warns that the bond's RoCE LAG splits.
    ASSERT_EQ(o.warnings.size(), 1u);
    EXPECT_EQ(o.warnings[0].property, "connection.master");
    EXPECT_NE(o.warnings[0].message.find("mlx5_bond_0"), std::string::npos) << o.warnings[0].message;
    EXPECT_NE(o.warnings[0].message.find("mlx5_0"), std::string::npos) << o.warnings[0].message;
    everyFaultRollsBack(host, set, o.operations);
}

// The device names the split gives back: the lowest free mlx5_<n>, in the
// functions' order.
TEST(FactRoceLag, SplitNamesFollowTheFunctions)
{
    auto state = platform::parseHostDescription(exampleHost("mlx5-roce-lag.host"), "case.host");
    ASSERT_TRUE(state.ok());
    FakePlatform fake(*state);
    auto h = fake.readHost();
    ASSERT_TRUE(h.ok());
    auto lags = model::roceLags(*h);
    ASSERT_EQ(lags.size(), 1u);
    auto split = model::roceLagSplit(*h, lags[0]);
    ASSERT_EQ(split.size(), 2u);
    EXPECT_EQ(split[0].netdev, "p4p1");
    EXPECT_EQ(split[0].device.name, "mlx5_0");
    EXPECT_EQ(split[0].device.pciAddress, "0000:03:00.0");
    EXPECT_EQ(split[1].netdev, "p4p2");
    EXPECT_EQ(split[1].device.name, "mlx5_1");
    EXPECT_EQ(split[1].device.driver, "mlx5_core");
    // The simulated driver gives the same back.
    ASSERT_TRUE(fake.release("p4p1").ok());
    auto after = fake.readHost();
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->findNetdev("p4p1")->rdmaDevice, "mlx5_0");
    EXPECT_EQ(after->findNetdev("p4p2")->rdmaDevice, "mlx5_1");
}

// A bond whose merge removes the RDMA device another stored profile
// configures: check warns on the bond, naming the device and the profile.
// Before, check said nothing and up merged mlx5_0 away.
TEST(FactRoceLag, ABondThatMergesADeviceAnotherProfileConfiguresIsReported)
{
    std::vector<std::vector<std::string>> stored = {{"type", "ethernet", "con-name", "roce-p4p1", "ifname", "p4p1",
                                                     "ipv4.method", "disabled", "ipv6.method", "disabled",
                                                     "rdma.traffic-class", "96"}};
    auto o = agree(unbondedLagHost(), kLagBond, stored);
    ASSERT_TRUE(o.upOk) << o.upError;
    ASSERT_TRUE(o.host);
    EXPECT_NE(o.host->findDevice("mlx5_bond_0"), nullptr);
    auto w = std::find_if(o.warnings.begin(), o.warnings.end(), [](const rules::Finding &f) {
        return f.profileId == "bond0" && f.message.find("roce-p4p1") != std::string::npos;
    });
    ASSERT_NE(w, o.warnings.end());
    EXPECT_NE(w->message.find("mlx5_0"), std::string::npos) << w->message;
    EXPECT_NE(w->message.find("mlx5_bond_0"), std::string::npos) << w->message;
    EXPECT_EQ(w->related, std::vector<std::string>{"roce-p4p1"});
}

// A port profile of that bond with rdma.* keys of its own: its device is
// gone once it is enslaved. check, the dry run and up refuse it, naming the
// key. Before, check and the dry run passed and up failed on the device.
TEST(FactRoceLag, APortOfTheMergingBondWithItsOwnRdmaKeysIsRefusedByAll)
{
    auto set = kLagBond;
    set[1].insert(set[1].end(), {"rdma.traffic-class", "96"});
    auto o = agree(unbondedLagHost(), set);
    EXPECT_TRUE(o.hasError("rdma.traffic-class"));
    EXPECT_FALSE(o.upOk);
}
