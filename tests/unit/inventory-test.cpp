// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"
#include "libcore/ibnm-inventory-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

using ibnm::GErrorPtr;
using ibnm::GObjectPtr;
using ibnm::outPtr;

namespace {

std::vector<std::string> names(IbnmInventory *inv)
{
    std::vector<std::string> v;
    for (const char *const *n = ibnm_inventory_get_device_names(inv); *n; n++)
        v.emplace_back(*n);
    return v;
}

const char *kHost = "[device mlx4_0]\n"
                    "driver=mlx4_core\n"
                    "[port mlx4_0/1]\n"
                    "link-layer=InfiniBand\n"
                    "[device mlx5_0]\n"
                    "driver=mlx5_core\n"
                    "[port mlx5_0/1]\n"
                    "link-layer=Ethernet\n";

} // namespace

TEST(Inventory, ListsTheHostsDevices)
{
    ibnm::test::TempDir dir;
    dir.write("a.host", kHost);
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(
        ibnm_simulator_new_host((dir / "a.host").c_str(), (dir / "state").c_str(), outPtr(err)));
    ASSERT_TRUE(host) << err->message;
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
    EXPECT_EQ(ibnm_inventory_get_host(inv.get()), host.get());
    EXPECT_TRUE(names(inv.get()).empty()) << "empty before the first reload";
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), outPtr(err))) << err->message;
    EXPECT_EQ(names(inv.get()), (std::vector<std::string>{"mlx4_0", "mlx5_0"}));
}

TEST(Inventory, FailedReloadNamesTheFileAndKeepsOldContents)
{
    ibnm::test::TempDir dir;
    dir.write("a.host", kHost);
    auto host = GObjectPtr<IbnmHost>::adopt(
        ibnm_simulator_new_host((dir / "a.host").c_str(), (dir / "state").c_str(), nullptr));
    ASSERT_TRUE(host);
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));

    // A broken state file: the next read fails and says where.
    dir.write("state/state", "[device mlx4_0]\nnot a key value line\n");
    GErrorPtr err;
    EXPECT_FALSE(ibnm_inventory_reload(inv.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->domain, IBNM_ERROR);
    EXPECT_EQ(err->code, IBNM_ERROR_PARSE);
    EXPECT_EQ(std::string(err->message).rfind(dir / "state/state" + ":2: ", 0), 0u) << err->message;
    EXPECT_EQ(names(inv.get()), (std::vector<std::string>{"mlx4_0", "mlx5_0"}));
}

TEST(Inventory, SnapshotHasNoHostToReload)
{
    ibnm::model::Host h;
    h.devices.push_back({});
    h.devices.back().name = "rxe0";
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm::inventoryNewFromHost(h));
    EXPECT_EQ(names(inv.get()), std::vector<std::string>{"rxe0"});
    EXPECT_EQ(ibnm_inventory_get_host(inv.get()), nullptr);
    EXPECT_EQ(ibnm::inventoryHost(inv.get()).devices.size(), 1u);
    GErrorPtr err;
    EXPECT_FALSE(ibnm_inventory_reload(inv.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_NOT_SUPPORTED);
}

TEST(Inventory, HostIsAConstructProperty)
{
    ibnm::test::TempDir dir;
    dir.write("a.host", kHost);
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host((dir / "a.host").c_str(), nullptr, nullptr));
    ASSERT_TRUE(host);
    auto inv = GObjectPtr<IbnmInventory>::adopt(
        IBNM_INVENTORY(g_object_new(IBNM_TYPE_INVENTORY, IBNM_INVENTORY_HOST, host.get(), nullptr)));
    IbnmHost *raw = nullptr; // varargs: a plain pointer, not an OutPtr
    g_object_get(inv.get(), IBNM_INVENTORY_HOST, &raw, nullptr);
    auto got = GObjectPtr<IbnmHost>::adopt(raw);
    EXPECT_EQ(got.get(), host.get());
}

TEST(Inventory, CallerMistakesAreCriticals)
{
    EXPECT_NONFATAL_FAILURE(ibnm_inventory_get_device_names(nullptr), "IBNM_IS_INVENTORY");
    EXPECT_NONFATAL_FAILURE(ibnm_inventory_new(nullptr), "IBNM_IS_HOST");
}
