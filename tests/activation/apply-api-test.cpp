// SPDX-License-Identifier: LGPL-2.1-or-later
// The public activation API: reports, GErrors, flags.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"

#include <NetworkManager.h>
#include "libcore/ibnm-host-private.hpp"
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "libcore/simulator/fake-host-file.hpp"
#include "libcore/simulator/fake-platform.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <set>

// step-action-c.c
extern "C" const char *test_step_action_to_string_of_int(int value);

using namespace ibnm;

namespace {

GObjectPtr<IbnmHost> simulated(test::TempDir &dir)
{
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
        test::srcPath("examples/hosts/ethernet-only.host").c_str(), (dir / "state").c_str(), outPtr(err)));
    EXPECT_TRUE(host) << (err ? err->message : "");
    return host;
}

GObjectPtr<NMConnection> rxeProfile(const char *roceMode)
{
    auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
    NMSetting *s = nm_setting_connection_new();
    g_object_set(s, NM_SETTING_CONNECTION_ID, "rxe-enp1s0", NM_SETTING_CONNECTION_UUID,
                 "5a1e6b0c-3c3a-4b0f-9c1e-0d8a1d0b7e11", NM_SETTING_CONNECTION_TYPE, "802-3-ethernet",
                 NM_SETTING_CONNECTION_INTERFACE_NAME, "enp1s0", nullptr);
    nm_connection_add_setting(c.get(), s);
    nm_connection_add_setting(c.get(), nm_setting_wired_new());
    NMSetting *u = nm_setting_user_new();
    nm_setting_user_set_data(NM_SETTING_USER(u), "rdma.link-type", "rxe", nullptr);
    nm_setting_user_set_data(NM_SETTING_USER(u), "rdma.link-name", "rxe0", nullptr);
    if (roceMode)
        nm_setting_user_set_data(NM_SETTING_USER(u), "rdma.roce-mode", roceMode, nullptr);
    nm_connection_add_setting(c.get(), u);
    return c;
}

GPtrArrayPtr one(NMConnection *c)
{
    GPtrArrayPtr a(g_ptr_array_new());
    g_ptr_array_add(a.get(), c);
    return a;
}

// ibnm_apply_up() of rxeProfile("v2") on `host`, whose kernel refuses the
// RoCE mode (EINVAL): what it returns, with `report` and `error` as it set them.
gboolean upRefusedRoceMode(IbnmHost *host, GObjectPtr<IbnmApplyReport> &report, GError **error)
{
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    dynamic_cast<platform::FakePlatform &>(hostPlatform(host)).failNext("setDefaultRoceMode", EINVAL);
    IbnmApplyReport *raw = nullptr;
    gboolean ok = ibnm::test::applied(ibnm_apply_up(host, profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &raw, error);
    report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    return ok;
}

} // namespace

TEST(ApplyApi, UpReportsStepsAndPersistsOnTheSimulatedHost)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    IbnmApplyReport *raw = nullptr;
    GErrorPtr err;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &raw, outPtr(err)))
        << err->message;
    auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    EXPECT_TRUE(ibnm_apply_report_get_success(report.get()));
    EXPECT_FALSE(ibnm_apply_report_get_rolled_back(report.get()));
    GPtrArray *steps = ibnm_apply_report_get_steps(report.get());
    ASSERT_EQ(steps->len, 2u);
    auto *s0 = IBNM_STEP(g_ptr_array_index(steps, 0));
    EXPECT_STREQ(ibnm_step_action_to_string(ibnm_step_get_action(s0)), "add-rdma-link");
    EXPECT_STREQ(ibnm_step_get_object(s0), "rxe0");
    EXPECT_STREQ(ibnm_step_get_profile(s0), "rxe-enp1s0");
    EXPECT_EQ(ibnm_step_get_state(s0), IBNM_STEP_STATE_DONE);
    EXPECT_EQ(ibnm_step_get_error(s0), nullptr);
    EXPECT_EQ(ibnm_apply_report_get_operations(report.get()), 2u);

    // Another process (a new host object on the same state) sees the link.
    auto again = simulated(dir);
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(again.get()));
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
    EXPECT_EQ(inventoryHost(inv.get()).softLinks.size(), 1u);
}

TEST(ApplyApi, FailureSetsErrorAndStillReports)
{
    test::TempDir dir;
    auto host = simulated(dir);
    GObjectPtr<IbnmApplyReport> report;
    GErrorPtr err;
    EXPECT_FALSE(upRefusedRoceMode(host.get(), report, outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_PLATFORM));
    ASSERT_TRUE(report);
    EXPECT_TRUE(ibnm_apply_report_get_rolled_back(report.get()));
    EXPECT_STREQ(ibnm_apply_report_get_error(report.get()), err->message);
    GPtrArray *steps = ibnm_apply_report_get_steps(report.get());
    ASSERT_EQ(steps->len, 2u);
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, 0))), IBNM_STEP_STATE_UNDONE);
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, 1))), IBNM_STEP_STATE_FAILED);
    EXPECT_NE(ibnm_step_get_error(IBNM_STEP(g_ptr_array_index(steps, 1))), nullptr);
}

// A profile `ibnm check` finds an error in is refused before anything
// changes, with the check's code and property, and a report without steps.
TEST(ApplyApi, CheckErrorRefusesUpWithItsCode)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v1"); // rxe is RoCE v2 only
    auto profiles = one(c.get());
    IbnmApplyReport *raw = nullptr;
    GErrorPtr err;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_DRY_RUN), &raw, outPtr(err)));
    auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_INVALID_PROPERTY)) << err->message;
    EXPECT_NE(std::string(err->message).find("rdma.roce-mode: "), std::string::npos) << err->message;
    ASSERT_TRUE(report);
    EXPECT_FALSE(ibnm_apply_report_get_success(report.get()));
    EXPECT_EQ(ibnm_apply_report_get_steps(report.get())->len, 0u);
    EXPECT_EQ(ibnm_apply_report_get_operations(report.get()), 0u);
}

TEST(ApplyApi, DryRunChangesNothing)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile(nullptr);
    auto profiles = one(c.get());
    IbnmApplyReport *raw = nullptr;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_DRY_RUN), &raw, nullptr));
    auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    EXPECT_EQ(ibnm_apply_report_get_operations(report.get()), 0u);
    GPtrArray *steps = ibnm_apply_report_get_steps(report.get());
    ASSERT_EQ(steps->len, 1u);
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, 0))), IBNM_STEP_STATE_PLANNED);
    EXPECT_EQ(hostFakePlatform(host.get())->operationCount(), 0u);
}

TEST(ApplyApi, BadProfileIsAReportThatDidNotStart)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile(nullptr);
    nm_setting_user_set_data(NM_SETTING_USER(nm_connection_get_setting(c.get(), NM_TYPE_SETTING_USER)),
                             "rdma.roce-tos", "999", nullptr);
    auto profiles = one(c.get());
    auto report = GObjectPtr<IbnmApplyReport>::adopt(
        ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE));
    ASSERT_TRUE(report);
    EXPECT_FALSE(ibnm_apply_report_get_started(report.get()));
    EXPECT_FALSE(ibnm_apply_report_get_success(report.get()));
    EXPECT_FALSE(ibnm_apply_report_get_rolled_back(report.get()));
    EXPECT_EQ(ibnm_apply_report_get_steps(report.get())->len, 0u);
    EXPECT_EQ(ibnm_apply_report_get_operations(report.get()), 0u);
    GErrorPtr err;
    EXPECT_FALSE(ibnm_apply_report_propagate_error(report.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->domain, IBNM_ERROR);
    EXPECT_EQ(std::string(err->message).rfind("rxe-enp1s0: rdma.roce-tos: ", 0), 0u) << err->message;
    EXPECT_STREQ(ibnm_apply_report_get_error(report.get()), err->message);
    EXPECT_EQ(hostFakePlatform(host.get())->operationCount(), 0u);
}

TEST(ApplyApi, FlagsAreRegistered)
{
    auto *k = static_cast<GFlagsClass *>(g_type_class_ref(IBNM_TYPE_APPLY_FLAGS));
    ASSERT_NE(g_flags_get_value_by_nick(k, "rdma-only"), nullptr);
    EXPECT_EQ(g_flags_get_value_by_nick(k, "dry-run")->value, guint(IBNM_APPLY_FLAGS_DRY_RUN));
    g_type_class_unref(k);
}

TEST(ApplyApi, StepsAndReportsHaveReadOnlyProperties)
{
    test::TempDir dir;
    auto host = simulated(dir);
    GObjectPtr<IbnmApplyReport> report;
    EXPECT_FALSE(upRefusedRoceMode(host.get(), report, nullptr));
    gboolean success = TRUE, rolledBack = FALSE;
    guint operations = 0;
    char *error = nullptr;
    g_object_get(report.get(), IBNM_APPLY_REPORT_SUCCESS, &success, IBNM_APPLY_REPORT_ROLLED_BACK, &rolledBack,
                 IBNM_APPLY_REPORT_OPERATIONS, &operations, IBNM_APPLY_REPORT_ERROR, &error, nullptr);
    GCharPtr errorOwned(error);
    EXPECT_FALSE(success);
    EXPECT_TRUE(rolledBack);
    EXPECT_EQ(operations, ibnm_apply_report_get_operations(report.get()));
    EXPECT_STREQ(error, ibnm_apply_report_get_error(report.get()));

    auto *step = IBNM_STEP(g_ptr_array_index(ibnm_apply_report_get_steps(report.get()), 1));
    char *stepError = nullptr;
    IbnmStepAction action = IBNM_STEP_ACTION_CREATE_IPOIB_CHILD;
    IbnmStepState state = IBNM_STEP_STATE_PLANNED;
    g_object_get(step, IBNM_STEP_ACTION, &action, IBNM_STEP_STATE, &state, IBNM_STEP_ERROR, &stepError, nullptr);
    GCharPtr e(stepError);
    EXPECT_EQ(action, IBNM_STEP_ACTION_SET_ROCE_MODE);
    EXPECT_EQ(state, IBNM_STEP_STATE_FAILED);
    EXPECT_NE(stepError, nullptr);
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(step), IBNM_STEP_OBJECT);
    ASSERT_NE(pspec, nullptr);
    EXPECT_FALSE(pspec->flags & G_PARAM_WRITABLE);
}

TEST(ApplyApi, UpPreparesTheModulesAndConfigfsTheProfileNeeds)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, nullptr));
    const auto &asked = hostFakePlatform(host.get())->prepared();
    ASSERT_EQ(asked.size(), 2u);
    EXPECT_EQ(asked[0].softLinkDrivers, std::set<model::SoftLinkType>{model::SoftLinkType::Rxe});
    EXPECT_FALSE(asked[0].rdmaCmConfigfs);
    EXPECT_TRUE(asked[1].softLinkDrivers.empty());
    EXPECT_TRUE(asked[1].rdmaCmConfigfs);
}

TEST(ApplyApi, DryRunAndDownPrepareNothing)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_DRY_RUN), nullptr, nullptr));
    // Not active: nothing to take down (and nothing prepared for it).
    GErrorPtr err;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_down(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)));
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_ACTIVE));
    EXPECT_TRUE(hostFakePlatform(host.get())->prepared().empty());
    // Active: taking it down loads nothing more.
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, nullptr));
    size_t prepared = hostFakePlatform(host.get())->prepared().size();
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_down(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, nullptr));
    EXPECT_EQ(hostFakePlatform(host.get())->prepared().size(), prepared);
}

TEST(ApplyApi, ModuleThatCannotLoadStopsBeforeAnyStep)
{
    test::TempDir dir;
    auto host = simulated(dir);
    hostFakePlatform(host.get())->failNext("prepare", ENOENT);
    auto c = rxeProfile(nullptr);
    auto profiles = one(c.get());
    GErrorPtr err;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(std::string(err->message).rfind("rdma.link-type: ", 0), 0u) << err->message;
    EXPECT_EQ(hostFakePlatform(host.get())->operationCount(), 0u);
}

TEST(ApplyApi, PassedDeadlineRefusesTheFirstChangeAndChangesNothing)
{
    test::TempDir dir;
    auto host = simulated(dir);
    ibnm_host_set_deadline(host.get(), g_get_monotonic_time() - 1);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    GErrorPtr err;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_NE(std::string(err->message).find("timed out"), std::string::npos) << err->message;
    EXPECT_TRUE(hostFakePlatform(host.get())->prepared().empty());
    // Without the deadline the same apply works.
    ibnm_host_set_deadline(host.get(), 0);
    EXPECT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), nullptr, nullptr));
}

TEST(ApplyApi, DeadlinePassingMidApplyUndoesTheDoneSteps)
{
    test::TempDir dir;
    auto host = simulated(dir);
    GErrorPtr err;
    ASSERT_TRUE(ibnm_simulator_add_faults(host.get(), "op=addSoftLink,delay=150", outPtr(err)));
    ibnm_host_set_deadline(host.get(), g_get_monotonic_time() + 50000);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    IbnmApplyReport *raw = nullptr;
    EXPECT_FALSE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &raw, outPtr(err)));
    auto report = GObjectPtr<IbnmApplyReport>::adopt(raw);
    ASSERT_TRUE(report);
    EXPECT_TRUE(ibnm_apply_report_get_rolled_back(report.get()));
    GPtrArray *steps = ibnm_apply_report_get_steps(report.get());
    ASSERT_EQ(steps->len, 2u);
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, 0))), IBNM_STEP_STATE_UNDONE);
    EXPECT_EQ(ibnm_step_get_state(IBNM_STEP(g_ptr_array_index(steps, 1))), IBNM_STEP_STATE_FAILED);
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
    EXPECT_TRUE(inventoryHost(inv.get()).softLinks.empty());
}

TEST(ApplyApi, FaultsOnlyForASimulatedHost)
{
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_host_new_system());
    GErrorPtr err;
    EXPECT_FALSE(ibnm_simulator_add_faults(host.get(), "op=setMtu", outPtr(err)));
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED));
}

// A transaction's undo is judged by reading back what its steps touched,
// as a rollback is: every step undone and the objects as they were is
// success, whatever else changed on the host meanwhile; an object the
// steps touched that does not read back as it was is named, and the undo
// fails, even when each undo step succeeded.
TEST(ApplyApi, TransactionUndoIsJudgedByReadingBackWhatItTouched)
{
    for (bool touchedChanged : {false, true}) {
        test::TempDir dir;
        auto host = simulated(dir);
        auto c = rxeProfile("v2");
        g_object_set(nm_connection_get_setting_wired(c.get()), NM_SETTING_WIRED_MTU, 9000u, nullptr);
        auto profiles = one(c.get());
        GErrorPtr err;
        IbnmTransaction *rawTx = nullptr;
        auto up = GObjectPtr<IbnmApplyReport>::adopt(
            ibnm_apply_up_transaction(host.get(), profiles.get(), IBNM_APPLY_FLAGS_NONE, &rawTx));
        auto tx = GObjectPtr<IbnmTransaction>::adopt(rawTx);
        ASSERT_TRUE(ibnm_apply_report_propagate_error(up.get(), outPtr(err))) << err->message;
        ASSERT_TRUE(tx);
        ASSERT_TRUE(ibnm_transaction_get_pending(tx.get()));
        auto &fake = dynamic_cast<platform::FakePlatform &>(hostPlatform(host.get()));
        // Meanwhile: an address on an interface the transaction never touched,
        ASSERT_TRUE(fake.addAddress("enp0s1", "203.0.113.9/24").ok());
        // and, the second time, one on the interface whose MTU it set: its
        // undo puts the MTU back and succeeds, but the interface does not
        // read back as it was (as a side effect an undo missed would not).
        if (touchedChanged) {
            ASSERT_TRUE(fake.addAddress("enp1s0", "198.51.100.7/24").ok());
        }
        auto report = GObjectPtr<IbnmApplyReport>::adopt(ibnm_transaction_undo(tx.get()));
        ASSERT_TRUE(report);
        gboolean ok = ibnm_apply_report_propagate_error(report.get(), outPtr(err));
        EXPECT_EQ(ibnm_apply_report_get_success(report.get()), ok);
        const char *const *notRestored = ibnm_apply_report_get_not_restored(report.get());
        std::vector<std::string> lines;
        for (const char *const *n = notRestored; n && *n; n++)
            lines.emplace_back(*n);
        EXPECT_EQ(ok, !touchedChanged) << ::testing::PrintToString(lines);
        EXPECT_EQ(ibnm_apply_report_get_rolled_back(report.get()), !touchedChanged);
        for (const auto &l : lines)
            EXPECT_EQ(l.find("enp0s1"), std::string::npos) << "an untouched interface judged: " << l;
        if (touchedChanged) {
            ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
            EXPECT_EQ(lines[0].rfind("enp1s0: ", 0), 0u) << lines[0];
            EXPECT_NE(lines[0].find("198.51.100.7/24"), std::string::npos) << lines[0];
            ASSERT_TRUE(err);
            EXPECT_NE(std::string(err->message).find("enp1s0"), std::string::npos) << err->message;
        }
        auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
        ASSERT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
        EXPECT_TRUE(inventoryHost(inv.get()).softLinks.empty());
        EXPECT_EQ(inventoryHost(inv.get()).findNetdev("enp1s0")->mtu, 1500u);
        EXPECT_FALSE(ibnm_transaction_get_pending(tx.get()));
    }
}

// Issue 33 item 5: an apply returns its report, failed or not, so that a
// binding (which drops return values and out arguments when a GError is
// raised) still reads which steps ran and what was undone.
TEST(ApplyApi, AFailedUpReturnsItsReportAndItsError)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    dynamic_cast<platform::FakePlatform &>(hostPlatform(host.get())).failNext("setDefaultRoceMode", EINVAL);
    auto report = GObjectPtr<IbnmApplyReport>::adopt(
        ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE));
    ASSERT_TRUE(report);
    EXPECT_TRUE(ibnm_apply_report_get_started(report.get()));
    EXPECT_FALSE(ibnm_apply_report_get_success(report.get()));
    EXPECT_TRUE(ibnm_apply_report_get_rolled_back(report.get()));
    GPtrArray *steps = ibnm_apply_report_get_steps(report.get());
    ASSERT_EQ(steps->len, 2u);
    auto *created = IBNM_STEP(g_ptr_array_index(steps, 0));
    auto *failed = IBNM_STEP(g_ptr_array_index(steps, 1));
    EXPECT_EQ(ibnm_step_get_action(created), IBNM_STEP_ACTION_ADD_RDMA_LINK);
    EXPECT_EQ(ibnm_step_get_state(created), IBNM_STEP_STATE_UNDONE);
    EXPECT_EQ(ibnm_step_get_action(failed), IBNM_STEP_ACTION_SET_ROCE_MODE);
    EXPECT_EQ(ibnm_step_get_state(failed), IBNM_STEP_STATE_FAILED);
    // The failure as a GError, with its code, as often as asked.
    GErrorPtr err;
    EXPECT_FALSE(ibnm_apply_report_propagate_error(report.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_PLATFORM)) << err->message;
    EXPECT_STREQ(ibnm_apply_report_get_error(report.get()), err->message);
    GErrorPtr again;
    EXPECT_FALSE(ibnm_apply_report_propagate_error(report.get(), outPtr(again)));
    ASSERT_TRUE(again);
    EXPECT_STREQ(again->message, err->message);
    EXPECT_FALSE(ibnm_apply_report_propagate_error(report.get(), nullptr));
    gboolean started = FALSE;
    g_object_get(report.get(), IBNM_APPLY_REPORT_STARTED, &started, nullptr);
    EXPECT_TRUE(started);
}

TEST(ApplyApi, ASuccessfulUpPropagatesNoError)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    auto report = GObjectPtr<IbnmApplyReport>::adopt(
        ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE));
    ASSERT_TRUE(report);
    GErrorPtr err;
    EXPECT_TRUE(ibnm_apply_report_propagate_error(report.get(), outPtr(err)));
    EXPECT_FALSE(err);
    EXPECT_TRUE(ibnm_apply_report_get_started(report.get()));
    EXPECT_TRUE(ibnm_apply_report_get_success(report.get()));
    EXPECT_EQ(ibnm_apply_report_get_error(report.get()), nullptr);
}

TEST(ApplyApi, DownOfAnInactiveProfileIsAReportThatDidNotStart)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    auto report = GObjectPtr<IbnmApplyReport>::adopt(
        ibnm_apply_down(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE));
    ASSERT_TRUE(report);
    EXPECT_FALSE(ibnm_apply_report_get_started(report.get()));
    EXPECT_FALSE(ibnm_apply_report_get_success(report.get()));
    EXPECT_EQ(ibnm_apply_report_get_steps(report.get())->len, 0u);
    GErrorPtr err;
    EXPECT_FALSE(ibnm_apply_report_propagate_error(report.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_ACTIVE)) << err->message;
    EXPECT_EQ(hostFakePlatform(host.get())->operationCount(), 0u);
}

TEST(ApplyApi, TypedRdmaCallsReturnTheirReportToo)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto report =
        GObjectPtr<IbnmApplyReport>::adopt(ibnm_apply_rdma_link_delete(host.get(), "rxe9", IBNM_APPLY_FLAGS_NONE));
    ASSERT_TRUE(report);
    EXPECT_FALSE(ibnm_apply_report_get_success(report.get()));
    EXPECT_FALSE(ibnm_apply_report_get_started(report.get()));
    GErrorPtr err;
    EXPECT_FALSE(ibnm_apply_report_propagate_error(report.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND)) << err->message;
}

// The words `ibnm -j` prints as a step's "action" (docs/json-schema.md),
// each the nick of one IbnmStepAction: the JSON is what it was when the
// actions were free strings.
TEST(StepAction, EveryActionWordRoundTripsThroughTheEnumsNick)
{
    static const char *const words[] = {
        "add-address",        "add-rdma-link",     "add-route",          "clear-traffic-class",
        "create-bond",        "create-ipoib-child", "delete-bond",        "delete-ipoib-child",
        "delete-rdma-link",   "enslave",           "release",            "remove-address",
        "remove-roce-defaults", "remove-route",    "remove-traffic-class-rule", "revert-dns",
        "set-bond-options",   "set-dns",           "set-down",           "set-mtu",
        "set-roce-enable",    "set-roce-mode",     "set-roce-tos",       "set-traffic-class",
        "set-traffic-class-rule", "set-transport-mode", "set-ttl",       "set-umcast",
        "set-up",             "write-file",
    };
    CPtr<GEnumClass, g_type_class_unref> k(static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_STEP_ACTION)));
    EXPECT_EQ(k->n_values, G_N_ELEMENTS(words));
    std::set<int> seen;
    for (const char *w : words) {
        GEnumValue *v = g_enum_get_value_by_nick(k.get(), w);
        ASSERT_NE(v, nullptr) << w;
        EXPECT_TRUE(seen.insert(v->value).second) << w;
        EXPECT_STREQ(ibnm_step_action_to_string(IbnmStepAction(v->value)), w);
    }
    for (guint i = 0; i < k->n_values; i++)
        EXPECT_STREQ(ibnm_step_action_to_string(IbnmStepAction(k->values[i].value)), k->values[i].value_nick);
    // An int that is no IbnmStepAction, passed from C (step-action-c.c): in
    // C++ the conversion itself would be undefined.
    EXPECT_EQ(test_step_action_to_string_of_int(1000), nullptr);
    EXPECT_STREQ(test_step_action_to_string_of_int(IBNM_STEP_ACTION_SET_MTU), "set-mtu");
    GParamSpec *action = g_object_class_find_property(
        static_cast<GObjectClass *>(g_type_class_peek(IBNM_TYPE_STEP)), IBNM_STEP_ACTION);
    ASSERT_NE(action, nullptr);
    EXPECT_EQ(G_PARAM_SPEC_VALUE_TYPE(action), IBNM_TYPE_STEP_ACTION);
}

namespace {

// ibnm_apply_up_async() or ibnm_apply_down_async() of `profiles`, run to
// its callback in a main loop: what the _finish function gave.
struct AsyncOutcome {
    GObjectPtr<IbnmApplyReport> report;
    GErrorPtr error;
    bool called = false;
};

AsyncOutcome applyAsync(IbnmHost *host, GPtrArray *profiles, bool up, GCancellable *cancellable)
{
    struct Wait {
        AsyncOutcome outcome;
        CPtr<GMainLoop, g_main_loop_unref> loop;
        bool up;
    } wait{{}, CPtr<GMainLoop, g_main_loop_unref>(g_main_loop_new(nullptr, FALSE)), up};
    auto done = [](GObject *source, GAsyncResult *result, gpointer data) {
        auto *w = static_cast<Wait *>(data);
        GError *e = nullptr;
        IbnmApplyReport *r = w->up ? ibnm_apply_up_finish(IBNM_HOST(source), result, &e)
                                   : ibnm_apply_down_finish(IBNM_HOST(source), result, &e);
        w->outcome.report = GObjectPtr<IbnmApplyReport>::adopt(r);
        w->outcome.error.reset(e);
        w->outcome.called = true;
        g_main_loop_quit(w->loop.get());
    };
    if (up)
        ibnm_apply_up_async(host, profiles, nullptr, IBNM_APPLY_FLAGS_NONE, cancellable, done, &wait);
    else
        ibnm_apply_down_async(host, profiles, nullptr, IBNM_APPLY_FLAGS_NONE, cancellable, done, &wait);
    guint timeout = g_timeout_add_seconds(
        30, [](gpointer loop) { g_main_loop_quit(static_cast<GMainLoop *>(loop)); return G_SOURCE_REMOVE; },
        wait.loop.get());
    g_main_loop_run(wait.loop.get());
    if (wait.outcome.called)
        g_source_remove(timeout);
    return std::move(wait.outcome);
}

size_t softLinks(IbnmHost *host)
{
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host));
    EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
    return inventoryHost(inv.get()).softLinks.size();
}

} // namespace

TEST(ApplyApiAsync, UpAndDownFinishWithTheirReports)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    AsyncOutcome up = applyAsync(host.get(), profiles.get(), true, nullptr);
    ASSERT_TRUE(up.called);
    EXPECT_FALSE(up.error);
    ASSERT_TRUE(up.report);
    EXPECT_TRUE(ibnm_apply_report_get_success(up.report.get()));
    EXPECT_EQ(ibnm_apply_report_get_steps(up.report.get())->len, 2u);
    EXPECT_EQ(softLinks(host.get()), 1u);

    AsyncOutcome down = applyAsync(host.get(), profiles.get(), false, nullptr);
    ASSERT_TRUE(down.called);
    EXPECT_FALSE(down.error);
    ASSERT_TRUE(down.report);
    EXPECT_TRUE(ibnm_apply_report_get_success(down.report.get()));
    EXPECT_EQ(softLinks(host.get()), 0u);
}

TEST(ApplyApiAsync, AFailedUpFinishesWithItsReportNotAnError)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    dynamic_cast<platform::FakePlatform &>(hostPlatform(host.get())).failNext("setDefaultRoceMode", EINVAL);
    AsyncOutcome up = applyAsync(host.get(), profiles.get(), true, nullptr);
    ASSERT_TRUE(up.called);
    EXPECT_FALSE(up.error);
    ASSERT_TRUE(up.report);
    EXPECT_FALSE(ibnm_apply_report_get_success(up.report.get()));
    EXPECT_TRUE(ibnm_apply_report_get_rolled_back(up.report.get()));
    GErrorPtr err;
    EXPECT_FALSE(ibnm_apply_report_propagate_error(up.report.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_PLATFORM)) << err->message;
    EXPECT_EQ(softLinks(host.get()), 0u);
}

TEST(ApplyApiAsync, CancelledBeforeItStartsChangesNothing)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile("v2");
    auto profiles = one(c.get());
    auto cancellable = GObjectPtr<GCancellable>::adopt(g_cancellable_new());
    g_cancellable_cancel(cancellable.get());
    AsyncOutcome up = applyAsync(host.get(), profiles.get(), true, cancellable.get());
    ASSERT_TRUE(up.called);
    EXPECT_FALSE(up.report);
    ASSERT_TRUE(up.error);
    EXPECT_TRUE(g_error_matches(up.error.get(), G_IO_ERROR, G_IO_ERROR_CANCELLED)) << up.error->message;
    EXPECT_EQ(hostFakePlatform(host.get())->operationCount(), 0u);
    EXPECT_EQ(softLinks(host.get()), 0u);
}

// An apply that found the host already as asked gives the digest of that
// host; ibnm_host_get_state_digest() gives the same until the host or its
// active connections change.
TEST(ApplyApi, ANoOpApplysHostDigestMatchesTheHostUntilItChanges)
{
    test::TempDir dir;
    auto host = simulated(dir);
    auto c = rxeProfile(nullptr);
    auto profiles = one(c.get());
    auto up = [&]() {
        IbnmApplyReport *raw = nullptr;
        GErrorPtr err;
        EXPECT_TRUE(ibnm::test::applied(ibnm_apply_up(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE),
                                        &raw, outPtr(err)))
            << (err ? err->message : "");
        return GObjectPtr<IbnmApplyReport>::adopt(raw);
    };
    auto digestNow = [&]() {
        GErrorPtr err;
        GCharPtr d(ibnm_host_get_state_digest(host.get(), outPtr(err)));
        EXPECT_TRUE(d) << (err ? err->message : "");
        return std::string(d ? d.get() : "");
    };
    auto first = up();
    ASSERT_TRUE(first);
    EXPECT_EQ(ibnm_apply_report_get_host_digest(first.get()), nullptr) << "it ran steps";
    auto second = up();
    ASSERT_TRUE(second);
    ASSERT_NE(ibnm_apply_report_get_host_digest(second.get()), nullptr) << "nothing to do: a verified no-op";
    std::string settled = ibnm_apply_report_get_host_digest(second.get());
    EXPECT_EQ(settled.size(), 64u);
    EXPECT_EQ(digestNow(), settled);
    EXPECT_EQ(digestNow(), settled) << "reading the host changes nothing";
    // The host changes behind ibnm's back: the digest follows.
    auto &fake = dynamic_cast<platform::FakePlatform &>(hostPlatform(host.get()));
    ASSERT_TRUE(fake.setMtu("enp1s0", 1400).ok());
    EXPECT_NE(digestNow(), settled);
    // The profile taken down: the active connections differ.
    auto third = up();
    ASSERT_TRUE(third);
    std::string again = digestNow();
    IbnmApplyReport *raw = nullptr;
    ASSERT_TRUE(ibnm::test::applied(ibnm_apply_down(host.get(), profiles.get(), nullptr, IBNM_APPLY_FLAGS_NONE), &raw,
                                    nullptr));
    g_clear_object(&raw);
    EXPECT_NE(digestNow(), again);
}
