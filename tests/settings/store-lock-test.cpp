// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile store's lock and journal (issue 28): one lock file, the
// user's and 0600; a wait for it that ends, naming the holder; a change of
// many files that a killed writer left half done is seen whole by readers
// and completed by the next writer; temporary files of writers that ended
// are removed, those of running writers kept.
#include "config.h"

#include "ibnm-error.h"
#include "ibnm-settings.h"
#include "libcore/support/file-lock.hpp"
#include "libcore/support/files.hpp"
#include "settings-test-util.hpp"
#include "settings/keyfile-backend.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ibnm::test;
using ibnm::settings::KeyfileBackend;

namespace {

const char kUuidA[] = "11111111-2222-4333-8444-555555555555";
const char kUuidB[] = "66666666-7777-4888-9999-aaaaaaaaaaaa";

std::string profileText(const char *id, const char *uuid, unsigned mtu)
{
    NMConnection *c = newConnection(id, uuid, NM_SETTING_INFINIBAND_SETTING_NAME, id);
    g_object_set(addInfiniband(c, "datagram"), NM_SETTING_INFINIBAND_MTU, mtu, nullptr);
    char *d = ibnm_keyfile_to_data(c, nullptr);
    std::string s = d ? d : "";
    g_free(d);
    g_object_unref(c);
    return s;
}

std::vector<std::string> names(const std::string &dir)
{
    std::vector<std::string> out;
    if (GDir *d = g_dir_open(dir.c_str(), 0, nullptr)) {
        while (const char *n = g_dir_read_name(d))
            out.emplace_back(n);
        g_dir_close(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// MTU of each profile the backend loaded, by id.
std::map<std::string, unsigned> mtus(const KeyfileBackend &b)
{
    std::map<std::string, unsigned> out;
    for (const auto &p : b.profiles()) {
        auto *ib = nm_connection_get_setting_infiniband(p.connection.get());
        out[nm_connection_get_id(p.connection.get())] = ib ? nm_setting_infiniband_get_mtu(ib) : 0;
    }
    return out;
}

// A process that has ended: its pid, with a start time it never had.
ibnm::ProcessId deadProcess()
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    int status = 0;
    waitpid(pid, &status, 0);
    return ibnm::ProcessId{pid, 1};
}

std::string tempName(const std::string &base, const ibnm::ProcessId &p, const char *random)
{
    return "." + base + ".ibnm-" + std::to_string(p.pid) + "-" + std::to_string(p.start) + "." + random;
}

} // namespace

TEST(StoreLock, TheLockFileIsTheUsersAnd0600)
{
    TempDir dir;
    KeyfileBackend b(dir.path());
    b.setRequiredOwner(geteuid());
    ASSERT_TRUE(b.lockForUpdate().ok());
    struct stat st {};
    ASSERT_EQ(lstat((dir / KeyfileBackend::kLockFile).c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(st.st_uid, geteuid());
    // The holder is recorded: pid and command.
    std::string holder = readFile(dir / KeyfileBackend::kLockFile);
    EXPECT_EQ(holder.rfind("pid=" + std::to_string(getpid()) + " ", 0), 0u) << holder;
    EXPECT_NE(holder.find("cmd="), std::string::npos) << holder;
}

// A second writer waits as long as it is told, then fails naming the first
// (here: two stores of one process, each with its own open lock file).
TEST(StoreLock, AHeldLockTimesOutNamingItsHolder)
{
    TempDir dir;
    KeyfileBackend first(dir.path()), second(dir.path());
    first.setRequiredOwner(geteuid());
    second.setRequiredOwner(geteuid());
    ASSERT_TRUE(first.lockForUpdate().ok());
    second.setLockWait(1);
    gint64 started = g_get_monotonic_time();
    auto st = second.lockForUpdate();
    gint64 waited = g_get_monotonic_time() - started;
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_TIMED_OUT);
    std::string msg = st.error().toString();
    EXPECT_NE(msg.find("process " + std::to_string(getpid()) + " ("), std::string::npos) << msg;
    EXPECT_NE(msg.find("settings-tests"), std::string::npos) << "the holder's command: " << msg;
    EXPECT_NE(msg.find(dir / KeyfileBackend::kLockFile), std::string::npos) << msg;
    EXPECT_GE(waited, 900000);
    EXPECT_LT(waited, 10 * G_USEC_PER_SEC);
    // Not waiting at all fails at once.
    second.setLockWait(0);
    started = g_get_monotonic_time();
    EXPECT_FALSE(second.lockForUpdate().ok());
    EXPECT_LT(g_get_monotonic_time() - started, 500000);
}

// The store NetworkManager's backend falls back to when NetworkManager is
// not running (ibnm_settings_new_auto()) is a writer like any: with the
// lock held elsewhere, its lock for update and a change without one both
// time out naming the holder, and write nothing; once free, a change takes
// the lock (the 0600 lock file records it) and is stored.
TEST(StoreLock, TheFallbackOfNetworkManagersBackendTakesTheLock)
{
    TempDir dir, bus;
    std::optional<std::string> oldBus;
    if (const char *v = g_getenv("DBUS_SYSTEM_BUS_ADDRESS"))
        oldBus = v;
    g_setenv("DBUS_SYSTEM_BUS_ADDRESS", ("unix:path=" + (bus / "no-such-socket")).c_str(), TRUE);
    GError *err = nullptr;
    IbnmSettings *s = ibnm_settings_new_auto(dir.path().c_str(), &err);
    if (oldBus)
        g_setenv("DBUS_SYSTEM_BUS_ADDRESS", oldBus->c_str(), TRUE);
    else
        g_unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
    ASSERT_NE(s, nullptr) << err->message;
    ASSERT_STREQ(ibnm_settings_get_backend_name(s), "keyfile");
    ibnm_settings_set_required_owner(s, geteuid());
    ibnm_settings_set_lock_wait(s, 0);
    {
        KeyfileBackend holder(dir.path());
        holder.setRequiredOwner(geteuid());
        ASSERT_TRUE(holder.lockForUpdate().ok());
        EXPECT_FALSE(ibnm_settings_lock_for_update(s, &err));
        ASSERT_NE(err, nullptr);
        EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_TIMED_OUT)) << err->message;
        EXPECT_NE(std::string(err->message).find("process " + std::to_string(getpid()) + " ("), std::string::npos)
            << err->message;
        g_clear_error(&err);
        ASSERT_TRUE(ibnm_settings_load(s, &err)) << err->message; // readers are not held up
        NMConnection *c = newConnection("p", kUuidA, NM_SETTING_INFINIBAND_SETTING_NAME, "ib0");
        addInfiniband(c, "datagram");
        EXPECT_FALSE(ibnm_settings_add(s, c, nullptr, &err));
        ASSERT_NE(err, nullptr);
        EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_TIMED_OUT)) << err->message;
        g_clear_error(&err);
        EXPECT_EQ(names(dir.path()), std::vector<std::string>{KeyfileBackend::kLockFile});
        g_object_unref(c);
    }
    NMConnection *c = newConnection("p", kUuidA, NM_SETTING_INFINIBAND_SETTING_NAME, "ib0");
    addInfiniband(c, "datagram");
    EXPECT_TRUE(ibnm_settings_add(s, c, nullptr, &err)) << (err ? err->message : "");
    g_clear_error(&err);
    g_object_unref(c);
    std::string holder = readFile(dir / KeyfileBackend::kLockFile);
    EXPECT_EQ(holder.rfind("pid=" + std::to_string(getpid()) + " ", 0), 0u) << holder;
    EXPECT_EQ(names(dir.path()), (std::vector<std::string>{KeyfileBackend::kLockFile, "p.nmconnection"}));
    g_object_unref(s);
}

// The lock file of another user (who could hold it) is refused, not used.
TEST(StoreLock, ALockFileOfAnotherUserIsRefused)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to give the lock file to another user";
    TempDir dir;
    dir.write(KeyfileBackend::kLockFile, "");
    ASSERT_EQ(chown((dir / KeyfileBackend::kLockFile).c_str(), 65534, 65534), 0);
    KeyfileBackend b(dir.path());
    auto st = b.lockForUpdate();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_PERMISSION_DENIED);
    EXPECT_NE(st.error().toString().find("uid 65534"), std::string::npos) << st.error().toString();
}

// A directory other users may write to would let them replace the lock
// file (or make it first): the store refuses to write there.
TEST(StoreLock, ADirectoryOthersMayWriteToIsRefused)
{
    TempDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 01777), 0);
    KeyfileBackend b(dir.path());
    b.setRequiredOwner(geteuid());
    auto st = b.lockForUpdate();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_PERMISSION_DENIED);
    EXPECT_NE(st.error().toString().find("mode 1777"), std::string::npos) << st.error().toString();
    EXPECT_TRUE(names(dir.path()).empty());
    ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
    EXPECT_TRUE(b.lockForUpdate().ok());
}

// A writer killed between its journal and its last rename: a reader sees
// the whole change (not the old A with the new B), the next writer
// completes it and removes the journal and the temporary files.
TEST(StoreJournal, AHalfDoneChangeIsSeenWholeAndCompleted)
{
    TempDir dir;
    std::string a = dir / "a.nmconnection", b = dir / "b.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(a, profileText("a", kUuidA, 1500)).ok());
    ASSERT_TRUE(ibnm::atomicWriteFile(b, profileText("b", kUuidB, 1500)).ok());
    auto dead = deadProcess();
    std::string ta = dir / tempName("a.nmconnection", dead, "Ab12Cd");
    std::string tb = dir / tempName("b.nmconnection", dead, "Ef34Gh");
    ASSERT_TRUE(ibnm::atomicWriteFile(ta, profileText("a", kUuidA, 2000)).ok());
    ASSERT_TRUE(ibnm::atomicWriteFile(tb, profileText("b", kUuidB, 2000)).ok());
    // The journal (as AtomicWriteBatch writes it), then the first rename.
    std::string journal = "ibnm-journal 1\nrename\t" + ta + "\t" + a + "\t1\nrename\t" + tb + "\t" + b + "\t1\nend\n";
    ASSERT_TRUE(ibnm::atomicWriteFile(dir / KeyfileBackend::kJournalFile, journal).ok());
    ASSERT_EQ(rename(ta.c_str(), a.c_str()), 0);

    KeyfileBackend reader(dir.path());
    reader.setRequiredOwner(geteuid());
    ASSERT_TRUE(reader.load().ok());
    EXPECT_EQ(mtus(reader), (std::map<std::string, unsigned>{{"a", 2000}, {"b", 2000}}));
    for (const auto &p : reader.profiles())
        EXPECT_EQ(p.filename.find(".ibnm-"), std::string::npos) << "named by its own file: " << p.filename;

    KeyfileBackend writer(dir.path());
    writer.setRequiredOwner(geteuid());
    ASSERT_TRUE(writer.lockForUpdate().ok());
    EXPECT_EQ(mtus(writer), (std::map<std::string, unsigned>{{"a", 2000}, {"b", 2000}}));
    EXPECT_EQ(names(dir.path()),
              (std::vector<std::string>{KeyfileBackend::kLockFile, "a.nmconnection", "b.nmconnection"}));
    EXPECT_NE(readFile(b).find("mtu=2000"), std::string::npos);
}

// A removal in a batch is part of its journal: before the journal nothing
// is gone; a reader of a half-done change does not see the removed file.
TEST(StoreJournal, ARemovalIsPartOfTheChange)
{
    TempDir dir;
    std::string a = dir / "a.nmconnection", b = dir / "b.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(a, profileText("a", kUuidA, 1500)).ok());
    ASSERT_TRUE(ibnm::atomicWriteFile(b, profileText("b", kUuidB, 1500)).ok());
    auto dead = deadProcess();
    std::string ta = dir / tempName("a.nmconnection", dead, "Ij56Kl");
    ASSERT_TRUE(ibnm::atomicWriteFile(ta, profileText("a", kUuidA, 2000)).ok());
    std::string journal = "ibnm-journal 1\nremove\t" + b + "\nrename\t" + ta + "\t" + a + "\t1\nend\n";
    ASSERT_TRUE(ibnm::atomicWriteFile(dir / KeyfileBackend::kJournalFile, journal).ok());
    KeyfileBackend reader(dir.path());
    reader.setRequiredOwner(geteuid());
    ASSERT_TRUE(reader.load().ok());
    EXPECT_EQ(mtus(reader), (std::map<std::string, unsigned>{{"a", 2000}}));
    ASSERT_TRUE(ibnm::rollForwardJournal(dir / KeyfileBackend::kJournalFile).ok());
    EXPECT_EQ(names(dir.path()), (std::vector<std::string>{KeyfileBackend::kLockFile, "a.nmconnection"}));
    // Again (a crash during the roll-forward): nothing more to do.
    EXPECT_TRUE(ibnm::rollForwardJournal(dir / KeyfileBackend::kJournalFile).ok());
}

TEST(StoreJournal, ABatchOfManyChangesLeavesNoJournal)
{
    TempDir dir;
    std::string a = dir / "a", b = dir / "b", c = dir / "c", journal = dir / ".journal";
    ASSERT_TRUE(ibnm::atomicWriteFile(c, "old c\n").ok());
    ibnm::AtomicWriteBatch batch(journal);
    ibnm::AtomicWriteOptions opts;
    opts.tagWriter = true;
    ASSERT_TRUE(batch.add(a, "new a\n", opts).ok());
    ASSERT_TRUE(batch.add(b, "new b\n", opts).ok());
    batch.remove(c);
    // Before the commit: temporary files named after this process, nothing else.
    auto before = names(dir.path());
    EXPECT_EQ(before.size(), 3u);
    EXPECT_EQ(std::count_if(before.begin(), before.end(),
                            [](const std::string &n) { return n.find(".ibnm-" + std::to_string(getpid()) + "-") != std::string::npos; }),
              2);
    std::vector<std::string> done;
    ASSERT_TRUE(batch.commit(&done).ok());
    EXPECT_EQ(done, (std::vector<std::string>{a, b, c}));
    EXPECT_EQ(names(dir.path()), (std::vector<std::string>{"a", "b"}));
}

TEST(StoreJournal, AJournalThatDoesNotParseIsRemoved)
{
    TempDir dir;
    dir.write(".journal", "ibnm-journal 1\nrename\tonly-one-field\n");
    EXPECT_TRUE(ibnm::rollForwardJournal(dir / ".journal").ok());
    EXPECT_TRUE(names(dir.path()).empty());
}

// Temporary files say who writes them: the next writer removes those of a
// writer that has ended, never those of one that runs (issue 28: `connection
// add` removed a running apply's files as stale, and the apply failed).
TEST(StoreLock, TemporaryFilesOfEndedWritersGoThoseOfRunningOnesStay)
{
    TempDir dir;
    auto dead = deadProcess();
    std::string deadFile = tempName("p.nmconnection", dead, "Mn78Op");
    std::string liveFile = tempName("q.nmconnection", ibnm::currentProcess(), "Qr90St");
    dir.write(deadFile, "half a keyfile");
    dir.write(liveFile, "a keyfile being written");
    dir.write(".p.nmconnection.Ab12Cd", "not ours to judge");
    KeyfileBackend b(dir.path());
    b.setRequiredOwner(geteuid());
    ASSERT_TRUE(b.lockForUpdate().ok());
    auto left = names(dir.path());
    EXPECT_EQ(std::count(left.begin(), left.end(), deadFile), 0);
    EXPECT_EQ(std::count(left.begin(), left.end(), liveFile), 1);
    EXPECT_EQ(std::count(left.begin(), left.end(), ".p.nmconnection.Ab12Cd"), 1);
    EXPECT_FALSE(ibnm::processAlive(dead));
    EXPECT_TRUE(ibnm::processAlive(ibnm::currentProcess()));
}
