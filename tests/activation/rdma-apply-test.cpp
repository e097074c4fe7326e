// SPDX-License-Identifier: LGPL-2.1-or-later
// The typed RDMA calls (ibnm-rdma-apply.h): they change the simulated host
// through the activation's plan and report, and their errors name their
// arguments.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"

#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/model/rdma.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

using namespace ibnm;

namespace {

GObjectPtr<IbnmHost> simulated(test::TempDir &dir, const char *file)
{
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
        test::srcPath(std::string("examples/hosts/") + file).c_str(), (dir / "state").c_str(), outPtr(err)));
    EXPECT_TRUE(host) << (err ? err->message : "");
    return host;
}

model::Host read(IbnmHost *host)
{
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host));
    EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
    return inventoryHost(inv.get());
}

const model::Port *port(const model::Host &h, const char *device, unsigned number)
{
    const model::Device *d = h.findDevice(device);
    if (d == nullptr)
        return nullptr;
    for (const auto &p : d->ports)
        if (p.number == number)
            return &p;
    return nullptr;
}

// A report out-parameter that owns what it receives.
class Report {
public:
    Report() = default;
    Report(const Report &) = delete;
    Report &operator=(const Report &) = delete;
    ~Report() { reset(); }
    IbnmApplyReport **out() { return &raw_; }
    IbnmApplyReport *get() const { return raw_; }
    explicit operator bool() const { return raw_ != nullptr; }
    void reset()
    {
        g_clear_object(&raw_);
    }

private:
    IbnmApplyReport *raw_ = nullptr;
};

} // namespace

TEST(RdmaApply, LinkAddAndDeleteChangeTheHostAndReportTheirSteps)
{
    test::TempDir dir;
    auto host = simulated(dir, "ethernet-only.host");
    Report dry;
    GErrorPtr err;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_rdma_link_add(host.get(), "rxe0", IBNM_SOFT_LINK_TYPE_RXE, "enp1s0",
                                         IBNM_APPLY_FLAGS_DRY_RUN), dry.out(), outPtr(err)))
        << err->message;
    GPtrArray *steps = ibnm_apply_report_get_steps(dry.get());
    ASSERT_EQ(steps->len, 1u);
    EXPECT_EQ(ibnm_step_get_action(IBNM_STEP(g_ptr_array_index(steps, 0))), IBNM_STEP_ACTION_ADD_RDMA_LINK);
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, 0))), IBNM_STEP_STATE_PLANNED);
    // No profile asked for it.
    EXPECT_STREQ(ibnm_step_get_profile(IBNM_STEP(g_ptr_array_index(steps, 0))), "");
    EXPECT_TRUE(read(host.get()).softLinks.empty());

    Report added;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_rdma_link_add(host.get(), "rxe0", IBNM_SOFT_LINK_TYPE_RXE, "enp1s0",
                                         IBNM_APPLY_FLAGS_NONE), added.out(), outPtr(err)))
        << err->message;
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(ibnm_apply_report_get_steps(added.get()), 0))),
              IBNM_STEP_STATE_DONE);
    model::Host h = read(host.get());
    ASSERT_EQ(h.softLinks.size(), 1u);
    EXPECT_EQ(h.softLinks[0].name, "rxe0");
    EXPECT_EQ(h.softLinks[0].netdev, "enp1s0");

    // One link of a type per netdev: refused before anything changes,
    // naming the argument.
    Report twice;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_rdma_link_add(host.get(), "rxe1", IBNM_SOFT_LINK_TYPE_RXE, "enp1s0",
                                          IBNM_APPLY_FLAGS_NONE), twice.out(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_EXISTS)) << err->message;
    EXPECT_TRUE(g_str_has_prefix(err->message, "link name: ")) << err->message;
    ASSERT_TRUE(twice);
    EXPECT_FALSE(ibnm_apply_report_get_success(twice.get()));
    err.reset();

    Report deleted;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_rdma_link_delete(host.get(), "rxe0", IBNM_APPLY_FLAGS_NONE), deleted.out(), outPtr(err)))
        << err->message;
    EXPECT_EQ(ibnm_step_get_action(IBNM_STEP(g_ptr_array_index(ibnm_apply_report_get_steps(deleted.get()), 0))),
              IBNM_STEP_ACTION_DELETE_RDMA_LINK);
    EXPECT_TRUE(read(host.get()).softLinks.empty());

    Report none;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_rdma_link_delete(host.get(), "rxe0", IBNM_APPLY_FLAGS_NONE), none.out(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND));
    EXPECT_TRUE(g_str_has_prefix(err->message, "link name: ")) << err->message;
    EXPECT_FALSE(none);
}

TEST(RdmaApply, ErrorsNameTheArgument)
{
    test::TempDir dir;
    auto host = simulated(dir, "ethernet-only.host");
    GErrorPtr err;
    Report report;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_rdma_link_add(host.get(), "rxe0", IBNM_SOFT_LINK_TYPE_RXE, "nosuch0",
                                          IBNM_APPLY_FLAGS_NONE), report.out(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND));
    EXPECT_STREQ(err->message, "netdev: no interface nosuch0 on this host");
    // Nothing loaded for a link the planner refused.
    EXPECT_TRUE(hostFakePlatform(host.get())->prepared().empty());
    err.reset();
    report.reset();

    // The name is checked as rdma.link-name checks it, before the host.
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_rdma_link_add(host.get(), "rx/e", IBNM_SOFT_LINK_TYPE_SIW, "enp1s0",
                                          IBNM_APPLY_FLAGS_NONE), report.out(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_INVALID_VALUE));
    EXPECT_TRUE(g_str_has_prefix(err->message, "link name: 'rx/e' is not a valid RDMA device name")) << err->message;
    EXPECT_FALSE(report);
    err.reset();

    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_roce_mode(host.get(), "nosuch", 1, IBNM_ROCE_MODE_V2, IBNM_APPLY_FLAGS_NONE), nullptr,
                                      outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND));
    EXPECT_TRUE(g_str_has_prefix(err->message, "device: ")) << err->message;
    err.reset();

    // RoCE v1 on rxe: the kernel refuses it; nothing stays of the request.
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_rdma_link_add(host.get(), nullptr, IBNM_SOFT_LINK_TYPE_RXE, "enp1s0",
                                         IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)));
    model::Host before = read(host.get());
    ASSERT_EQ(before.softLinks.size(), 1u);
    std::string name = before.softLinks[0].name;
    EXPECT_EQ(name, model::defaultSoftLinkName(model::SoftLinkType::Rxe, "enp1s0"));
    size_t preparedBefore = hostFakePlatform(host.get())->prepared().size();
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_roce_mode(host.get(), name.c_str(), 0, IBNM_ROCE_MODE_V1, IBNM_APPLY_FLAGS_NONE), nullptr,
                                      outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED));
    EXPECT_TRUE(g_str_has_prefix(err->message, "mode: ")) << err->message;
    EXPECT_FALSE(port(read(host.get()), name.c_str(), 1)->defaultRoceMode);
    // Refused by the planner before the kernel is asked for anything: no
    // configfs mounted, no rdma_cm loaded for it.
    EXPECT_EQ(hostFakePlatform(host.get())->prepared().size(), preparedBefore);
}

TEST(RdmaApply, PortSettingsOnAHardwareDevice)
{
    test::TempDir dir;
    auto host = simulated(dir, "mlx5-roce.host");
    GErrorPtr err;
    Report report;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_roce_mode(host.get(), "mlx5_0", 1, IBNM_ROCE_MODE_V1, IBNM_APPLY_FLAGS_NONE),
                                     report.out(), outPtr(err)))
        << err->message;
    auto *step = IBNM_STEP(g_ptr_array_index(ibnm_apply_report_get_steps(report.get()), 0));
    EXPECT_STREQ(ibnm_step_action_to_string(ibnm_step_get_action(step)), "set-roce-mode");
    EXPECT_STREQ(ibnm_step_get_object(step), "mlx5_0/1");
    EXPECT_EQ(port(read(host.get()), "mlx5_0", 1)->defaultRoceMode, model::RoceMode::V1);

    const char *rules[] = {"tclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24", nullptr};
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_traffic_class(host.get(), "mlx5_0", 0, ibnm_traffic_class_from_string("dscp:26"), rules,
                                         IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)))
        << err->message;
    model::Host h = read(host.get());
    EXPECT_EQ(port(h, "mlx5_0", 1)->trafficClass, 104u);
    ASSERT_EQ(port(h, "mlx5_0", 1)->tcRules.size(), 1u);
    EXPECT_EQ(port(h, "mlx5_0", 1)->tcRules[0].tclass, 16);

    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_traffic_class(host.get(), "mlx5_0", 1, 300, nullptr, IBNM_APPLY_FLAGS_NONE), nullptr,
                                          outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_INVALID_VALUE));
    EXPECT_TRUE(g_str_has_prefix(err->message, "traffic class: '300'")) << err->message;
    err.reset();
    const char *twice[] = {"16,dst_ip=1.1.1.0/24", "tclass=8,dst_ip=1.1.1.0/24", nullptr};
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_traffic_class(host.get(), "mlx5_0", 1, -1, twice, IBNM_APPLY_FLAGS_NONE), nullptr,
                                          outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_str_has_prefix(err->message, "rules: two rules match the same addresses")) << err->message;
    err.reset();
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_traffic_class(host.get(), "mlx5_0", 3, 8, nullptr, IBNM_APPLY_FLAGS_NONE), nullptr,
                                          outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND));
    EXPECT_TRUE(g_str_has_prefix(err->message, "port: ")) << err->message;
    err.reset();

    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_roce_enable(host.get(), "mlx5_1", FALSE, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)))
        << err->message;
    EXPECT_EQ(read(host.get()).findDevice("mlx5_1")->roceEnabled, false);
}

// The parsers are the profile keys' (one home for each spelling).
TEST(RdmaApply, ParsersTakeWhatTheKeysTake)
{
    IbnmRoceMode mode = IBNM_ROCE_MODE_V2;
    EXPECT_TRUE(ibnm_roce_mode_from_string("IB/RoCE v1", &mode));
    EXPECT_EQ(mode, IBNM_ROCE_MODE_V1);
    EXPECT_TRUE(ibnm_roce_mode_from_string("2", &mode));
    EXPECT_EQ(mode, IBNM_ROCE_MODE_V2);
    EXPECT_FALSE(ibnm_roce_mode_from_string("v3", &mode));
    IbnmSoftLinkType type = IBNM_SOFT_LINK_TYPE_RXE;
    EXPECT_TRUE(ibnm_soft_link_type_from_string("siw", &type));
    EXPECT_EQ(type, IBNM_SOFT_LINK_TYPE_SIW);
    EXPECT_FALSE(ibnm_soft_link_type_from_string("bogus", &type));
    EXPECT_EQ(ibnm_traffic_class_from_string("dscp:26"), 104);
    EXPECT_EQ(ibnm_traffic_class_from_string("255"), 255);
    EXPECT_EQ(ibnm_traffic_class_from_string("dscp:64"), -1);
    EXPECT_EQ(ibnm_traffic_class_from_string("256"), -1);
}
