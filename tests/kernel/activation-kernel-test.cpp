// SPDX-License-Identifier: LGPL-2.1-or-later
// Activation against Debian's kernel in the kernel lab (make check-kernel):
// rxe and siw links, configfs RoCE defaults and an active-backup bond applied
// through the Linux platform, verified by reading the kernel back, undone on
// the kernel's refusal, and idempotent. Also the dispatcher plugin's path
// (rdma-only). Outside the guest these tests are filtered out (see
// kernel-test.cpp).
#include "config.h"

#include "libcore/activation/desired.hpp"
#include "libcore/activation/engine.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/platform/linux/linux-platform.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "tests/activation/activation-test-util.hpp"
#include "tests/test-util.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

using namespace ibnm;
using namespace ibnm::activation;

namespace {

bool sh(const std::string &command)
{
    const char *argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    gint status = 0;
    if (!g_spawn_sync(nullptr, const_cast<char **>(argv), nullptr, G_SPAWN_DEFAULT, nullptr, nullptr, nullptr,
                      nullptr, &status, nullptr))
        return false;
    return g_spawn_check_wait_status(status, nullptr);
}

using test::ConnPtr;
using test::raw;

ConnPtr profile(const char *id, const char *type, const char *ifname, std::map<std::string, std::string> user)
{
    auto c = test::connection(id, type, ifname);
    if (g_strcmp0(type, NM_SETTING_BOND_SETTING_NAME) == 0) {
        NMSetting *b = nm_setting_bond_new();
        nm_setting_bond_add_option(NM_SETTING_BOND(b), "mode", "active-backup");
        nm_setting_bond_add_option(NM_SETTING_BOND(b), "miimon", "100");
        nm_connection_add_setting(c.get(), b);
    } else {
        nm_connection_add_setting(c.get(), nm_setting_wired_new());
    }
    if (!user.empty())
        c = test::withUser(std::move(c), user);
    return c;
}

class ActivationKernel : public ::testing::Test {
protected:
    void SetUp() override
    {
        p_ = platform::createLinuxPlatform(platform::LinuxOptions{});
        ASSERT_TRUE(sh("ip link add kact0 type dummy && ip link set kact0 up && ip addr add 192.0.2.61/24 dev kact0"));
        ASSERT_TRUE(sh("ip link add kact1 type dummy && ip link set kact1 up"));
    }
    void TearDown() override
    {
        sh("rdma link delete kact_rxe 2>/dev/null; rdma link delete kact_siw 2>/dev/null; "
           "ip link delete kbond0 2>/dev/null; ip link delete kact0; ip link delete kact1");
    }

    Report upAll(const std::vector<ConnPtr> &v, bool rdmaOnly = false)
    {
        Options o;
        o.rdmaOnly = rdmaOnly;
        return test::resolveAndUp(*p_, v, !rdmaOnly, o);
    }
    Report downAll(const std::vector<ConnPtr> &v, bool rdmaOnly = false)
    {
        auto d = resolve(raw(v), raw(v), !rdmaOnly);
        Options o;
        o.rdmaOnly = rdmaOnly;
        return down(*p_, *d, o);
    }

    std::unique_ptr<platform::Platform> p_;
};

TEST_F(ActivationKernel, RxeSiwRoceDefaultsAndBondApplyAndVerify)
{
    std::vector<ConnPtr> v{
        profile("rxe", "802-3-ethernet", "kact0",
                {{"rdma.link-type", "rxe"}, {"rdma.link-name", "kact_rxe"}, {"rdma.roce-mode", "v2"},
                 {"rdma.roce-tos", "106"}}),
        profile("siw", "802-3-ethernet", "kact1", {{"rdma.link-type", "siw"}, {"rdma.link-name", "kact_siw"}}),
        profile("bond", NM_SETTING_BOND_SETTING_NAME, "kbond0", {}),
    };
    Report r = upAll(v);
    ASSERT_TRUE(r.ok) << r.error;

    auto h = p_->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    std::map<std::string, std::string> links;
    for (const auto &l : h->softLinks)
        links[l.name] = l.netdev;
    EXPECT_EQ(links["kact_rxe"], "kact0");
    EXPECT_EQ(links["kact_siw"], "kact1");
    const auto *rxe = h->findDevice("kact_rxe");
    ASSERT_NE(rxe, nullptr);
    ASSERT_FALSE(rxe->ports.empty());
    EXPECT_EQ(rxe->ports[0].defaultRoceMode, model::RoceMode::V2);
    EXPECT_EQ(rxe->ports[0].defaultRoceTos, 106u);
    bool found = false;
    for (const auto &b : h->bonds)
        if (b.name == "kbond0") {
            found = true;
            EXPECT_EQ(b.mode, "active-backup");
            EXPECT_EQ(b.miimon, 100u);
        }
    EXPECT_TRUE(found) << "kbond0 was not created";

    // Applying again changes nothing on the real kernel either.
    Report again = upAll(v);
    EXPECT_TRUE(again.ok) << again.error;
    EXPECT_EQ(again.operations, 0u);

    Report d = downAll(v);
    ASSERT_TRUE(d.ok) << d.error;
    auto after = p_->readHost();
    ASSERT_TRUE(after.ok());
    EXPECT_TRUE(after->softLinks.empty());
    EXPECT_EQ(after->findNetdev("kbond0"), nullptr);
}

// rxe is RoCE v2 only: the planner (model::roceModeSupported) refuses v1
// before anything reaches the kernel, which would refuse it too (platform
// contract RxeRefusesRoceV1AcceptsV2).
TEST_F(ActivationKernel, RoceV1OnRxeIsRefusedBeforeTheKernel)
{
    std::vector<ConnPtr> v{profile("rxe", "802-3-ethernet", "kact0",
                                   {{"rdma.link-type", "rxe"}, {"rdma.link-name", "kact_rxe"},
                                    {"rdma.roce-mode", "v1"}})};
    Report r = upAll(v);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.steps.empty());
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_TRUE(h->softLinks.empty());
}

// A failure the planner cannot foresee (configfs rdma_cm missing: here a
// configfs root without it) stops the apply after the kernel created the
// link; the rollback deletes it from the real kernel.
TEST_F(ActivationKernel, KernelFailureRollsBackTheLink)
{
    test::TempDir noConfigfs;
    platform::LinuxOptions o;
    o.configfsRoot = noConfigfs.path();
    p_ = platform::createLinuxPlatform(o);
    std::vector<ConnPtr> v{profile("rxe", "802-3-ethernet", "kact0",
                                   {{"rdma.link-type", "rxe"}, {"rdma.link-name", "kact_rxe"},
                                    {"rdma.roce-mode", "v2"}})};
    Report r = upAll(v);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.rolledBack);
    ASSERT_EQ(r.steps.size(), 2u);
    EXPECT_EQ(r.steps[0].state, StepState::Undone);
    EXPECT_EQ(r.steps[1].state, StepState::Failed);
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_TRUE(h->softLinks.empty()) << "rxe link left behind after the rollback";
}

TEST_F(ActivationKernel, DispatcherPathProvisionsOnlyRdma)
{
    std::vector<ConnPtr> v{profile("siw", "802-3-ethernet", "kact1",
                                   {{"rdma.link-type", "siw"}, {"rdma.link-name", "kact_siw"}})};
    Report r = upAll(v, true);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].action, IBNM_STEP_ACTION_ADD_RDMA_LINK);
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    ASSERT_EQ(h->softLinks.size(), 1u);
    EXPECT_EQ(h->softLinks[0].type, model::SoftLinkType::Siw);
    Report d = downAll(v, true);
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_TRUE(p_->readHost()->softLinks.empty());
}

} // namespace

namespace {

TEST_F(ActivationKernel, BondWithStaticAddressRoutesAndGateway)
{
    auto bond = profile("bond", NM_SETTING_BOND_SETTING_NAME, "kbond0", {});
    NMSetting *ip4 = nm_setting_ip4_config_new();
    g_object_set(ip4, NM_SETTING_IP_CONFIG_METHOD, "manual", NM_SETTING_IP_CONFIG_GATEWAY, "192.0.2.254", nullptr);
    nm_setting_ip_config_add_address(NM_SETTING_IP_CONFIG(ip4), nm_ip_address_new(AF_INET, "192.0.2.70", 24, nullptr));
    NMIPRoute *r = nm_ip_route_new(AF_INET, "198.51.100.0", 24, "192.0.2.253", 20, nullptr);
    nm_setting_ip_config_add_route(NM_SETTING_IP_CONFIG(ip4), r);
    nm_ip_route_unref(r);
    nm_connection_add_setting(bond.get(), ip4);
    std::vector<ConnPtr> v{bond};
    Report up1 = upAll(v);
    ASSERT_TRUE(up1.ok) << up1.error;
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    const auto *nd = h->findNetdev("kbond0");
    ASSERT_NE(nd, nullptr);
    EXPECT_NE(std::find(nd->addresses.begin(), nd->addresses.end(), "192.0.2.70/24"), nd->addresses.end());
    EXPECT_EQ(nd->routes, (std::vector<model::Route>{{"0.0.0.0/0", "192.0.2.254", 0},
                                                     {"198.51.100.0/24", "192.0.2.253", 20}}));
    EXPECT_EQ(upAll(v).operations, 0u) << "routes read back from the kernel must match";
    ASSERT_TRUE(downAll(v).ok);
}

} // namespace

// --- issue 27 item 4: facts checked on Debian's kernel --------------------------------

namespace {

// An IPv4 setting: manual, `address`, `gateway` and `dns` where given.
void ip4(NMConnection *c, const char *address, const char *gateway, const char *dns = nullptr)
{
    NMSetting *s = nm_setting_ip4_config_new();
    g_object_set(s, NM_SETTING_IP_CONFIG_METHOD, "manual", NM_SETTING_IP_CONFIG_GATEWAY, gateway, nullptr);
    nm_setting_ip_config_add_address(NM_SETTING_IP_CONFIG(s), nm_ip_address_new(AF_INET, address, 24, nullptr));
    if (dns) {
        nm_setting_ip_config_add_dns(NM_SETTING_IP_CONFIG(s), dns);
        nm_setting_ip_config_add_dns_search(NM_SETTING_IP_CONFIG(s), "example.com");
    }
    nm_connection_add_setting(c, s);
}

} // namespace

// The kernel refuses a bond MTU below 68 ("mtu less than device minimum");
// the rules and the planner say so first (model::linkMtuAccepted), so that
// nothing is created.
TEST_F(ActivationKernel, BondMtuBelow68IsRefusedByTheKernelAndBeforeIt)
{
    ASSERT_TRUE(sh("ip link add kbond0 type bond"));
    EXPECT_FALSE(sh("ip link set kbond0 mtu 60 2>/dev/null")) << "the kernel took a bond MTU of 60";
    auto st = p_->setMtu("kbond0", 60);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errnum(), EINVAL) << st.error().toString();
    ASSERT_TRUE(sh("ip link delete kbond0"));

    auto bond = profile("bond", NM_SETTING_BOND_SETTING_NAME, "kbond0", {});
    NMSetting *wired = nm_setting_wired_new();
    g_object_set(wired, NM_SETTING_WIRED_MTU, 60u, nullptr);
    nm_connection_add_setting(bond.get(), wired);
    auto findings = activation::checkProfiles({bond.get()}, nullptr);
    EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [](const rules::Finding &f) {
        return f.severity == IBNM_SEVERITY_ERROR && f.property == "802-3-ethernet.mtu";
    }));
    Report r = upAll({bond});
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.operations, 0u);
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->findNetdev("kbond0"), nullptr);
}

// The kernel refuses a route through a gateway outside every subnet of the
// interface (ENETUNREACH); with the host route NetworkManager adds first it
// takes it, and down removes both.
TEST_F(ActivationKernel, OffLinkGatewayGetsAHostRouteFirst)
{
    ASSERT_TRUE(sh("ip link set kact1 up && ip addr add 192.0.2.81/24 dev kact1"));
    auto refused = p_->addRoute("kact1", {"0.0.0.0/0", "198.51.100.1", 0});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().errnum(), ENETUNREACH) << refused.error().toString();
    ASSERT_TRUE(sh("ip addr flush dev kact1"));

    auto eth = profile("eth", "802-3-ethernet", "kact1", {});
    ip4(eth.get(), "192.0.2.81", "198.51.100.1");
    Report r = upAll({eth});
    ASSERT_TRUE(r.ok) << r.error;
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    const auto *nd = h->findNetdev("kact1");
    ASSERT_NE(nd, nullptr);
    auto has = [&](const model::Route &x) { return std::find(nd->routes.begin(), nd->routes.end(), x) != nd->routes.end(); };
    EXPECT_TRUE(has({"198.51.100.1/32", "", 0}));
    EXPECT_TRUE(has({"0.0.0.0/0", "198.51.100.1", 0}));
    EXPECT_EQ(upAll({eth}).operations, 0u) << "the routes read back from the kernel must match";
    Report d = downAll({eth});
    ASSERT_TRUE(d.ok) << d.error;
    auto after = p_->readHost();
    ASSERT_TRUE(after.ok());
    EXPECT_TRUE(after->findNetdev("kact1")->routes.empty());
}

// The guest runs no systemd-resolved (no system bus): readResolver() says
// so, check warns that the DNS servers are not applied, up leaves them out
// and says so in a note, and giving a link back is nothing to do.
TEST_F(ActivationKernel, DnsWithoutSystemdResolvedIsNotAppliedAndSaid)
{
    auto r = p_->readResolver();
    ASSERT_TRUE(r.ok()) << r.error().toString();
    ASSERT_FALSE(r->running) << "this test expects a guest without systemd-resolved";
    EXPECT_NE(r->reason.find("systemd-resolved"), std::string::npos) << r->reason;
    auto set = p_->setLinkDns("kact1", {{"192.0.2.53"}, {}});
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.error().code(), IBNM_ERROR_NOT_SUPPORTED);
    EXPECT_TRUE(p_->revertLinkDns("kact1").ok());

    auto eth = profile("eth", "802-3-ethernet", "kact1", {});
    ip4(eth.get(), "192.0.2.82", "192.0.2.254", "192.0.2.53");
    auto h = p_->readHost();
    ASSERT_TRUE(h.ok());
    h->resolver = *r;
    auto findings = activation::checkProfiles({eth.get()}, &*h, nullptr, true);
    EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [](const rules::Finding &f) {
        return f.severity == IBNM_SEVERITY_WARNING && f.property == "ipv4.dns";
    }));
    auto d = resolve(raw({eth}), raw({eth}), true);
    ASSERT_TRUE(d.ok());
    Report up1 = up(*p_, *h, *d, Options{});
    ASSERT_TRUE(up1.ok) << up1.error;
    EXPECT_TRUE(std::any_of(up1.notes.begin(), up1.notes.end(), [](const Note &n) {
        return n.message.find("not applied") != std::string::npos;
    }));
    ASSERT_TRUE(downAll({eth}).ok);
}
