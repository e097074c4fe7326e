// SPDX-License-Identifier: LGPL-2.1-or-later
// dispatcher.d/90-ibnm's decision (plugin/hook-filter.h): it skips only what
// the hook itself would do nothing for, and the installed program runs the
// installed ibnm-dispatcher otherwise.
#include "config.h"

#include "libcore/ibnm.h"
#include "plugin/hook-filter.h"
#include "libcore/support/runtime-dir.h"
#include "settings/ibnm-settings.h"
#include "tests/test-util.hpp"

#include <NetworkManager.h>
#include <gtest/gtest.h>

#include <glib/gstdio.h>

#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using ibnm::test::TempDir;

constexpr const char *kUuid = "7d1c9a4e-2f3b-4c5d-8e6f-0a1b2c3d4e5f";

// A profile as NetworkManager writes it (libnm's keyfile writer), with
// `user` keys in [user].
std::string keyfileOf(const char *id, const char *type, const std::vector<std::pair<const char *, const char *>> &user)
{
    NMConnection *c = nm_simple_connection_new();
    NMSetting *s = nm_setting_connection_new();
    g_object_set(s, NM_SETTING_CONNECTION_ID, id, NM_SETTING_CONNECTION_UUID, kUuid, NM_SETTING_CONNECTION_TYPE, type,
                 NM_SETTING_CONNECTION_INTERFACE_NAME, "ib0", nullptr);
    nm_connection_add_setting(c, s);
    if (g_strcmp0(type, NM_SETTING_INFINIBAND_SETTING_NAME) == 0) {
        NMSetting *ib = nm_setting_infiniband_new();
        g_object_set(ib, NM_SETTING_INFINIBAND_TRANSPORT_MODE, "datagram", nullptr);
        nm_connection_add_setting(c, ib);
    } else {
        nm_connection_add_setting(c, nm_setting_wired_new());
    }
    if (!user.empty()) {
        NMSetting *u = nm_setting_user_new();
        for (const auto &[k, v] : user)
            EXPECT_TRUE(nm_setting_user_set_data(NM_SETTING_USER(u), k, v, nullptr)) << k;
        nm_connection_add_setting(c, u);
    }
    GError *error = nullptr;
    char *data = ibnm_keyfile_to_data(c, &error);
    EXPECT_NE(data, nullptr) << (error ? error->message : "");
    std::string out = data ? data : "";
    g_free(data);
    g_clear_error(&error);
    g_object_unref(c);
    return out;
}

class HookFilter : public ::testing::Test {
protected:
    // `text` as a keyfile the hook may trust (this process's uid stands in
    // for root: `owner` below).
    std::string file(const std::string &name, const std::string &text, int mode = 0600)
    {
        dir_.write(name, text);
        std::string path = dir_ / name;
        g_chmod(path.c_str(), mode);
        return path;
    }
    IbnmHookDecision decide(const char *action, const std::string &path)
    {
        return ibnm_hook_filter(action, kUuid, path.c_str(), unsigned(getuid()), runtime().c_str());
    }
    // The hook's runtime directory here (IBNM_RUNTIME_DIR when installed).
    std::string runtime() { return dir_ / "run"; }
    // A record of an activation of kUuid, as the hook writes it.
    void record()
    {
        g_mkdir_with_parents((runtime() + "/" IBNM_HOOK_RECORDS_SUBDIR).c_str(), 0700);
        dir_.write(std::string("run/" IBNM_HOOK_RECORDS_SUBDIR "/") + kUuid + IBNM_HOOK_RECORD_SUFFIX, "x");
    }
    TempDir dir_;
};

TEST_F(HookFilter, SkipsOnlyWhatTheHookWouldDoNothingFor)
{
    struct Case {
        const char *what;
        std::string keyfile;
    } cases[] = {
        {"Ethernet", keyfileOf("enp1s0", NM_SETTING_WIRED_SETTING_NAME, {})},
        {"IPoIB", keyfileOf("ib0", NM_SETTING_INFINIBAND_SETTING_NAME, {})},
        {"another tool's [user] key", keyfileOf("ib0", NM_SETTING_INFINIBAND_SETTING_NAME, {{"org.example.x", "1"}})},
        {"rdma.link-type", keyfileOf("eth", NM_SETTING_WIRED_SETTING_NAME, {{"rdma.link-type", "rxe"}})},
        {"ipoib.umcast", keyfileOf("ib0", NM_SETTING_INFINIBAND_SETTING_NAME, {{"ipoib.umcast", "true"}})},
        {"both", keyfileOf("ib0", NM_SETTING_INFINIBAND_SETTING_NAME,
                           {{"ipoib.umcast", "true"}, {"rdma.roce-tos", "106"}})},
        // "rdma." in a value only: the hook decides (a cost, never a miss).
        {"rdma. in the id", keyfileOf("rdma.storage", NM_SETTING_WIRED_SETTING_NAME, {})},
    };
    for (const auto &c : cases) {
        std::string path = file("p.nmconnection", c.keyfile);
        GError *error = nullptr;
        NMConnection *profile = ibnm_keyfile_from_data(c.keyfile.c_str(), path.c_str(), &error);
        ASSERT_NE(profile, nullptr) << c.what << ": " << error->message;
        // What the hook decides once libnm has read the profile.
        bool work = ibnm_connection_has_ibnm_keys(profile);
        g_object_unref(profile);
        bool mentioned = c.keyfile.find("rdma.") != std::string::npos || c.keyfile.find("ipoib.") != std::string::npos;
        // pre-up, and reapply (NetworkManager changed the active connection
        // in place), bring the hook's part to the profile's settings.
        for (const char *action : {"pre-up", "reapply"}) {
            IbnmHookDecision d = decide(action, path);
            // Never a miss: a profile with ibnm keys runs the hook.
            if (work) {
                EXPECT_EQ(d, IBNM_HOOK_RUN) << c.what << " " << action;
            }
            // And it skips every profile that does not mention them.
            EXPECT_EQ(d, mentioned ? IBNM_HOOK_RUN : IBNM_HOOK_SKIP) << c.what << " " << action;
        }
        // Deactivation undoes what pre-up applied, as its record says: without
        // a record there is nothing to undo, whatever the profile says now.
        for (const char *action : {"pre-down", "down"})
            EXPECT_EQ(decide(action, path), IBNM_HOOK_SKIP) << c.what << " " << action;
        // Other events are none of the hook's business, keys or not.
        for (const char *action : {"up", "dhcp4-change", "connectivity-change", "hostname", "dhcp6-change"})
            EXPECT_EQ(decide(action, path), IBNM_HOOK_SKIP) << c.what << " " << action;
    }
}

// With a record of an activation the hook runs for pre-up (an earlier
// activation to replace), pre-down and down, keys or not: the profile may
// have lost its keys, or be gone, since pre-up applied them.
TEST_F(HookFilter, ARecordOfAnActivationRunsTheHook)
{
    std::string plain = file("p.nmconnection", keyfileOf("enp1s0", NM_SETTING_WIRED_SETTING_NAME, {}));
    for (const char *action : {"pre-up", "reapply", "pre-down", "down"})
        EXPECT_EQ(decide(action, plain), IBNM_HOOK_SKIP) << action;
    record();
    for (const char *action : {"pre-up", "reapply", "pre-down", "down"}) {
        EXPECT_EQ(decide(action, plain), IBNM_HOOK_RUN) << action;
        EXPECT_EQ(decide(action, dir_ / "deleted.nmconnection"), IBNM_HOOK_RUN) << action;
    }
    for (const char *action : {"up", "dhcp4-change"})
        EXPECT_EQ(decide(action, plain), IBNM_HOOK_SKIP) << action;
    // Another profile's record is not this one's.
    EXPECT_EQ(ibnm_hook_filter("pre-down", "0f6c3f2e-93a4-4c1b-8d52-6a0d0c1e2f31", plain.c_str(), unsigned(getuid()),
                               runtime().c_str()),
              IBNM_HOOK_SKIP);
    // A runtime directory it cannot search: in doubt, the hook runs.
    if (getuid() != 0) {
        g_chmod((runtime() + "/" IBNM_HOOK_RECORDS_SUBDIR).c_str(), 0);
        EXPECT_EQ(decide("down", plain), IBNM_HOOK_RUN);
        g_chmod((runtime() + "/" IBNM_HOOK_RECORDS_SUBDIR).c_str(), 0700);
    }
}

TEST_F(HookFilter, InDoubtTheHookRuns)
{
    std::string plain = keyfileOf("enp1s0", NM_SETTING_WIRED_SETTING_NAME, {});
    // No keyfile (a profile NetworkManager holds elsewhere): it asks NetworkManager.
    EXPECT_EQ(ibnm_hook_filter("pre-up", kUuid, nullptr, unsigned(getuid()), runtime().c_str()), IBNM_HOOK_RUN);
    EXPECT_EQ(ibnm_hook_filter("pre-up", kUuid, "", unsigned(getuid()), runtime().c_str()), IBNM_HOOK_RUN);
    EXPECT_EQ(decide("pre-up", dir_ / "missing.nmconnection"), IBNM_HOOK_RUN);
    // Not a keyfile of NetworkManager's keyfile plugin.
    EXPECT_EQ(decide("pre-up", file("ifcfg-enp1s0", plain)), IBNM_HOOK_RUN);
    // A keyfile the hook may not trust: group or others have access, another
    // owner, a directory.
    EXPECT_EQ(decide("pre-up", file("g.nmconnection", plain, 0640)), IBNM_HOOK_RUN);
    EXPECT_EQ(ibnm_hook_filter("pre-up", kUuid, file("o.nmconnection", plain).c_str(), unsigned(getuid()) + 1,
                               runtime().c_str()),
              IBNM_HOOK_RUN);
    g_mkdir((dir_ / "d.nmconnection").c_str(), 0700);
    EXPECT_EQ(decide("pre-up", dir_ / "d.nmconnection"), IBNM_HOOK_RUN);
    // The same plain profile, trusted: skipped.
    EXPECT_EQ(decide("pre-up", file("t.nmconnection", plain)), IBNM_HOOK_SKIP);
    // No UUID: NetworkManager gives one for every profile event.
    EXPECT_EQ(ibnm_hook_filter("pre-up", nullptr, file("t.nmconnection", plain).c_str(), unsigned(getuid()),
                               runtime().c_str()),
              IBNM_HOOK_SKIP);
}

// The installed program: exits 0 at once for a profile without ibnm keys,
// runs $(libexecdir)/ibnm/ibnm-dispatcher for one with them. Its keyfile
// must be root's, so this runs as root (as CI does).
TEST_F(HookFilter, TheProgramRunsTheInstalledHookOnlyForIbnmProfiles)
{
    if (getuid() != 0)
        GTEST_SKIP() << "the hook trusts only root's keyfiles: run as root";
    std::string bin = std::string(IBNM_TOP_BUILDDIR) + "/plugin/90-ibnm";
    auto run = [&](const std::string &keyfile, std::string &err) {
        std::string path = file("p.nmconnection", keyfile);
        gchar *out = nullptr, *e = nullptr;
        int status = -1;
        std::vector<std::string> env = {"CONNECTION_UUID=" + std::string(kUuid), "CONNECTION_FILENAME=" + path,
                                         "LC_ALL=C", "PATH=/usr/bin:/bin"};
        std::vector<char *> envp, argv{bin.data(), const_cast<char *>("ib0"), const_cast<char *>("pre-up"), nullptr};
        for (auto &s : env)
            envp.push_back(s.data());
        envp.push_back(nullptr);
        GError *error = nullptr;
        EXPECT_TRUE(g_spawn_sync(nullptr, argv.data(), envp.data(), G_SPAWN_DEFAULT, nullptr, nullptr, &out, &e,
                                 &status, &error))
            << (error ? error->message : "");
        err = e ? e : "";
        g_free(out);
        g_free(e);
        g_clear_error(&error);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    };
    std::string err;
    EXPECT_EQ(run(keyfileOf("enp1s0", NM_SETTING_WIRED_SETTING_NAME, {}), err), 0);
    EXPECT_EQ(err, "");
    // A profile with ibnm keys: it runs the installed hook, which this build
    // has not installed (where one is installed it would provision this
    // machine: not from a test).
    const std::string hook = std::string(LIBEXECDIR) + "/ibnm/ibnm-dispatcher";
    if (g_file_test(hook.c_str(), G_FILE_TEST_EXISTS))
        GTEST_SKIP() << hook << " is installed on this machine: the keyed case is not run";
    EXPECT_EQ(run(keyfileOf("eth", NM_SETTING_WIRED_SETTING_NAME, {{"rdma.link-type", "rxe"}}), err), 1);
    EXPECT_NE(err.find("cannot run " + hook), std::string::npos) << err;
}

} // namespace
