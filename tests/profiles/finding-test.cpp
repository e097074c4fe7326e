// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/profiles/profile-rules.hpp"
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

// What check returns (rules::newFinding(), the text moved in) is the object
// g_object_new() with the construct properties makes, field by field.
TEST(Finding, FromTheRulesIsTheConstructedObject)
{
    for (bool withHintAndRelated : {true, false}) {
        ibnm::rules::Finding rule{ibnm::SharedText("ib0.8002"), ibnm::SharedText("infiniband.p-key"), IBNM_SEVERITY_WARNING,
            "infiniband.p-key: not in the table", ibnm::SharedText(withHintAndRelated ? "ask the subnet manager" : "")};
        if (withHintAndRelated)
            rule.related = {"ib0", "bond0"};
        const char *related[] = {"ib0", "bond0", nullptr};
        auto built = GObjectPtr<IbnmFinding>::adopt(IBNM_FINDING(
            g_object_new(IBNM_TYPE_FINDING, IBNM_FINDING_PROFILE_ID, rule.profileId.c_str(), IBNM_FINDING_PROPERTY,
                rule.property.c_str(), IBNM_FINDING_SEVERITY, rule.severity, IBNM_FINDING_MESSAGE, rule.message.c_str(),
                IBNM_FINDING_HINT, withHintAndRelated ? rule.hint.c_str() : nullptr, IBNM_FINDING_RELATED_PROFILES,
                withHintAndRelated ? related : nullptr, nullptr)));
        auto moved = GObjectPtr<IbnmFinding>::adopt(ibnm::rules::newFinding(ibnm::rules::Finding(rule)));
        EXPECT_STREQ(ibnm_finding_get_profile_id(moved.get()), ibnm_finding_get_profile_id(built.get()));
        EXPECT_STREQ(ibnm_finding_get_property(moved.get()), ibnm_finding_get_property(built.get()));
        EXPECT_EQ(ibnm_finding_get_severity(moved.get()), ibnm_finding_get_severity(built.get()));
        EXPECT_STREQ(ibnm_finding_get_message(moved.get()), ibnm_finding_get_message(built.get()));
        EXPECT_STREQ(ibnm_finding_get_hint(moved.get()), ibnm_finding_get_hint(built.get()));
        const char *const *a = ibnm_finding_get_related_profiles(moved.get());
        const char *const *b = ibnm_finding_get_related_profiles(built.get());
        ASSERT_EQ(a == nullptr, b == nullptr);
        if (a) {
            EXPECT_EQ(g_strv_length(const_cast<char **>(a)), withHintAndRelated ? 2u : 0u);
            for (; *a && *b; a++, b++)
                EXPECT_STREQ(*a, *b);
            EXPECT_EQ(*a, *b);
        }
        // The properties read the same as the getters.
        char *hint = nullptr;
        g_object_get(moved.get(), IBNM_FINDING_HINT, &hint, nullptr);
        GCharPtr owned(hint);
        EXPECT_STREQ(hint, ibnm_finding_get_hint(built.get()));
    }
}

// Findings share one copy of each profile id, property and hint (thousands
// of findings of a large check repeat a few); each keeps its own message.
TEST(Finding, SharesRepeatedTextsAndKeepsItsMessage)
{
    auto make = [](const char *message) {
        return GObjectPtr<IbnmFinding>::adopt(ibnm::rules::newFinding(ibnm::rules::Finding{
            ibnm::SharedText("ib0.8002"), ibnm::SharedText("infiniband.p-key"), IBNM_SEVERITY_WARNING, message,
            ibnm::SharedText("ask the subnet manager")}));
    };
    auto a = make("infiniband.p-key: one");
    auto b = make("infiniband.p-key: two");
    EXPECT_EQ(ibnm_finding_get_hint(a.get()), ibnm_finding_get_hint(b.get()));
    EXPECT_EQ(ibnm_finding_get_property(a.get()), ibnm_finding_get_property(b.get()));
    EXPECT_EQ(ibnm_finding_get_profile_id(a.get()), ibnm_finding_get_profile_id(b.get()));
    EXPECT_STREQ(ibnm_finding_get_hint(b.get()), "ask the subnet manager");
    EXPECT_STREQ(ibnm_finding_get_message(a.get()), "infiniband.p-key: one");
    EXPECT_STREQ(ibnm_finding_get_message(b.get()), "infiniband.p-key: two");
    // A shared text outlives the finding that made it.
    a.reset();
    EXPECT_STREQ(ibnm_finding_get_hint(b.get()), "ask the subnet manager");
    EXPECT_STREQ(ibnm_finding_get_profile_id(b.get()), "ib0.8002");
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
