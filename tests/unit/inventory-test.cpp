// SPDX-License-Identifier: LGPL-2.1-or-later
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/internal/raii.hpp"
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

} // namespace

TEST(Inventory, ListsDevicesSorted)
{
    ibnm::test::TempDir root;
    root.mkdir("class/infiniband/mlx5_0");
    root.mkdir("class/infiniband/mlx4_0");
    root.mkdir("class/infiniband/rxe0");
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(root.path().c_str()));
    EXPECT_STREQ(ibnm_inventory_get_sysfs_root(inv.get()), root.path().c_str());
    GErrorPtr err;
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), outPtr(err))) << err->message;
    EXPECT_EQ(names(inv.get()), (std::vector<std::string>{"mlx4_0", "mlx5_0", "rxe0"}));
}

TEST(Inventory, NoRdmaCoreMeansEmpty)
{
    ibnm::test::TempDir root;
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(root.path().c_str()));
    GErrorPtr err;
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), outPtr(err)));
    EXPECT_TRUE(names(inv.get()).empty());
}

TEST(Inventory, UnreadableTreeNamesThePathAndKeepsOldContents)
{
    ibnm::test::TempDir root;
    root.mkdir("class/infiniband/mlx4_0");
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(root.path().c_str()));
    ASSERT_TRUE(ibnm_inventory_reload(inv.get(), nullptr));

    // Replace the directory by a file: opendir fails with ENOTDIR.
    g_rmdir((root / "class/infiniband/mlx4_0").c_str());
    g_rmdir((root / "class/infiniband").c_str());
    root.write("class/infiniband", "not a directory\n");
    GErrorPtr err;
    EXPECT_FALSE(ibnm_inventory_reload(inv.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->domain, IBNM_ERROR);
    EXPECT_EQ(std::string(err->message), root / "class/infiniband" + ": " + g_strerror(ENOTDIR));
    EXPECT_EQ(names(inv.get()), std::vector<std::string>{"mlx4_0"});
}

TEST(Inventory, RootComesFromEnvironment)
{
    g_setenv("IBNM_SYSFS_ROOT", "/tmp/some-dump", TRUE);
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(nullptr));
    g_unsetenv("IBNM_SYSFS_ROOT");
    EXPECT_STREQ(ibnm_inventory_get_sysfs_root(inv.get()), "/tmp/some-dump");
    auto def = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(nullptr));
    EXPECT_STREQ(ibnm_inventory_get_sysfs_root(def.get()), "/sys");
}

TEST(Inventory, SysfsRootIsAConstructProperty)
{
    auto inv = GObjectPtr<IbnmInventory>::adopt(
        IBNM_INVENTORY(g_object_new(IBNM_TYPE_INVENTORY, IBNM_INVENTORY_SYSFS_ROOT, "/x", nullptr)));
    char *raw = nullptr; // varargs: a plain char**, not an OutPtr
    g_object_get(inv.get(), IBNM_INVENTORY_SYSFS_ROOT, &raw, nullptr);
    ibnm::GCharPtr root(raw);
    EXPECT_STREQ(root.get(), "/x");
}

TEST(Inventory, CallerMistakesAreCriticals)
{
    EXPECT_NONFATAL_FAILURE(ibnm_inventory_get_device_names(nullptr), "IBNM_IS_INVENTORY");
}
