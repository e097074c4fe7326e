// SPDX-License-Identifier: LGPL-2.1-or-later
// The simulated host's state between processes (two FakePlatform instances
// on one state directory stand for two ibnm commands) and its reset.
#include "config.h"

#include "tests/simulator/fake-test-util.hpp"
#include "libcore/support/strings.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using ibnm::model::IpoibMode;
using ibnm::model::RoceMode;
using ibnm::model::SoftLinkType;
using ibnm::platform::FakePlatform;

namespace {

std::unique_ptr<FakePlatform> open(const ibnm::test::TempDir &dir)
{
    auto p = FakePlatform::open(dir / "h.host", dir / "h.host.state");
    EXPECT_TRUE(p.ok()) << p.error().toString();
    return p.ok() ? std::move(p).value() : nullptr;
}

// Every field of a snapshot, one line per object: two snapshots print the
// same exactly when they are the same.
std::string describe(const ibnm::model::Host &h)
{
    std::ostringstream o;
    auto opt = [](const auto &v) { return v ? std::to_string(static_cast<unsigned>(*v)) : std::string("-"); };
    o << "host " << h.kernelRelease << " naming=" << static_cast<int>(h.childNaming) << "\n";
    for (const auto &d : h.devices) {
        o << "device " << d.name << " " << d.nodeGuid << " " << d.nodeType << " " << d.fwVersion << " " << d.hcaType
          << " " << d.driver << " " << d.boardId << " eipoib=" << d.enhancedIpoib
          << " cm=" << d.connectedModeSupported << " roce=" << opt(d.roceEnabled) << "\n";
        for (const auto &p : d.ports) {
            o << "  port " << p.number << " " << p.state << " " << p.physState << " " << p.rate << " lid=" << opt(p.lid)
              << " smlid=" << opt(p.smLid) << " ll=" << static_cast<int>(p.linkLayer) << " mtu=" << opt(p.activeMtu)
              << "/" << opt(p.maxMtu) << "/" << opt(p.broadcastMtu) << " roce=" << opt(p.defaultRoceMode)
              << " tos=" << opt(p.defaultRoceTos) << " tc=" << opt(p.trafficClass) << " ttl=" << opt(p.ttl)
              << " pkeys=";
            for (auto pk : p.pkeys)
                o << pk << ",";
            o << "\n";
            for (const auto &g : p.gids)
                o << "    gid " << g.index << " " << g.gid << " " << static_cast<int>(g.type) << " " << g.netdev
                  << "\n";
        }
    }
    for (const auto &n : h.netdevs) {
        o << "netdev " << n.name << " " << n.ifindex << " type=" << n.type << " " << n.address << " mtu=" << n.mtu
          << " up=" << n.up << " kind=" << n.kind << " master=" << n.master << " link=" << n.link
          << " rdma=" << n.rdmaDevice << "/" << n.rdmaPort << " addrs=";
        for (const auto &a : n.addresses)
            o << a << ",";
        o << " routes=";
        for (const auto &r : n.routes)
            o << ibnm::model::formatRoute(r) << ",";
        o << "\n";
    }
    for (const auto &ib : h.ipoib)
        o << "ipoib " << ib.name << " parent=" << ib.parent << " " << ib.pkey << " mode=" << static_cast<int>(ib.mode)
          << " umcast=" << ib.umcast << " mtu=" << ib.mtu << " " << ib.address << " " << ib.portGuid << "\n";
    for (const auto &b : h.bonds) {
        o << "bond " << b.name << " " << b.mode << " primary=" << b.primary << " active=" << b.activePort
          << " miimon=" << b.miimon << " fom=" << b.failOverMac << " ports=";
        for (const auto &p : b.ports)
            o << p << ",";
        o << "\n";
    }
    for (const auto &l : h.softLinks)
        o << "soft-link " << l.name << " " << static_cast<int>(l.type) << " " << l.netdev << "\n";
    return o.str();
}

} // namespace

TEST(FakeState, ChangesPersistAcrossInstances)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto first = open(dir);
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0").ok());
    ASSERT_TRUE(first->setMtu("enp1s0", 4000).ok());

    auto second = open(dir);
    ASSERT_TRUE(second);
    auto h = second->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_NE(h->findDevice("rxe0"), nullptr);
    EXPECT_EQ(h->findNetdev("enp1s0")->mtu, 4000u);
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
    g_unlink((dir / "h.host.state/journal").c_str());
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

// What one instance keeps between operations (the state it last read or
// wrote) is what any other instance reads from the state file: a long run of
// every kind of operation, compared after each step with a fresh instance.
TEST(FakeState, AnInstanceSeesWhatAFreshInstanceReads)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto p = open(dir);
    ASSERT_TRUE(p);
    unsigned step = 0;
    auto same = [&](const ibnm::Status &s, bool ok = true) {
        step++;
        EXPECT_EQ(s.ok(), ok) << "step " << step << ": " << (s.ok() ? std::string("ok") : s.error().toString());
        auto fresh = open(dir);
        ASSERT_TRUE(fresh);
        auto mine = p->readHost();
        auto theirs = fresh->readHost();
        ASSERT_TRUE(mine.ok() && theirs.ok());
        EXPECT_EQ(describe(*mine), describe(*theirs)) << "step " << step;
        EXPECT_EQ(p->operationCount(), fresh->operationCount()) << "step " << step;
    };

    auto child = p->createIpoibChild({"ib0", 0x0002, IpoibMode::Connected, true});
    same(child.ok() ? ibnm::Status() : child.error());
    same(p->setMtu("ib0.0002", 9000));
    same(p->setUp("ib0.0002", true));
    same(p->setIpoibMode("ib0.0002", IpoibMode::Datagram), false); // the link is up
    same(p->setUp("ib0.0002", false));
    same(p->setIpoibMode("ib0.0002", IpoibMode::Datagram));
    same(p->setIpoibUmcast("ib0.0002", false));
    same(p->addNetdev([] {
        ibnm::model::Netdev n;
        n.name = "dummy0";
        n.kind = "dummy";
        return n;
    }()));
    // A bond of IPoIB ports takes their link type.
    same(p->createBond({"bond0", "active-backup", 100, "ib1", ""}));
    same(p->enslave("ib0", "bond0"));
    same(p->enslave("ib1", "bond0"));
    auto onBond = p->createIpoibChild({"bond0", 0x0003, std::nullopt, std::nullopt});
    same(onBond.ok() ? ibnm::Status() : onBond.error(), false); // a bond is no IPoIB interface
    same(p->release("ib0"));
    same(p->createBond({"bond1", "1", std::nullopt, "", "follow"}));
    same(p->enslave("dummy0", "bond1"));
    same(p->addAddress("enp1s0", "192.0.2.5/24"));
    same(p->addAddress("enp1s0", "2001:db8:0::5/64"));
    same(p->addRoute("enp1s0", {"198.51.100.0/24", "192.0.2.254", 10}));
    same(p->addRoute("enp1s0", {"0.0.0.0/0", "", 0}));
    same(p->addSoftLink("rxe0", SoftLinkType::Rxe, "enp1s0"));
    same(p->addSoftLink("siw0", SoftLinkType::Siw, "enp1s0"));
    same(p->setDefaultRoceMode("rxe0", 1, RoceMode::V2));
    same(p->setDefaultRoceTos("mlx5_0", 1, 106));
    same(p->setTrafficClass("mlx5_0", 1, 96));
    same(p->setTtl("mlx5_0", 1, 64));
    same(p->removeAddress("enp1s0", "2001:db8::5/64"));
    same(p->setMtu("nonexistent", 1500), false);
    p->failNext("setMtu", EBUSY);
    same(p->setMtu("enp1s0", 9000), false);
    same(p->setMtu("enp1s0", 9000));
    same(p->removeRoute("enp1s0", {"0.0.0.0/0", "", 0}));
    same(p->setUp("enp1s0", false)); // flushes the other route
    same(p->deleteSoftLink("siw0"));
    same(p->deleteLink("bond1"));
    same(p->deleteIpoibChild("ib0", 0x0002));
    same(p->deleteLink("bond0"));
    same(p->reset());
    EXPECT_EQ(step, 36u);
}

// The state an instance keeps is never served once the file changed, not
// even when the new file has the old one's inode, size and modification
// time (which a cache keyed on the file's identity would take for unchanged).
TEST(FakeState, AChangedStateFileIsReadAgainWhateverItsIdentity)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto mine = open(dir);
    auto other = open(dir);
    ASSERT_TRUE(mine && other);
    const std::string state = dir / "h.host.state/state";
    const std::string kept = dir / "h.host.state/kept";
    ASSERT_TRUE(mine->setMtu("enp1s0", 1400).ok());
    struct stat before {};
    ASSERT_EQ(stat(state.c_str(), &before), 0);
    ASSERT_EQ(link(state.c_str(), kept.c_str()), 0); // keeps the inode

    // Another instance changes the MTU: the same number of digits, the same
    // operation count width, so the same size.
    ASSERT_TRUE(other->setMtu("enp1s0", 9000).ok());
    gchar *raw = nullptr;
    gsize len = 0;
    ASSERT_TRUE(g_file_get_contents(state.c_str(), &raw, &len, nullptr));
    std::string changed(raw, len);
    g_free(raw);
    ASSERT_EQ(static_cast<off_t>(changed.size()), before.st_size);

    // Its bytes go into the first file's inode, with the first file's
    // modification time, and that inode takes the name again.
    int fd = ::open(kept.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, changed.data(), changed.size(), 0), static_cast<ssize_t>(changed.size()));
    struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(futimens(fd, times), 0);
    ::close(fd);
    ASSERT_EQ(rename(kept.c_str(), state.c_str()), 0);
    struct stat after {};
    ASSERT_EQ(stat(state.c_str(), &after), 0);
    ASSERT_EQ(after.st_dev, before.st_dev);
    ASSERT_EQ(after.st_ino, before.st_ino);
    ASSERT_EQ(after.st_size, before.st_size);
    ASSERT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
    ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);

    EXPECT_EQ(mine->readHost()->findNetdev("enp1s0")->mtu, 9000u);
    EXPECT_EQ(mine->operationCount(), 2u);
    // Its next operation builds on the other instance's change.
    ASSERT_TRUE(mine->addAddress("enp1s0", "192.0.2.7/24").ok());
    EXPECT_EQ(other->readHost()->findNetdev("enp1s0")->mtu, 9000u);
    EXPECT_EQ(other->operationCount(), 3u);
}

// Another process's change between two operations of this one: the second
// operation starts from it, and nothing either did is lost.
TEST(FakeState, AnotherProcessesChangeBetweenTwoOperationsIsSeen)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto p = open(dir);
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->addAddress("enp1s0", "192.0.2.1/24").ok());
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        auto q = FakePlatform::open(dir / "h.host", dir / "h.host.state");
        bool ok = q.ok() && q.value()->setMtu("enp1s0", 9000).ok() &&
                  q.value()->addAddress("enp1s0", "192.0.2.2/24").ok();
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(p->readHost()->findNetdev("enp1s0")->mtu, 9000u);
    ASSERT_TRUE(p->addAddress("enp1s0", "192.0.2.3/24").ok());
    auto fresh = open(dir);
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->readHost()->findNetdev("enp1s0")->addresses,
              (std::vector<std::string>{"192.0.2.1/24", "192.0.2.2/24", "192.0.2.3/24"}));
    EXPECT_EQ(fresh->operationCount(), 4u);
}

// Names the state file could not hold (a GLib key file: group names
// without "[", "]" or control characters) are refused
// rather than lost or left to break the next read, in memory too.
TEST(FakeState, WhatTheStateFileCannotHoldIsRefused)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto p = open(dir);
    ASSERT_TRUE(p);
    auto refused = [&](const ibnm::Status &s) {
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.error().errnum(), EINVAL) << s.error().toString();
    };
    refused(p->createBond({"bo[nd", "active-backup", std::nullopt, "", ""}));
    refused(p->createBond({"bond 0", "active-backup", std::nullopt, "", ""}));
    refused(p->createBond({"bond0", "active-backup", std::nullopt, "ib]0", ""}));
    refused(p->addSoftLink("rxe[0]", SoftLinkType::Rxe, "enp1s0"));
    refused(p->addSoftLink("rxe 0", SoftLinkType::Rxe, "enp1s0"));
    ibnm::model::Netdev n;
    n.name = "dummy\x01";
    refused(p->addNetdev(n));
    // Each refusal was a counted operation that changed nothing, and the
    // state file still reads.
    auto fresh = open(dir);
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->operationCount(), 5u);
    EXPECT_EQ(describe(*fresh->readHost()), describe(*p->readHost()));
    EXPECT_EQ(fresh->readHost()->findDevice("rxe[0]"), nullptr);
}

// An operation appends one journal line; the snapshot (the state file) is
// written only when the journal is compacted, not at every operation.
TEST(FakeState, AnOperationAppendsToTheJournalAndLeavesTheSnapshot)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto p = open(dir);
    ASSERT_TRUE(p);
    const std::string state = dir / "h.host.state/state";
    const std::string journal = dir / "h.host.state/journal";
    ASSERT_TRUE(p->setMtu("enp1s0", 1400).ok()); // the first operation writes a snapshot
    struct stat s0 {}, j0 {};
    ASSERT_EQ(stat(state.c_str(), &s0), 0);
    ASSERT_EQ(stat(journal.c_str(), &j0), 0);
    for (int i = 1; i <= 20; i++)
        ASSERT_TRUE(p->addAddress("enp1s0", ibnm::strprintf("192.0.2.%d/24", i)).ok());
    struct stat s1 {}, j1 {};
    ASSERT_EQ(stat(state.c_str(), &s1), 0);
    ASSERT_EQ(stat(journal.c_str(), &j1), 0);
    EXPECT_EQ(s1.st_ino, s0.st_ino) << "the snapshot was rewritten";
    EXPECT_EQ(s1.st_size, s0.st_size);
    EXPECT_GT(j1.st_size, j0.st_size);
    EXPECT_EQ(j1.st_ino, j0.st_ino) << "the journal is appended to, not replaced";
    auto fresh = open(dir);
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->readHost()->findNetdev("enp1s0")->addresses.size(), 20u);
    EXPECT_EQ(fresh->operationCount(), 21u);

    // Compaction: after enough operations a new snapshot, and a fresh
    // instance still reads the same host.
    for (int i = 0; i < 600; i++)
        ASSERT_TRUE(p->setMtu("enp1s0", 1400 + static_cast<unsigned>(i % 2)).ok());
    struct stat s2 {};
    ASSERT_EQ(stat(state.c_str(), &s2), 0);
    EXPECT_NE(s2.st_ino, s0.st_ino) << "never compacted";
    auto after = open(dir);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->readHost()->findNetdev("enp1s0")->mtu, 1401u);
    EXPECT_EQ(after->readHost()->findNetdev("enp1s0")->addresses.size(), 20u);
    EXPECT_EQ(after->operationCount(), 621u);
    EXPECT_EQ(fresh->operationCount(), 621u) << "an instance catches up across a compaction";
}

// What a kill -9 can leave: a torn last journal line (ignored, and cut off
// by the next writer), or a new snapshot with the old journal (ignored).
TEST(FakeState, AKilledWriterLeavesAStateThatParses)
{
    ibnm::test::TempDir dir;
    dir.write("h.host", ibnm::test::kTestHost);
    auto p = open(dir);
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->setMtu("enp1s0", 1400).ok());
    ASSERT_TRUE(p->addAddress("enp1s0", "192.0.2.1/24").ok());
    const std::string journal = dir / "h.host.state/journal";
    {
        int fd = ::open(journal.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        ASSERT_GE(fd, 0);
        const char torn[] = "ok\taddAddress\tenp1s0\t192.0.2.9/2";
        ASSERT_EQ(::write(fd, torn, sizeof torn - 1), static_cast<ssize_t>(sizeof torn - 1));
        ::close(fd);
    }
    auto fresh = open(dir);
    ASSERT_TRUE(fresh);
    EXPECT_EQ(fresh->readHost()->findNetdev("enp1s0")->addresses, std::vector<std::string>{"192.0.2.1/24"});
    EXPECT_EQ(fresh->operationCount(), 2u);
    ASSERT_TRUE(fresh->addAddress("enp1s0", "192.0.2.2/24").ok());
    auto again = open(dir);
    ASSERT_TRUE(again);
    EXPECT_EQ(again->readHost()->findNetdev("enp1s0")->addresses,
              (std::vector<std::string>{"192.0.2.1/24", "192.0.2.2/24"}));
    EXPECT_EQ(p->readHost()->findNetdev("enp1s0")->addresses.size(), 2u);

    // A journal of another snapshot (the writer died between writing the
    // snapshot and starting its journal) is not replayed.
    const std::string stale = "ibnm-journal 1 not-this-snapshot\nok\tsetMtu\tenp1s0\t9000\n";
    ASSERT_TRUE(g_file_set_contents(journal.c_str(), stale.c_str(), -1, nullptr));
    auto other = open(dir);
    ASSERT_TRUE(other);
    EXPECT_EQ(other->readHost()->findNetdev("enp1s0")->mtu, 1400u);
    ASSERT_TRUE(other->setMtu("enp1s0", 1500).ok());
    EXPECT_EQ(open(dir)->readHost()->findNetdev("enp1s0")->mtu, 1500u);
}

// A real kill -9 at a random point of a run of operations: what is left
// parses, counts no operation twice, and the next operation works.
TEST(FakeState, KillNineAtAnyPointConverges)
{
    for (int round = 0; round < 5; round++) {
        ibnm::test::TempDir dir;
        dir.write("h.host", ibnm::test::kTestHost);
        ASSERT_TRUE(open(dir));
        pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            auto q = FakePlatform::open(dir / "h.host", dir / "h.host.state");
            for (unsigned i = 0; q.ok(); i++)
                (void)q.value()->setMtu("enp1s0", 1000 + i % 1000);
            _exit(1);
        }
        g_usleep(20000 + 15000 * round);
        ::kill(child, SIGKILL);
        int status = 0;
        ASSERT_EQ(waitpid(child, &status, 0), child);
        auto p = open(dir);
        ASSERT_TRUE(p) << "round " << round;
        auto h = p->readHost();
        ASSERT_TRUE(h.ok()) << h.error().toString();
        uint64_t ops = p->operationCount();
        if (ops > 0) {
            EXPECT_EQ(h->findNetdev("enp1s0")->mtu, 1000 + (ops - 1) % 1000) << "round " << round;
        }
        ASSERT_TRUE(p->setMtu("enp1s0", 2000).ok());
        auto fresh = open(dir);
        ASSERT_TRUE(fresh);
        EXPECT_EQ(fresh->readHost()->findNetdev("enp1s0")->mtu, 2000u);
        EXPECT_EQ(fresh->operationCount(), ops + 1);
    }
}
