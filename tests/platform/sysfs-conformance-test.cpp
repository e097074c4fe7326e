// SPDX-License-Identifier: LGPL-2.1-or-later
// Conformance: the sysfs reader on a dump of real HCAs
// (../shared/conformance/sysfs-procfs/sys_class_infiniband.ttar: an Omni-Path
// hfi1, an mlx4 dual-port and an mlx5 HCA). The expectations were read out of
// the dump by hand. The dump has quirks the reader must take as the kernel
// means them: mlx4_0 port 2's link_layer has a second, empty line, and
// mlx5_0's node_guid has no trailing newline.
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"
#include "libcore/platform/linux/sysfs.hpp"
#include "tests/platform/ttar.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

namespace {

using ibnm::model::LinkLayer;
namespace sysfs = ibnm::platform::sysfs;

std::string sharedDir()
{
    const char *env = g_getenv("IBNM_SHARED_DIR");
    return env && *env ? env : IBNM_SHARED_DIR_DEFAULT;
}

class SysfsConformance : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::string archive = sharedDir() + "/conformance/sysfs-procfs/sys_class_infiniband.ttar";
        if (!g_file_test(archive.c_str(), G_FILE_TEST_EXISTS))
            IBNM_LAB_SKIP("no conformance dump at " + archive + " (set IBNM_SHARED_DIR)");
        std::string err = ibnm::test::extractTtar(archive, dir_.path());
        ASSERT_EQ(err, "");
        root_ = dir_ / "fixtures/sys";
    }

    ibnm::test::TempDir dir_;
    std::string root_;
};

TEST_F(SysfsConformance, ExtractorKeepsTheDumpsBytes)
{
    std::string guid;
    ASSERT_TRUE(g_file_test((root_ + "/class/infiniband/mlx5_0/node_guid").c_str(), G_FILE_TEST_EXISTS));
    gchar *buf = nullptr;
    gsize len = 0;
    ASSERT_TRUE(g_file_get_contents((root_ + "/class/infiniband/mlx5_0/node_guid").c_str(), &buf, &len, nullptr));
    EXPECT_EQ(std::string(buf, len), "0a7f:bc12:45ef:d23b");
    g_free(buf);
    ASSERT_TRUE(
        g_file_get_contents((root_ + "/class/infiniband/mlx4_0/ports/2/link_layer").c_str(), &buf, &len, nullptr));
    EXPECT_EQ(std::string(buf, len), "InfiniBand\n\n");
    g_free(buf);
}

TEST_F(SysfsConformance, ReadsTheDumpsDevices)
{
    auto h = sysfs::readHost({root_, ""});
    ASSERT_TRUE(h.ok()) << h.error().toString();
    ASSERT_EQ(h->devices.size(), 3u);
    EXPECT_EQ(h->devices[0].name, "hfi1_0");
    EXPECT_EQ(h->devices[1].name, "mlx4_0");
    EXPECT_EQ(h->devices[2].name, "mlx5_0");
    EXPECT_TRUE(h->netdevs.empty());

    const auto &hfi = h->devices[0];
    EXPECT_EQ(hfi.boardId, "HPE 100Gb 1-port OP101 QSFP28 x16 PCIe Gen3 with Intel Omni-Path Adapter");
    EXPECT_EQ(hfi.fwVersion, "1.27.0");
    EXPECT_EQ(hfi.hcaType, "");
    EXPECT_EQ(hfi.nodeGuid, "");
    ASSERT_EQ(hfi.ports.size(), 1u);
    EXPECT_EQ(hfi.ports[0].linkLayer, LinkLayer::InfiniBand);
    EXPECT_EQ(hfi.ports[0].state, "4: ACTIVE");
    EXPECT_EQ(hfi.ports[0].physState, "5: LinkUp");
    EXPECT_EQ(hfi.ports[0].rate, "100 Gb/sec (4X EDR)");
    EXPECT_FALSE(hfi.ports[0].lid.has_value());

    const auto &mlx4 = h->devices[1];
    EXPECT_EQ(mlx4.boardId, "SM_1141000001000");
    EXPECT_EQ(mlx4.fwVersion, "2.31.5050");
    EXPECT_EQ(mlx4.hcaType, "MT4099");
    ASSERT_EQ(mlx4.ports.size(), 2u);
    for (const auto &p : mlx4.ports) {
        EXPECT_EQ(p.linkLayer, LinkLayer::InfiniBand) << p.number;
        EXPECT_EQ(p.state, "4: ACTIVE");
        EXPECT_EQ(p.physState, "5: LinkUp");
        EXPECT_EQ(p.rate, "40 Gb/sec (4X QDR)");
        EXPECT_TRUE(p.gids.empty());
    }
    EXPECT_EQ(mlx4.ports[1].number, 2u);

    const auto &mlx5 = h->devices[2];
    EXPECT_EQ(mlx5.boardId, "SM_2001000001034");
    EXPECT_EQ(mlx5.fwVersion, "14.28.2006");
    EXPECT_EQ(mlx5.hcaType, "MT4118");
    EXPECT_EQ(mlx5.nodeGuid, "0a7f:bc12:45ef:d23b");
    ASSERT_EQ(mlx5.ports.size(), 1u);
    EXPECT_EQ(mlx5.ports[0].linkLayer, LinkLayer::InfiniBand);
    EXPECT_EQ(mlx5.ports[0].state, "4: ACTIVE");
    EXPECT_EQ(mlx5.ports[0].physState, "4: ACTIVE");
    EXPECT_EQ(mlx5.ports[0].rate, "25 Gb/sec (1X EDR)");
}

TEST_F(SysfsConformance, ReadOnlyPlatformReadsTheDump)
{
    g_setenv("IBNM_SYSFS_ROOT", root_.c_str(), TRUE);
    auto options = ibnm::platform::linuxOptionsFromEnvironment();
    g_unsetenv("IBNM_SYSFS_ROOT");
    EXPECT_TRUE(options.readOnly);
    EXPECT_FALSE(options.useNetlink);
    EXPECT_FALSE(options.useVerbs);
    auto p = ibnm::platform::createLinuxPlatform(options);
    auto h = p->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    EXPECT_EQ(h->devices.size(), 3u);
    EXPECT_EQ(h->kernelRelease, "") << "a dump does not describe this machine's kernel";
}

} // namespace
