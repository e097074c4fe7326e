// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/boundary.hpp"
#include "libcore/support/raii.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

TEST(Boundary, SuccessReturnsTrue)
{
    GError *err = nullptr;
    EXPECT_TRUE(ibnm::guard(&err, [] { return ibnm::Status{}; }));
    EXPECT_EQ(err, nullptr);
}

TEST(Boundary, ErrorBecomesGError)
{
    ibnm::GErrorPtr err;
    EXPECT_FALSE(ibnm::guard(ibnm::outPtr(err), [] {
        return ibnm::Status(ibnm::Error(IBNM_ERROR_NOT_FOUND, "no such device").withContext("mlx4_0"));
    }));
    ASSERT_TRUE(err);
    EXPECT_TRUE(g_error_matches(err.get(), IBNM_ERROR, IBNM_ERROR_NOT_FOUND));
    EXPECT_STREQ(err->message, "mlx4_0: no such device");
}

TEST(Boundary, ExceptionDoesNotEscape)
{
    ibnm::GErrorPtr err;
    gboolean r = ibnm::guard(ibnm::outPtr(err), []() -> ibnm::Status { throw std::runtime_error("kaboom"); });
    EXPECT_FALSE(r);
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_FAILED);
    EXPECT_NE(std::string(err->message).find("kaboom"), std::string::npos);
}

TEST(Boundary, NonStandardExceptionDoesNotEscape)
{
    ibnm::GErrorPtr err;
    EXPECT_FALSE(ibnm::guard(ibnm::outPtr(err), []() -> ibnm::Status { throw 42; }));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_FAILED);
}
