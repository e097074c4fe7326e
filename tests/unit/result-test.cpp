// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/support/raii.hpp"
#include "libcore/support/result.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using ibnm::Error;
using ibnm::Result;
using ibnm::Status;

TEST(Result, CarriesValue)
{
    Result<int> r(42);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(static_cast<bool>(r));
    EXPECT_EQ(*r, 42);
    EXPECT_EQ(r.valueOr(7), 42);
}

TEST(Result, CarriesErrorWithCodeErrnoAndContext)
{
    Result<std::string> r = Error::fromErrno(ENOENT, "/sys/class/infiniband/mlx4_0/node_guid");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().errnum(), ENOENT);
    EXPECT_EQ(r.error().code(), IBNM_ERROR_NOT_FOUND);
    EXPECT_EQ(r.error().context(), "/sys/class/infiniband/mlx4_0/node_guid");
    EXPECT_EQ(r.error().message(), g_strerror(ENOENT));
    EXPECT_EQ(r.valueOr("fallback"), "fallback");
}

TEST(Result, ErrnoMapsToCode)
{
    EXPECT_EQ(Error::fromErrno(EACCES, "f").code(), IBNM_ERROR_PERMISSION_DENIED);
    EXPECT_EQ(Error::fromErrno(EPERM, "f").code(), IBNM_ERROR_PERMISSION_DENIED);
    EXPECT_EQ(Error::fromErrno(EOPNOTSUPP, "f").code(), IBNM_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(Error::fromErrno(EEXIST, "f").code(), IBNM_ERROR_EXISTS);
    EXPECT_EQ(Error::fromErrno(EIO, "f").code(), IBNM_ERROR_IO);
    // An explicit code other than IO survives ENOENT.
    EXPECT_EQ(Error::fromErrno(ENODEV, "f", IBNM_ERROR_PLATFORM).code(), IBNM_ERROR_PLATFORM);
}

TEST(Result, ContextIsPrefixedOutermostFirst)
{
    Error e(IBNM_ERROR_INVALID_PROPERTY, "the values 0 and 0x8000 are not allowed");
    e.withContext("p-key").withContext("infiniband", ".");
    EXPECT_EQ(e.context(), "infiniband.p-key");
    EXPECT_EQ(e.toString(), "infiniband.p-key: the values 0 and 0x8000 are not allowed");

    Status s = Error(IBNM_ERROR_PARSE, "bad value");
    s = std::move(s).withContext("line 3").withContext("/etc/x.nmconnection");
    EXPECT_EQ(s.error().toString(), "/etc/x.nmconnection: line 3: bad value");
}

TEST(Result, EmptyContextIsIgnored)
{
    Error e(IBNM_ERROR_FAILED, "m");
    e.withContext("");
    EXPECT_EQ(e.toString(), "m");
}

TEST(Result, WithContextOnSuccessIsNoop)
{
    Result<int> r = Result<int>(5).withContext("ignored");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, 5);
}

TEST(Result, BecomesGErrorOnce)
{
    Status s = Error(IBNM_ERROR_INVALID_PROPERTY, "must be 0-255").withContext("rdma.ttl");
    ibnm::GErrorPtr err;
    EXPECT_FALSE(ibnm::toGError(s, ibnm::outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->domain, IBNM_ERROR);
    EXPECT_EQ(err->code, IBNM_ERROR_INVALID_PROPERTY);
    EXPECT_STREQ(err->message, "rdma.ttl: must be 0-255");
}

TEST(Result, SuccessLeavesGErrorUnset)
{
    GError *err = nullptr;
    EXPECT_TRUE(ibnm::toGError(Status{}, &err));
    EXPECT_EQ(err, nullptr);
}

TEST(Result, NullGErrorPointerIsAccepted)
{
    Status s = Error(IBNM_ERROR_FAILED, "x");
    EXPECT_FALSE(ibnm::toGError(s, nullptr));
}

TEST(Result, MoveOnlyValues)
{
    Result<std::unique_ptr<int>> r(std::make_unique<int>(3));
    std::unique_ptr<int> v = std::move(r).value();
    ASSERT_TRUE(v);
    EXPECT_EQ(*v, 3);
}
