// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated host's state between processes (two FakePlatform instances
// on one state directory stand for two ibnm commands) and its reset.
#include "config.h"

#include "tests/platform/fake-test-util.hpp"
#include "libcore/internal/strings.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include <sys/wait.h>
#include <unistd.h>

using ibnm::model::SoftLinkType;
using ibnm::platform::FakePlatform;

namespace {

std::unique_ptr<FakePlatform> open(const ibnm::test::TempDir &dir)
{
    auto p = FakePlatform::open(dir / "h.host", dir / "h.host.state");
    EXPECT_TRUE(p.ok()) << p.error().toString();
    return p.ok() ? std::move(p).value() : nullptr;
}

} // namespace

TEST(FakeState, ChangesPersistAcrossInstances)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto first = open(dir);
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());
    ASSERT_TRUE(first->writeHostFile("/etc/udev/rules.d/70-x.rules", "ACTION==\"add\"\n", 0644).ok());

    auto second = open(dir);
    ASSERT_TRUE(second);
    auto h = second->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_NE(h->findDevice("rxe0"), nullptr);
    EXPECT_EQ(second->readHostFile("/etc/udev/rules.d/70-x.rules")->value(), "ACTION==\"add\"\n");
    EXPECT_EQ(second->operationCount(), 2u);

    // Interleaved: each instance sees the other's changes.
    ASSERT_TRUE(second->setMtu("enp1s0", 9000).ok());
    ASSERT_TRUE(first->addAddress("enp1s0", "192.0.2.5/24").ok());
    auto seen = first->readHost();
    EXPECT_EQ(seen->findNetdev("enp1s0")->mtu, 9000u);
    EXPECT_EQ(second->readHost()->findNetdev("enp1s0")->addresses, std::vector<std::string>{"192.0.2.5/24"});
    EXPECT_TRUE(g_file_test((dir / "h.host.state/state").c_str(), G_FILE_TEST_IS_REGULAR));
}

TEST(FakeState, ResetReturnsToTheHostFile)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto first = open(dir);
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());
    ASSERT_TRUE(first->reset().ok());
    EXPECT_EQ(first->readHost()->findDevice("rxe0"), nullptr);
    EXPECT_EQ(first->operationCount(), 0u);
    auto second = open(dir);
    EXPECT_EQ(second->readHost()->findDevice("rxe0"), nullptr);
    EXPECT_FALSE(g_file_test((dir / "h.host.state/state").c_str(), G_FILE_TEST_EXISTS));
}

TEST(FakeState, DeletingTheStateDirectoryResetsToo)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    {
        auto first = open(dir);
        ASSERT_TRUE(first->setMtu("enp1s0", 1400).ok());
    }
    g_unlink((dir / "h.host.state/state").c_str());
    g_unlink((dir / "h.host.state/lock").c_str());
    g_rmdir((dir / "h.host.state").c_str());
    auto again = open(dir);
    EXPECT_EQ(again->readHost()->findNetdev("enp1s0")->mtu, 1500u);
}

TEST(FakeState, EnvironmentFaultsApplyToOpenedHosts)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    g_setenv("IBNM_FAKE_FAIL", "op=addSoftLink,nth=1,errno=EBUSY", TRUE);
    auto p = open(dir);
    g_unsetenv("IBNM_FAKE_FAIL");
    ASSERT_TRUE(p);
    auto st = p->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errnum(), EBUSY);
    EXPECT_TRUE(p->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());

    g_setenv("IBNM_FAKE_FAIL", "op=nonsense", TRUE);
    auto bad = FakePlatform::open(dir / "h.host", dir / "h.host.state");
    g_unsetenv("IBNM_FAKE_FAIL");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().toString().rfind("IBNM_FAKE_FAIL: ", 0), 0u);
}

TEST(FakeState, UnwritableStateDirectoryIsAnError)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    dir.write("file", "not a directory");
    auto p = FakePlatform::open(dir / "h.host", dir / "file/state");
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().toString().find(dir / "file/state"), std::string::npos) << p.error().toString();
}

TEST(FakeState, ConcurrentProcessesLoseNoChange)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    ASSERT_TRUE(open(dir));
    constexpr int kPerProcess = 20;
    pid_t children[2];
    for (int c = 0; c < 2; c++) {
        children[c] = fork();
        ASSERT_GE(children[c], 0);
        if (children[c] == 0) {
            // A separate "ibnm command" adding its own addresses.
            auto p = FakePlatform::open(dir / "h.host", dir / "h.host.state");
            int failures = p.ok() ? 0 : 1;
            for (int i = 0; p.ok() && i < kPerProcess; i++)
                failures += !p.value()->addAddress("enp1s0", ibnm::strprintf("10.%d.0.%d/24", c, i + 1)).ok();
            _exit(failures == 0 ? 0 : 1);
        }
    }
    for (pid_t child : children) {
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    auto p = open(dir);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->readHost()->findNetdev("enp1s0")->addresses.size(), 2u * kPerProcess);
    EXPECT_EQ(p->operationCount(), 2u * kPerProcess);
}
