// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include <glib.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

TEST(TestMain, GLibWarningFailsTheTest)
{
    EXPECT_NONFATAL_FAILURE(g_warning("boom %d", 42), "boom 42");
}

TEST(TestMain, GLibCriticalFailsTheTest)
{
    EXPECT_NONFATAL_FAILURE(g_critical("crit %s", "x"), "crit x");
}

static gboolean needsPositive(int v)
{
    g_return_val_if_fail(v > 0, FALSE);
    return TRUE;
}

TEST(TestMain, FailedReturnIfFailIsAFailure)
{
    EXPECT_NONFATAL_FAILURE(needsPositive(-1), "v > 0");
}

TEST(TestMain, InfoMessagesPass)
{
    g_debug("debug output is fine");
    g_info("so is info");
    SUCCEED();
}
