// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

using ibnm::GCharPtr;
using ibnm::GObjectPtr;

TEST(Finding, CarriesItsFieldsAsGettersAndProperties)
{
    auto f = GObjectPtr<IbnmFinding>::adopt(ibnm_finding_new("ib0", "infiniband.mtu", IBNM_SEVERITY_ERROR,
                                                             "infiniband.mtu: too big", "lower it"));
    EXPECT_STREQ(ibnm_finding_get_profile_id(f.get()), "ib0");
    EXPECT_STREQ(ibnm_finding_get_property(f.get()), "infiniband.mtu");
    EXPECT_EQ(ibnm_finding_get_severity(f.get()), IBNM_SEVERITY_ERROR);
    EXPECT_STREQ(ibnm_finding_get_message(f.get()), "infiniband.mtu: too big");
    EXPECT_STREQ(ibnm_finding_get_hint(f.get()), "lower it");

    char *message = nullptr;
    IbnmSeverity severity = IBNM_SEVERITY_INFO;
    g_object_get(f.get(), IBNM_FINDING_MESSAGE, &message, IBNM_FINDING_SEVERITY, &severity, nullptr);
    GCharPtr owned(message);
    EXPECT_STREQ(message, "infiniband.mtu: too big");
    EXPECT_EQ(severity, IBNM_SEVERITY_ERROR);
}

TEST(Finding, NoHintIsNull)
{
    auto f = GObjectPtr<IbnmFinding>::adopt(ibnm_finding_new(nullptr, nullptr, IBNM_SEVERITY_INFO, "m", nullptr));
    EXPECT_EQ(ibnm_finding_get_hint(f.get()), nullptr);
    EXPECT_STREQ(ibnm_finding_get_profile_id(f.get()), "");
}

TEST(Finding, SeverityIsARegisteredEnumOrderedByGravity)
{
    GEnumClass *klass = static_cast<GEnumClass *>(g_type_class_ref(IBNM_TYPE_SEVERITY));
    ASSERT_NE(klass, nullptr);
    EXPECT_STREQ(g_enum_get_value(klass, IBNM_SEVERITY_WARNING)->value_nick, "warning");
    EXPECT_STREQ(g_enum_get_value_by_nick(klass, "error")->value_name, "IBNM_SEVERITY_ERROR");
    g_type_class_unref(klass);
    EXPECT_LT(IBNM_SEVERITY_INFO, IBNM_SEVERITY_WARNING);
    EXPECT_LT(IBNM_SEVERITY_WARNING, IBNM_SEVERITY_ERROR);
}
