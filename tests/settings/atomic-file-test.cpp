// SPDX-License-Identifier: LGPL-2.1-or-later
// Atomic replacement: a writer killed at any point leaves the old or the new
// file, complete, and nothing the store would load as a profile.
#include "config.h"

#include "ibnm-settings.h"
#include "settings-test-util.hpp"
#include "libcore/support/files.hpp"
#include "settings/keyfile-backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ibnm::test;

namespace {

// Generation `gen` of one profile: a complete keyfile whose MTU and padding
// differ per generation, large enough (~48 KiB) that a torn write would show.
std::string generation(unsigned gen)
{
    NMConnection *c = newConnection("crash", "1c2c3c4c-5c6c-4c7c-8c9c-acbcccdcecfc", NM_SETTING_INFINIBAND_SETTING_NAME,
                                    "ib0");
    NMSettingInfiniband *ib = addInfiniband(c, "datagram");
    g_object_set(ib, NM_SETTING_INFINIBAND_MTU, 1000u + gen, nullptr);
    // [user] values are limited to 8 KiB each: spread the padding.
    std::string pad(4000, char('a' + gen % 26));
    for (int i = 0; i < 12; i++)
        setUserData(c, ("test.pad" + std::to_string(i)).c_str(), pad.c_str());
    char *d = ibnm_keyfile_to_data(c, nullptr);
    std::string s = d;
    g_free(d);
    g_object_unref(c);
    return s;
}

} // namespace

TEST(AtomicFile, WritesContentModeAndLeavesNoTemporaryFile)
{
    TempDir dir;
    std::string path = dir / "x.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(path, "first\n").ok());
    ASSERT_TRUE(ibnm::atomicWriteFile(path, "second\n").ok());
    EXPECT_EQ(readFile(path), "second\n");
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    GDir *d = g_dir_open(dir.path().c_str(), 0, nullptr);
    std::vector<std::string> names;
    while (const char *n = g_dir_read_name(d))
        names.emplace_back(n);
    g_dir_close(d);
    EXPECT_EQ(names, std::vector<std::string>{"x.nmconnection"});
}

namespace {
std::vector<std::string> names(const TempDir &dir)
{
    std::vector<std::string> out;
    GDir *d = g_dir_open(dir.path().c_str(), 0, nullptr);
    while (const char *n = g_dir_read_name(d))
        out.emplace_back(n);
    g_dir_close(d);
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

TEST(AtomicFileBatch, PathsChangeOnlyAtCommit)
{
    TempDir dir;
    std::string a = dir / "a.nmconnection", b = dir / "b.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(a, "old a\n").ok());
    ibnm::AtomicWriteBatch batch;
    ASSERT_TRUE(batch.add(a, "new a\n").ok());
    ASSERT_TRUE(batch.add(b, "new b\n").ok());
    EXPECT_EQ(readFile(a), "old a\n");
    EXPECT_FALSE(g_file_test(b.c_str(), G_FILE_TEST_EXISTS));
    ASSERT_TRUE(batch.commit().ok());
    EXPECT_EQ(readFile(a), "new a\n");
    EXPECT_EQ(readFile(b), "new b\n");
    EXPECT_EQ(names(dir), (std::vector<std::string>{"a.nmconnection", "b.nmconnection"}));
}

TEST(AtomicFileBatch, ANewFileDoesNotReplaceOneThatAppearedMeanwhile)
{
    TempDir dir;
    std::string a = dir / "a.nmconnection", b = dir / "b.nmconnection";
    ibnm::AtomicWriteOptions fresh;
    fresh.replace = false;
    {
        ibnm::AtomicWriteBatch batch;
        ASSERT_TRUE(batch.add(a, "new a\n", fresh).ok());
        ASSERT_TRUE(batch.add(b, "new b\n", fresh).ok());
        // Another writer (not holding ibnm's store lock) creates b meanwhile.
        ASSERT_TRUE(ibnm::atomicWriteFile(b, "theirs\n").ok());
        auto s = batch.commit();
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.error().code(), IBNM_ERROR_EXISTS);
        EXPECT_NE(s.error().toString().find(b), std::string::npos) << s.error().toString();
    }
    EXPECT_EQ(readFile(b), "theirs\n");
    // All or nothing: a is not written either; no temporary file is left.
    EXPECT_FALSE(g_file_test(a.c_str(), G_FILE_TEST_EXISTS));
    EXPECT_EQ(names(dir), (std::vector<std::string>{"b.nmconnection"}));
}

TEST(AtomicFileBatch, AnUncommittedBatchLeavesNothing)
{
    TempDir dir;
    std::string a = dir / "a.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(a, "old a\n").ok());
    {
        ibnm::AtomicWriteBatch batch;
        ASSERT_TRUE(batch.add(a, "new a\n").ok());
        ASSERT_TRUE(batch.add(dir / "b.nmconnection", "new b\n").ok());
    }
    EXPECT_EQ(readFile(a), "old a\n");
    EXPECT_EQ(names(dir), std::vector<std::string>{"a.nmconnection"});
}

TEST(AtomicFile, FailureLeavesTheOldFile)
{
    TempDir dir;
    std::string path = dir / "x.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(path, "old\n").ok());
    // The target is replaced by a directory: rename() must fail.
    std::string blocked = dir / "blocked";
    g_mkdir(blocked.c_str(), 0755);
    dir.write("blocked/inside", "x");
    auto s = ibnm::atomicWriteFile(blocked, "new\n");
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(readFile(path), "old\n");
    GDir *d = g_dir_open(dir.path().c_str(), 0, nullptr);
    int n = 0;
    while (g_dir_read_name(d))
        n++;
    g_dir_close(d);
    EXPECT_EQ(n, 2); // x.nmconnection and blocked: the temporary file is gone
}

TEST(AtomicFile, WriterKilledAtRandomPointsLeavesOldOrNew)
{
    const unsigned kGenerations = 16;
    const char *envIter = g_getenv("IBNM_CRASH_ITERATIONS");
    const unsigned iterations = envIter ? unsigned(atoi(envIter)) : 150;
    const char *envSeed = g_getenv("IBNM_CRASH_SEED");
    const unsigned seed = envSeed ? unsigned(atoi(envSeed)) : 20261122u;
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> delayUs(0, 4000);
    RecordProperty("seed", int(seed));

    std::map<std::string, unsigned> known;
    std::vector<std::string> contents;
    for (unsigned g = 0; g < kGenerations; g++) {
        contents.push_back(generation(g));
        known[contents.back()] = g;
    }

    TempDir dir;
    std::string path = dir / "crash.nmconnection";
    ASSERT_TRUE(ibnm::atomicWriteFile(path, contents[0]).ok());

    unsigned changed = 0;
    std::string previous = contents[0];
    for (unsigned it = 0; it < iterations; it++) {
        SCOPED_TRACE(testing::Message() << "iteration " << it << " seed " << seed);
        unsigned start = unsigned(rng()) % kGenerations;
        // The random delay counts from the moment the writer runs, not from
        // fork(): on a loaded machine a child not yet scheduled was killed
        // before its first write, and too few kills landed mid-write.
        int ready[2];
        ASSERT_EQ(pipe(ready), 0);
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            // The writer: say it runs, then replace the file over and over
            // until killed.
            close(ready[0]);
            char one = 1;
            (void)!write(ready[1], &one, 1);
            close(ready[1]);
            for (unsigned g = start;; g = (g + 1) % kGenerations)
                (void)ibnm::atomicWriteFile(path, contents[g]);
        }
        close(ready[1]);
        char one = 0;
        ASSERT_EQ(read(ready[0], &one, 1), 1);
        close(ready[0]);
        usleep(useconds_t(delayUs(rng)));
        kill(pid, SIGKILL);
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFSIGNALED(status));

        std::string now = readFile(path);
        ASSERT_EQ(known.count(now), 1u) << "torn or foreign content (" << now.size() << " bytes)";
        changed += now != previous;
        previous = now;

        // Whatever temporary files the kill left are not profiles.
        ibnm::settings::KeyfileBackend store(dir.path());
        store.setRequiredOwner(geteuid());
        ASSERT_TRUE(store.load().ok());
        ASSERT_EQ(store.profiles().size(), 1u);
        ASSERT_TRUE(store.warnings().empty()) << store.warnings()[0];
        EXPECT_EQ(store.profiles()[0].filename, path);
    }
    // The kills did land between writes and in the middle of them: a
    // temporary file left behind is a write killed before its rename.
    unsigned torn = 0;
    GDir *d = g_dir_open(dir.path().c_str(), 0, nullptr);
    while (const char *n = g_dir_read_name(d))
        torn += g_str_has_prefix(n, ".crash.nmconnection.");
    g_dir_close(d);
    RecordProperty("replaced", int(changed));
    RecordProperty("killed_mid_write", int(torn));
    fprintf(stderr, "[crash] %u kills: content replaced %u times, %u writes killed before rename\n", iterations,
            changed, torn);
    EXPECT_GT(changed, iterations / 10);
    EXPECT_GT(torn, 0u);
}

// ibnm apply's store write: when a new profile's file cannot be renamed
// because another writer created that file meanwhile, the batch makes no
// change at all (all or nothing, before its journal), and the store forgets
// the profile it did not write, so the clean-up (deleting what the apply
// added) never removes the other writer's file; a profile the batch updated
// is, in memory, what its file still holds.
TEST(AtomicFileBatch, AFailedBatchLeavesTheStoreAsTheDiskIs)
{
    TempDir dir;
    ibnm::settings::KeyfileBackend store(dir.path());
    store.setRequiredOwner(geteuid());
    ASSERT_TRUE(store.load().ok());
    auto make = [](const char *id, const char *uuid, const char *ifname) {
        NMConnection *c = newConnection(id, uuid, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
        addInfiniband(c, "datagram");
        return c;
    };
    auto connected = [](NMConnection *c) {
        NMConnection *copy = nm_simple_connection_new_clone(c);
        g_object_set(nm_connection_get_setting_infiniband(copy), NM_SETTING_INFINIBAND_TRANSPORT_MODE, "connected",
                     nullptr);
        return copy;
    };
    auto modeOf = [&](const std::string &uuid) -> std::string {
        for (const auto &p : store.profiles())
            if (uuid == nm_connection_get_uuid(p.connection.get()))
                return nm_setting_infiniband_get_transport_mode(nm_connection_get_setting_infiniband(p.connection.get()));
        return "absent";
    };
    const char *uA = "0a0b0c0d-0e0f-4a1b-8c2d-3e4f5a6b7c8d", *uB = "1a1b1c1d-1e1f-4a2b-8c3d-4e5f6a7b8c9d",
               *uC = "2a2b2c2d-2e2f-4a3b-8c4d-5e6f7a8b9cad";
    NMConnection *a = make("a", uA, "ib0"), *b = make("b", uB, "ib1"), *c = make("c", uC, "ib2");
    auto aPath = store.add(a), cPath = store.add(c);
    ASSERT_TRUE(aPath.ok() && cPath.ok());
    std::string cBytes = readFile(*cPath);

    store.beginBatch();
    NMConnection *a2 = connected(a), *c2 = connected(c);
    ASSERT_TRUE(store.update(a2).ok()); // not renamed either
    auto bPath = store.add(b);          // its rename fails
    ASSERT_TRUE(bPath.ok());
    ASSERT_TRUE(store.update(c2).ok()); // never renamed
    ASSERT_TRUE(ibnm::atomicWriteFile(*bPath, "theirs\n").ok());
    auto s = store.commitBatch();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code(), IBNM_ERROR_EXISTS);
    EXPECT_NE(s.error().toString().find(*bPath), std::string::npos) << s.error().toString();

    EXPECT_EQ(modeOf(uA), "datagram");
    EXPECT_EQ(readFile(*aPath).find("transport-mode=connected"), std::string::npos);
    EXPECT_EQ(modeOf(uB), "absent");
    EXPECT_EQ(modeOf(uC), "datagram");
    EXPECT_EQ(readFile(*cPath), cBytes);
    // Deleting the profile the batch added finds nothing: the other
    // writer's file stays.
    EXPECT_FALSE(store.remove(uB).ok());
    EXPECT_EQ(readFile(*bPath), "theirs\n");
    for (NMConnection *x : {a, b, c, a2, c2})
        g_object_unref(x);
}
