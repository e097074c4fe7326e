// SPDX-License-Identifier: LGPL-2.1-or-later
// The sysfs reader on hand-written trees: values as the kernel shows them,
// malformed files named in the error, missing optional files as nullopt.
#include "config.h"

#include "libcore/platform/linux/sysfs.hpp"
#include "tests/platform/sysfs-fixtures.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

namespace {

namespace sysfs = ibnm::platform::sysfs;
namespace fx = ibnm::test::sysfs;
using ibnm::model::GidType;
using ibnm::model::IpoibMode;
using ibnm::model::LinkLayer;
using ibnm::test::TempDir;

ibnm::model::Host readAll(const TempDir &root)
{
    auto h = sysfs::readHost({root.path(), ""});
    EXPECT_TRUE(h.ok()) << h.error().toString();
    return h.ok() ? std::move(h).value() : ibnm::model::Host{};
}

TEST(SysfsReader, Mlx4DualPortDevice)
{
    TempDir root;
    fx::writeMlx4(root);
    auto h = readAll(root);
    const auto *d = h.findDevice("mlx4_0");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->nodeGuid, "0002:c903:0031:7850");
    EXPECT_EQ(d->nodeType, "1: CA");
    EXPECT_EQ(d->fwVersion, "2.42.5000");
    EXPECT_EQ(d->hcaType, "MT4099");
    EXPECT_EQ(d->boardId, "MT_1090120019");
    EXPECT_EQ(d->driver, "mlx4_core");
    EXPECT_FALSE(d->enhancedIpoib);
    EXPECT_TRUE(d->connectedModeSupported);
    ASSERT_EQ(d->ports.size(), 2u);

    const auto &p1 = d->ports[0];
    EXPECT_EQ(p1.number, 1u);
    EXPECT_EQ(p1.state, "4: ACTIVE");
    EXPECT_EQ(p1.physState, "5: LinkUp");
    EXPECT_EQ(p1.rate, "56 Gb/sec (4X FDR)");
    EXPECT_EQ(p1.lid, std::optional<uint32_t>(5));
    EXPECT_EQ(p1.smLid, std::optional<uint32_t>(1));
    EXPECT_EQ(p1.linkLayer, LinkLayer::InfiniBand);
    EXPECT_EQ(p1.pkeys, (std::vector<uint16_t>{0xffff, 0x8001}));
    ASSERT_EQ(p1.gids.size(), 1u);
    EXPECT_EQ(p1.gids[0].index, 0u);
    EXPECT_EQ(p1.gids[0].gid, "fe80:0000:0000:0000:0002:c903:0031:7851");
    EXPECT_EQ(p1.gids[0].type, GidType::IbRoceV1);
    EXPECT_EQ(p1.gids[0].netdev, "");
    // MTUs come from verbs, not sysfs.
    EXPECT_FALSE(p1.activeMtu.has_value());
    EXPECT_FALSE(p1.trafficClass.has_value());

    const auto &p2 = d->ports[1];
    EXPECT_EQ(p2.number, 2u);
    EXPECT_EQ(p2.linkLayer, LinkLayer::Ethernet);
    ASSERT_EQ(p2.gids.size(), 1u);
    EXPECT_EQ(p2.gids[0].netdev, "eth2");
}

TEST(SysfsReader, Mlx4NetdevsAndIpoib)
{
    TempDir root;
    fx::writeMlx4(root);
    auto h = readAll(root);
    const auto *ib0 = h.findNetdev("ib0");
    ASSERT_NE(ib0, nullptr);
    EXPECT_EQ(ib0->type, 32u);
    EXPECT_EQ(ib0->ifindex, 4u);
    EXPECT_EQ(ib0->mtu, 2044u);
    EXPECT_TRUE(ib0->up);
    EXPECT_EQ(ib0->kind, "ipoib");
    EXPECT_EQ(ib0->rdmaDevice, "mlx4_0");
    EXPECT_EQ(ib0->rdmaPort, 1u);
    const auto *eth2 = h.findNetdev("eth2");
    ASSERT_NE(eth2, nullptr);
    EXPECT_EQ(eth2->rdmaDevice, "mlx4_0");
    EXPECT_EQ(eth2->rdmaPort, 2u) << "dev_id 0x1 is the second port";

    const auto *ib = h.findIpoib("ib0");
    ASSERT_NE(ib, nullptr);
    EXPECT_EQ(ib->parent, "");
    EXPECT_EQ(ib->pkey, 0xffff);
    EXPECT_EQ(ib->mode, IpoibMode::Datagram);
    EXPECT_FALSE(ib->umcast);
    EXPECT_EQ(ib->portGuid, "0002:c903:0031:7851");
    const auto *child = h.findIpoib("ib0.8001");
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->parent, "ib0");
    EXPECT_EQ(child->pkey, 0x8001);
    EXPECT_EQ(child->mode, IpoibMode::Connected);
    EXPECT_TRUE(child->umcast);
    EXPECT_EQ(child->mtu, 65520u);
    EXPECT_FALSE(h.findNetdev("ib0.8001")->up);
    EXPECT_EQ(h.findIpoib("eth2"), nullptr);
}

TEST(SysfsReader, Mlx5RoceGidTableWithVlan)
{
    TempDir root;
    fx::writeMlx5Roce(root);
    auto h = readAll(root);
    const auto *d = h.findDevice("mlx5_0");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->driver, "mlx5_core");
    EXPECT_EQ(d->roceEnabled, std::optional<bool>(true));
    EXPECT_FALSE(d->enhancedIpoib) << "Enhanced IPoIB is about InfiniBand ports";
    ASSERT_EQ(d->ports.size(), 1u);
    const auto &p = d->ports[0];
    EXPECT_EQ(p.trafficClass, std::optional<unsigned>(106));
    EXPECT_EQ(p.ttl, std::optional<unsigned>(64));
    ASSERT_EQ(p.gids.size(), 6u) << "the all-zero entries 6-15 are skipped";
    struct {
        unsigned index;
        const char *gid;
        GidType type;
        const char *netdev;
    } want[] = {
        {0, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", GidType::IbRoceV1, "p4p1"},
        {1, "fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", GidType::RoceV2, "p4p1"},
        {2, "0000:0000:0000:0000:0000:ffff:0a0a:0a01", GidType::IbRoceV1, "p4p1"},
        {3, "0000:0000:0000:0000:0000:ffff:0a0a:0a01", GidType::RoceV2, "p4p1"},
        {4, "0000:0000:0000:0000:0000:ffff:c1a8:0146", GidType::IbRoceV1, "p4p1.100"},
        {5, "0000:0000:0000:0000:0000:ffff:c1a8:0146", GidType::RoceV2, "p4p1.100"},
    };
    for (size_t i = 0; i < 6; i++) {
        EXPECT_EQ(p.gids[i].index, want[i].index);
        EXPECT_EQ(p.gids[i].gid, want[i].gid);
        EXPECT_EQ(p.gids[i].type, want[i].type) << i;
        EXPECT_EQ(p.gids[i].netdev, want[i].netdev);
    }
    const auto *vlan = h.findNetdev("p4p1.100");
    ASSERT_NE(vlan, nullptr);
    EXPECT_EQ(vlan->kind, "vlan");
    EXPECT_EQ(vlan->rdmaDevice, "mlx5_0") << "mapped through the GID table's ndevs";
    EXPECT_EQ(vlan->rdmaPort, 1u);
    EXPECT_EQ(h.findNetdev("p4p1")->rdmaDevice, "mlx5_0");
}

TEST(SysfsReader, GidsAreOrderedNumerically)
{
    TempDir root;
    const std::string p = "class/infiniband/rxe0/ports/1/";
    root.write(p + "link_layer", "Ethernet\n");
    for (unsigned i : {0u, 2u, 10u}) {
        root.write(p + "gids/" + std::to_string(i), "fe80:0000:0000:0000:0000:0000:0000:000" + std::to_string(i % 10) + "\n");
        root.write(p + "gid_attrs/types/" + std::to_string(i), "RoCE v2\n");
    }
    auto h = readAll(root);
    ASSERT_EQ(h.devices.size(), 1u);
    const auto &gids = h.devices[0].ports[0].gids;
    ASSERT_EQ(gids.size(), 3u);
    EXPECT_EQ(gids[0].index, 0u);
    EXPECT_EQ(gids[1].index, 2u);
    EXPECT_EQ(gids[2].index, 10u);
}

TEST(SysfsReader, ListingsAreInStrverscmpOrder)
{
    // listDir() sorts plain numbers by value and anything else with
    // strverscmp: the order must be strverscmp's for every mix (leading
    // zeros, numbers longer than 19 digits, names with numbers in them).
    TempDir root;
    std::vector<std::string> names = {"0",  "1",   "2",      "9",      "10",     "11",    "100",  "99",   "007",
                                      "07", "010", "00",     "mlx5_2", "mlx5_10", "mlx5_1", "a",    "b10",  "b9",
                                      "123456789012345678901", "123456789012345678900", "99999999999999999999",
                                      "18446744073709551615", "18446744073709551616", "3a", "3"};
    for (const auto &n : names)
        root.write("d/" + n, "x\n");
    auto listed = sysfs::listDir(root / "d");
    ASSERT_TRUE(listed.ok()) << listed.error().toString();
    std::vector<std::string> expected = names;
    std::sort(expected.begin(), expected.end(),
              [](const std::string &x, const std::string &y) { return strverscmp(x.c_str(), y.c_str()) < 0; });
    EXPECT_EQ(*listed, expected);

    // Numbers alone (a GID table: placed by value), in a scrambled
    // creation order, with gaps, and with one number beyond the range that
    // is placed by value (sorted instead).
    for (bool beyond : {false, true}) {
        TempDir numbers;
        std::vector<std::string> created;
        for (unsigned i = 0; i < 40; i++)
            if (i % 7 != 3)
                created.push_back(std::to_string((i * 17) % 40));
        if (beyond)
            created.push_back("1000");
        for (const auto &n : created)
            numbers.write("d/" + n, "x\n");
        auto got = sysfs::listDir(numbers / "d");
        ASSERT_TRUE(got.ok()) << got.error().toString();
        std::vector<std::string> want = created;
        std::sort(want.begin(), want.end(),
                  [](const std::string &x, const std::string &y) { return strverscmp(x.c_str(), y.c_str()) < 0; });
        EXPECT_EQ(*got, want);
    }
}

TEST(SysfsReader, GidEntryThatIsNoRegularFileIsRefused)
{
    // GID files the listing shows as regular are read without fstat(2);
    // a FIFO, a directory or a symlink among them is still refused (the
    // FIFO without blocking), naming the entry.
    for (const char *kind : {"fifo", "dir", "symlink"}) {
        TempDir root;
        const std::string p = "class/infiniband/rxe0/ports/1/";
        root.write(p + "link_layer", "Ethernet\n");
        root.write(p + "gids/0", "fe80:0000:0000:0000:0000:0000:0000:0001\n");
        root.write("elsewhere", "fe80:0000:0000:0000:0000:0000:0000:0002\n");
        std::string path = root / (p + "gids/1");
        if (std::string(kind) == "fifo")
            ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
        else if (std::string(kind) == "dir")
            ASSERT_EQ(g_mkdir(path.c_str(), 0700), 0);
        else
            ASSERT_EQ(symlink("../../../../../../elsewhere", path.c_str()), 0);
        gint64 start = g_get_monotonic_time();
        auto h = sysfs::readGidTables(root.path());
        EXPECT_LT(g_get_monotonic_time() - start, 2 * G_USEC_PER_SEC);
        ASSERT_FALSE(h.ok()) << kind;
        EXPECT_NE(h.error().toString().find(path), std::string::npos) << h.error().toString();
    }
}

TEST(SysfsReader, PkeyEntriesReadRelativeKeepTheirRules)
{
    // P_Key files are read through the directory's descriptor; a symlink
    // inside the tree is still followed (read by its path), a FIFO still
    // refused without blocking, naming the file.
    TempDir root;
    fx::writeMlx4(root);
    root.write("devices/pkey", "0x8005\n");
    std::string dir = root / "class/infiniband/mlx4_0/ports/1/pkeys";
    std::string link = dir + "/7";
    ASSERT_EQ(symlink("../../../../../../devices/pkey", link.c_str()), 0);
    auto h = readAll(root);
    ASSERT_NE(h.findDevice("mlx4_0"), nullptr);
    const auto &pkeys = h.findDevice("mlx4_0")->ports[0].pkeys;
    EXPECT_NE(std::find(pkeys.begin(), pkeys.end(), 0x8005), pkeys.end());
    EXPECT_NE(std::find(pkeys.begin(), pkeys.end(), 0xffff), pkeys.end());

    std::string fifo = dir + "/8";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    gint64 start = g_get_monotonic_time();
    auto r = sysfs::readHost({root.path(), ""});
    EXPECT_LT(g_get_monotonic_time() - start, 2 * G_USEC_PER_SEC);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().toString().find(fifo), std::string::npos) << r.error().toString();
    EXPECT_NE(r.error().toString().find("not a regular file"), std::string::npos) << r.error().toString();
}

TEST(SysfsReader, BondFromBondingDirectory)
{
    TempDir root;
    fx::writeBond(root);
    auto h = readAll(root);
    ASSERT_EQ(h.bonds.size(), 1u);
    const auto &b = h.bonds[0];
    EXPECT_EQ(b.name, "bond0");
    EXPECT_EQ(b.mode, "active-backup");
    EXPECT_EQ(b.ports, (std::vector<std::string>{"eth0", "eth1"}));
    EXPECT_EQ(b.primary, "eth0");
    EXPECT_EQ(b.activePort, "eth0");
    EXPECT_EQ(b.miimon, 100u);
    EXPECT_EQ(b.failOverMac, "active");
    EXPECT_EQ(h.findNetdev("bond0")->kind, "bond");
    EXPECT_EQ(h.findNetdev("eth1")->master, "bond0");
}

TEST(SysfsReader, MissingOptionalFilesAreNullopt)
{
    TempDir root;
    // A device with nothing but one port's link layer.
    root.write("class/infiniband/mlx5_1/ports/1/link_layer", "InfiniBand\n");
    root.write("class/net/ib1/type", "32\n");
    auto h = readAll(root);
    const auto *d = h.findDevice("mlx5_1");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->nodeGuid, "");
    EXPECT_EQ(d->driver, "");
    EXPECT_FALSE(d->roceEnabled.has_value());
    ASSERT_EQ(d->ports.size(), 1u);
    EXPECT_FALSE(d->ports[0].lid.has_value());
    EXPECT_FALSE(d->ports[0].smLid.has_value());
    EXPECT_FALSE(d->ports[0].trafficClass.has_value());
    EXPECT_FALSE(d->ports[0].ttl.has_value());
    EXPECT_FALSE(d->ports[0].defaultRoceMode.has_value());
    EXPECT_TRUE(d->ports[0].pkeys.empty());
    EXPECT_TRUE(d->ports[0].gids.empty());
    const auto *ib1 = h.findIpoib("ib1");
    ASSERT_NE(ib1, nullptr);
    EXPECT_EQ(ib1->portGuid, "");

    TempDir empty;
    auto none = readAll(empty);
    EXPECT_TRUE(none.devices.empty());
    EXPECT_TRUE(none.netdevs.empty());
}

TEST(SysfsReader, MalformedFilesAreNamed)
{
    struct Case {
        const char *file;
        std::string contents;
    } cases[] = {
        {"class/infiniband/mlx4_0/ports/1/lid", "zz\n"},
        {"class/infiniband/mlx4_0/ports/1/sm_lid", "-1\n"},
        {"class/infiniband/mlx4_0/ports/1/link_layer", "Token Ring\n"},
        {"class/infiniband/mlx4_0/ports/1/pkeys/1", "0x1ffff\n"},
        {"class/infiniband/mlx4_0/ports/1/pkeys/2", "\n"},
        {"class/infiniband/mlx4_0/ports/1/gids/1", "fe80::1\n"},
        {"class/infiniband/mlx4_0/ports/1/gid_attrs/types/0", "RoCE v3\n"},
        {"class/infiniband/mlx4_0/tc/1/traffic_class", "Global tclass=abc\n"},
        {"class/infiniband/mlx4_0/tc/1/ttl", "300\n"},
        {"class/net/ib0/type", "thirty-two\n"},
        {"class/net/ib0/mtu", "2044 bytes\n"},
        {"class/net/ib0/mode", "reliable\n"},
        {"class/net/ib0/pkey", "0x10000\n"},
        {"class/net/eth2/dev_id", "0xg\n"},
        // A file larger than a sysfs page is an error, never truncated.
        {"class/infiniband/mlx4_0/fw_ver", std::string(5000, '1')},
    };
    for (const auto &c : cases) {
        TempDir root;
        fx::writeMlx4(root);
        root.write(c.file, c.contents);
        auto h = sysfs::readHost({root.path(), ""});
        ASSERT_FALSE(h.ok()) << c.file << " was accepted";
        EXPECT_EQ(h.error().code(), IBNM_ERROR_PARSE) << c.file;
        EXPECT_NE(h.error().toString().find(root / c.file), std::string::npos)
            << c.file << " is not named in: " << h.error().toString();
    }
}

TEST(SysfsReader, UnreadableFileIsNamedWithItsErrno)
{
    TempDir root;
    fx::writeMlx4(root);
    // A directory where a file should be: read() fails with EISDIR.
    std::string path = root / "class/infiniband/mlx4_0/node_type";
    ASSERT_EQ(g_unlink(path.c_str()), 0);
    root.mkdir("class/infiniband/mlx4_0/node_type");
    auto h = sysfs::readHost({root.path(), ""});
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().errnum(), EISDIR);
    EXPECT_NE(h.error().toString().find(path), std::string::npos) << h.error().toString();
}

// A dump from another machine (IBNM_SYSFS_ROOT, a sosreport) is hostile
// input: no link leads out of it, nothing blocks, no value is truncated.
TEST(SysfsReader, SymlinkOutOfTheTreeIsNotFollowed)
{
    TempDir outside;
    outside.write("shadow", "root:$6$secret:19000:0:99999:7:::\n");
    for (std::string target : {outside / "shadow", std::string("../../../../../../../../../../") + (outside / "shadow")}) {
        TempDir root;
        fx::writeMlx4(root);
        std::string path = root / "class/infiniband/mlx4_0/fw_ver";
        ASSERT_EQ(g_unlink(path.c_str()), 0);
        ASSERT_EQ(symlink(target.c_str(), path.c_str()), 0);
        auto h = sysfs::readHost({root.path(), ""});
        ASSERT_FALSE(h.ok()) << target << " was followed";
        EXPECT_EQ(h.error().code(), IBNM_ERROR_PERMISSION_DENIED);
        EXPECT_NE(h.error().toString().find(path), std::string::npos) << h.error().toString();
        EXPECT_EQ(h.error().toString().find("secret"), std::string::npos) << h.error().toString();
    }
}

TEST(SysfsReader, SymlinkInsideTheTreeIsFollowed)
{
    // As the kernel's own links: relative, and inside the tree.
    TempDir root;
    fx::writeMlx4(root);
    root.write("devices/fw", "9.9.9\n");
    std::string path = root / "class/infiniband/mlx4_0/fw_ver";
    ASSERT_EQ(g_unlink(path.c_str()), 0);
    ASSERT_EQ(symlink("../../../devices/fw", path.c_str()), 0);
    auto h = readAll(root);
    ASSERT_NE(h.findDevice("mlx4_0"), nullptr);
    EXPECT_EQ(h.findDevice("mlx4_0")->fwVersion, "9.9.9");
}

TEST(SysfsReader, FifoIsRefusedWithoutBlocking)
{
    TempDir root;
    fx::writeMlx4(root);
    std::string path = root / "class/infiniband/mlx4_0/fw_ver";
    ASSERT_EQ(g_unlink(path.c_str()), 0);
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    gint64 start = g_get_monotonic_time();
    auto h = sysfs::readHost({root.path(), ""});
    EXPECT_LT(g_get_monotonic_time() - start, 2 * G_USEC_PER_SEC);
    ASSERT_FALSE(h.ok());
    EXPECT_NE(h.error().toString().find(path), std::string::npos) << h.error().toString();
    EXPECT_NE(h.error().toString().find("not a regular file"), std::string::npos) << h.error().toString();
}

TEST(SysfsReader, OutOfRangeValuesAreErrorsNotTruncated)
{
    struct Case {
        const char *file;
        const char *contents;
    } cases[] = {
        {"class/net/ib0/mtu", "4294967297\n"},
        {"class/net/ib0/ifindex", "4294967300\n"},
        {"class/net/ib0/type", "65568\n"},
        {"class/net/eth2/dev_port", "256\n"},
    };
    for (const auto &c : cases) {
        TempDir root;
        fx::writeMlx4(root);
        root.write(c.file, c.contents);
        auto h = sysfs::readHost({root.path(), ""});
        ASSERT_FALSE(h.ok()) << c.file << " was accepted";
        EXPECT_NE(h.error().toString().find(root / c.file), std::string::npos) << h.error().toString();
        EXPECT_NE(h.error().toString().find("out of range"), std::string::npos) << h.error().toString();
    }
    // A port directory whose number does not fit: not port 0.
    TempDir root;
    fx::writeMlx4(root);
    root.write("class/infiniband/mlx4_0/ports/4294967296/state", "4: ACTIVE\n");
    auto h = sysfs::readHost({root.path(), ""});
    ASSERT_FALSE(h.ok());
    EXPECT_NE(h.error().toString().find("ports/4294967296"), std::string::npos) << h.error().toString();
}

TEST(SysfsReader, RoceDefaultsFromConfigfs)
{
    TempDir root;
    fx::writeMlx5Roce(root);
    root.write("kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "RoCE v2\n");
    root.write("kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106\n");
    auto h = sysfs::readHost({root.path(), root / "kernel/config"});
    ASSERT_TRUE(h.ok()) << h.error().toString();
    const auto &p = h->findDevice("mlx5_0")->ports[0];
    EXPECT_EQ(p.defaultRoceMode, std::optional<ibnm::model::RoceMode>(ibnm::model::RoceMode::V2));
    EXPECT_EQ(p.defaultRoceTos, std::optional<unsigned>(106));

    root.write("kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "RoCE v9\n");
    auto bad = sysfs::readHost({root.path(), root / "kernel/config"});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().toString().find("default_roce_mode"), std::string::npos);
}

TEST(SysfsReader, FormatsGidsAndPortGuids)
{
    const unsigned char raw[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0x31, 0x78, 0x52};
    EXPECT_EQ(sysfs::formatGid(raw), "fe80:0000:0000:0000:0202:c9ff:fe31:7852");
    EXPECT_EQ(sysfs::portGuidFromAddress("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51"),
              "0002:c903:0031:7851");
    EXPECT_EQ(sysfs::portGuidFromAddress("52:54:00:00:00:01"), "");
}

TEST(SysfsReader, ReadsAManyGidHostQuickly)
{
    // 8 devices x 2 ports x 128 GID entries, 4 used per port.
    TempDir root;
    for (int dev = 0; dev < 8; dev++)
        for (int port = 1; port <= 2; port++) {
            std::string p = "class/infiniband/mlx5_" + std::to_string(dev) + "/ports/" + std::to_string(port) + "/";
            root.write(p + "link_layer", "Ethernet\n");
            for (int i = 0; i < 128; i++) {
                root.write(p + "gids/" + std::to_string(i),
                           i < 4 ? "fe80:0000:0000:0000:0000:0000:0000:0001\n" : fx::kZeroGid);
                if (i < 4)
                    root.write(p + "gid_attrs/types/" + std::to_string(i), "RoCE v2\n");
            }
        }
    auto h = readAll(root);
    ASSERT_EQ(h.devices.size(), 8u);
    for (const auto &d : h.devices)
        for (const auto &p : d.ports)
            EXPECT_EQ(p.gids.size(), 4u);
    // How fast: bench/ (make bench), section 1.
}

// readGidTables() lists what readHost() lists for the GIDs, and reads
// nothing else: a malformed port attribute or netdev file, which readHost()
// refuses, does not stop it.
TEST(SysfsReader, GidTablesAloneMatchTheWholeRead)
{
    TempDir root;
    fx::writeMlx4(root);
    fx::writeMlx5Roce(root);
    auto whole = readAll(root);
    ASSERT_FALSE(whole.netdevs.empty());

    root.write("class/infiniband/mlx5_0/ports/1/lid", "zz\n");
    root.write("class/net/p4p1/mtu", "1500 bytes\n");
    ASSERT_FALSE(sysfs::readHost({root.path(), ""}).ok());
    auto gids = sysfs::readGidTables(root.path());
    ASSERT_TRUE(gids.ok()) << gids.error().toString();
    EXPECT_TRUE(gids->netdevs.empty());
    ASSERT_EQ(gids->devices.size(), whole.devices.size());
    size_t listed = 0;
    for (size_t d = 0; d < whole.devices.size(); d++) {
        const auto &a = whole.devices[d], &b = gids->devices[d];
        EXPECT_EQ(b.name, a.name);
        ASSERT_EQ(b.ports.size(), a.ports.size()) << a.name;
        for (size_t p = 0; p < a.ports.size(); p++) {
            EXPECT_EQ(b.ports[p].number, a.ports[p].number);
            ASSERT_EQ(b.ports[p].gids.size(), a.ports[p].gids.size()) << a.name << " port " << a.ports[p].number;
            for (size_t g = 0; g < a.ports[p].gids.size(); g++) {
                const auto &x = a.ports[p].gids[g], &y = b.ports[p].gids[g];
                EXPECT_EQ(y.index, x.index);
                EXPECT_EQ(y.gid, x.gid);
                EXPECT_EQ(y.type, x.type);
                EXPECT_EQ(y.netdev, x.netdev);
                listed++;
            }
        }
    }
    EXPECT_EQ(listed, 1u + 1u + 6u) << "mlx4_0: one GID on each port; mlx5_0: 6";

    // A malformed GID file is still an error naming it.
    root.write("class/infiniband/mlx5_0/ports/1/gids/2", "10.10.10.1\n");
    auto bad = sysfs::readGidTables(root.path());
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().toString().find(root / "class/infiniband/mlx5_0/ports/1/gids/2"), std::string::npos)
        << bad.error().toString();
}

} // namespace

namespace {

// openat2() with RESOLVE_BENEATH fails with EAGAIN when any rename on the
// system races with a lookup through ".." (every sysfs link has one): the
// reader retries (issue 28: `device show` failed 5 times in 100 while
// another process renamed files). Reads of a tree whose links lead through
// "..", while a thread renames a file back and forth, all succeed.
TEST(SysfsReader, ReadsRetryWhileFilesAreRenamedElsewhere)
{
    TempDir root, other;
    fx::writeMlx4(root);
    other.write("a", "x");
    std::atomic<bool> stop{false};
    std::atomic<unsigned long> renames{0};
    std::thread renamer([&] {
        std::string a = other / "a", b = other / "b";
        while (!stop) {
            if (::rename(a.c_str(), b.c_str()) == 0 && ::rename(b.c_str(), a.c_str()) == 0)
                renames += 2;
        }
    });
    constexpr int kReads = 300;
    int failed = 0;
    std::string firstError;
    for (int i = 0; i < kReads; i++) {
        auto h = sysfs::readHost({root.path(), ""});
        if (!h.ok()) {
            if (failed++ == 0)
                firstError = h.error().toString();
        }
    }
    stop = true;
    renamer.join();
    EXPECT_EQ(failed, 0) << "first: " << firstError;
    std::printf("sysfs reads during a rename storm: %d reads, %d failed, %lu renames meanwhile\n", kReads, failed,
                renames.load());
}

} // namespace
