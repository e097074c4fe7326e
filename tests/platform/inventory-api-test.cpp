// SPDX-License-Identifier: LGPL-2.1-or-later
// The public inventory API (IbnmHost, IbnmInventory and its objects) on
// simulated hosts.
#include "config.h"

#include "libcore/ibnm.h"
#include "libcore/simulator/ibnm-simulator.h"
#include "libcore/ibnm-host-private.hpp"
#include "libcore/ibnm-inventory-types-private.hpp"
#include "libcore/support/raii.hpp"
#include "tests/platform/sysfs-fixtures.hpp"
#include "tests/profiles/profile-test-util.hpp"
#include "tests/test-util.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>

using ibnm::GErrorPtr;
using ibnm::GObjectPtr;
using ibnm::GPtrArrayPtr;
using ibnm::outPtr;

namespace {

// A copy of an example host in a temporary directory (its state goes there).
struct SimHost {
    ibnm::test::TempDir dir;
    GObjectPtr<IbnmHost> host;
    GObjectPtr<IbnmInventory> inv;

    explicit SimHost(const char *example)
    {
        char *text = nullptr;
        EXPECT_TRUE(g_file_get_contents(ibnm::test::srcPath(std::string("examples/hosts/") + example).c_str(), &text,
                                        nullptr, nullptr));
        dir.write("h.host", text ? text : "");
        g_free(text);
        GErrorPtr err;
        host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host((dir / "h.host").c_str(), nullptr, outPtr(err)));
        EXPECT_TRUE(host) << (err ? err->message : "");
        if (host) {
            inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
            EXPECT_TRUE(ibnm_inventory_reload(inv.get(), outPtr(err))) << (err ? err->message : "");
        }
    }
};

} // namespace

TEST(InventoryApi, DevicesPortsAndTheirProperties)
{
    SimHost sim("mlx4-dual-port.host");
    ASSERT_TRUE(sim.inv);
    EXPECT_EQ(ibnm_host_get_kind(sim.host.get()), IBNM_HOST_KIND_SIMULATED);
    GPtrArrayPtr devices(ibnm_inventory_get_devices(sim.inv.get()));
    ASSERT_EQ(devices->len, 1u);
    auto *dev = IBNM_RDMA_DEVICE(g_ptr_array_index(devices.get(), 0));
    EXPECT_STREQ(ibnm_rdma_device_get_name(dev), "mlx4_0");
    EXPECT_STREQ(ibnm_rdma_device_get_node_guid(dev), "0002:c903:0031:78f0");
    EXPECT_STREQ(ibnm_rdma_device_get_node_type(dev), "1: CA");
    EXPECT_STREQ(ibnm_rdma_device_get_firmware_version(dev), "2.30.8000");
    EXPECT_STREQ(ibnm_rdma_device_get_driver(dev), "mlx4_core");
    EXPECT_STREQ(ibnm_rdma_device_get_hca_type(dev), "MT4099");
    EXPECT_TRUE(ibnm_rdma_device_get_connected_mode_supported(dev));
    EXPECT_EQ(ibnm_inventory_find_device(sim.inv.get(), "mlx4_0"), dev);

    IbnmRdmaPort *p1 = ibnm_rdma_device_get_port(dev, 1);
    ASSERT_NE(p1, nullptr);
    EXPECT_EQ(ibnm_rdma_device_get_port(dev, 3), nullptr);
    EXPECT_STREQ(ibnm_rdma_port_get_device(p1), "mlx4_0");
    EXPECT_STREQ(ibnm_rdma_port_get_state_text(p1), "4: ACTIVE");
    EXPECT_EQ(ibnm_rdma_port_get_state(p1), IBNM_PORT_STATE_ACTIVE);
    EXPECT_STREQ(ibnm_rdma_port_get_physical_state_text(p1), "5: LinkUp");
    EXPECT_EQ(ibnm_rdma_port_get_physical_state(p1), IBNM_PORT_PHYSICAL_STATE_LINK_UP);
    EXPECT_STREQ(ibnm_rdma_port_get_rate(p1), "56 Gb/sec (4X FDR)");
    EXPECT_EQ(ibnm_rdma_port_get_lid(p1), 2);
    EXPECT_EQ(ibnm_rdma_port_get_sm_lid(p1), 2);
    EXPECT_STREQ(ibnm_rdma_port_get_link_layer(p1), "InfiniBand");
    EXPECT_EQ(ibnm_rdma_port_get_active_mtu(p1), 2048u);
    EXPECT_EQ(ibnm_rdma_port_get_max_mtu(p1), 4096u);
    EXPECT_EQ(ibnm_rdma_port_get_broadcast_mtu(p1), 2048u);
    guint n = 0;
    const guint16 *pkeys = ibnm_rdma_port_get_pkeys(p1, &n);
    ASSERT_EQ(n, 2u);
    EXPECT_EQ(pkeys[0], 0xffff);
    EXPECT_EQ(pkeys[1], 0x8002);
    EXPECT_EQ(ibnm_rdma_port_get_default_roce_mode(p1), nullptr) << "no configfs directory yet";
    EXPECT_EQ(ibnm_rdma_port_get_traffic_class(p1), -1);
    const char *const *netdevs = ibnm_rdma_port_get_netdevs(p1);
    ASSERT_NE(netdevs[0], nullptr);
    EXPECT_STREQ(netdevs[0], "mlx4_ib0");
    EXPECT_EQ(ibnm_inventory_find_port_for_netdev(sim.inv.get(), "mlx4_ib0"), p1);
    EXPECT_EQ(ibnm_inventory_find_port_for_netdev(sim.inv.get(), "ens2d1"), ibnm_rdma_device_get_port(dev, 2));
    EXPECT_EQ(ibnm_inventory_find_port_for_netdev(sim.inv.get(), "lo"), nullptr);

    // Properties give the getters' values.
    guint mtu = 0;
    char *layer = nullptr;
    gint64 lid = 0;
    g_object_get(p1, IBNM_RDMA_PORT_ACTIVE_MTU, &mtu, IBNM_RDMA_PORT_LINK_LAYER, &layer, IBNM_RDMA_PORT_LID, &lid,
                 nullptr);
    ibnm::GCharPtr layerOwned(layer);
    EXPECT_EQ(mtu, 2048u);
    EXPECT_STREQ(layer, "InfiniBand");
    EXPECT_EQ(lid, 2);
    char *fw = nullptr;
    g_object_get(dev, IBNM_RDMA_DEVICE_FIRMWARE_VERSION, &fw, nullptr);
    ibnm::GCharPtr fwOwned(fw);
    EXPECT_STREQ(fw, "2.30.8000");
}

TEST(InventoryApi, IpoibInterfaces)
{
    SimHost sim("mlx4-dual-port.host");
    ASSERT_TRUE(sim.inv);
    ibnm::platform::IpoibChildSpec spec;
    spec.parent = "mlx4_ib0";
    spec.pkey = 0x0002;
    ASSERT_TRUE(ibnm::hostPlatform(sim.host.get()).createIpoibChild(spec).ok());
    ASSERT_TRUE(ibnm_inventory_reload(sim.inv.get(), nullptr));

    GPtrArrayPtr ifaces(ibnm_inventory_get_ipoib_interfaces(sim.inv.get()));
    ASSERT_EQ(ifaces->len, 2u);
    IbnmIpoibInterface *child = ibnm_inventory_find_ipoib_interface(sim.inv.get(), "mlx4_ib0.0002");
    ASSERT_NE(child, nullptr);
    EXPECT_STREQ(ibnm_ipoib_interface_get_parent(child), "mlx4_ib0");
    EXPECT_EQ(ibnm_ipoib_interface_get_p_key(child), 0x8002u);
    EXPECT_STREQ(ibnm_ipoib_interface_get_transport_mode(child), "datagram");
    EXPECT_FALSE(ibnm_ipoib_interface_get_umcast(child));
    EXPECT_EQ(ibnm_ipoib_interface_get_mtu(child), 2044u);
    EXPECT_STREQ(ibnm_ipoib_interface_get_port_guid(child), "0002:c903:0031:78f2");
    EXPECT_EQ(std::string(ibnm_ipoib_interface_get_mac_address(child)).size(), 59u);
    EXPECT_STREQ(ibnm_ipoib_interface_get_rdma_device(child), "mlx4_0");
    EXPECT_EQ(ibnm_ipoib_interface_get_rdma_port(child), 1u);
    IbnmIpoibInterface *parent = ibnm_inventory_find_ipoib_interface(sim.inv.get(), "mlx4_ib0");
    ASSERT_NE(parent, nullptr);
    EXPECT_EQ(ibnm_ipoib_interface_get_parent(parent), nullptr);
    EXPECT_EQ(ibnm_ipoib_interface_get_p_key(parent), 0xffffu);
    guint pkey = 0;
    g_object_get(child, IBNM_IPOIB_INTERFACE_P_KEY, &pkey, nullptr);
    EXPECT_EQ(pkey, 0x8002u);
}

TEST(InventoryApi, GidsSoftLinksAndRoceDefaults)
{
    SimHost sim("ethernet-only.host");
    ASSERT_TRUE(sim.inv);
    auto &platform = ibnm::hostPlatform(sim.host.get());
    ASSERT_TRUE(platform.addSoftLink("rxe0", ibnm::model::SoftLinkType::Rxe, "enp1s0").ok());
    ASSERT_TRUE(platform.setDefaultRoceTos("rxe0", 1, 106).ok());
    ASSERT_TRUE(ibnm_inventory_reload(sim.inv.get(), nullptr));

    GPtrArrayPtr links(ibnm_inventory_get_soft_links(sim.inv.get()));
    ASSERT_EQ(links->len, 1u);
    auto *link = IBNM_SOFT_LINK(g_ptr_array_index(links.get(), 0));
    EXPECT_STREQ(ibnm_soft_link_get_name(link), "rxe0");
    EXPECT_STREQ(ibnm_soft_link_get_link_type(link), "rxe");
    EXPECT_STREQ(ibnm_soft_link_get_netdev(link), "enp1s0");

    IbnmRdmaDevice *dev = ibnm_inventory_find_device(sim.inv.get(), "rxe0");
    ASSERT_NE(dev, nullptr);
    IbnmRdmaPort *port = ibnm_rdma_device_get_port(dev, 1);
    ASSERT_NE(port, nullptr);
    EXPECT_STREQ(ibnm_rdma_port_get_default_roce_mode(port), "RoCE v2");
    EXPECT_EQ(ibnm_rdma_port_get_default_roce_tos(port), 106);
    // What `device show` and `rdma roce show` print beside it: DSCP 26
    // (the ECN bits dropped), SL 3, PCP 3.
    EXPECT_EQ(ibnm_roce_dscp_of_tos(guint(ibnm_rdma_port_get_default_roce_tos(port))), 26u);
    EXPECT_EQ(ibnm_roce_service_level_of_tos(106), 3u);
    EXPECT_EQ(ibnm_inventory_find_port_for_netdev(sim.inv.get(), "enp1s0"), port);
    GPtrArray *gids = ibnm_rdma_port_get_gids(port);
    ASSERT_EQ(gids->len, 2u);
    auto *ll = IBNM_GID(g_ptr_array_index(gids, 0));
    auto *v4 = IBNM_GID(g_ptr_array_index(gids, 1));
    EXPECT_EQ(ibnm_gid_get_index(ll), 0u);
    EXPECT_STREQ(ibnm_gid_get_gid(ll), "fe80:0000:0000:0000:5054:00ff:fe6b:2e11");
    EXPECT_STREQ(ibnm_gid_get_gid_type(ll), "RoCE v2");
    EXPECT_EQ(ibnm_gid_get_ipv4(ll), nullptr);
    EXPECT_STREQ(ibnm_gid_get_netdev(v4), "enp1s0");
    EXPECT_STREQ(ibnm_gid_get_ipv4(v4), "192.0.2.10");
    char *ipv4 = nullptr;
    g_object_get(v4, IBNM_GID_IPV4, &ipv4, nullptr);
    ibnm::GCharPtr owned(ipv4);
    EXPECT_STREQ(ipv4, "192.0.2.10");
}

TEST(InventoryApi, Ipv4OfMappedGids)
{
    // The address of an IPv4-mapped GID: the kernel's lower-case hex, upper
    // case, the extremes; no address for other GIDs or text that is not hex.
    struct Case {
        const char *gid;
        const char *ipv4;
    } cases[] = {
        {"0000:0000:0000:0000:0000:ffff:c0a8:0a01", "192.168.10.1"},
        {"0000:0000:0000:0000:0000:ffff:C0A8:0A01", "192.168.10.1"},
        {"0000:0000:0000:0000:0000:ffff:0000:0000", "0.0.0.0"},
        {"0000:0000:0000:0000:0000:ffff:ffff:ffff", "255.255.255.255"},
        {"0000:0000:0000:0000:0000:fffe:c0a8:0a01", nullptr},
        {"fe80:0000:0000:0000:0000:ffff:c0a8:0a01", nullptr},
        {"0000:0000:0000:0000:0000:ffff:zz00:0000", nullptr},
    };
    for (const auto &c : cases) {
        ibnm::model::Gid g;
        g.index = 3;
        g.gid = c.gid;
        auto gid = GObjectPtr<IbnmGid>::adopt(ibnm::gidNew(g));
        EXPECT_STREQ(ibnm_gid_get_ipv4(gid.get()), c.ipv4) << c.gid;
        EXPECT_STREQ(ibnm_gid_get_gid(gid.get()), c.gid);
    }
}

TEST(InventoryApi, ObjectsOutliveAReload)
{
    SimHost sim("mlx5-roce.host");
    ASSERT_TRUE(sim.inv);
    GPtrArrayPtr devices(ibnm_inventory_get_devices(sim.inv.get()));
    ASSERT_EQ(devices->len, 2u);
    ASSERT_TRUE(ibnm_inventory_reload(sim.inv.get(), nullptr));
    // The array holds its own references: still valid snapshots.
    EXPECT_STREQ(ibnm_rdma_device_get_name(IBNM_RDMA_DEVICE(g_ptr_array_index(devices.get(), 0))), "mlx5_0");
}

TEST(InventoryApi, ResetSimulationForgetsChanges)
{
    SimHost sim("ethernet-only.host");
    ASSERT_TRUE(sim.inv);
    ASSERT_TRUE(ibnm::hostPlatform(sim.host.get()).addSoftLink("siw0", ibnm::model::SoftLinkType::Siw, "enp0s1").ok());
    // A second host object on the same file sees the change (state beside it).
    GErrorPtr err;
    auto other = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host((sim.dir / "h.host").c_str(), nullptr, nullptr));
    ASSERT_TRUE(other);
    auto inv2 = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(other.get()));
    ASSERT_TRUE(ibnm_inventory_reload(inv2.get(), nullptr));
    EXPECT_NE(ibnm_inventory_find_device(inv2.get(), "siw0"), nullptr);
    ASSERT_TRUE(ibnm_simulator_reset(other.get(), outPtr(err))) << err->message;
    ASSERT_TRUE(ibnm_inventory_reload(sim.inv.get(), nullptr));
    EXPECT_EQ(ibnm_inventory_find_device(sim.inv.get(), "siw0"), nullptr);
}

TEST(InventoryApi, BrokenHostFileNamesFileAndLine)
{
    ibnm::test::TempDir dir;
    dir.write("bad.host", "[device a]\n[port a/1]\nlink-layer=Ethernet\nactive-mtu=lots\n");
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_simulator_new_host((dir / "bad.host").c_str(), nullptr, outPtr(err)));
    EXPECT_FALSE(host);
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_PARSE);
    EXPECT_EQ(std::string(err->message).rfind(dir / "bad.host" + ":4: [port a/1] active-mtu: ", 0), 0u)
        << err->message;
}

TEST(InventoryApi, SysfsDumpIsReadOnly)
{
    ibnm::test::TempDir dir;
    dir.write("class/net/.keep", "");
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_host_new_sysfs_dump(dir.path().c_str(), nullptr));
    ASSERT_TRUE(host);
    EXPECT_EQ(ibnm_host_get_kind(host.get()), IBNM_HOST_KIND_SYSFS_DUMP);
    GErrorPtr err;
    EXPECT_FALSE(ibnm_simulator_reset(host.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_EQ(err->code, IBNM_ERROR_NOT_SUPPORTED);
    auto st = ibnm::hostPlatform(host.get()).setMtu("eth0", 1500);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().code(), IBNM_ERROR_NOT_SUPPORTED);
}

// A sosreport's root (sys/class/... under it) is accepted; a directory with
// neither class/ nor sys/class/ is an error naming it, not an empty host.
TEST(InventoryApi, SysfsDumpRootOfASosreportOrAnError)
{
    ibnm::test::TempDir dir;
    ibnm::test::TempDir sos;
    ibnm::test::sysfs::writeMlx5Roce(sos);
    std::string sosRoot = sos.path();
    ibnm::test::TempDir top;
    ASSERT_EQ(g_mkdir_with_parents((top.path() + "/sosreport-x").c_str(), 0755), 0);
    ASSERT_EQ(symlink(sosRoot.c_str(), (top.path() + "/sosreport-x/sys").c_str()), 0);
    GErrorPtr err;
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_host_new_sysfs_dump((top.path() + "/sosreport-x").c_str(), outPtr(err)));
    ASSERT_TRUE(host) << err->message;
    EXPECT_EQ(std::string(ibnm_host_get_location(host.get())), top.path() + "/sosreport-x/sys");
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
    EXPECT_TRUE(ibnm_inventory_reload_gid_tables(inv.get(), nullptr));
    EXPECT_TRUE(ibnm_inventory_find_device(inv.get(), "mlx5_0"));

    GErrorPtr none;
    EXPECT_FALSE(ibnm_host_new_sysfs_dump(dir.path().c_str(), outPtr(none)));
    ASSERT_TRUE(none);
    EXPECT_EQ(none->code, IBNM_ERROR_NOT_FOUND);
    EXPECT_EQ(std::string(none->message).rfind(dir.path() + ": neither a sysfs tree", 0), 0u) << none->message;
}

// What `ibnm rdma gid show` reads: the GID tables alone, so a netdev file
// that the whole reload refuses does not stop it.
TEST(InventoryApi, GidTablesAloneFromASysfsDump)
{
    ibnm::test::TempDir dir;
    ibnm::test::sysfs::writeMlx5Roce(dir);
    dir.write("class/net/p4p1/mtu", "1500 bytes\n");
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_host_new_sysfs_dump(dir.path().c_str(), nullptr));
    auto inv = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
    GErrorPtr err;
    EXPECT_FALSE(ibnm_inventory_reload(inv.get(), outPtr(err)));
    ASSERT_TRUE(err);
    EXPECT_NE(std::string(err->message).find("class/net/p4p1/mtu"), std::string::npos) << err->message;
    err.reset();

    ASSERT_TRUE(ibnm_inventory_reload_gid_tables(inv.get(), outPtr(err))) << err->message;
    IbnmRdmaDevice *dev = ibnm_inventory_find_device(inv.get(), "mlx5_0");
    ASSERT_NE(dev, nullptr);
    IbnmRdmaPort *port = ibnm_rdma_device_get_port(dev, 1);
    ASSERT_NE(port, nullptr);
    GPtrArray *gids = ibnm_rdma_port_get_gids(port);
    ASSERT_EQ(gids->len, 6u);
    auto *last = IBNM_GID(g_ptr_array_index(gids, 5));
    EXPECT_EQ(ibnm_gid_get_index(last), 5u);
    EXPECT_STREQ(ibnm_gid_get_gid_type(last), "RoCE v2");
    EXPECT_STREQ(ibnm_gid_get_netdev(last), "p4p1.100");
    EXPECT_STREQ(ibnm_gid_get_ipv4(last), "193.168.1.70");
    GPtrArrayPtr ipoib(ibnm_inventory_get_ipoib_interfaces(inv.get()));
    EXPECT_EQ(ipoib->len, 0u) << "no netdev is read";
}

namespace {

// Every finding of ibnm_check_profiles(), one line each.
std::string findingsText(GPtrArray *profiles, IbnmInventory *inv)
{
    GPtrArrayPtr findings(ibnm_check_profiles(profiles, inv, IBNM_CHECK_FLAGS_STANDALONE));
    std::string s;
    for (guint i = 0; i < findings->len; i++) {
        auto *f = IBNM_FINDING(g_ptr_array_index(findings.get(), i));
        s += std::string(ibnm_finding_get_profile_id(f)) + " " + ibnm_finding_get_property(f) + " " +
             std::to_string(ibnm_finding_get_severity(f)) + " " + ibnm_finding_get_message(f) + "\n";
    }
    return s;
}

guint gidCount(IbnmInventory *inv)
{
    IbnmRdmaPort *port = ibnm_rdma_device_get_port(ibnm_inventory_find_device(inv, "mlx5_0"), 1);
    return port ? ibnm_rdma_port_get_gids(port)->len : 0;
}

} // namespace

// `ibnm check` reads the GID tables only when a rule needs them: p4p1.100
// (a VLAN on the RoCE port) has an RDMA device only through its GID
// entries. A profile of it still finds its device, and every finding is the
// one an inventory read whole gives; profiles that name no such netdev
// leave the tables unread, with the same findings.
TEST(InventoryApi, CheckReadsTheGidTablesOnlyWhenARuleNeedsThem)
{
    ibnm::test::TempDir dir;
    ibnm::test::sysfs::writeMlx5Roce(dir);
    auto host = GObjectPtr<IbnmHost>::adopt(ibnm_host_new_sysfs_dump(dir.path().c_str(), nullptr));
    ASSERT_TRUE(host);
    auto whole = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
    GErrorPtr err;
    ASSERT_TRUE(ibnm_inventory_reload(whole.get(), outPtr(err))) << err->message;
    ASSERT_EQ(gidCount(whole.get()), 6u);

    struct Case {
        const char *ifname;
        bool gidTablesRead;
    } cases[] = {{"p4p1", false}, {"p4p1.100", true}, {"p4p1.200", false}};
    for (const auto &c : cases) {
        SCOPED_TRACE(c.ifname);
        auto p = ibnm::test::mustProfile({"type", "ethernet", "con-name", "roce", "ifname", c.ifname, "ipv4.method",
                                          "disabled", "ipv6.method", "disabled", "rdma.roce-mode", "v2",
                                          "rdma.roce-tos", "106"});
        ASSERT_TRUE(p);
        GPtrArrayPtr profiles(g_ptr_array_new());
        g_ptr_array_add(profiles.get(), ibnm::test::connectionOf(p.get()));
        auto lazy = GObjectPtr<IbnmInventory>::adopt(ibnm_inventory_new(host.get()));
        ASSERT_TRUE(ibnm_check_reload_inventory(lazy.get(), profiles.get(), outPtr(err))) << err->message;
        EXPECT_EQ(gidCount(lazy.get()), c.gidTablesRead ? 6u : 0u);
        std::string found = findingsText(profiles.get(), lazy.get());
        EXPECT_EQ(found, findingsText(profiles.get(), whole.get()));
        // Without its GID entries p4p1.100 would have "no RDMA device".
        EXPECT_EQ(found.find("no RDMA device is behind"), std::string::npos) << found;
        bool missing = found.find("'p4p1.200' does not exist on this host") != std::string::npos;
        EXPECT_EQ(missing, std::string(c.ifname) == "p4p1.200") << found;
    }
}

TEST(InventoryApi, CallerMistakesAreCriticals)
{
    EXPECT_NONFATAL_FAILURE(ibnm_rdma_device_get_name(nullptr), "IBNM_IS_RDMA_DEVICE");
    EXPECT_NONFATAL_FAILURE(ibnm_gid_get_gid(nullptr), "IBNM_IS_GID");
    EXPECT_NONFATAL_FAILURE(ibnm_simulator_new_host(nullptr, nullptr, nullptr), "host_file");
    // The critical names the function the caller called, not a helper.
    EXPECT_NONFATAL_FAILURE(ibnm_inventory_reload(nullptr, nullptr), "ibnm_inventory_reload(");
    EXPECT_NONFATAL_FAILURE(ibnm_inventory_reload_gid_tables(nullptr, nullptr), "ibnm_inventory_reload_gid_tables(");
}
