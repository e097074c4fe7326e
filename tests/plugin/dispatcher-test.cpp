// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook as NetworkManager runs it: argv = interface, action;
// the profile named by CONNECTION_UUID / CONNECTION_FILENAME; here on a
// simulated host named in the hook's --test-config file (the hook takes no
// host, state or faults from the environment), with the log in a file.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"
#include "settings/ibnm-settings.h"

#include <NetworkManager.h>
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <glib/gstdio.h>
#include <csignal>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

using namespace ibnm;

namespace {

constexpr const char *kUuid = "0f6c3f2e-93a4-4c1b-8d52-6a0d0c1e2f31";

class Dispatcher : public ::testing::Test {
protected:
    void writeProfile(std::vector<std::pair<const char *, const char *>> user, const char *uuid = kUuid)
    {
        auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
        NMSetting *s = nm_setting_connection_new();
        g_object_set(s, NM_SETTING_CONNECTION_ID, "rdma-enp1s0", NM_SETTING_CONNECTION_UUID, uuid,
                     NM_SETTING_CONNECTION_TYPE, "802-3-ethernet", NM_SETTING_CONNECTION_INTERFACE_NAME, "enp1s0",
                     nullptr);
        nm_connection_add_setting(c.get(), s);
        nm_connection_add_setting(c.get(), nm_setting_wired_new());
        if (!user.empty()) {
            NMSetting *u = nm_setting_user_new();
            for (auto [k, v] : user)
                nm_setting_user_set_data(NM_SETTING_USER(u), k, v, nullptr);
            nm_connection_add_setting(c.get(), u);
        }
        GErrorPtr err;
        GCharPtr data(ibnm_keyfile_to_data(c.get(), outPtr(err)));
        ASSERT_TRUE(data) << err->message;
        dir_.write("rdma-enp1s0.nmconnection", data.get());
        // As NetworkManager writes it: root's, 0600.
        ASSERT_EQ(g_chmod((dir_ / "rdma-enp1s0.nmconnection").c_str(), 0600), 0);
    }

    // Runs the hook; returns its exit status. A hook still running after
    // `limitMs` is killed and the test fails (-1).
    int run(const char *action, unsigned limitMs = 60000)
    {
        std::string bin = std::string(IBNM_TOP_BUILDDIR) + "/tests/plugin/ibnm-dispatcher-test";
        std::string host = test::srcPath("examples/hosts/ethernet-only.host");
        std::string config = "[test]\nsimulate=" + host + "\nsimulate-state=" + (dir_ / "state") +
                             "\nlog=" + (dir_ / "log") + "\n" + extraConfig_;
        dir_.write("test.conf", config);
        std::string configPath = dir_ / "test.conf";
        std::vector<std::string> env = {
            "PATH=/usr/bin:/bin",
            std::string("CONNECTION_UUID=") + uuidEnv_,
            "CONNECTION_ID=rdma-enp1s0",
            "CONNECTION_FILENAME=" + (dir_ / "rdma-enp1s0.nmconnection"),
            "DEVICE_IFACE=enp1s0",
            // Never the machine's NetworkManager.
            "DBUS_SYSTEM_BUS_ADDRESS=" + busAddress_,
        };
        env.insert(env.end(), extraEnv_.begin(), extraEnv_.end());
        std::vector<char *> envp, argv{bin.data(), const_cast<char *>("--test-config"), configPath.data(),
                                       const_cast<char *>("enp1s0"), const_cast<char *>(action), nullptr};
        for (auto &e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        GPid pid = 0;
        GErrorPtr err;
        bool ok = g_spawn_async(nullptr, argv.data(), envp.data(), G_SPAWN_DO_NOT_REAP_CHILD, nullptr, nullptr, &pid,
                                outPtr(err));
        EXPECT_TRUE(ok) << (err ? err->message : "");
        if (!ok)
            return -1;
        int status = -1;
        gint64 deadline = g_get_monotonic_time() + gint64(limitMs) * 1000;
        while (waitpid(pid, &status, WNOHANG) == 0) {
            if (g_get_monotonic_time() > deadline) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                ADD_FAILURE() << "the hook was still running after " << limitMs << " ms: killed";
                return -1;
            }
            g_usleep(10000);
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    std::string log()
    {
        GCharPtr s;
        if (!g_file_get_contents((dir_ / "log").c_str(), outPtr(s), nullptr, nullptr))
            return {};
        return s.get();
    }

    model::Host host()
    {
        GErrorPtr err;
        auto h = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host(
            test::srcPath("examples/hosts/ethernet-only.host").c_str(), (dir_ / "state").c_str(), outPtr(err)));
        EXPECT_TRUE(h);
        auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
        EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
        return inventoryHost(inv.get());
    }

    // The hook's record of the activation (plugin/hook-record.hpp), in the
    // simulated host's runtime directory (its state directory).
    std::string recordPath() { return dir_ / (std::string("state/hook/") + kUuid + ".nmconnection"); }
    bool hasRecord() { return g_file_test(recordPath().c_str(), G_FILE_TEST_EXISTS); }

    test::TempDir dir_;
    std::string uuidEnv_ = kUuid;
    std::string busAddress_ = "unix:path=/nonexistent/ibnm-test-bus";
    std::vector<std::string> extraEnv_;
    std::string extraConfig_;
};

} // namespace

TEST_F(Dispatcher, PreUpProvisionsAndPreDownRemoves)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    ASSERT_EQ(run("pre-up"), 0) << log();
    model::Host h = host();
    ASSERT_EQ(h.softLinks.size(), 1u);
    EXPECT_EQ(h.softLinks[0].name, "rxe0");
    EXPECT_EQ(h.softLinks[0].netdev, "enp1s0");
    ASSERT_NE(h.findDevice("rxe0"), nullptr);
    EXPECT_EQ(h.findDevice("rxe0")->ports.at(0).defaultRoceTos, 106u);
    std::string l = log();
    EXPECT_NE(l.find(std::string(kUuid) + ": done add-rdma-link rxe0"), std::string::npos) << l;

    EXPECT_TRUE(hasRecord()) << "pre-up records what it applied";

    EXPECT_EQ(run("pre-down"), 0) << log();
    EXPECT_TRUE(host().softLinks.empty());
    EXPECT_FALSE(hasRecord());
    // "down" follows "pre-down": nothing left to do, nothing run.
    std::string before = log();
    EXPECT_EQ(run("down"), 0);
    EXPECT_EQ(log(), before);
}

// NetworkManager deactivates the connection it applied: a profile modified
// (its keys removed) or deleted while active is taken down as pre-up
// applied it, from the hook's record.
TEST_F(Dispatcher, ProfileChangedOrDeletedWhileActiveIsTakenDownAsApplied)
{
    for (bool deleted : {false, true}) {
        writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
        ASSERT_EQ(run("pre-up"), 0) << log();
        ASSERT_EQ(host().softLinks.size(), 1u);
        if (deleted)
            ASSERT_EQ(g_unlink((dir_ / "rdma-enp1s0.nmconnection").c_str()), 0);
        else
            writeProfile({});
        EXPECT_EQ(run("pre-down"), 0) << log();
        EXPECT_TRUE(host().softLinks.empty()) << (deleted ? "deleted: " : "modified: ") << log();
        EXPECT_FALSE(hasRecord());
    }
}

// "down" without "pre-down" (the device went away): the record is still
// there, and down takes the activation down.
TEST_F(Dispatcher, DownAloneTakesTheActivationDown)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    ASSERT_EQ(run("pre-up"), 0) << log();
    EXPECT_EQ(run("down"), 0) << log();
    EXPECT_TRUE(host().softLinks.empty()) << log();
    EXPECT_FALSE(hasRecord());
}

// Without a record the hook applied nothing to undo: a link of the
// profile's name that someone else created stays.
TEST_F(Dispatcher, DeactivationWithoutARecordTouchesNothing)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    ASSERT_EQ(run("pre-up"), 0) << log();
    ASSERT_EQ(g_unlink(recordPath().c_str()), 0);
    for (const char *action : {"pre-down", "down"}) {
        EXPECT_EQ(run(action), 0) << log();
        EXPECT_EQ(host().softLinks.size(), 1u) << action;
    }
}

// An activation NetworkManager never took down (it was killed), of other
// settings: the next pre-up replaces it, as a changed profile's
// re-activation does.
TEST_F(Dispatcher, PreUpReplacesAnEarlierActivationOfOtherSettings)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    ASSERT_EQ(run("pre-up"), 0) << log();
    // The same settings again: nothing taken down, the link stays.
    ASSERT_EQ(run("pre-up"), 0) << log();
    EXPECT_EQ(log().find("was not taken down"), std::string::npos) << log();
    ASSERT_EQ(host().softLinks.size(), 1u);
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe1"}});
    ASSERT_EQ(run("pre-up"), 0) << log();
    EXPECT_NE(log().find("was not taken down"), std::string::npos) << log();
    model::Host h = host();
    ASSERT_EQ(h.softLinks.size(), 1u);
    EXPECT_EQ(h.softLinks[0].name, "rxe1");
    // Its keys removed: the earlier activation goes, nothing new comes.
    writeProfile({});
    ASSERT_EQ(run("pre-up"), 0) << log();
    EXPECT_TRUE(host().softLinks.empty()) << log();
    EXPECT_FALSE(hasRecord());
}

TEST_F(Dispatcher, ProfileWithoutIbnmKeysIsLeftAlone)
{
    writeProfile({{"other.key", "x"}});
    EXPECT_EQ(run("pre-up"), 0);
    EXPECT_TRUE(log().empty()) << log();
    EXPECT_TRUE(host().softLinks.empty());
}

TEST_F(Dispatcher, OtherActionsAreIgnored)
{
    writeProfile({{"rdma.link-type", "siw"}});
    EXPECT_EQ(run("up"), 0);
    EXPECT_EQ(run("dhcp6-change"), 0);
    EXPECT_EQ(run("dhcp4-change"), 0);
    EXPECT_TRUE(host().softLinks.empty());
}

TEST_F(Dispatcher, FailureIsLoggedWithTheUuidAndRolledBack)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.roce-mode", "v1"}});
    EXPECT_EQ(run("pre-up"), 1);
    std::string l = log();
    EXPECT_NE(l.find(std::string(kUuid) + ": pre-up failed: "), std::string::npos) << l;
    EXPECT_TRUE(host().softLinks.empty()) << "the link created before the failure was removed";
    EXPECT_FALSE(hasRecord()) << "a failed pre-up that was undone leaves no record";
}

// reapply: what NetworkManager applied now comes from NetworkManager
// itself (Device.GetAppliedConnection); without it the hook says so.
TEST_F(Dispatcher, ReapplyWithoutNetworkManagerIsAnError)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    EXPECT_EQ(run("reapply"), 1);
    EXPECT_NE(log().find("reapply: cannot read the profile"), std::string::npos) << log();
    EXPECT_TRUE(host().softLinks.empty());
}

TEST_F(Dispatcher, UnreadableProfileIsAnError)
{
    // No keyfile and no NetworkManager on the bus.
    EXPECT_EQ(run("pre-up"), 1);
    EXPECT_NE(log().find("cannot read the profile"), std::string::npos) << log();
}

TEST_F(Dispatcher, EnvironmentNamesNoHostStateOrFaults)
{
    // What NetworkManager's environment could carry is ignored: another
    // simulated host and state, a fault for the first step, a sysfs dump.
    test::TempDir other;
    other.write("other.host", "[host]\nkernel-release=6.1.0\n\n[netdev enp1s0]\naddress=52:54:00:00:00:01\n");
    extraEnv_ = {"IBNM_SIMULATE=" + (other / "other.host"), "IBNM_SIMULATE_STATE=" + (other / "state"),
                 "IBNM_FAKE_FAIL=op=addSoftLink,nth=1,errno=EBUSY", "IBNM_SYSFS_ROOT=" + other.path()};
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    ASSERT_EQ(run("pre-up"), 0) << log();
    EXPECT_EQ(host().softLinks.size(), 1u) << "the test configuration's host was provisioned";
    EXPECT_FALSE(g_file_test((other / "state").c_str(), G_FILE_TEST_EXISTS));
}

TEST_F(Dispatcher, FailedPreUpRollsBackAndAsksNetworkManagerToStop)
{
    extraConfig_ = "fake-fail=op=setDefaultRoceTos,nth=1,errno=EINVAL\n";
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    EXPECT_EQ(run("pre-up"), 1);
    EXPECT_TRUE(host().softLinks.empty()) << log();
    std::string l = log();
    EXPECT_NE(l.find("undone add-rdma-link rxe0"), std::string::npos) << l;
    // No NetworkManager on this bus: the hook says it could not ask.
    EXPECT_NE(l.find("cannot ask NetworkManager to stop the activation"), std::string::npos) << l;
}

// A NetworkManager that takes the connection and never answers (here a
// socket that is listened on and never read) holds a failed pre-up no
// longer than the hook's time-out: the hook gives up and says so.
TEST_F(Dispatcher, SilentNetworkManagerIsGivenUpOnInBoundedTime)
{
    std::string path = dir_ / "silent-bus";
    UniqueFd listener(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    ASSERT_TRUE(listener);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    ASSERT_LT(path.size(), sizeof addr.sun_path);
    std::strcpy(addr.sun_path, path.c_str());
    ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr), 0) << std::strerror(errno);
    ASSERT_EQ(listen(listener.get(), 16), 0);
    busAddress_ = "unix:path=" + path;
    extraConfig_ = "timeout-ms=1000\nfake-fail=op=setDefaultRoceTos,nth=1,errno=EINVAL\n";
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    gint64 start = g_get_monotonic_time();
    EXPECT_EQ(run("pre-up", 15000), 1);
    gint64 tookMs = (g_get_monotonic_time() - start) / 1000;
    std::string l = log();
    EXPECT_NE(l.find("NetworkManager did not answer within 1000 ms"), std::string::npos) << l;
    EXPECT_GE(tookMs, 1000) << "the hook gave up before its time-out";
    EXPECT_TRUE(host().softLinks.empty()) << l;
}

TEST_F(Dispatcher, TimeOutUndoesWhatWasDone)
{
    // The link takes 400 ms, the hook has 150: the ToS step is refused and
    // the link removed.
    extraConfig_ = "timeout-ms=150\nfake-fail=op=addSoftLink,nth=1,delay=400\n";
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    EXPECT_EQ(run("pre-up"), 1);
    std::string l = log();
    EXPECT_NE(l.find("timed out"), std::string::npos) << l;
    EXPECT_NE(l.find("undone add-rdma-link rxe0"), std::string::npos) << l;
    EXPECT_TRUE(host().softLinks.empty()) << l;
}

TEST_F(Dispatcher, WithinTheTimeOutASlowStepIsFine)
{
    extraConfig_ = "timeout-ms=5000\nfake-fail=op=addSoftLink,nth=1,delay=200\n";
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}, {"rdma.roce-tos", "106"}});
    EXPECT_EQ(run("pre-up"), 0) << log();
    EXPECT_EQ(host().softLinks.size(), 1u);
}

// The hook runs as root: a keyfile someone else could have written is not
// applied (the CLI ignores such files too); the profile then has to come
// from NetworkManager, which is not on this test's bus.
TEST_F(Dispatcher, InsecureKeyfileIsNotApplied)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to give the keyfile to nobody";
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    std::string path = dir_ / "rdma-enp1s0.nmconnection";
    ASSERT_EQ(chown(path.c_str(), 65534, 65534), 0);
    ASSERT_EQ(g_chmod(path.c_str(), 0666), 0);
    EXPECT_EQ(run("pre-up"), 1);
    // The store's rule and message (keyfile-trust.h, settings/keyfile-backend.cpp).
    EXPECT_NE(log().find("file owner uid 65534 is insecure (the owner must be uid 0); ignored"), std::string::npos)
        << log();
    EXPECT_TRUE(host().softLinks.empty());

    // Root's, but writable by others.
    ASSERT_EQ(chown(path.c_str(), 0, 0), 0);
    EXPECT_EQ(run("pre-up"), 1);
    EXPECT_NE(log().find("group or others have access"), std::string::npos) << log();
    EXPECT_TRUE(host().softLinks.empty());
}

TEST_F(Dispatcher, KeyfileOfAnotherProfileIsNotApplied)
{
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}}, "5a1c3f2e-93a4-4c1b-8d52-6a0d0c1e2f99");
    EXPECT_EQ(run("pre-up"), 1);
    EXPECT_NE(log().find("holds profile 5a1c3f2e-93a4-4c1b-8d52-6a0d0c1e2f99, not " + std::string(kUuid)),
              std::string::npos)
        << log();
    EXPECT_TRUE(host().softLinks.empty());
}

TEST_F(Dispatcher, LoggedValuesCannotForgeLines)
{
    uuidEnv_ = std::string(kUuid) + "\nforged: done add-rdma-link evil\x1b[2J";
    writeProfile({{"rdma.link-type", "rxe"}, {"rdma.link-name", "rxe0"}});
    EXPECT_EQ(run("pre-up"), 1);
    std::string l = log();
    EXPECT_NE(l.find("\\nforged"), std::string::npos) << l;
    EXPECT_EQ(l.find("\nforged"), std::string::npos) << l;
    EXPECT_EQ(l.find('\x1b'), std::string::npos) << l;
}
