// SPDX-License-Identifier: LGPL-2.1-or-later
// IbnmRdmaTest, IbnmRdmaTestResult and IbnmRdmaPath: what the library hands
// the platform (its properties and a profile's settings), what it makes of
// the platform's outcome, its thread, cancellation and signal. The traffic
// itself is the Linux platform's, run on a real kernel by make check-kernel
// (tests/kernel/rdma-test-kernel-test.cpp); here a platform stands in for it.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

using namespace ibnm;

namespace {

// The Linux platform's place: records the spec and answers with `outcome`
// (or `error`); `waitForCancel` waits as a test would, until cancelled.
struct StubPlatform : platform::FakePlatform {
    StubPlatform() : FakePlatform(platform::FakeState{}) {}
    Result<platform::RdmaTestOutcome> runRdmaTest(const platform::RdmaTestSpec &spec) override
    {
        seen = spec;
        calls++;
        if (spec.listening)
            spec.listening();
        while (waitForCancel && !spec.cancelled())
            g_usleep(1000);
        if (error)
            return *error;
        return outcome;
    }
    platform::RdmaTestSpec seen;
    std::atomic<int> calls{0};
    platform::RdmaTestOutcome outcome;
    std::optional<Error> error;
    bool waitForCancel = false;
};

platform::RdmaTestOutcome sampleOutcome()
{
    platform::RdmaTestOutcome o;
    o.local = {"198.51.100.1", "rxe_a", 1, "ra", model::RdmaProtocol::RoceV2, 1u,
               "0000:0000:0000:0000:0000:ffff:c633:6401", 106u, 1024u};
    o.peer = {"198.51.100.2", "rxe_b", 1, "rb", model::RdmaProtocol::RoceV2, 1u,
              "0000:0000:0000:0000:0000:ffff:c633:6402", 106u, 1024u};
    o.pingSize = 64;
    o.writeSize = 65536;
    o.latency = platform::LatencySummary{100, 20000, 25500, 90000, 120000, 30000};
    o.toListener = platform::BandwidthFigure{1250000000ull, 1000000}; // 10 Gb/s
    return o;
}

class RdmaTestApi : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto stub = std::make_unique<StubPlatform>();
        stub_ = stub.get();
        host_.reset(hostNewFromPlatform(std::move(stub), IBNM_HOST_KIND_SYSTEM, "stub"));
        test_.reset(ibnm_rdma_test_new(host_.get()));
    }
    IbnmRdmaTestResult *run(GError **error)
    {
        return ibnm_rdma_test_run(test_.get(), nullptr, error);
    }
    CPtr<IbnmHost, g_object_unref> host_;
    CPtr<IbnmRdmaTest, g_object_unref> test_;
    StubPlatform *stub_ = nullptr;
};

} // namespace

TEST_F(RdmaTestApi, ResultCarriesBothPathsAndTheFigures)
{
    stub_->outcome = sampleOutcome();
    g_object_set(test_.get(), IBNM_RDMA_TEST_ADDRESS, "198.51.100.2", nullptr);
    GErrorPtr err;
    CPtr<IbnmRdmaTestResult, g_object_unref> r(run(outPtr(err)));
    ASSERT_TRUE(r) << err->message;
    IbnmRdmaPath *local = ibnm_rdma_test_result_get_local_path(r.get());
    IbnmRdmaPath *peer = ibnm_rdma_test_result_get_peer_path(r.get());
    EXPECT_STREQ(ibnm_rdma_path_get_device(local), "rxe_a");
    EXPECT_STREQ(ibnm_rdma_path_get_netdev(local), "ra");
    EXPECT_STREQ(ibnm_rdma_path_get_protocol(local), "RoCE v2");
    EXPECT_EQ(ibnm_rdma_path_get_gid_index(local), 1);
    EXPECT_EQ(ibnm_rdma_path_get_tos(local), 106);
    EXPECT_EQ(ibnm_rdma_path_get_service_level(local), 3); // 106 >> 5
    EXPECT_EQ(ibnm_rdma_path_get_priority(local), 3);
    EXPECT_EQ(ibnm_rdma_path_get_mtu(local), 1024u);
    EXPECT_STREQ(ibnm_rdma_path_get_address(peer), "198.51.100.2");
    EXPECT_STREQ(ibnm_rdma_path_get_netdev(peer), "rb");
    EXPECT_FALSE(ibnm_rdma_test_result_get_listener(r.get()));
    EXPECT_EQ(ibnm_rdma_test_result_get_round_trips(r.get()), 100u);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_latency_min(r.get()), 20.0);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_latency_median(r.get()), 25.5);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_latency_p99(r.get()), 90.0);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_latency_max(r.get()), 120.0);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_latency_mean(r.get()), 30.0);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_bandwidth(r.get()), 10.0);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_write_seconds(r.get()), 1.0);
    // Not measured: -1, not 0.
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_reverse_bandwidth(r.get()), -1.0);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_reverse_write_seconds(r.get()), -1.0);
    gdouble viaProperty = 0;
    g_object_get(r.get(), IBNM_RDMA_TEST_RESULT_BANDWIDTH, &viaProperty, nullptr);
    EXPECT_DOUBLE_EQ(viaProperty, 10.0);
}

TEST_F(RdmaTestApi, IwarpPathHasNoGidToSOrMtu)
{
    platform::RdmaTestOutcome o;
    o.local = {"192.0.2.1", "siw_a", 1, "sa", model::RdmaProtocol::Iwarp, std::nullopt, "", std::nullopt,
               std::nullopt};
    stub_->outcome = o;
    g_object_set(test_.get(), IBNM_RDMA_TEST_ADDRESS, "192.0.2.2", nullptr);
    CPtr<IbnmRdmaTestResult, g_object_unref> r(run(nullptr));
    ASSERT_TRUE(r);
    IbnmRdmaPath *local = ibnm_rdma_test_result_get_local_path(r.get());
    EXPECT_STREQ(ibnm_rdma_path_get_protocol(local), "iWARP");
    EXPECT_EQ(ibnm_rdma_path_get_gid_index(local), -1);
    EXPECT_EQ(ibnm_rdma_path_get_gid(local), nullptr);
    EXPECT_EQ(ibnm_rdma_path_get_tos(local), -1);
    EXPECT_EQ(ibnm_rdma_path_get_service_level(local), -1);
    EXPECT_EQ(ibnm_rdma_path_get_mtu(local), 0u);
    EXPECT_EQ(ibnm_rdma_test_result_get_round_trips(r.get()), 0u);
    EXPECT_DOUBLE_EQ(ibnm_rdma_test_result_get_latency_median(r.get()), -1.0);
}

TEST_F(RdmaTestApi, PropertiesReachThePlatform)
{
    g_object_set(test_.get(), IBNM_RDMA_TEST_ADDRESS, "peer.example", IBNM_RDMA_TEST_PORT, 7000u,
                 IBNM_RDMA_TEST_SOURCE_ADDRESS, "198.51.100.1", IBNM_RDMA_TEST_COUNT, 5u, IBNM_RDMA_TEST_PING_SIZE,
                 128u, IBNM_RDMA_TEST_SIZE, 4096u, IBNM_RDMA_TEST_DURATION, 250u, IBNM_RDMA_TEST_BIDIRECTIONAL, TRUE,
                 IBNM_RDMA_TEST_TOS, 32, IBNM_RDMA_TEST_ROCE_MODE, int(IBNM_ROCE_MODE_V1), IBNM_RDMA_TEST_TIMEOUT,
                 3000u, nullptr);
    CPtr<IbnmRdmaTestResult, g_object_unref> r(run(nullptr));
    ASSERT_TRUE(r);
    const auto &s = stub_->seen;
    EXPECT_FALSE(s.listen);
    EXPECT_EQ(s.address, "peer.example");
    EXPECT_EQ(s.port, 7000u);
    EXPECT_EQ(s.sourceAddress, "198.51.100.1");
    EXPECT_EQ(s.count, 5u);
    EXPECT_EQ(s.pingSize, 128u);
    EXPECT_EQ(s.writeSize, 4096u);
    EXPECT_EQ(s.durationMs, 250u);
    EXPECT_TRUE(s.bidirectional);
    EXPECT_EQ(s.tos, 32u);
    EXPECT_FALSE(s.gidIndex);
    EXPECT_EQ(s.gidType, model::GidType::IbRoceV1);
    EXPECT_EQ(s.timeoutMs, 3000u);
    // An explicit GID index wins over the RoCE mode.
    g_object_set(test_.get(), IBNM_RDMA_TEST_GID_INDEX, 3, nullptr);
    r.reset(run(nullptr));
    EXPECT_EQ(stub_->seen.gidIndex, 3u);
    EXPECT_FALSE(stub_->seen.gidType);
}

TEST_F(RdmaTestApi, DefaultsAreRdmaCmsChoices)
{
    g_object_set(test_.get(), IBNM_RDMA_TEST_ADDRESS, "198.51.100.2", nullptr);
    CPtr<IbnmRdmaTestResult, g_object_unref> r(run(nullptr));
    ASSERT_TRUE(r);
    EXPECT_EQ(stub_->seen.port, platform::kRdmaTestDefaultPort);
    EXPECT_FALSE(stub_->seen.tos);
    EXPECT_FALSE(stub_->seen.gidIndex);
    EXPECT_FALSE(stub_->seen.gidType);
    EXPECT_EQ(stub_->seen.acceptTimeoutMs, 0u);
    EXPECT_GT(stub_->seen.timeoutMs, 0u);
}

TEST_F(RdmaTestApi, AProfileGivesItsInterfaceTosAndRoceMode)
{
    GErrorPtr err;
    const char *argv[] = {"type", "ethernet", "con-name", "rxe-a", "ifname", "ra", nullptr};
    CPtr<IbnmProfile, g_object_unref> p(ibnm_profile_new_from_args(argv, outPtr(err)));
    ASSERT_TRUE(p) << err->message;
    ASSERT_TRUE(ibnm_profile_set_user_option(p.get(), "rdma.roce-tos", "dscp:26", nullptr));
    ASSERT_TRUE(ibnm_profile_set_user_option(p.get(), "rdma.roce-mode", "v2", nullptr));
    ASSERT_TRUE(ibnm_rdma_test_set_profile(test_.get(), ibnm_profile_get_connection(p.get()), outPtr(err)));
    g_object_set(test_.get(), IBNM_RDMA_TEST_ADDRESS, "198.51.100.2", nullptr);
    CPtr<IbnmRdmaTestResult, g_object_unref> r(run(nullptr));
    ASSERT_TRUE(r);
    EXPECT_EQ(stub_->seen.interface, "ra");
    EXPECT_EQ(stub_->seen.tos, 104u);
    EXPECT_EQ(stub_->seen.gidType, model::GidType::RoceV2);
    // An option given after the profile overrides it.
    g_object_set(test_.get(), IBNM_RDMA_TEST_TOS, 0, nullptr);
    r.reset(run(nullptr));
    EXPECT_EQ(stub_->seen.tos, 0u);
}

TEST_F(RdmaTestApi, AProfileWithoutInterfaceIsRefused)
{
    CPtr<NMConnection, g_object_unref> c(nm_simple_connection_new());
    NMSetting *s = nm_setting_connection_new();
    g_object_set(s, NM_SETTING_CONNECTION_ID, "x", NM_SETTING_CONNECTION_TYPE, "802-3-ethernet", nullptr);
    nm_connection_add_setting(c.get(), s);
    GErrorPtr err;
    EXPECT_FALSE(ibnm_rdma_test_set_profile(test_.get(), c.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_MISSING_PROPERTY);
    EXPECT_TRUE(g_str_has_prefix(err->message, "connection.interface-name: ")) << err->message;
    char *ifname = nullptr;
    g_object_get(test_.get(), IBNM_RDMA_TEST_INTERFACE, &ifname, nullptr);
    EXPECT_EQ(ifname, nullptr) << "nothing changed";
    g_free(ifname);
}

TEST_F(RdmaTestApi, AClientWithoutAddressIsRefusedBeforeThePlatform)
{
    GErrorPtr err;
    EXPECT_EQ(run(outPtr(err)), nullptr);
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_INVALID_ARGUMENT);
    EXPECT_TRUE(g_str_has_prefix(err->message, "address: ")) << err->message;
    EXPECT_EQ(stub_->calls, 0);
}

TEST_F(RdmaTestApi, ThePlatformsErrorKeepsItsCode)
{
    stub_->error = Error(IBNM_ERROR_TIMED_OUT, "no answer from 198.51.100.9 port 4266 within 1.0 s");
    g_object_set(test_.get(), IBNM_RDMA_TEST_ADDRESS, "198.51.100.9", nullptr);
    GErrorPtr err;
    EXPECT_EQ(run(outPtr(err)), nullptr);
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_TIMED_OUT));
    EXPECT_STREQ(err->message, "no answer from 198.51.100.9 port 4266 within 1.0 s");
}

TEST_F(RdmaTestApi, CancellingEndsTheRunAsGioDoes)
{
    stub_->waitForCancel = true;
    g_object_set(test_.get(), IBNM_RDMA_TEST_LISTEN, TRUE, nullptr);
    CPtr<GCancellable, g_object_unref> cancel(g_cancellable_new());
    CPtr<GMainLoop, g_main_loop_unref> loop(g_main_loop_new(nullptr, FALSE));
    struct State {
        GMainLoop *loop;
        GErrorPtr error;
        bool gotResult = false;
        int listened = 0;
        GThread *mainThread = g_thread_self();
        bool listenedInMainThread = false;
    } st{loop.get()};
    g_signal_connect(test_.get(), "listening", G_CALLBACK(+[](IbnmRdmaTest *, gpointer data) {
                         auto *s = static_cast<State *>(data);
                         s->listened++;
                         s->listenedInMainThread = g_thread_self() == s->mainThread;
                     }),
                     &st);
    ibnm_rdma_test_run_async(
        test_.get(), cancel.get(),
        [](GObject *src, GAsyncResult *res, gpointer data) {
            auto *s = static_cast<State *>(data);
            CPtr<IbnmRdmaTestResult, g_object_unref> r(
                ibnm_rdma_test_run_finish(IBNM_RDMA_TEST(src), res, outPtr(s->error)));
            s->gotResult = r != nullptr;
            g_main_loop_quit(s->loop);
        },
        &st);
    g_timeout_add(50, [](gpointer c) { g_cancellable_cancel(G_CANCELLABLE(c)); return G_SOURCE_REMOVE; }, cancel.get());
    g_main_loop_run(loop.get());
    EXPECT_FALSE(st.gotResult);
    ASSERT_TRUE(st.error);
    EXPECT_TRUE(g_error_matches(st.error.get(), G_IO_ERROR, G_IO_ERROR_CANCELLED)) << st.error->message;
    EXPECT_EQ(st.listened, 1);
    EXPECT_TRUE(st.listenedInMainThread);
    EXPECT_TRUE(stub_->seen.listen);
}

TEST(RdmaTestSimulated, TheSimulatedHostHasNoDataPath)
{
    test::TempDir tmp;
    auto fake = platform::FakePlatform::open(test::srcPath("examples/hosts/mlx5-roce.host"), tmp / "state");
    ASSERT_TRUE(fake.ok()) << fake.error().toString();
    CPtr<IbnmHost, g_object_unref> host(hostNewFromPlatform(
        std::unique_ptr<platform::Platform>(std::move(fake).value().release()), IBNM_HOST_KIND_SIMULATED, "x"));
    CPtr<IbnmRdmaTest, g_object_unref> t(ibnm_rdma_test_new(host.get()));
    g_object_set(t.get(), IBNM_RDMA_TEST_ADDRESS, "192.0.2.2", nullptr);
    GErrorPtr err;
    EXPECT_EQ(ibnm_rdma_test_run(t.get(), nullptr, outPtr(err)), nullptr);
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED));
    EXPECT_NE(std::string(err->message).find("simulated host has no RDMA data path"), std::string::npos)
        << err->message;
}

TEST(RdmaTestSummary, NearestRankPercentiles)
{
    std::vector<uint64_t> samples;
    for (uint64_t i = 100; i >= 1; i--)
        samples.push_back(i * 1000);
    auto s = platform::summarizeLatency(samples);
    EXPECT_EQ(s.count, 100u);
    EXPECT_EQ(s.minNs, 1000u);
    EXPECT_EQ(s.medianNs, 50000u); // the 50th of 100
    EXPECT_EQ(s.p99Ns, 99000u);    // the 99th
    EXPECT_EQ(s.maxNs, 100000u);
    EXPECT_EQ(s.meanNs, 50500u);
    auto one = platform::summarizeLatency({7});
    EXPECT_EQ(one.medianNs, 7u);
    EXPECT_EQ(one.p99Ns, 7u);
    EXPECT_EQ(platform::summarizeLatency({}).count, 0u);
    auto three = platform::summarizeLatency({30, 10, 20});
    EXPECT_EQ(three.medianNs, 20u);
    EXPECT_EQ(three.p99Ns, 30u);
}
