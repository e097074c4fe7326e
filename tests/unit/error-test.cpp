// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm.h"
#include "settings/ibnm-settings.h"
#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

TEST(ErrorDomain, QuarkIsStable)
{
    EXPECT_STREQ(g_quark_to_string(IBNM_ERROR), "ibnm-error-quark");
    EXPECT_EQ(IBNM_ERROR, ibnm_error_quark());
}

TEST(ErrorDomain, EnumIsRegisteredWithNicks)
{
    GType t = IBNM_TYPE_ERROR;
    ASSERT_TRUE(G_TYPE_IS_ENUM(t));
    EXPECT_STREQ(g_type_name(t), "IbnmError");
    auto *klass = static_cast<GEnumClass *>(g_type_class_ref(t));
    GEnumValue *v = g_enum_get_value_by_nick(klass, "invalid-property");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->value, IBNM_ERROR_INVALID_PROPERTY);
    EXPECT_STREQ(v->value_name, "IBNM_ERROR_INVALID_PROPERTY");
    v = g_enum_get_value(klass, IBNM_ERROR_PLATFORM);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->value_nick, "platform");
    // Added after PLATFORM, so that the older values keep their numbers.
    v = g_enum_get_value(klass, IBNM_ERROR_INVALID_VALUE);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->value_nick, "invalid-value");
    EXPECT_EQ(IBNM_ERROR_INVALID_VALUE, IBNM_ERROR_PLATFORM + 1);
    v = g_enum_get_value(klass, IBNM_ERROR_TIMED_OUT);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->value_nick, "timed-out");
    EXPECT_EQ(IBNM_ERROR_TIMED_OUT, IBNM_ERROR_INVALID_VALUE + 1);
    // NetworkManager's activation (ibnm_settings_activate()), after them.
    v = g_enum_get_value(klass, IBNM_ERROR_NOT_RUNNING);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->value_nick, "not-running");
    EXPECT_EQ(IBNM_ERROR_NOT_RUNNING, IBNM_ERROR_TIMED_OUT + 1);
    v = g_enum_get_value(klass, IBNM_ERROR_ACTIVATION_FAILED);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->value_nick, "activation-failed");
    // Standalone active connections (ibnm_apply_down()), after them.
    v = g_enum_get_value(klass, IBNM_ERROR_NOT_ACTIVE);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->value_nick, "not-active");
    EXPECT_EQ(IBNM_ERROR_NOT_ACTIVE, IBNM_ERROR_ACTIVATION_FAILED + 1);
    // One value per enumerator: FAILED .. NOT_ACTIVE.
    EXPECT_EQ(klass->n_values, guint(IBNM_ERROR_NOT_ACTIVE + 1));
    g_type_class_unref(klass);
}

TEST(Version, MatchesHeader)
{
    EXPECT_STREQ(ibnm_get_version(), IBNM_VERSION_STRING);
    EXPECT_STREQ(ibnm_get_version(), PACKAGE_VERSION);
    EXPECT_TRUE(IBNM_CHECK_VERSION(0, 0, 0));
    EXPECT_TRUE(IBNM_CHECK_VERSION(IBNM_MAJOR_VERSION, IBNM_MINOR_VERSION, IBNM_MICRO_VERSION));
    EXPECT_FALSE(IBNM_CHECK_VERSION(IBNM_MAJOR_VERSION + 1, 0, 0));
}
