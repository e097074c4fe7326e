// SPDX-License-Identifier: LGPL-2.1-or-later
// The keyfile store: NetworkManager's file names, 0600 root-owned atomic
// writes, and the permission rules on load.
#include "config.h"

#include "ibnm-error.h"
#include "ibnm-settings.h"
#include "settings-test-util.hpp"

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>

using namespace ibnm::test;

namespace {

const char kUuidA[] = "11111111-2222-4333-8444-555555555555";
const char kUuidB[] = "66666666-7777-4888-9999-aaaaaaaaaaaa";
const char kUuidC[] = "bbbbbbbb-cccc-4ddd-8eee-ffffffffffff";

NMConnection *ibProfile(const char *id, const char *uuid, const char *ifname = "ib0")
{
    NMConnection *c = newConnection(id, uuid, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
    addInfiniband(c, "datagram");
    return c;
}

// A store on `dir` that accepts files of the user running the tests.
IbnmSettings *store(const std::string &dir)
{
    IbnmSettings *s = ibnm_settings_new_keyfile(dir.c_str());
    ibnm_settings_set_required_owner(s, geteuid());
    GError *err = nullptr;
    EXPECT_TRUE(ibnm_settings_load(s, &err)) << (err ? err->message : "");
    g_clear_error(&err);
    return s;
}

std::string add(IbnmSettings *s, NMConnection *c)
{
    char *path = nullptr;
    GError *err = nullptr;
    EXPECT_TRUE(ibnm_settings_add(s, c, &path, &err)) << (err ? err->message : "");
    g_clear_error(&err);
    std::string p = path ? path : "";
    g_free(path);
    return p;
}

std::vector<std::string> warnings(IbnmSettings *s)
{
    std::vector<std::string> w;
    for (const char *const *p = ibnm_settings_get_load_warnings(s); *p; p++)
        w.emplace_back(*p);
    return w;
}

std::vector<std::string> ids(IbnmSettings *s)
{
    GPtrArray *a = ibnm_settings_get_connections(s);
    std::vector<std::string> v;
    for (guint i = 0; i < a->len; i++)
        v.emplace_back(nm_connection_get_id(NM_CONNECTION(a->pdata[i])));
    g_ptr_array_unref(a);
    return v;
}

std::string keyfileText(NMConnection *c)
{
    char *d = ibnm_keyfile_to_data(c, nullptr);
    std::string s = d ? d : "";
    g_free(d);
    return s;
}

} // namespace

TEST(KeyfileStore, AddWritesNetworkManagersFileWith0600)
{
    TempDir dir;
    IbnmSettings *s = store(dir.path());
    EXPECT_STREQ(ibnm_settings_get_backend_name(s), "keyfile");
    NMConnection *c = ibProfile("ib0", kUuidA);
    std::string path = add(s, c);
    EXPECT_EQ(path, dir / "ib0.nmconnection");
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    if (geteuid() == 0) {
        EXPECT_EQ(st.st_uid, 0u);
        EXPECT_EQ(st.st_gid, 0u);
    }
    EXPECT_EQ(readFile(path), keyfileText(c));
    // Only the profile (and the store's lock file): no temporary file is
    // left behind.
    GDir *d = g_dir_open(dir.path().c_str(), 0, nullptr);
    int n = 0;
    while (const char *name = g_dir_read_name(d))
        n += std::string(name) != ".ibnm.lock";
    g_dir_close(d);
    EXPECT_EQ(n, 1);
    g_object_unref(c);
    g_object_unref(s);
}

TEST(KeyfileStore, CollisionsAreResolvedAsNetworkManagerDoes)
{
    TempDir dir;
    IbnmSettings *s = store(dir.path());
    NMConnection *a = ibProfile("ib0", kUuidA);
    NMConnection *b = ibProfile("ib0", kUuidB);
    NMConnection *c = ibProfile("ib0", kUuidC);
    EXPECT_EQ(add(s, a), dir / "ib0.nmconnection");
    EXPECT_EQ(add(s, b), dir / (std::string("ib0-") + kUuidB + ".nmconnection"));
    // A foreign file holds the second candidate: the third one is used.
    dir.write(std::string("ib0-") + kUuidC + ".nmconnection", "foreign");
    EXPECT_EQ(add(s, c), dir / (std::string("ib0-") + kUuidC + "-1.nmconnection"));

    // The same UUID twice is refused.
    GError *err = nullptr;
    EXPECT_FALSE(ibnm_settings_add(s, a, nullptr, &err));
    EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_EXISTS));
    g_clear_error(&err);

    NMConnection *slash = ibProfile("site/ib.8002", "0c0c0c0c-1111-4222-8333-444444444444", "ib1");
    EXPECT_EQ(add(s, slash), dir / "site_ib.8002.nmconnection");
    for (NMConnection *x : {a, b, c, slash})
        g_object_unref(x);
    g_object_unref(s);
}

// A batch: the profiles change in memory at once, the files at the commit,
// all of them; an aborted batch writes nothing and leaves memory as the
// files are.
TEST(KeyfileStore, ABatchIsWrittenWholeAtItsCommitAndNotAtAllWhenAborted)
{
    TempDir dir;
    IbnmSettings *s = store(dir.path());
    ibnm_settings_begin_batch(s);
    NMConnection *a = ibProfile("ib0", kUuidA);
    NMConnection *b = ibProfile("ib1", kUuidB, "ib1");
    std::string pathA = add(s, a), pathB = add(s, b);
    EXPECT_EQ(ids(s), (std::vector<std::string>{"ib0", "ib1"}));
    EXPECT_FALSE(g_file_test(pathA.c_str(), G_FILE_TEST_EXISTS)) << "written before the commit";
    ibnm_settings_abort_batch(s);
    EXPECT_TRUE(ids(s).empty());
    EXPECT_EQ(ibnm_settings_find(s, kUuidA), nullptr);
    EXPECT_FALSE(g_file_test(pathA.c_str(), G_FILE_TEST_EXISTS));
    EXPECT_FALSE(g_file_test(pathB.c_str(), G_FILE_TEST_EXISTS));

    ibnm_settings_begin_batch(s);
    pathA = add(s, a);
    pathB = add(s, b);
    GError *err = nullptr;
    EXPECT_TRUE(ibnm_settings_commit_batch(s, &err)) << (err ? err->message : "");
    g_clear_error(&err);
    EXPECT_TRUE(g_file_test(pathA.c_str(), G_FILE_TEST_EXISTS));
    EXPECT_TRUE(g_file_test(pathB.c_str(), G_FILE_TEST_EXISTS));
    g_object_unref(s);
    s = store(dir.path());
    EXPECT_EQ(ids(s), (std::vector<std::string>{"ib0", "ib1"}));
    g_object_unref(s);
    g_object_unref(a);
    g_object_unref(b);
}

TEST(KeyfileStore, ReloadFindUpdateDelete)
{
    TempDir dir;
    IbnmSettings *s = store(dir.path());
    NMConnection *a = ibProfile("ib0", kUuidA);
    std::string path = add(s, a);
    g_object_unref(s);

    s = store(dir.path());
    EXPECT_TRUE(warnings(s).empty());
    ASSERT_EQ(ids(s), std::vector<std::string>{"ib0"});
    NMConnection *byUuid = ibnm_settings_find(s, kUuidA);
    ASSERT_NE(byUuid, nullptr);
    EXPECT_EQ(ibnm_settings_find(s, "ib0"), byUuid);
    EXPECT_EQ(ibnm_settings_find(s, "ib0.nmconnection"), byUuid);
    EXPECT_EQ(ibnm_settings_find(s, path.c_str()), byUuid);
    EXPECT_EQ(ibnm_settings_find(s, "nothing"), nullptr);
    // After nmcli's selector words, only what the word names.
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_ID, "ib0"), byUuid);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_ID, kUuidA), nullptr);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_UUID, kUuidA), byUuid);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_UUID, "ib0"), nullptr);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_FILENAME, "ib0.nmconnection"), byUuid);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_FILENAME, "ib0"), nullptr);
    // D-Bus paths are NetworkManager's: a keyfile store has none.
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_PATH, "1"), nullptr);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_ACTIVE_PATH, "1"), nullptr);
    EXPECT_STREQ(ibnm_settings_get_filename(s, kUuidA), path.c_str());
    NMConnection *other = ibProfile("ib1", "0d0d0d0d-1111-4222-8333-444444444444", "ib1");
    std::string otherPath = add(s, other);
    EXPECT_STREQ(ibnm_settings_get_filename(s, "0d0d0d0d-1111-4222-8333-444444444444"), otherPath.c_str());
    EXPECT_STREQ(ibnm_settings_get_filename(s, kUuidA), path.c_str());
    ASSERT_TRUE(ibnm_settings_delete(s, "0d0d0d0d-1111-4222-8333-444444444444", nullptr));
    EXPECT_EQ(ibnm_settings_get_filename(s, "0d0d0d0d-1111-4222-8333-444444444444"), nullptr);
    g_object_unref(other);

    // Update: new content in the same file, even with a new id.
    NMConnection *changed = nm_simple_connection_new_clone(byUuid);
    g_object_set(nm_connection_get_setting_connection(changed), NM_SETTING_CONNECTION_ID, "renamed", nullptr);
    g_object_set(nm_connection_get_setting_infiniband(changed), NM_SETTING_INFINIBAND_MTU, 2044u, nullptr);
    setUserData(changed, "rdma.ttl", "32");
    GError *err = nullptr;
    ASSERT_TRUE(ibnm_settings_update(s, changed, &err)) << err->message;
    EXPECT_EQ(readFile(path), keyfileText(changed));
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u);

    IbnmSettings *again = store(dir.path());
    NMConnection *re = ibnm_settings_find(again, "renamed");
    ASSERT_NE(re, nullptr);
    EXPECT_STREQ(userData(re, "rdma.ttl"), "32");
    g_object_unref(again);

    // Bad values are refused before anything is written.
    setUserData(changed, "rdma.ttl", "256");
    EXPECT_FALSE(ibnm_settings_update(s, changed, &err));
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(std::string(err->message).rfind("user.rdma.ttl: ", 0), 0u) << err->message;
    g_clear_error(&err);
    EXPECT_NE(readFile(path).find("rdma.ttl=32"), std::string::npos);

    ASSERT_TRUE(ibnm_settings_delete(s, kUuidA, &err)) << err->message;
    EXPECT_FALSE(g_file_test(path.c_str(), G_FILE_TEST_EXISTS));
    // The UUID lookup follows every change (it is indexed).
    EXPECT_EQ(ibnm_settings_get_filename(s, kUuidA), nullptr);
    EXPECT_EQ(ibnm_settings_find(s, kUuidA), nullptr);
    EXPECT_FALSE(ibnm_settings_delete(s, kUuidA, &err));
    EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_NOT_FOUND));
    g_clear_error(&err);
    EXPECT_TRUE(ids(s).empty());
    g_object_unref(changed);
    g_object_unref(a);
    g_object_unref(s);
}

TEST(KeyfileStore, RefusesInsecureFilesAndLoadsTheOthers)
{
    TempDir dir;
    struct FileCase {
        const char *name;
        const char *uuid;
        mode_t mode;
        bool otherOwner;
        const char *warning; // part of the warning, empty if it loads
    };
    const FileCase files[] = {
        {"good.nmconnection", kUuidA, 0600, false, ""},
        {"world-readable.nmconnection", kUuidB, 0644, false, "insecure permissions 0644"},
        {"group-writable.nmconnection", kUuidC, 0620, false, "insecure permissions 0620"},
        {"other-owner.nmconnection", "0d0d0d0d-1111-4222-8333-444444444444", 0600, true, "file owner uid 4242"},
        {"legacy-no-suffix", "0e0e0e0e-1111-4222-8333-444444444444", 0600, false, ""},
    };
    for (const auto &f : files) {
        NMConnection *c = ibProfile(f.name, f.uuid);
        dir.write(f.name, keyfileText(c));
        g_object_unref(c);
        std::string p = dir / f.name;
        ASSERT_EQ(chmod(p.c_str(), f.mode), 0);
        if (f.otherOwner && geteuid() == 0) {
            ASSERT_EQ(chown(p.c_str(), 4242, 4242), 0);
        }
    }
    // A bad ibnm value skips that file only, naming file and key.
    dir.write("bad-user.nmconnection", "[connection]\nid=bad-user\nuuid=0f0f0f0f-1111-4222-8333-444444444444\n"
                                       "type=infiniband\n\n[infiniband]\ntransport-mode=datagram\n\n"
                                       "[user]\nrdma.link-type=roce\n");
    chmod((dir / "bad-user.nmconnection").c_str(), 0600);
    // Files NetworkManager ignores are ignored silently.
    dir.write(".good.nmconnection.Ab12Cd", "partial");
    dir.write("good.nmconnection~", "backup");

    IbnmSettings *s = store(dir.path());
    std::vector<std::string> loaded = ids(s);
    std::vector<std::string> w = warnings(s);
    for (const auto &f : files) {
        bool shouldLoad = f.warning[0] == '\0' || (f.otherOwner && geteuid() != 0);
        EXPECT_EQ(std::count(loaded.begin(), loaded.end(), f.name), shouldLoad ? 1 : 0) << f.name;
        if (shouldLoad)
            continue;
        std::string prefix = dir / f.name + ": ";
        auto it = std::find_if(w.begin(), w.end(), [&](const std::string &m) {
            return m.rfind(prefix, 0) == 0 && m.find(f.warning) != std::string::npos;
        });
        EXPECT_NE(it, w.end()) << "no warning for " << f.name;
    }
    auto bad = std::find_if(w.begin(), w.end(), [&](const std::string &m) {
        return m.rfind(dir / "bad-user.nmconnection: user.rdma.link-type: 'roce'", 0) == 0;
    });
    EXPECT_NE(bad, w.end());
    EXPECT_EQ(w.size(), geteuid() == 0 ? 4u : 3u);
    for (const auto &m : w)
        EXPECT_EQ(m.find(".good.nmconnection.Ab12Cd"), std::string::npos) << m;
    g_object_unref(s);
}

TEST(KeyfileStore, RequiresRootOwnershipByDefault)
{
    TempDir dir;
    NMConnection *c = ibProfile("ib0", kUuidA);
    dir.write("ib0.nmconnection", keyfileText(c));
    std::string p = dir / "ib0.nmconnection";
    chmod(p.c_str(), 0600);
    if (geteuid() == 0) {
        ASSERT_EQ(chown(p.c_str(), 1000, 1000), 0);
    }
    IbnmSettings *s = ibnm_settings_new_keyfile(dir.path().c_str());
    ASSERT_TRUE(ibnm_settings_load(s, nullptr));
    EXPECT_TRUE(ids(s).empty());
    ASSERT_EQ(warnings(s).size(), 1u);
    EXPECT_NE(warnings(s)[0].find("(the owner must be uid 0)"), std::string::npos) << warnings(s)[0];
    g_object_unref(s);
    g_object_unref(c);
}

// Whether libnm's handler that makes `c` emit "changed" when a setting
// changes (nm-connection.c, _setting_notify_connect()) is on any of its settings.
bool hasChangedHandlers(NMConnection *c)
{
    guint n = 0;
    NMSetting **settings = nm_connection_get_settings(c, &n);
    bool any = false;
    for (guint i = 0; i < n; i++)
        any = any || g_signal_handler_find(settings[i], G_SIGNAL_MATCH_DATA, 0, 0, nullptr, nullptr, c) != 0;
    g_free(settings);
    return any;
}

// IbnmSettings:read-only (what `ibnm check` reads with): the same profiles,
// without libnm's per-setting handlers for NMConnection::changed.
TEST(KeyfileStore, ReadOnlyStoreKeepsTheProfilesWithoutChangedHandlers)
{
    TempDir dir;
    NMConnection *c = ibProfile("ib0", kUuidA);
    dir.write("ib0.nmconnection", keyfileText(c));
    chmod((dir / "ib0.nmconnection").c_str(), 0600);
    IbnmSettings *rw = store(dir.path());
    auto *ro = IBNM_SETTINGS(g_object_new(IBNM_TYPE_SETTINGS, IBNM_SETTINGS_KEYFILE_DIR, dir.path().c_str(),
                                          IBNM_SETTINGS_READ_ONLY, TRUE, nullptr));
    ibnm_settings_set_required_owner(ro, geteuid());
    gboolean readOnly = FALSE;
    g_object_get(ro, IBNM_SETTINGS_READ_ONLY, &readOnly, nullptr);
    EXPECT_TRUE(readOnly);
    GError *err = nullptr;
    ASSERT_TRUE(ibnm_settings_load(ro, &err)) << (err ? err->message : "");
    NMConnection *a = ibnm_settings_find(rw, kUuidA);
    NMConnection *b = ibnm_settings_find(ro, kUuidA);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(nm_connection_compare(a, b, NM_SETTING_COMPARE_FLAG_EXACT));
    EXPECT_TRUE(hasChangedHandlers(a));
    EXPECT_FALSE(hasChangedHandlers(b));
    g_object_unref(ro);
    g_object_unref(rw);
    g_object_unref(c);
}

TEST(KeyfileStore, MissingDirectoryIsEmptyAndCreatedOnAdd)
{
    TempDir dir;
    std::string sub = dir / "etc/NetworkManager/system-connections";
    IbnmSettings *s = store(sub);
    EXPECT_TRUE(ids(s).empty());
    NMConnection *c = ibProfile("ib0", kUuidA);
    EXPECT_EQ(add(s, c), sub + "/ib0.nmconnection");
    g_object_unref(c);
    g_object_unref(s);
}

TEST(KeyfileStore, FindPrefersUuidThenIdThenFileName)
{
    TempDir dir;
    IbnmSettings *s = store(dir.path());
    // Profile A's id is profile B's file name; B's id is C's UUID.
    NMConnection *a = ibProfile("b.nmconnection", kUuidA, "ib0");
    NMConnection *b = ibProfile(kUuidC, kUuidB, "ib1");
    NMConnection *c = ibProfile("c", kUuidC, "ib2");
    add(s, a);
    std::string bPath = add(s, b);
    add(s, c);
    // B is stored as "<uuid C>.nmconnection"; rename it so its base name is "b.nmconnection".
    ASSERT_EQ(rename(bPath.c_str(), (dir / "b.nmconnection").c_str()), 0);
    IbnmSettings *re = store(dir.path());
    EXPECT_STREQ(nm_connection_get_uuid(ibnm_settings_find(re, kUuidC)), kUuidC);          // UUID beats id
    EXPECT_STREQ(nm_connection_get_uuid(ibnm_settings_find(re, "b.nmconnection")), kUuidA); // id beats file name
    EXPECT_STREQ(nm_connection_get_uuid(ibnm_settings_find(re, (dir / "b.nmconnection").c_str())), kUuidB);
    for (NMConnection *x : {a, b, c})
        g_object_unref(x);
    g_object_unref(re);
    g_object_unref(s);
}

TEST(KeyfileStore, FollowsSymlinksAndChecksTheTarget)
{
    TempDir dir;
    TempDir elsewhere;
    NMConnection *c = ibProfile("linked", kUuidA);
    elsewhere.write("target", keyfileText(c));
    chmod((elsewhere / "target").c_str(), 0600);
    ASSERT_EQ(symlink((elsewhere / "target").c_str(), (dir / "linked.nmconnection").c_str()), 0);
    IbnmSettings *s = store(dir.path());
    EXPECT_EQ(ids(s), std::vector<std::string>{"linked"});
    g_object_unref(s);
    chmod((elsewhere / "target").c_str(), 0644);
    s = store(dir.path());
    EXPECT_TRUE(ids(s).empty());
    ASSERT_EQ(warnings(s).size(), 1u);
    EXPECT_EQ(warnings(s)[0].rfind(dir / "linked.nmconnection: insecure permissions 0644", 0), 0u) << warnings(s)[0];
    g_object_unref(s);
    g_object_unref(c);
}

// Only NetworkManager activates profiles through the store: the keyfile
// store refuses, changing nothing, and knows no active connection.
TEST(KeyfileStore, ActivationIsNetworkManagersOnly)
{
    TempDir dir;
    IbnmSettings *s = store(dir.path());
    GError *err = nullptr;
    char *path = nullptr, *device = nullptr, *note = nullptr;
    EXPECT_FALSE(ibnm_settings_activate(s, kUuidA, nullptr, 5, &path, &device, &note, &err));
    ASSERT_NE(err, nullptr);
    EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED)) << err->message;
    EXPECT_EQ(path, nullptr);
    EXPECT_EQ(device, nullptr);
    EXPECT_EQ(note, nullptr);
    g_clear_error(&err);
    EXPECT_EQ(ibnm_settings_deactivate(s, kUuidA, 5, &err), nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_NOT_SUPPORTED)) << err->message;
    g_clear_error(&err);
    EXPECT_EQ(ibnm_settings_get_active_state(s, kUuidA), NM_ACTIVE_CONNECTION_STATE_UNKNOWN);
    EXPECT_EQ(ibnm_settings_get_active_path(s, kUuidA), nullptr);
    EXPECT_EQ(ibnm_settings_get_active_rank(s, kUuidA), -1);
    g_object_unref(s);
}
