// SPDX-License-Identifier: LGPL-2.1-or-later
// The dispatcher hook as NetworkManager runs it: argv = interface, action;
// the profile named by CONNECTION_UUID / CONNECTION_FILENAME; here on a
// simulated host (IBNM_SIMULATE), with the log in a file.
#include "config.h"

#include "libcore/ibnm.h"

#include <NetworkManager.h>
#include "libcore/internal/inventory-private.hpp"
#include "libcore/internal/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ibnm;

namespace {

constexpr const char *kUuid = "0f6c3f2e-93a4-4c1b-8d52-6a0d0c1e2f31";

class Dispatcher : public ::testing::Test {
protected:
    void writeProfile(std::vector<std::pair<const char *, const char *>> user)
    {
        auto c = GObjectPtr<NMConnection>::adopt(nm_simple_connection_new());
        NMSetting *s = nm_setting_connection_new();
        g_object_set(s, NM_SETTING_CONNECTION_ID, "rdma-enp1s0", NM_SETTING_CONNECTION_UUID, kUuid,
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
    }

    // Runs the hook; returns its exit status.
    int run(const char *action)
    {
        std::string bin = std::string(IBNM_TOP_BUILDDIR) + "/plugin/ibnm-dispatcher";
        std::string host = test::srcPath("examples/hosts/ethernet-only.host");
        std::vector<std::string> env = {
            "PATH=/usr/bin:/bin",
            std::string("CONNECTION_UUID=") + kUuid,
            "CONNECTION_ID=rdma-enp1s0",
            "CONNECTION_FILENAME=" + (dir_ / "rdma-enp1s0.nmconnection"),
            "DEVICE_IFACE=enp1s0",
            "IBNM_SIMULATE=" + host,
            "IBNM_SIMULATE_STATE=" + (dir_ / "state"),
            "IBNM_DISPATCHER_LOG=" + (dir_ / "log"),
        };
        env.insert(env.end(), extraEnv_.begin(), extraEnv_.end());
        std::vector<char *> envp, argv{bin.data(), const_cast<char *>("enp1s0"), const_cast<char *>(action), nullptr};
        for (auto &e : env)
            envp.push_back(e.data());
        envp.push_back(nullptr);
        int status = -1;
        GErrorPtr err;
        bool ok = g_spawn_sync(nullptr, argv.data(), envp.data(), G_SPAWN_DEFAULT, nullptr, nullptr, nullptr, nullptr,
                               &status, outPtr(err));
        EXPECT_TRUE(ok) << (err ? err->message : "");
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
        auto h = GObjectPtr<IbnmHost>::adopt(ibnm_host_new_simulated(
            test::srcPath("examples/hosts/ethernet-only.host").c_str(), (dir_ / "state").c_str(), outPtr(err)));
        EXPECT_TRUE(h);
        auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(h.get()));
        EXPECT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));
        return inventoryHost(inv.get());
    }

    test::TempDir dir_;
    std::vector<std::string> extraEnv_;
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

    EXPECT_EQ(run("pre-down"), 0) << log();
    EXPECT_TRUE(host().softLinks.empty());
    // "down" follows "pre-down": nothing left to do.
    EXPECT_EQ(run("down"), 0);
    EXPECT_NE(log().find("down done: 0 operations"), std::string::npos) << log();
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
}

TEST_F(Dispatcher, UnreadableProfileIsAnError)
{
    // No keyfile and no NetworkManager on the bus.
    extraEnv_.push_back("DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/ibnm-test-bus");
    EXPECT_EQ(run("pre-up"), 1);
    EXPECT_NE(log().find("cannot read the profile"), std::string::npos) << log();
}
