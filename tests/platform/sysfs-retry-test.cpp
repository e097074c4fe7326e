// SPDX-License-Identifier: LGPL-2.1-or-later
// The sysfs reader's retry of a transient open failure (issue 28, item 5),
// with the failure injected: openat2() with RESOLVE_BENEATH fails with
// EAGAIN when a rename anywhere on the system races with a lookup through
// "..", and any system call may fail with EINTR. The reader opens every
// file it resolves through openConfined() (libcore/platform/linux/sysfs.cpp),
// which retries those two errors a bounded number of times.
//
// The injection: this file defines syscall(), which every caller in this
// test program reaches before the C library's (the program's own symbols
// come first); it fails the next N openat2 calls with the chosen errno and
// passes everything else on to the C library's syscall() unchanged.
#include "config.h"

#include "libcore/platform/linux/sysfs.hpp"
#include "tests/platform/sysfs-fixtures.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

std::atomic<long> gFailOpenat2{0};   // openat2 calls still to fail
std::atomic<int> gFailErrno{EAGAIN}; // with this errno
std::atomic<long> gOpenat2Calls{0};  // openat2 calls seen

using SyscallFn = long (*)(long, ...);
std::atomic<SyscallFn> gRealSyscall{nullptr};

// No function-local static here: the C++ runtime's guard of one waits with
// syscall(SYS_futex), which would come back to this function.
SyscallFn realSyscall()
{
    SyscallFn fn = gRealSyscall.load(std::memory_order_acquire);
    if (fn == nullptr) {
        fn = reinterpret_cast<SyscallFn>(dlsym(RTLD_NEXT, "syscall"));
        gRealSyscall.store(fn, std::memory_order_release);
    }
    return fn;
}

} // namespace

// Six arguments are read whatever the call passed, as glibc's own syscall()
// does from the registers: the sixth comes from the caller's stack, which
// AddressSanitizer (clang's) reports as an underflow when the caller passed
// fewer. Harmless here; not instrumented.
extern "C" __attribute__((no_sanitize("address"))) long syscall(long number, ...) noexcept
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (long &x : a)
        x = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_openat2) {
        gOpenat2Calls++;
        long left = gFailOpenat2.load();
        while (left > 0 && !gFailOpenat2.compare_exchange_weak(left, left - 1)) {
        }
        if (left > 0) {
            errno = gFailErrno.load();
            return -1;
        }
    }
    return realSyscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

namespace {

namespace sysfs = ibnm::platform::sysfs;
namespace fx = ibnm::test::sysfs;
using ibnm::test::TempDir;

// Fails the next `n` openat2 calls with `err` while it lives.
struct InjectedFailures {
    InjectedFailures(long n, int err)
    {
        gFailErrno = err;
        gOpenat2Calls = 0;
        gFailOpenat2 = n;
    }
    ~InjectedFailures() { gFailOpenat2 = 0; }
    InjectedFailures(const InjectedFailures &) = delete;
    InjectedFailures &operator=(const InjectedFailures &) = delete;
};

// The host read with no failure injected, as the reference.
ibnm::model::Host readClean(const TempDir &root, long *calls)
{
    InjectedFailures none(0, 0);
    auto h = sysfs::readHost({root.path(), ""});
    EXPECT_TRUE(h.ok()) << h.error().toString();
    *calls = gOpenat2Calls.load();
    return h.ok() ? std::move(h).value() : ibnm::model::Host{};
}

// A few EAGAINs in a row (a rename storm elsewhere) and the read succeeds,
// with the same host as a read without them, and one more openat2 call for
// each failure.
TEST(SysfsRetry, ATransientEagainFromOpenat2IsRetried)
{
    TempDir root;
    fx::writeMlx4(root);
    long cleanCalls = 0;
    auto reference = readClean(root, &cleanCalls);
    if (cleanCalls == 0)
        GTEST_SKIP() << "this kernel has no openat2(2): the reader opens with open(2), which never fails so";
    for (long n : {1L, 5L, 16L}) {
        InjectedFailures eagain(n, EAGAIN);
        auto h = sysfs::readHost({root.path(), ""});
        ASSERT_TRUE(h.ok()) << n << " EAGAIN in a row: " << h.error().toString();
        EXPECT_EQ(gOpenat2Calls.load(), cleanCalls + n) << n << " EAGAIN in a row";
        EXPECT_EQ(h->netdevs.size(), reference.netdevs.size());
        EXPECT_EQ(h->devices.size(), reference.devices.size());
    }
}

// The same for EINTR (a signal that arrived during the open).
TEST(SysfsRetry, AnEintrFromOpenat2IsRetried)
{
    TempDir root;
    fx::writeMlx4(root);
    long cleanCalls = 0;
    readClean(root, &cleanCalls);
    if (cleanCalls == 0)
        GTEST_SKIP() << "this kernel has no openat2(2)";
    InjectedFailures eintr(3, EINTR);
    auto h = sysfs::readHost({root.path(), ""});
    ASSERT_TRUE(h.ok()) << h.error().toString();
    EXPECT_EQ(gOpenat2Calls.load(), cleanCalls + 3);
}

// The retry is bounded: an open that fails with EAGAIN every time is tried
// 17 times (once and 16 retries), then the read fails naming the file and
// the error, instead of spinning for ever.
TEST(SysfsRetry, AnEagainThatLastsFailsTheReadAfterBoundedRetries)
{
    TempDir root;
    fx::writeMlx4(root);
    long cleanCalls = 0;
    readClean(root, &cleanCalls);
    if (cleanCalls == 0)
        GTEST_SKIP() << "this kernel has no openat2(2)";
    InjectedFailures always(1L << 40, EAGAIN);
    auto h = sysfs::readHost({root.path(), ""});
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(gOpenat2Calls.load(), 17);
    std::string text = h.error().toString();
    EXPECT_NE(text.find(root.path()), std::string::npos) << text;
    EXPECT_NE(text.find(std::strerror(EAGAIN)), std::string::npos) << text;
}

// Other errors are not retried: one call, and the error as it came.
TEST(SysfsRetry, OtherErrorsAreNotRetried)
{
    TempDir root;
    fx::writeMlx4(root);
    long cleanCalls = 0;
    readClean(root, &cleanCalls);
    if (cleanCalls == 0)
        GTEST_SKIP() << "this kernel has no openat2(2)";
    InjectedFailures eacces(1, EACCES);
    auto h = sysfs::readHost({root.path(), ""});
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(gOpenat2Calls.load(), 1);
    EXPECT_NE(h.error().toString().find(std::strerror(EACCES)), std::string::npos) << h.error().toString();
}

} // namespace
