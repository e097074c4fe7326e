// SPDX-License-Identifier: LGPL-2.1-or-later
// The Linux platform without a kernel that can do RDMA: reading a sysfs tree,
// refusing writes in read-only mode (host files: tests/settings/host-files-test.cpp).
#include "config.h"

#include "libcore/platform/linux/linux-platform.hpp"
#include "libcore/platform/linux/linux-platform-private.hpp"
#include "tests/platform/sysfs-fixtures.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace {

using namespace ibnm::platform;
using ibnm::test::TempDir;
namespace fx = ibnm::test::sysfs;

// The Linux platform on the tree `root` (a sysfs dump; configfs below it),
// without netlink or verbs; writes go to the tree unless `readOnly`.
LinuxOptions dumpOptions(const TempDir &root, bool readOnly = true)
{
    LinuxOptions o;
    o.sysfsRoot = root.path();
    o.configfsRoot = root / "kernel/config";
    o.readOnly = readOnly;
    o.useNetlink = false;
    o.useVerbs = false;
    return o;
}

TEST(LinuxPlatform, ReadsASysfsTree)
{
    TempDir root;
    fx::writeMlx4(root);
    fx::writeMlx5Roce(root);
    auto p = createLinuxPlatform(dumpOptions(root));
    EXPECT_STREQ(p->kind(), "linux");
    auto h = p->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    ASSERT_EQ(h->devices.size(), 2u);
    EXPECT_EQ(h->devices[0].name, "mlx4_0");
    EXPECT_EQ(h->devices[1].name, "mlx5_0");
    EXPECT_TRUE(h->softLinks.empty());
}

// With verbs on, the GID tables are read once, through verbs; a device
// verbs does not know (none here) has them read from sysfs instead, with
// the same netdev <-> port map as a sysfs-only read.
TEST(LinuxPlatform, GidTablesOfDevicesVerbsCannotReadComeFromSysfs)
{
    TempDir root;
    fx::writeMlx4(root);
    fx::writeMlx5Roce(root);
    LinuxOptions withVerbs = dumpOptions(root);
    withVerbs.useVerbs = true;
    auto a = createLinuxPlatform(dumpOptions(root))->readHost();
    auto b = createLinuxPlatform(withVerbs)->readHost();
    ASSERT_TRUE(a.ok()) << a.error().toString();
    ASSERT_TRUE(b.ok()) << b.error().toString();
    ASSERT_EQ(a->devices.size(), b->devices.size());
    size_t gids = 0;
    for (size_t d = 0; d < a->devices.size(); d++)
        for (size_t k = 0; k < a->devices[d].ports.size(); k++) {
            const auto &x = a->devices[d].ports[k].gids;
            const auto &y = b->devices[d].ports[k].gids;
            ASSERT_EQ(x.size(), y.size()) << a->devices[d].name;
            for (size_t i = 0; i < x.size(); i++) {
                EXPECT_EQ(x[i].gid, y[i].gid);
                EXPECT_EQ(x[i].netdev, y[i].netdev);
            }
            gids += x.size();
        }
    EXPECT_GT(gids, 0u);
    ASSERT_EQ(a->netdevs.size(), b->netdevs.size());
    for (size_t i = 0; i < a->netdevs.size(); i++) {
        EXPECT_EQ(a->netdevs[i].rdmaDevice, b->netdevs[i].rdmaDevice) << a->netdevs[i].name;
        EXPECT_EQ(a->netdevs[i].rdmaPort, b->netdevs[i].rdmaPort) << a->netdevs[i].name;
    }
    auto t = createLinuxPlatform(withVerbs)->readGidTables();
    ASSERT_TRUE(t.ok()) << t.error().toString();
    EXPECT_EQ(t->devices.at(1).ports.at(0).gids.size(), a->devices.at(1).ports.at(0).gids.size());
}

TEST(LinuxPlatform, SoftLinksFromSysfs)
{
    TempDir root;
    root.write("class/infiniband/rxe0/node_type", "1: CA\n");
    root.write("class/infiniband/rxe0/parent", "dummy0\n");
    root.write("class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
    root.write("class/infiniband/siw0/node_type", "4: RNIC\n");
    root.write("class/infiniband/siw0/ports/1/link_layer", "Ethernet\n");
    auto h = createLinuxPlatform(dumpOptions(root))->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    ASSERT_EQ(h->softLinks.size(), 2u);
    EXPECT_EQ(h->softLinks[0].name, "rxe0");
    EXPECT_EQ(h->softLinks[0].type, ibnm::model::SoftLinkType::Rxe);
    EXPECT_EQ(h->softLinks[0].netdev, "dummy0");
    EXPECT_EQ(h->softLinks[1].name, "siw0");
    EXPECT_EQ(h->softLinks[1].type, ibnm::model::SoftLinkType::Siw);
    EXPECT_EQ(h->findDevice("rxe0")->driver, "rdma_rxe");
    EXPECT_EQ(h->findDevice("siw0")->driver, "siw");
}

TEST(LinuxPlatform, ReadOnlyTreeRefusesEveryWrite)
{
    TempDir root;
    fx::writeMlx4(root);
    auto p = createLinuxPlatform(dumpOptions(root));
    IpoibChildSpec child;
    child.parent = "ib0";
    child.pkey = 0x8002;
    BondSpec bond;
    bond.name = "bond0";
    struct Case {
        const char *op;
        std::function<ibnm::Status()> run;
    } cases[] = {
        {"createIpoibChild",
         [&]() -> ibnm::Status {
             auto r = p->createIpoibChild(child);
             if (r.ok())
                 return {};
             return std::move(r).error();
         }},
        {"deleteIpoibChild", [&] { return p->deleteIpoibChild("ib0", 0x8001); }},
        {"setIpoibMode", [&] { return p->setIpoibMode("ib0", ibnm::model::IpoibMode::Connected); }},
        {"setIpoibUmcast", [&] { return p->setIpoibUmcast("ib0", true); }},
        {"setMtu", [&] { return p->setMtu("ib0", 2044); }},
        {"setUp", [&] { return p->setUp("ib0", true); }},
        {"createBond", [&] { return p->createBond(bond); }},
        {"enslave", [&] { return p->enslave("ib0", "bond0"); }},
        {"release", [&] { return p->release("ib0"); }},
        {"deleteLink", [&] { return p->deleteLink("ib0.8001"); }},
        {"addAddress", [&] { return p->addAddress("ib0", "192.0.2.1/24"); }},
        {"removeAddress", [&] { return p->removeAddress("ib0", "192.0.2.1/24"); }},
        {"addSoftLink", [&] { return p->addSoftLink("rxe0", ibnm::model::SoftLinkType::Rxe, "eth2"); }},
        {"deleteSoftLink", [&] { return p->deleteSoftLink("mlx4_0"); }},
        {"setDefaultRoceMode", [&] { return p->setDefaultRoceMode("mlx4_0", 2, ibnm::model::RoceMode::V2); }},
        {"setDefaultRoceTos", [&] { return p->setDefaultRoceTos("mlx4_0", 2, 106); }},
        {"setTrafficClass", [&] { return p->setTrafficClass("mlx4_0", 2, 106); }},
        {"setTtl", [&] { return p->setTtl("mlx4_0", 2, 64); }},
    };
    for (const auto &c : cases) {
        auto st = c.run();
        ASSERT_FALSE(st.ok()) << c.op;
        EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_SUPPORTED) << c.op << ": " << st.error().toString();
        EXPECT_NE(st.error().toString().find(root.path()), std::string::npos)
            << c.op << " does not name the root: " << st.error().toString();
    }
    // Reading is still fine, and the tree is unchanged.
    auto h = p->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_NE(h->findIpoib("ib0.8001"), nullptr);
    EXPECT_FALSE(h->findIpoib("ib0")->umcast);
}

TEST(LinuxPlatform, EnvironmentSelectsTheDumpReadOnly)
{
    g_unsetenv("IBNM_SYSFS_ROOT");
    auto live = linuxOptionsFromEnvironment();
    EXPECT_EQ(live.sysfsRoot, "/sys");
    EXPECT_EQ(live.configfsRoot, "/sys/kernel/config");
    EXPECT_FALSE(live.readOnly);
    EXPECT_TRUE(live.useNetlink);
    EXPECT_TRUE(live.useVerbs);
    g_setenv("IBNM_SYSFS_ROOT", "/tmp/dump/sys", TRUE);
    auto dump = linuxOptionsFromEnvironment();
    g_unsetenv("IBNM_SYSFS_ROOT");
    EXPECT_EQ(dump.sysfsRoot, "/tmp/dump/sys");
    EXPECT_EQ(dump.configfsRoot, "/tmp/dump/sys/kernel/config");
    EXPECT_TRUE(dump.readOnly);
    EXPECT_FALSE(dump.useNetlink);
    EXPECT_FALSE(dump.useVerbs);
}

TEST(LinuxPlatform, InvalidArgumentsAreRefusedBeforeTheKernel)
{
    TempDir root;
    fx::writeMlx5Roce(root);
    auto p = createLinuxPlatform(dumpOptions(root, false));

    auto tos = p->setDefaultRoceTos("mlx5_0", 1, 256);
    ASSERT_FALSE(tos.ok());
    EXPECT_EQ(tos.error().errnum(), ERANGE);
    auto missing = p->setDefaultRoceMode("mlx5_9", 1, ibnm::model::RoceMode::V2);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code(), IBNM_ERROR_NOT_FOUND);
    EXPECT_NE(missing.error().toString().find("mlx5_9"), std::string::npos);
    auto noConfigfs = p->setDefaultRoceMode("mlx5_0", 1, ibnm::model::RoceMode::V2);
    ASSERT_FALSE(noConfigfs.ok());
    EXPECT_EQ(noConfigfs.error().code(), IBNM_ERROR_NOT_SUPPORTED) << noConfigfs.error().toString();

    // mlx5 tc/ files are written as given; other devices have none.
    auto tc = p->setTrafficClass("mlx5_0", 1, 96);
    ASSERT_TRUE(tc.ok()) << tc.error().toString();
    auto h = p->readHost();
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->findDevice("mlx5_0")->ports[0].trafficClass, std::optional<unsigned>(96));
    auto ttl = p->setTtl("mlx5_0", 2, 64);
    ASSERT_FALSE(ttl.ok());
    EXPECT_EQ(ttl.error().code(), IBNM_ERROR_NOT_SUPPORTED);

    // configfs in a tree: the directory is created and the value written.
    root.mkdir("kernel/config/rdma_cm");
    root.mkdir("kernel/config/rdma_cm/mlx5_0/ports/1");
    root.write("kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "IB/RoCE v1\n");
    root.write("kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "0\n");
    ASSERT_TRUE(p->setDefaultRoceMode("mlx5_0", 1, ibnm::model::RoceMode::V2).ok());
    ASSERT_TRUE(p->setDefaultRoceTos("mlx5_0", 1, 106).ok());
    h = p->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    EXPECT_EQ(h->findDevice("mlx5_0")->ports[0].defaultRoceMode,
              std::optional<ibnm::model::RoceMode>(ibnm::model::RoceMode::V2));
    EXPECT_EQ(h->findDevice("mlx5_0")->ports[0].defaultRoceTos, std::optional<unsigned>(106));
}

std::string contents(const std::string &path)
{
    char *t = nullptr;
    if (!g_file_get_contents(path.c_str(), &t, nullptr, nullptr))
        return "<unreadable>";
    std::string s = g_strstrip(t);
    g_free(t);
    return s;
}

// NVIDIA's RoCE page procedures through the Linux platform on a tree: a
// rule is written as the page writes it, traffic_class's rules read back,
// roce_enable is written in the PCI function's directory.
TEST(LinuxPlatform, TrafficClassRulesAndRoceEnableFiles)
{
    TempDir root;
    fx::writeMlx5Roce(root);
    auto p = createLinuxPlatform(dumpOptions(root, false));
    std::string tc = "class/infiniband/mlx5_0/tc/1/traffic_class";
    root.write(tc, "Global tclass=106\ntclass=16,src_ip=1.1.1.2,dst_ip=1.1.1.0/24\n");
    auto h = p->readHost();
    ASSERT_TRUE(h.ok()) << h.error().toString();
    const auto &port = h->findDevice("mlx5_0")->ports[0];
    EXPECT_EQ(port.trafficClass, std::optional<unsigned>(106));
    ASSERT_EQ(port.tcRules.size(), 1u);
    EXPECT_EQ(port.tcRules[0].tclass, 16);
    EXPECT_EQ(port.tcRules[0].srcIp, "1.1.1.2");
    EXPECT_EQ(port.tcRules[0].dstIp, "1.1.1.0/24");

    ASSERT_TRUE(p->setTrafficClassRule("mlx5_0", 1, ibnm::model::TcRule{-1, "1.1.1.2", "1.1.1.0/24"}).ok());
    EXPECT_EQ(contents(root / tc), "tclass=-1,src_ip=1.1.1.2,dst_ip=1.1.1.0/24");
    auto none = p->setTrafficClassRule("mlx5_0", 2, ibnm::model::TcRule{16, "", "1.1.1.0/24"});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code(), IBNM_ERROR_NOT_SUPPORTED);

    // `rdma gid show --for` reads the GID tables only, with the link layer
    // and roce_enable it needs to tell RoCE ports and disabled RoCE apart.
    auto gids = p->readGidTables();
    ASSERT_TRUE(gids.ok()) << gids.error().toString();
    EXPECT_EQ(gids->findDevice("mlx5_0")->ports[0].linkLayer, ibnm::model::LinkLayer::Ethernet);
    EXPECT_EQ(gids->findDevice("mlx5_0")->roceEnabled, std::optional<bool>(true));
    EXPECT_FALSE(gids->findDevice("mlx5_0")->ports[0].gids.empty());

    ASSERT_TRUE(p->setRoceEnabled("mlx5_0", false).ok());
    EXPECT_EQ(contents(root / "devices/pci0000:00/0000:00:05.0/roce_enable"), "0");
}

// A module the kernel shows live (<sysfs>/module/NAME/initstate) needs
// nothing: prepare() neither reads the module index nor asks libkmod to load it
// (here it would try to load rdma_rxe into this machine's kernel and fail).
TEST(LinuxPlatform, PrepareLeavesALiveModuleAlone)
{
    TempDir root;
    root.mkdir("class/net");
    root.write("module/rdma_rxe/initstate", "live\n");
    auto p = createLinuxPlatform(dumpOptions(root, false));
    Prerequisites needs;
    needs.softLinkDrivers = {ibnm::model::SoftLinkType::Rxe};
    ibnm::Status st = p->prepare(needs);
    EXPECT_TRUE(st.ok()) << st.error().toString();
}

} // namespace
