// SPDX-License-Identifier: LGPL-2.1-or-later
// The NetworkManager backend against the real daemon of ../shared/labs/nm:
// each test starts its own lab instance in a temporary directory and always
// stops it (RAII); without the lab, or without root, it skips.
#include "config.h"

#include "ibnm-error.h"
#include "ibnm-settings.h"
#include "settings-test-util.hpp"

#include <chrono>
#include <cstdio>

#include <sys/stat.h>
#include <unistd.h>

using namespace ibnm::test;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Sets an environment variable for the scope, restoring the old value.
class ScopedEnv {
public:
    ScopedEnv(const char *name, const std::string &value) : name_(name)
    {
        if (const char *old = g_getenv(name))
            old_ = old;
        g_setenv(name, value.c_str(), TRUE);
    }
    ~ScopedEnv()
    {
        if (old_)
            g_setenv(name_, old_->c_str(), TRUE);
        else
            g_unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
    const char *name_;
    std::optional<std::string> old_;
};

// One private NetworkManager: started in the constructor, stopped in the
// destructor whatever the test did.
class NmLab {
public:
    NmLab()
    {
        auto shared = sharedDir();
        if (!shared) {
            skip_ = "no shared directory (set IBNM_SHARED_DIR): nm-lab absent";
            return;
        }
        script_ = *shared + "/labs/nm/nm-lab";
        if (!g_file_test(script_.c_str(), G_FILE_TEST_IS_EXECUTABLE)) {
            skip_ = script_ + " is absent";
            return;
        }
        if (geteuid() != 0) {
            skip_ = "nm-lab needs root (unshare, mount)";
            return;
        }
        auto t0 = Clock::now();
        std::string log = dir_ / "start.log";
        RunResult r = run({"sh", "-c", "\"$0\" start \"$1\" >\"$2\" 2>&1", script_, dir_ / "lab", log});
        startMs_ = msSince(t0);
        started_ = true; // stop even after a failed start: it may have left processes
        std::string out = readFile(log);
        std::string key = "export DBUS_SYSTEM_BUS_ADDRESS=";
        size_t at = out.find(key);
        if (r.status != 0 || at == std::string::npos) {
            skip_ = "nm-lab start failed (rc " + std::to_string(r.status) + "): " + out.substr(0, 400);
            return;
        }
        size_t end = out.find('\n', at);
        bus_ = out.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
    }
    ~NmLab()
    {
        if (!started_)
            return;
        auto t0 = Clock::now();
        run({"sh", "-c", "\"$0\" stop \"$1\" >\"$2\" 2>&1", script_, dir_ / "lab", dir_ / "stop.log"});
        fprintf(stderr, "[nm-lab] start %.0f ms, stop %.0f ms\n", startMs_, msSince(t0));
    }
    NmLab(const NmLab &) = delete;
    NmLab &operator=(const NmLab &) = delete;

    const std::string &skipReason() const { return skip_; }
    const std::string &busAddress() const { return bus_; }
    std::string keyfileDir() const { return dir_ / "lab/etc/system-connections"; }

private:
    TempDir dir_;
    std::string script_;
    std::string skip_;
    std::string bus_;
    bool started_ = false;
    double startMs_ = 0;
};

RunResult nmcli(std::vector<std::string> args)
{
    args.insert(args.begin(), "nmcli");
    return run(args);
}

NMConnection *ibProfile(const char *id, const char *uuid, const char *ifname)
{
    NMConnection *c = newConnection(id, uuid, NM_SETTING_INFINIBAND_SETTING_NAME, ifname);
    g_object_set(nm_connection_get_setting_connection(c), NM_SETTING_CONNECTION_AUTOCONNECT, FALSE, nullptr);
    addInfiniband(c, "datagram");
    return c;
}

} // namespace

TEST(NetworkManagerBackend, FailsClearlyWithoutNetworkManager)
{
    TempDir dir;
    ScopedEnv bus("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=" + (dir / "no-such-socket"));
    GError *err = nullptr;
    EXPECT_EQ(ibnm_settings_new_networkmanager(&err), nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_TRUE(g_error_matches(err, IBNM_ERROR, IBNM_ERROR_NOT_FOUND)) << err->message;
    EXPECT_NE(std::string(err->message).find("NetworkManager is not running"), std::string::npos) << err->message;
    g_clear_error(&err);

    IbnmSettings *s = ibnm_settings_new_auto(dir.path().c_str(), &err);
    ASSERT_NE(s, nullptr) << err->message;
    EXPECT_STREQ(ibnm_settings_get_backend_name(s), "keyfile");
    EXPECT_STREQ(ibnm_settings_get_keyfile_dir(s), dir.path().c_str());
    g_object_unref(s);
}

TEST(NetworkManagerBackend, ProfilesAreSharedWithNmcli)
{
    NmLab lab;
    if (!lab.skipReason().empty())
        IBNM_LAB_SKIP(lab.skipReason());
    if (!haveProgram("nmcli"))
        GTEST_SKIP() << "nmcli not installed";
    ScopedEnv bus("DBUS_SYSTEM_BUS_ADDRESS", lab.busAddress());
    const char *uuidIbnm = "7a7b7c7d-1e2f-4a3b-8c4d-5e6f7a8b9c0d";

    auto t0 = Clock::now();
    GError *err = nullptr;
    IbnmSettings *s = ibnm_settings_new_auto(nullptr, &err);
    ASSERT_NE(s, nullptr) << err->message;
    double connectMs = msSince(t0);
    EXPECT_STREQ(ibnm_settings_get_backend_name(s), "networkmanager");
    t0 = Clock::now();
    ASSERT_TRUE(ibnm_settings_load(s, &err)) << err->message;
    double loadMs = msSince(t0);

    // Added by ibnm, with [user] data: nmcli sees it, NetworkManager wrote it.
    NMConnection *c = ibProfile("ibnm-ib0", uuidIbnm, "ib0");
    setUserData(c, "rdma.link-type", "rxe");
    setUserData(c, "rdma.ttl", "64");
    char *where = nullptr;
    t0 = Clock::now();
    ASSERT_TRUE(ibnm_settings_add(s, c, &where, &err)) << err->message;
    double addMs = msSince(t0);
    EXPECT_EQ(std::string(where).rfind(lab.keyfileDir() + "/", 0), 0u) << where;
    std::string file = readFile(where);
    EXPECT_NE(file.find("[user]\nrdma.link-type=rxe\nrdma.ttl=64\n"), std::string::npos) << file;
    RunResult r = nmcli({"-g", "NAME,UUID", "connection", "show"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("ibnm-ib0:") + uuidIbnm), std::string::npos) << r.out;

    // Added by nmcli: ibnm sees it after a reload.
    r = nmcli({"connection", "add", "type", "infiniband", "con-name", "from-nmcli", "ifname", "ib1",
               "infiniband.transport-mode", "connected", "connection.autoconnect", "no"});
    ASSERT_EQ(r.status, 0) << r.err;
    t0 = Clock::now();
    ASSERT_TRUE(ibnm_settings_reload(s, &err)) << err->message;
    double reloadMs = msSince(t0);
    NMConnection *fromNmcli = ibnm_settings_find(s, "from-nmcli");
    ASSERT_NE(fromNmcli, nullptr);
    std::string nmcliUuid = nm_connection_get_uuid(fromNmcli);
    // nmcli's `path`: the D-Bus path nmcli shows, or the number ending it.
    r = nmcli({"-g", "UUID,DBUS-PATH", "connection", "show"});
    ASSERT_EQ(r.status, 0) << r.err;
    size_t at = r.out.find(nmcliUuid + ":");
    ASSERT_NE(at, std::string::npos) << r.out;
    std::string dbusPath = r.out.substr(at + nmcliUuid.size() + 1);
    dbusPath = dbusPath.substr(0, dbusPath.find('\n'));
    ASSERT_EQ(dbusPath.rfind("/org/freedesktop/NetworkManager/Settings/", 0), 0u) << r.out;
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_PATH, dbusPath.c_str()), fromNmcli);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_PATH, dbusPath.substr(dbusPath.rfind('/') + 1).c_str()),
              fromNmcli);
    EXPECT_EQ(ibnm_settings_find(s, dbusPath.c_str()), fromNmcli);
    EXPECT_EQ(ibnm_settings_find_by(s, IBNM_SETTINGS_MATCH_ID, dbusPath.c_str()), nullptr);

    // ibnm edits [user] keys of nmcli's profile (nmcli cannot).
    NMConnection *edit = nm_simple_connection_new_clone(fromNmcli);
    setUserData(edit, "rdma.roce-mode", "v2");
    setUserData(edit, "ipoib.umcast", "yes");
    t0 = Clock::now();
    ASSERT_TRUE(ibnm_settings_update(s, edit, &err)) << err->message;
    double updateMs = msSince(t0);
    const char *nmcliFile = ibnm_settings_get_filename(s, nmcliUuid.c_str());
    ASSERT_NE(nmcliFile, nullptr);
    file = readFile(nmcliFile);
    EXPECT_NE(file.find("[user]\nipoib.umcast=yes\nrdma.roce-mode=v2\n"), std::string::npos) << file;
    // A bad value never reaches NetworkManager.
    setUserData(edit, "rdma.roce-mode", "v9");
    EXPECT_FALSE(ibnm_settings_update(s, edit, &err));
    g_clear_error(&err);
    // nmcli modifies something else: the [user] keys stay, a new client sees them.
    r = nmcli({"connection", "modify", "from-nmcli", "infiniband.mtu", "2044"});
    ASSERT_EQ(r.status, 0) << r.err;
    IbnmSettings *second = ibnm_settings_new_networkmanager(&err);
    ASSERT_NE(second, nullptr) << err->message;
    ASSERT_TRUE(ibnm_settings_load(second, &err)) << err->message;
    NMConnection *seen = ibnm_settings_find(second, nmcliUuid.c_str());
    ASSERT_NE(seen, nullptr);
    EXPECT_STREQ(userData(seen, "rdma.roce-mode"), "v2");
    EXPECT_EQ(nm_setting_infiniband_get_mtu(nm_connection_get_setting_infiniband(seen)), 2044u);
    EXPECT_STREQ(userData(ibnm_settings_find(second, uuidIbnm), "rdma.link-type"), "rxe");
    g_object_unref(second);

    // A keyfile without UUID: ibnm derives the UUID NetworkManager derives.
    std::string bare = lab.keyfileDir() + "/no-uuid.nmconnection";
    std::string bareText = "[connection]\nid=no-uuid\ntype=infiniband\nautoconnect=false\n\n"
                           "[infiniband]\ntransport-mode=datagram\n";
    ASSERT_TRUE(g_file_set_contents(bare.c_str(), bareText.c_str(), -1, nullptr));
    ASSERT_EQ(chmod(bare.c_str(), 0600), 0);
    r = nmcli({"connection", "load", bare});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(ibnm_settings_reload(s, &err)) << err->message;
    NMConnection *loadedByNm = ibnm_settings_find(s, "no-uuid");
    ASSERT_NE(loadedByNm, nullptr);
    NMConnection *readByIbnm = ibnm_keyfile_from_data(bareText.c_str(), bare.c_str(), &err);
    ASSERT_NE(readByIbnm, nullptr) << err->message;
    EXPECT_STREQ(nm_connection_get_uuid(readByIbnm), nm_connection_get_uuid(loadedByNm));
    g_object_unref(readByIbnm);

    // Delete through ibnm: gone for nmcli too.
    t0 = Clock::now();
    ASSERT_TRUE(ibnm_settings_delete(s, uuidIbnm, &err)) << err->message;
    double deleteMs = msSince(t0);
    EXPECT_FALSE(g_file_test(where, G_FILE_TEST_EXISTS));
    r = nmcli({"-g", "UUID", "connection", "show"});
    EXPECT_EQ(r.out.find(uuidIbnm), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(nmcliUuid), std::string::npos) << r.out;
    EXPECT_EQ(ibnm_settings_find(s, uuidIbnm), nullptr);

    fprintf(stderr, "[nm-lab] connect %.1f ms, load %.1f ms, add %.1f ms, reload %.1f ms, update %.1f ms, "
                    "delete %.1f ms\n",
            connectMs, loadMs, addMs, reloadMs, updateMs, deleteMs);
    g_free(where);
    g_object_unref(edit);
    g_object_unref(c);
    g_object_unref(s);
}
