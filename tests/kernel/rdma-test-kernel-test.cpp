// SPDX-License-Identifier: LGPL-2.1-or-later
// Platform::runRdmaTest() (`ibnm rdma test`) on a real kernel, INSIDE the
// kernel lab's guest (make check-kernel): a listener and a client, each in a
// thread with its own Linux platform, over two rxe links on the two ends of a
// veth pair; and the ways it fails, each within its bound.
//
// Debian's 6.1 rxe works in the initial network namespace only (its UDP
// socket and route lookups are init_net's: two rxe ends in two namespaces
// time out, checked in the lab), so both ends stay there and policy routing
// sends the traffic between their addresses out of the veth, not through
// the loopback: tests/kernel/rdma-test-guest.sh does the same for the CLI,
// and runs siw (which works across namespaces) in two of them.
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <optional>
#include <string>
#include <thread>

namespace {

using namespace ibnm;
using namespace ibnm::platform;

bool inLab()
{
    return g_file_test("/klab/run", G_FILE_TEST_EXISTS);
}

bool sh(const std::string &command)
{
    const char *argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    gint status = 0;
    if (!g_spawn_sync(nullptr, const_cast<char **>(argv), nullptr, G_SPAWN_DEFAULT, nullptr, nullptr, nullptr,
                      nullptr, &status, nullptr))
        return false;
    return g_spawn_check_wait_status(status, nullptr);
}

uint64_t rxBytes(const std::string &netdev)
{
    char *text = nullptr;
    std::string path = "/sys/class/net/" + netdev + "/statistics/rx_bytes";
    if (!g_file_get_contents(path.c_str(), &text, nullptr, nullptr))
        return 0;
    uint64_t v = g_ascii_strtoull(text, nullptr, 10);
    g_free(text);
    return v;
}

constexpr const char *kA = "203.0.113.1";
constexpr const char *kB = "203.0.113.2";
// A peer with an address but no RDMA link, in a namespace of its own.
constexpr const char *kBare = "198.18.0.2";

// Two rxe links on the ends of a veth pair, traffic between their
// addresses routed through it; and a third end without RDMA.
class RdmaTestLab : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        if (!inLab())
            return;
        const std::string ip = "/usr/sbin/ip ", a = kA, b = kB;
        std::string script = "set -e; " + ip + "link add rt_a type veth peer name rt_b; " + ip + "addr add " + a +
            "/24 dev rt_a; " + ip + "addr add " + b + "/24 dev rt_b; " + ip + "link set rt_a up; " + ip +
            "link set rt_b up; for d in all rt_a rt_b; do echo 1 > /proc/sys/net/ipv4/conf/$d/accept_local; "
            "echo 0 > /proc/sys/net/ipv4/conf/$d/rp_filter; done; " +
            // The local table after rules that send a's traffic to b (and
            // back) out of the veth.
            ip + "rule add pref 1000 lookup local; " + ip + "rule del pref 0; " + ip + "rule add pref 100 iif lo from " +
            a + " to " + b + " lookup 100; " + ip + "rule add pref 101 iif lo from " + b + " to " + a +
            " lookup 101; " + ip + "route add " + b + " dev rt_a src " + a + " table 100; " + ip + "route add " + a +
            " dev rt_b src " + b + " table 101; rdma link add rxe_rt_a type rxe netdev rt_a; "
            "rdma link add rxe_rt_b type rxe netdev rt_b; " +
            ip + "netns add rt_bare; " + ip + "link add rt_c type veth peer name rt_d; " + ip +
            "link set rt_d netns rt_bare; " + ip + "addr add 198.18.0.1/24 dev rt_c; " + ip + "link set rt_c up; " +
            "rdma link add rxe_rt_c type rxe netdev rt_c; " + ip + "-n rt_bare addr add " + kBare + "/24 dev rt_d; " +
            ip + "-n rt_bare link set rt_d up; " + ip + "link add rt_nordma type dummy; " + ip +
            "addr add 192.0.2.77/24 dev rt_nordma; " + ip + "link set rt_nordma up";
        ready_ = sh(script);
    }
    // The routing back as it was. The rxe links stay (with their netdevs):
    // librdmacm keeps the verbs context of a device it used open until the
    // process ends (librdmacm/cma.c, ucma_put_device() frees the PD only),
    // and rxe cannot be detached from it, so `rdma link delete` here would
    // wait for this process; the guest ends with it.
    static void TearDownTestSuite()
    {
        if (!inLab())
            return;
        sh("/usr/sbin/ip rule del pref 100; /usr/sbin/ip rule del pref 101; "
           "/usr/sbin/ip rule add pref 0 lookup local; /usr/sbin/ip rule del pref 1000");
    }
    void SetUp() override
    {
        if (!inLab())
            GTEST_SKIP() << "not inside the kernel lab guest: run `make check-kernel`";
        ASSERT_TRUE(ready_) << "the veth pair, its routes and rxe links could not be set up";
    }

    // A listener in a thread; started() once it listens.
    struct Listener {
        RdmaTestSpec spec;
        std::promise<void> listening;
        std::future<Result<RdmaTestOutcome>> outcome;
        void start()
        {
            spec.listening = [this] { listening.set_value(); };
            spec.cancelled = [] { return false; };
            auto ready = listening.get_future();
            outcome = std::async(std::launch::async, [this] {
                return createLinuxPlatform(LinuxOptions{})->runRdmaTest(spec);
            });
            ready.wait_for(std::chrono::seconds(30));
        }
    };

    static RdmaTestSpec clientSpec(const char *to, unsigned port)
    {
        RdmaTestSpec s;
        s.address = to;
        s.port = port;
        s.count = 20;
        s.durationMs = 300;
        s.writeSize = 65536;
        s.timeoutMs = 10000;
        s.cancelled = [] { return false; };
        return s;
    }

    static inline bool ready_ = false;
};

TEST_F(RdmaTestLab, RxePairBothWaysWithTheToSOnBothSides)
{
    Listener l;
    l.spec.listen = true;
    l.spec.address = kB;
    l.spec.port = 4401;
    l.spec.timeoutMs = 20000;
    l.spec.acceptTimeoutMs = 30000;
    l.start();
    RdmaTestSpec c = clientSpec(kB, 4401);
    c.sourceAddress = kA;
    c.tos = 106;
    c.gidType = model::GidType::RoceV2;
    c.bidirectional = true;
    uint64_t before = rxBytes("rt_b");
    auto client = createLinuxPlatform(LinuxOptions{})->runRdmaTest(c);
    ASSERT_TRUE(client.ok()) << client.error().toString();
    auto server = l.outcome.get();
    ASSERT_TRUE(server.ok()) << server.error().toString();

    EXPECT_EQ(client->local.device, "rxe_rt_a");
    EXPECT_EQ(client->local.netdev, "rt_a");
    EXPECT_EQ(client->local.address, kA);
    EXPECT_EQ(client->local.protocol, model::RdmaProtocol::RoceV2);
    EXPECT_EQ(client->local.tos, 106u);
    EXPECT_EQ(client->local.pathMtu, 1024u);
    ASSERT_TRUE(client->local.gidIndex);
    EXPECT_EQ(client->peer.device, "rxe_rt_b");
    EXPECT_EQ(client->peer.netdev, "rt_b");
    EXPECT_EQ(client->peer.protocol, model::RdmaProtocol::RoceV2);
    EXPECT_EQ(client->peer.tos, 106u) << "the listener's QP has the client's ToS";
    EXPECT_EQ(server->local.device, "rxe_rt_b");
    EXPECT_EQ(server->peer.device, "rxe_rt_a");
    EXPECT_TRUE(server->listener);
    ASSERT_TRUE(client->latency);
    EXPECT_EQ(client->latency->count, 20u);
    EXPECT_GT(client->latency->minNs, 0u);
    EXPECT_LE(client->latency->minNs, client->latency->medianNs);
    ASSERT_TRUE(server->latency) << "the client's report";
    EXPECT_EQ(server->latency->medianNs, client->latency->medianNs);
    ASSERT_TRUE(client->toListener);
    ASSERT_TRUE(client->toClient);
    EXPECT_GT(client->toListener->bytes, 0u);
    EXPECT_GT(client->toClient->bytes, 0u);
    EXPECT_EQ(server->toClient->bytes, client->toClient->bytes);
    // The writes crossed the veth pair, not the loopback.
    EXPECT_GE(rxBytes("rt_b") - before, client->toListener->bytes);
    std::printf("rxe pair: median RTT %.1f us, %.3f Gb/s a->b, %.3f Gb/s b->a\n",
                client->latency->medianNs / 1000.0, client->toListener->bytes * 8.0 / (client->toListener->usec * 1e3),
                client->toClient->bytes * 8.0 / (client->toClient->usec * 1e3));
}

TEST_F(RdmaTestLab, NobodyListening)
{
    RdmaTestSpec c = clientSpec(kB, 4402);
    c.sourceAddress = kA;
    auto t0 = std::chrono::steady_clock::now();
    auto r = createLinuxPlatform(LinuxOptions{})->runRdmaTest(c);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), IBNM_ERROR_NOT_FOUND) << r.error().toString();
    EXPECT_NE(r.error().message().find("nothing listens on 203.0.113.2 port 4402"), std::string::npos)
        << r.error().toString();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST_F(RdmaTestLab, APeerWithoutAnRdmaLinkFailsWithinTheBound)
{
    RdmaTestSpec c = clientSpec(kBare, 4403);
    c.timeoutMs = 3000;
    auto t0 = std::chrono::steady_clock::now();
    auto r = createLinuxPlatform(LinuxOptions{})->runRdmaTest(c);
    auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().code() == IBNM_ERROR_TIMED_OUT || r.error().code() == IBNM_ERROR_PLATFORM)
        << r.error().toString();
    EXPECT_NE(r.error().message().find(kBare), std::string::npos) << r.error().toString();
    // Address and route resolution, then the connection: each bounded.
    EXPECT_LT(took, std::chrono::seconds(3 * 3 + 3)) << r.error().toString();
    std::printf("a peer without RDMA: '%s' after %.1f s\n", r.error().toString().c_str(),
                std::chrono::duration<double>(took).count());
}

TEST_F(RdmaTestLab, ListeningWhereNoRdmaDeviceIs)
{
    RdmaTestSpec l;
    l.listen = true;
    l.address = "192.0.2.77";
    l.port = 4404;
    l.acceptTimeoutMs = 2000;
    l.cancelled = [] { return false; };
    auto r = createLinuxPlatform(LinuxOptions{})->runRdmaTest(l);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), IBNM_ERROR_NOT_FOUND) << r.error().toString();
    EXPECT_NE(r.error().message().find("no RDMA device behind 192.0.2.77"), std::string::npos)
        << r.error().toString();
}

TEST_F(RdmaTestLab, RxeHasNoRoceV1AndAGidIndexMustBeInUse)
{
    RdmaTestSpec c = clientSpec(kB, 4405);
    c.sourceAddress = kA;
    c.gidType = model::GidType::IbRoceV1;
    auto v1 = createLinuxPlatform(LinuxOptions{})->runRdmaTest(c);
    ASSERT_FALSE(v1.ok());
    EXPECT_EQ(v1.error().code(), IBNM_ERROR_NOT_SUPPORTED) << v1.error().toString();
    EXPECT_NE(v1.error().message().find("no IB/RoCE v1 GID"), std::string::npos) << v1.error().toString();
    c.gidType.reset();
    c.gidIndex = 900;
    auto idx = createLinuxPlatform(LinuxOptions{})->runRdmaTest(c);
    ASSERT_FALSE(idx.ok());
    EXPECT_EQ(idx.error().code(), IBNM_ERROR_INVALID_VALUE) << idx.error().toString();
    EXPECT_NE(idx.error().message().find("GID index 900 is not in use on rxe_rt_a/1"), std::string::npos)
        << idx.error().toString();
}

TEST_F(RdmaTestLab, CancelledWhileListening)
{
    RdmaTestSpec l;
    l.listen = true;
    l.address = kB;
    l.port = 4406;
    auto t0 = std::chrono::steady_clock::now();
    l.cancelled = [t0] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(500); };
    auto r = createLinuxPlatform(LinuxOptions{})->runRdmaTest(l);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message().find("cancelled"), std::string::npos) << r.error().toString();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
}

} // namespace
