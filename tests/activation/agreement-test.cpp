// SPDX-License-Identifier: LGPL-2.1-or-later
// The agreement invariant ("know before you apply"), generated: on every
// simulated host in examples/hosts and a few made for it, hundreds of random
// sets of profiles (IPoIB parents and P_Key children, bonds and ports,
// Ethernet with rdma.* keys, MAC-only profiles, conflicting pairs), fixed
// seeds. For each set:
//   1. check reports an error  <=>  up --dry-run refuses  <=>  up fails;
//   2. up fails  =>  the host reads back byte-identical, and the report says
//      rolled back;
//   3. up succeeds  =>  the host holds what the profiles say, read back and
//      compared here, independently of the planner's own verification;
//   4. a second up performs zero operations;
//   5. the planner's verdict alone (Options::verdictOnly, which check asks
//      of each profile and of the whole set) is that of the plan with its
//      steps: the same failure, or success.
// The simulated host states the kernel's behaviour on its own (FACTS.md), so
// a fact the model gets wrong shows as a disagreement here.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/activation/engine.hpp"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/activation/check.hpp"
#include "libcore/profiles/profile-rules.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/model/bond.hpp"
#include "libcore/model/ipoib.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "tests/activation/example-hosts.hpp"
#include "tests/profiles/profile-test-util.hpp"
#include "tests/simulator/fake-test-util.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace ibnm;
using platform::FakePlatform;

namespace {

// Hosts made for this test: two InfiniBand ports of a connected-mode HCA, a
// port whose interface name is 14 characters long (children cut to 15),
// OFED child naming, an Ethernet NIC for soft RDMA and an mlx5 RoCE port.
const char *kTwoPortsLongNames = R"([host]
kernel-release=6.1.0-56-amd64
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
pkeys=0xffff;0x8002
port-guid=0002:c903:0031:7851

[port mlx4_0/2]
link-layer=InfiniBand
state=4: ACTIVE
active-mtu=4096
max-mtu=4096
broadcast-mtu=4096
pkeys=0xffff
port-guid=0002:c903:0031:7852

[device mlx5_0]
driver=mlx5_core
node-type=1: CA

[port mlx5_0/1]
link-layer=Ethernet
state=4: ACTIVE
active-mtu=1024
max-mtu=4096

[netdev ib0]
kind=ipoib
rdma-port=mlx4_0/1
address=80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51
mtu=2044
mode=datagram
up=true

[netdev ibverylongname0]
kind=ipoib
rdma-port=mlx4_0/2
address=80:00:02:09:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:52
mtu=4092
mode=connected
up=false

[netdev eth0]
address=52:54:00:6b:2e:11
mtu=1500
max-mtu=9000
up=true

[netdev p1p1]
address=b8:59:9f:1a:e3:ea
rdma-port=mlx5_0/1
mtu=1500
max-mtu=9978
addresses=10.10.10.1/24;2001:db8:10::1/64
up=true
)";

struct HostCase {
    std::string name;
    std::string text;
    unsigned seed;
};

void PrintTo(const HostCase &c, std::ostream *os)
{
    *os << c.name;
}

std::vector<HostCase> hostCases()
{
    std::vector<HostCase> v;
    unsigned seed = 1;
    for (const char *f : {"cx6-mlx5-ib.host", "ethernet-only.host", "mlx4-dual-port.host", "mlx5-roce.host"})
        v.push_back({f, test::exampleHost(f), seed++ * 7919});
    v.push_back({"two-ports-long-names", kTwoPortsLongNames, 104729});
    return v;
}

class Generator {
public:
    Generator(unsigned seed, test::Names names) : rng_(seed), n_(std::move(names)) {}

    // A set of 1-4 profiles as nmcli arguments.
    std::vector<std::vector<std::string>> set()
    {
        std::vector<std::vector<std::string>> out;
        unsigned count = 1 + pick(3);
        bonded_.clear();
        for (unsigned i = 0; i < count; i++) {
            std::string id = "p" + std::to_string(i);
            if (n_.ipoib.empty() && pick(5) != 0) {
                out.push_back(ethernet(id)); // mostly what an Ethernet-only host can have
                continue;
            }
            switch (pick(7)) {
            case 0:
            case 6: out.push_back(base(id)); break;
            case 1: out.push_back(child(id)); break;
            case 2: {
                auto b = bond(id);
                for (auto &port : b)
                    out.push_back(std::move(port));
                break;
            }
            case 3: out.push_back(ethernet(id)); break;
            case 4: out.push_back(macOnly(id)); break;
            default:
                // A conflicting pair: the same kind twice.
                out.push_back(pick(2) ? child(id) : base(id));
                out.push_back(out.back());
                out.back()[3] = id + "b";
            }
        }
        return out;
    }

private:
    unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
    template <typename T>
    const T &one(const std::vector<T> &v) { return v[pick(unsigned(v.size()))]; }

    std::string ipoibIf()
    {
        if (n_.ipoib.empty() || pick(12) == 0)
            return "ib9";
        return one(n_.ipoib);
    }
    std::string ethIf()
    {
        if (n_.ethernet.empty() || pick(12) == 0)
            return "eth9";
        return one(n_.ethernet);
    }
    void mode(std::vector<std::string> &a)
    {
        a.insert(a.end(), {"transport-mode", pick(3) == 0 ? "connected" : "datagram"});
    }
    void mtu(std::vector<std::string> &a, bool ipoib)
    {
        static const std::vector<std::string> ib = {"0", "1500", "2044", "2048", "4092", "4093", "65520", "70"};
        static const std::vector<std::string> eth = {"0", "1400", "1500", "9000", "9700"};
        if (pick(2))
            a.insert(a.end(), {"mtu", one(ipoib ? ib : eth)});
    }
    void ip(std::vector<std::string> &a, unsigned n)
    {
        // IPv4 left automatic is DHCP, which standalone IPoIB refuses: rare.
        switch (pick(6)) {
        case 0:
            a.insert(a.end(), {"ipv4.method", "manual", "ipv4.addresses", "192.0.2." + std::to_string(10 + n) + "/24"});
            break;
        case 1:
            a.insert(a.end(), {"ipv4.method", "disabled", "ipv6.method", "manual", "ipv6.addresses",
                               "2001:db8::" + std::to_string(10 + n) + "/64"});
            break;
        case 3:
        case 4:
            a.insert(a.end(), {"ipv4.method", "disabled"});
            break;
        case 2:
            a.insert(a.end(), {"ipv4.method", "manual", "ipv4.addresses",
                               "198.51.100." + std::to_string(10 + n) + "/24", "ipv4.gateway", "198.51.100.1"});
            break;
        default: break;
        }
    }
    void rdma(std::vector<std::string> &a)
    {
        switch (pick(6)) {
        case 0: a.insert(a.end(), {"rdma.link-type", "rxe"}); break;
        case 1: a.insert(a.end(), {"rdma.link-type", "siw", "rdma.link-name", "siw0"}); break;
        case 2: a.insert(a.end(), {"rdma.link-type", "rxe", "rdma.roce-mode", pick(2) ? "v1" : "v2"}); break;
        case 3: a.insert(a.end(), {"rdma.roce-mode", pick(2) ? "v1" : "v2", "rdma.roce-tos", "106"}); break;
        case 4: a.insert(a.end(), {"rdma.traffic-class", "96", "rdma.ttl", "64"}); break;
        default: break;
        }
    }
    std::vector<std::string> base(const std::string &id)
    {
        std::vector<std::string> a = {"type", "infiniband", "con-name", id, "ifname", ipoibIf()};
        mode(a);
        mtu(a, true);
        ip(a, pick(50));
        if (pick(4) == 0)
            a.insert(a.end(), {"ipoib.umcast", pick(2) ? "yes" : "no"});
        return a;
    }
    std::vector<std::string> macOnly(const std::string &id)
    {
        std::string mac = n_.macs.empty() || pick(5) == 0
                              ? "80:00:02:08:fe:80:00:00:00:00:00:00:de:ad:be:ef:00:00:00:01"
                              : one(n_.macs);
        std::vector<std::string> a = {"type", "infiniband", "con-name", id, "mac", mac};
        if (pick(3) == 0)
            a.insert(a.end(), {"ifname", ipoibIf()});
        if (pick(4) == 0)
            a.insert(a.end(), {"p-key", "0x8003"});
        mode(a);
        mtu(a, true);
        return a;
    }
    std::vector<std::string> child(const std::string &id)
    {
        static const std::vector<std::string> pkeys = {"0x8001", "0x0002", "0x8002", "0x7fff", "0xffff",
                                                       "0x8005", "0x0003", "0x8004"};
        std::vector<std::string> a = {"type", "infiniband", "con-name", id, "parent", ipoibIf(), "p-key", one(pkeys)};
        mode(a);
        mtu(a, true);
        ip(a, pick(50));
        return a;
    }
    std::vector<std::vector<std::string>> bond(const std::string &id)
    {
        std::string name = pick(2) ? "bond0" : "bond1";
        static const std::vector<std::string> modes = {"mode=active-backup", "mode=1", "mode=balance-rr",
                                                      "mode=active-backup,fail_over_mac=0",
                                                      "mode=active-backup,fail_over_mac=active,miimon=100",
                                                      "mode=802.3ad"};
        std::vector<std::vector<std::string>> out;
        std::vector<std::string> b = {"type", "bond", "con-name", id, "ifname", name, "bond.options", one(modes)};
        if (pick(2))
            b.insert(b.end(), {"mtu", pick(3) == 0 ? "65520" : pick(2) ? "2044" : "1500"});
        ip(b, pick(50));
        out.push_back(b);
        bool ib = pick(3) != 0;
        unsigned ports = 1 + pick(2);
        for (unsigned i = 0; i < ports; i++) {
            std::string pid = id + "-port" + std::to_string(i);
            std::string ifname = ib ? ipoibIf() : ethIf();
            if (bonded_.count(ifname))
                continue;
            bonded_.insert(ifname);
            std::vector<std::string> p = {"type", ib ? "infiniband" : "ethernet", "con-name", pid, "ifname", ifname,
                                          "master", name, "slave-type", "bond"};
            if (ib)
                mode(p);
            out.push_back(p);
        }
        return out;
    }
    std::vector<std::string> ethernet(const std::string &id)
    {
        std::vector<std::string> a = {"type", "ethernet", "con-name", id, "ifname", ethIf()};
        mtu(a, false);
        ip(a, pick(50));
        rdma(a);
        return a;
    }

    std::mt19937 rng_;
    test::Names n_;
    std::set<std::string> bonded_;
};

// The host as its description file would hold it. Addresses are compared
// as a set: an undo re-adds a removed address at the end of the list (as the
// kernel does), and their order is nothing a profile states.
std::string snapshot(FakePlatform &p)
{
    return test::snapshot(p, true);
}

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

// What the host must hold after a successful up, checked against the
// simulated host's state: the profiles' own words, with the kernel's
// clamps and names (model/) where the profile leaves the value to it.
std::string mismatch(const model::Host &h, const std::vector<NMConnection *> &set)
{
    for (NMConnection *c : set) {
        const char *id = nm_connection_get_id(c);
        std::string ifname = nm_connection_get_interface_name(c) ? nm_connection_get_interface_name(c) : "";
        NMSettingConnection *sc = nm_connection_get_setting_connection(c);
        const char *master = nm_setting_connection_get_master(sc);
        const model::Netdev *nd = nullptr;
        if (auto *ib = nm_connection_get_setting_infiniband(c);
            ib && g_strcmp0(nm_connection_get_connection_type(c), "infiniband") == 0) {
            const model::IpoibNetdev *x = nullptr;
            int pkey = nm_setting_infiniband_get_p_key(ib);
            if (pkey >= 0) {
                x = model::findChild(h, nm_setting_infiniband_get_parent(ib), uint16_t(pkey));
                if (x && x->name != model::childName(nm_setting_infiniband_get_parent(ib), uint16_t(pkey),
                                                      h.childNaming))
                    return std::string(id) + ": the child is named " + x->name;
            } else if (!ifname.empty()) {
                x = h.findIpoib(ifname);
            } else {
                for (const auto &i : h.ipoib)
                    if (i.parent.empty() && model::sameIpoibPort(i.address, nm_setting_infiniband_get_mac_address(ib)))
                        x = &i;
            }
            if (x == nullptr)
                return std::string(id) + ": no interface";
            nd = h.findNetdev(x->name);
            bool connected = g_strcmp0(nm_setting_infiniband_get_transport_mode(ib), "connected") == 0;
            if ((x->mode == model::IpoibMode::Connected) != connected)
                return std::string(id) + ": transport mode";
            guint32 mtu = nm_setting_infiniband_get_mtu(ib);
            if (mtu && !master) {
                auto eff = model::effectiveMtu(mtu, connected ? model::IpoibMode::Connected : model::IpoibMode::Datagram,
                                               model::portOf(h, x->name));
                if (!eff.ok() || nd->mtu != *eff)
                    return std::string(id) + ": MTU " + std::to_string(nd->mtu);
            }
        } else {
            nd = h.findNetdev(ifname);
            if (nd == nullptr)
                return std::string(id) + ": no interface " + ifname;
            if (const model::Bond *b = h.findBond(ifname)) {
                const char *m = nm_setting_bond_get_option_by_name(nm_connection_get_setting_bond(c), "mode");
                if (b->mode != model::bondModeName(m ? m : ""))
                    return std::string(id) + ": bond mode " + b->mode;
            }
            guint32 mtu = 0;
            if (auto *w = nm_connection_get_setting_wired(c))
                mtu = nm_setting_wired_get_mtu(w);
            else if (auto *bib = nm_connection_get_setting_infiniband(c))
                mtu = nm_setting_infiniband_get_mtu(bib);
            if (mtu && !master && nd->mtu != mtu)
                return std::string(id) + ": MTU " + std::to_string(nd->mtu);
        }
        if (master) {
            if (nd->master.empty())
                return std::string(id) + ": not in its bond";
            continue;
        }
        if (!nd->up)
            return std::string(id) + ": link down";
        for (NMSettingIPConfig *ip : {NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip4_config(c)),
                                      NM_SETTING_IP_CONFIG(nm_connection_get_setting_ip6_config(c))}) {
            if (ip == nullptr || g_strcmp0(nm_setting_ip_config_get_method(ip), "manual") != 0)
                continue;
            bool v6 = NM_IS_SETTING_IP6_CONFIG(ip);
            std::set<std::string> want, have;
            for (guint i = 0; i < nm_setting_ip_config_get_num_addresses(ip); i++) {
                NMIPAddress *a = nm_setting_ip_config_get_address(ip, i);
                want.insert(std::string(nm_ip_address_get_address(a)) + "/" +
                            std::to_string(nm_ip_address_get_prefix(a)));
            }
            for (const auto &a : nd->addresses)
                if ((a.find(':') != std::string::npos) == v6 && a.rfind("fe80:", 0) != 0)
                    have.insert(a);
            if (want != have)
                return std::string(id) + ": addresses of " + nd->name;
        }
    }
    return {};
}

class Agreement : public ::testing::TestWithParam<HostCase> {};

TEST_P(Agreement, CheckDryRunAndUpAgree)
{
    const HostCase &hc = GetParam();
    auto state = platform::parseHostDescription(hc.text, hc.name);
    ASSERT_TRUE(state.ok()) << state.error().toString();
    auto probe = std::make_unique<FakePlatform>(*state);
    auto first = probe->readHost();
    ASSERT_TRUE(first.ok());
    Generator gen(hc.seed, test::namesOf(*first));

    unsigned sets = 0, refused = 0, applied = 0, grammar = 0;
    unsigned faults = 0;
    unsigned verdictRefusals = 0, verdictWithSteps = 0;
    for (unsigned round = 0; round < 400; round++) {
        auto spec = gen.set();
        std::vector<GObjectPtr<IbnmProfile>> profiles;
        bool built = true;
        for (const auto &a : spec) {
            auto p = test::profileFromArgs(a);
            if (!p) {
                built = false; // the grammar refuses it: not a check/up matter
                break;
            }
            profiles.push_back(std::move(p));
        }
        if (!built) {
            grammar++;
            continue;
        }
        sets++;
        std::vector<NMConnection *> set;
        GPtrArrayPtr array(g_ptr_array_new());
        for (auto &p : profiles) {
            set.push_back(test::connectionOf(p.get()));
            g_ptr_array_add(array.get(), test::connectionOf(p.get()));
        }

        auto *fake = new FakePlatform(*state);
        auto host = GObjectPtr<IbnmHost>::adopt(
            hostNewFromPlatform(std::unique_ptr<platform::Platform>(fake), IBNM_HOST_KIND_SIMULATED, hc.name));
        std::string before = snapshot(*fake);
        auto snap = fake->readHost();
        ASSERT_TRUE(snap.ok());

        bool checkError = false;
        std::string firstError;
        // Standalone: up sets the addresses itself.
        for (const auto &f : activation::checkProfiles(set, &*snap, nullptr, true))
            // An interface that is not there is a warning, as nmcli accepts
            // the profile (issue 30), and the warning says that up fails
            // until it appears: for up, it is a refusal.
            if (f.severity == IBNM_SEVERITY_ERROR ||
                (f.severity == IBNM_SEVERITY_WARNING && f.code == IBNM_ERROR_NOT_FOUND)) {
                // Every error names the profile and the property to change.
                EXPECT_FALSE(f.property.empty()) << f.message << "\n" << describe(spec);
                EXPECT_FALSE(f.profileId.empty()) << f.message << "\n" << describe(spec);
                checkError = true;
                if (firstError.empty())
                    firstError = f.message;
            }

        // 5. the verdict alone is the full plan's, for each profile alone
        // and for the set (as check plans them).
        std::vector<std::vector<NMConnection *>> plans;
        for (NMConnection *c : set)
            plans.push_back({c});
        plans.push_back(set);
        for (const auto &selected : plans) {
            auto desired = activation::resolve(selected, set, true, true);
            if (!desired.ok())
                continue;
            activation::Options full;
            full.dryRun = true;
            activation::Options verdictOnly = full;
            verdictOnly.verdictOnly = true;
            auto withSteps = activation::plan(*snap, *desired, full);
            auto verdict = activation::plan(*snap, *desired, verdictOnly);
            EXPECT_EQ(verdict.ok, withSteps.ok) << hc.name << ": " << withSteps.error << "\n" << describe(spec);
            EXPECT_EQ(verdict.error, withSteps.error) << hc.name << "\n" << describe(spec);
            EXPECT_EQ(verdict.errorCode, withSteps.errorCode) << describe(spec);
            EXPECT_EQ(verdict.failure.has_value(), withSteps.failure.has_value()) << describe(spec);
            if (verdict.failure && withSteps.failure) {
                EXPECT_EQ(verdict.failure->property(), withSteps.failure->property()) << describe(spec);
                EXPECT_EQ(verdict.failure->profile(), withSteps.failure->profile()) << describe(spec);
            }
            // Nothing kept: no step, no note.
            EXPECT_TRUE(verdict.steps.empty()) << describe(spec);
            EXPECT_TRUE(verdict.notes.empty()) << describe(spec);
            if (!withSteps.ok)
                verdictRefusals++;
            else if (!withSteps.steps.empty())
                verdictWithSteps++;
        }

        GErrorPtr dryErr;
        IbnmApplyReport *dryRaw = nullptr;
        bool dryOk = ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_DRY_RUN), &dryRaw, outPtr(dryErr));
        auto dry = GObjectPtr<IbnmApplyReport>::adopt(dryRaw);
        EXPECT_EQ(snapshot(*fake), before) << "dry run changed the host\n" << describe(spec);

        GErrorPtr upErr;
        IbnmApplyReport *upRaw = nullptr;
        bool upOk = ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &upRaw, outPtr(upErr));
        auto report = GObjectPtr<IbnmApplyReport>::adopt(upRaw);

        // 1. check error <=> dry-run refuses <=> up fails.
        EXPECT_EQ(checkError, !dryOk) << hc.name << " check: " << firstError << "\ndry run: "
                                      << (dryErr ? dryErr->message : "ok") << "\n" << describe(spec);
        EXPECT_EQ(dryOk, upOk) << hc.name << " dry run: " << (dryErr ? dryErr->message : "ok")
                               << "\nup: " << (upErr ? upErr->message : "ok") << "\n" << describe(spec);
        if (!upOk) {
            refused++;
            // 2. a failed up leaves the host as it was, and says so.
            EXPECT_EQ(snapshot(*fake), before) << hc.name << " up failed (" << (upErr ? upErr->message : "")
                                               << ") and left the host changed\n" << describe(spec);
            if (report) {
                EXPECT_TRUE(ibnm_apply_report_get_rolled_back(report.get()) ||
                            ibnm_apply_report_get_operations(report.get()) == 0)
                    << describe(spec);
            }
            continue;
        }
        applied++;
        // 3. the host holds what the profiles say.
        auto after = fake->readHost();
        ASSERT_TRUE(after.ok());
        EXPECT_EQ(mismatch(*after, set), "") << hc.name << "\n" << describe(spec);
        // The report names the children the kernel created.
        GPtrArray *steps = ibnm_apply_report_get_steps(report.get());
        for (guint i = 0; i < steps->len; i++) {
            auto *s = IBNM_STEP(g_ptr_array_index(steps, i));
            if (g_strcmp0(ibnm_step_action_to_string(ibnm_step_get_action(s)), "create-ipoib-child") == 0) {
                EXPECT_NE(after->findIpoib(ibnm_step_get_object(s)), nullptr)
                    << ibnm_step_get_object(s) << "\n" << describe(spec);
            }
        }
        // 4. a second up changes nothing.
        IbnmApplyReport *againRaw = nullptr;
        GErrorPtr againErr;
        bool againOk =
            ibnm::test::applied(ibnm_apply_up(host.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &againRaw, outPtr(againErr));
        auto again = GObjectPtr<IbnmApplyReport>::adopt(againRaw);
        EXPECT_TRUE(againOk) << (againErr ? againErr->message : "") << "\n" << describe(spec);
        if (again) {
            EXPECT_EQ(ibnm_apply_report_get_operations(again.get()), 0u) << hc.name << "\n" << describe(spec);
        }

        // 2 again, where the kernel refuses a step the plan could not foresee:
        // the same set on a fresh host, one operation failing; the host reads
        // back byte-identical and the report says it was rolled back.
        unsigned ops = ibnm_apply_report_get_operations(report.get());
        if (ops == 0)
            continue;
        auto *fresh = new FakePlatform(*state);
        auto freshHost = GObjectPtr<IbnmHost>::adopt(
            hostNewFromPlatform(std::unique_ptr<platform::Platform>(fresh), IBNM_HOST_KIND_SIMULATED, hc.name));
        unsigned nth = 1 + round % ops;
        fresh->addFaults({platform::FaultRule{"", nth, EIO, 0}});
        IbnmApplyReport *faultRaw = nullptr;
        EXPECT_FALSE(ibnm::test::applied(ibnm_apply_up(freshHost.get(), array.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &faultRaw, nullptr))
            << "fault at operation " << nth << "\n" << describe(spec);
        auto faulted = GObjectPtr<IbnmApplyReport>::adopt(faultRaw);
        fresh->clearFaults();
        EXPECT_EQ(snapshot(*fresh), before) << hc.name << ": fault at operation " << nth << " of " << ops << "\n"
                                            << describe(spec);
        if (faulted) {
            EXPECT_TRUE(ibnm_apply_report_get_rolled_back(faulted.get())) << describe(spec);
        }
        faults++;
    }
    std::printf("%s: %u sets (%u refused, %u applied, %u rolled back after an injected fault), %u refused by the "
                "grammar\n",
                hc.name.c_str(), sets, refused, applied, faults, grammar);
    EXPECT_GT(refused, 10u);
    EXPECT_GT(applied, 10u);
    // The verdict alone was compared where the plan refuses and where it
    // has steps to keep.
    EXPECT_GT(verdictRefusals, 10u);
    EXPECT_GT(verdictWithSteps, 10u);
}

INSTANTIATE_TEST_SUITE_P(Hosts, Agreement, ::testing::ValuesIn(hostCases()),
                         [](const ::testing::TestParamInfo<HostCase> &i) {
                             std::string n;
                             for (char c : i.param.name)
                                 n += g_ascii_isalnum(c) ? c : '_';
                             return n;
                         });

} // namespace
