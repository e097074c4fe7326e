// SPDX-License-Identifier: LGPL-2.1-or-later
// Fault injection and the operation counter of the simulated host.
#include "config.h"

#include "tests/simulator/fake-test-util.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <ostream>

using ibnm::model::SoftLinkType;
using ibnm::platform::parseFaultRules;

TEST(FakeFaults, FailsTheNthMatchingOperationAndChangesNothing)
{
    auto fake = ibnm::test::makeTestFake();
    auto rules = parseFaultRules("op=setMtu,nth=2,errno=EBUSY");
    ASSERT_TRUE(rules.ok()) << rules.error().toString();
    fake->addFaults(std::move(rules).value());
    EXPECT_TRUE(fake->setUp("enp1s0", true).ok()) << "other operations do not count";
    EXPECT_TRUE(fake->setMtu("enp1s0", 1400).ok());
    auto second = fake->setMtu("enp1s0", 1300);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().errnum(), EBUSY);
    EXPECT_EQ(second.error().code(), IBNM_ERROR_PLATFORM);
    EXPECT_NE(second.error().toString().find("enp1s0"), std::string::npos);
    EXPECT_EQ(fake->readHost()->findNetdev("enp1s0")->mtu, 1400u);
    EXPECT_TRUE(fake->setMtu("enp1s0", 1200).ok()) << "only the 2nd fails";
}

TEST(FakeFaults, EveryAndAnyOperation)
{
    auto fake = ibnm::test::makeTestFake();
    fake->failEvery("addSoftLink", ENOMEM);
    for (int i = 0; i < 3; i++) {
        auto st = fake->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0");
        ASSERT_FALSE(st.ok());
        EXPECT_EQ(st.error().errnum(), ENOMEM);
    }
    EXPECT_EQ(fake->readHost()->findDevice("rxe0"), nullptr);
    fake->clearFaults();
    fake->failNext("", EIO);
    EXPECT_EQ(fake->setUp("enp1s0", false).error().errnum(), EIO);
    EXPECT_TRUE(fake->setUp("enp1s0", false).ok());
}

TEST(FakeFaults, CountsEveryMutatingCall)
{
    auto fake = ibnm::test::makeTestFake();
    EXPECT_EQ(fake->operationCount(), 0u);
    (void)fake->readHost();
    EXPECT_EQ(fake->operationCount(), 0u) << "reads do not count";
    EXPECT_TRUE(fake->setUp("enp1s0", true).ok());
    EXPECT_FALSE(fake->setUp("nosuch0", true).ok());
    fake->failNext("setMtu", EIO);
    EXPECT_FALSE(fake->setMtu("enp1s0", 1400).ok());
    EXPECT_EQ(fake->operationCount(), 3u) << "refused and failed calls count too";
}

namespace {

struct RuleCase {
    const char *spec;
    bool ok;
    const char *op;
    unsigned nth;
    int errnum;
    bool every = false;
};

void PrintTo(const RuleCase &c, std::ostream *os)
{
    *os << c.spec;
}

const RuleCase kRules[] = {
    {"op=addSoftLink,nth=1,errno=EBUSY", true, "addSoftLink", 1, EBUSY},
    {"op=setMtu,errno=EINVAL", true, "setMtu", 1, EINVAL},
    {"op=*,nth=every,errno=5", true, "", 1, 5, true},
    // nth counts from 1: 0 names no call.
    {"op=setMtu,nth=0,errno=EIO", false, "", 0, 0},
    {" op=createIpoibChild , nth=3 , errno=ENODEV ", true, "createIpoibChild", 3, ENODEV},
    {"op=frobnicate,errno=EIO", false, "", 0, 0},
    {"op=setMtu,nth=x,errno=EIO", false, "", 0, 0},
    {"op=setMtu,errno=EWHATEVER", false, "", 0, 0},
    {"op=setMtu,colour=red", false, "", 0, 0},
};

} // namespace

class FakeFaultRules : public ::testing::TestWithParam<RuleCase> {};

TEST_P(FakeFaultRules, ParseTheEnvironmentSyntax)
{
    const auto &c = GetParam();
    auto r = parseFaultRules(c.spec);
    ASSERT_EQ(r.ok(), c.ok) << c.spec;
    if (!c.ok) {
        EXPECT_EQ(r.error().toString().rfind("IBNM_FAKE_FAIL: ", 0), 0u) << r.error().toString();
        return;
    }
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ(r->at(0).op, c.op);
    EXPECT_EQ(r->at(0).nth, c.nth);
    EXPECT_EQ(r->at(0).every, c.every);
    EXPECT_EQ(r->at(0).errnum, c.errnum);
}

INSTANTIATE_TEST_SUITE_P(Table, FakeFaultRules, ::testing::ValuesIn(kRules));

TEST(FakeFaults, SeveralRulesSeparatedBySemicolons)
{
    auto r = parseFaultRules("op=setMtu,errno=EIO;op=setUp,nth=2,errno=EBUSY;");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size(), 2u);
}

TEST(FakeFaults, DelayWithoutErrnoIsASlowOperationThatSucceeds)
{
    auto fake = ibnm::test::makeTestFake();
    auto rules = parseFaultRules("op=setMtu,delay=120");
    ASSERT_TRUE(rules.ok()) << rules.error().toString();
    fake->addFaults(std::move(rules).value());
    gint64 t0 = g_get_monotonic_time();
    EXPECT_TRUE(fake->setMtu("enp1s0", 1400).ok());
    EXPECT_GE(g_get_monotonic_time() - t0, 120000);
    EXPECT_EQ(fake->readHost()->findNetdev("enp1s0")->mtu, 1400u);
    EXPECT_FALSE(parseFaultRules("op=setMtu,delay=soon").ok());
    auto both = parseFaultRules("op=setMtu,delay=10,errno=EBUSY");
    ASSERT_TRUE(both.ok());
    EXPECT_EQ(both->at(0).errnum, EBUSY);
}
