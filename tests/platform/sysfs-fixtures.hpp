// SPDX-License-Identifier: LGPL-2.1-or-later
// Hand-written sysfs trees for the Linux platform's reader: what the kernel
// shows for an mlx4 dual-port HCA (port 1 InfiniBand with ib0 and a P_Key
// child, port 2 Ethernet), an mlx5 RoCE NIC with the GID table of seed 003
// (IPv6 and IPv4-mapped GIDs, v1 and v2, a VLAN netdev), and a bond.
#pragma once

#include "tests/test-util.hpp"

#include <string>

#include <unistd.h>

namespace ibnm::test::sysfs {

inline void symlinkAt(const TempDir &root, const std::string &target, const std::string &rel)
{
    std::string full = root / rel;
    char *dir = g_path_get_dirname(full.c_str());
    g_mkdir_with_parents(dir, 0755);
    g_free(dir);
    ASSERT_EQ(::symlink(target.c_str(), full.c_str()), 0) << full;
}

constexpr const char *kZeroGid = "0000:0000:0000:0000:0000:0000:0000:0000\n";

// mlx4_0: port 1 InfiniBand (ib0, ib0.8001), port 2 Ethernet (eth2).
inline void writeMlx4(const TempDir &root)
{
    const std::string d = "class/infiniband/mlx4_0/";
    root.write(d + "node_guid", "0002:c903:0031:7850\n");
    root.write(d + "node_type", "1: CA\n");
    root.write(d + "fw_ver", "2.42.5000\n");
    root.write(d + "hca_type", "MT4099\n");
    root.write(d + "board_id", "MT_1090120019\n");
    symlinkAt(root, "../../../bus/pci/drivers/mlx4_core", "devices/pci0000:00/0000:00:03.0/driver");
    symlinkAt(root, "../../../devices/pci0000:00/0000:00:03.0", d + "device");

    const std::string p1 = d + "ports/1/";
    root.write(p1 + "state", "4: ACTIVE\n");
    root.write(p1 + "phys_state", "5: LinkUp\n");
    root.write(p1 + "rate", "56 Gb/sec (4X FDR)\n");
    root.write(p1 + "lid", "0x5\n");
    root.write(p1 + "sm_lid", "0x1\n");
    root.write(p1 + "link_layer", "InfiniBand\n");
    root.write(p1 + "pkeys/0", "0xffff\n");
    root.write(p1 + "pkeys/1", "0x8001\n");
    root.write(p1 + "pkeys/2", "0x0000\n");
    root.write(p1 + "gids/0", "fe80:0000:0000:0000:0002:c903:0031:7851\n");
    root.write(p1 + "gids/1", kZeroGid);
    root.write(p1 + "gid_attrs/types/0", "IB/RoCE v1\n");
    // ndevs/0 of an IB port has no netdev: the file is absent here.

    const std::string p2 = d + "ports/2/";
    root.write(p2 + "state", "4: ACTIVE\n");
    root.write(p2 + "phys_state", "5: LinkUp\n");
    root.write(p2 + "rate", "40 Gb/sec (4X QDR)\n");
    root.write(p2 + "lid", "0x0\n");
    root.write(p2 + "sm_lid", "0x0\n");
    root.write(p2 + "link_layer", "Ethernet\n");
    root.write(p2 + "pkeys/0", "0xffff\n");
    root.write(p2 + "gids/0", "fe80:0000:0000:0000:0202:c9ff:fe31:7852\n");
    root.write(p2 + "gid_attrs/types/0", "IB/RoCE v1\n");
    root.write(p2 + "gid_attrs/ndevs/0", "eth2\n");

    root.write("class/net/ib0/type", "32\n");
    root.write("class/net/ib0/ifindex", "4\n");
    root.write("class/net/ib0/mtu", "2044\n");
    root.write("class/net/ib0/address", "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51\n");
    root.write("class/net/ib0/flags", "0x1003\n");
    root.write("class/net/ib0/mode", "datagram\n");
    root.write("class/net/ib0/umcast", "0\n");
    root.write("class/net/ib0/pkey", "0xffff\n");
    root.write("class/net/ib0/dev_id", "0x0\n");
    root.write("class/net/ib0/dev_port", "0\n");
    root.write("class/net/ib0/uevent", "INTERFACE=ib0\nIFINDEX=4\n");
    root.mkdir("devices/pci0000:00/0000:00:03.0/infiniband/mlx4_0");
    symlinkAt(root, "../../../devices/pci0000:00/0000:00:03.0", "class/net/ib0/device");

    root.write("class/net/ib0.8001/type", "32\n");
    root.write("class/net/ib0.8001/ifindex", "6\n");
    root.write("class/net/ib0.8001/mtu", "65520\n");
    root.write("class/net/ib0.8001/address", "80:00:02:0a:fe:80:00:00:00:00:00:00:00:02:c9:03:00:31:78:51\n");
    root.write("class/net/ib0.8001/flags", "0x1002\n");
    root.write("class/net/ib0.8001/mode", "connected\n");
    root.write("class/net/ib0.8001/umcast", "1\n");
    root.write("class/net/ib0.8001/pkey", "0x8001\n");
    root.write("class/net/ib0.8001/parent", "ib0\n");

    root.write("class/net/eth2/type", "1\n");
    root.write("class/net/eth2/ifindex", "5\n");
    root.write("class/net/eth2/mtu", "1500\n");
    root.write("class/net/eth2/address", "00:02:c9:31:78:52\n");
    root.write("class/net/eth2/flags", "0x1003\n");
    root.write("class/net/eth2/dev_id", "0x1\n");
    root.write("class/net/eth2/dev_port", "0\n");
    symlinkAt(root, "../../../devices/pci0000:00/0000:00:03.0", "class/net/eth2/device");
}

// mlx5_0: RoCE port with seed 003's GID table; p4p1 and its VLAN p4p1.100.
inline void writeMlx5Roce(const TempDir &root)
{
    const std::string d = "class/infiniband/mlx5_0/";
    root.write(d + "node_guid", "b859:9f03:001a:e3ea\n");
    root.write(d + "node_type", "1: CA\n");
    root.write(d + "fw_ver", "16.35.2000\n");
    root.write(d + "hca_type", "MT4119\n");
    root.write(d + "board_id", "MT_0000000080\n");
    symlinkAt(root, "../../../bus/pci/drivers/mlx5_core", "devices/pci0000:00/0000:00:05.0/driver");
    symlinkAt(root, "../../../devices/pci0000:00/0000:00:05.0", d + "device");
    root.write("devices/pci0000:00/0000:00:05.0/roce_enable", "1\n");
    root.write(d + "tc/1/traffic_class", "Global tclass=106\n");
    root.write(d + "tc/1/ttl", "64\n");

    const std::string p = d + "ports/1/";
    root.write(p + "state", "4: ACTIVE\n");
    root.write(p + "phys_state", "5: LinkUp\n");
    root.write(p + "rate", "100 Gb/sec (4X EDR)\n");
    root.write(p + "lid", "0x0\n");
    root.write(p + "sm_lid", "0x0\n");
    root.write(p + "link_layer", "Ethernet\n");
    root.write(p + "pkeys/0", "0xffff\n");
    struct {
        const char *gid, *type, *ndev;
    } gids[] = {
        {"fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", "IB/RoCE v1", "p4p1"},
        {"fe80:0000:0000:0000:ba59:9fff:fe1a:e3ea", "RoCE v2", "p4p1"},
        {"0000:0000:0000:0000:0000:ffff:0a0a:0a01", "IB/RoCE v1", "p4p1"},
        {"0000:0000:0000:0000:0000:ffff:0a0a:0a01", "RoCE v2", "p4p1"},
        {"0000:0000:0000:0000:0000:ffff:c1a8:0146", "IB/RoCE v1", "p4p1.100"},
        {"0000:0000:0000:0000:0000:ffff:c1a8:0146", "RoCE v2", "p4p1.100"},
    };
    for (unsigned i = 0; i < 6; i++) {
        root.write(p + "gids/" + std::to_string(i), std::string(gids[i].gid) + "\n");
        root.write(p + "gid_attrs/types/" + std::to_string(i), std::string(gids[i].type) + "\n");
        root.write(p + "gid_attrs/ndevs/" + std::to_string(i), std::string(gids[i].ndev) + "\n");
    }
    for (unsigned i = 6; i < 16; i++)
        root.write(p + "gids/" + std::to_string(i), kZeroGid);

    root.write("class/net/p4p1/type", "1\n");
    root.write("class/net/p4p1/ifindex", "2\n");
    root.write("class/net/p4p1/mtu", "9000\n");
    root.write("class/net/p4p1/address", "b8:59:9f:1a:e3:ea\n");
    root.write("class/net/p4p1/flags", "0x1003\n");
    root.write("class/net/p4p1/dev_id", "0x0\n");
    root.write("class/net/p4p1/dev_port", "0\n");
    root.mkdir("devices/pci0000:00/0000:00:05.0/infiniband/mlx5_0");
    symlinkAt(root, "../../../devices/pci0000:00/0000:00:05.0", "class/net/p4p1/device");

    root.write("class/net/p4p1.100/type", "1\n");
    root.write("class/net/p4p1.100/ifindex", "7\n");
    root.write("class/net/p4p1.100/mtu", "9000\n");
    root.write("class/net/p4p1.100/address", "b8:59:9f:1a:e3:ea\n");
    root.write("class/net/p4p1.100/flags", "0x1003\n");
    root.write("class/net/p4p1.100/uevent", "DEVTYPE=vlan\nINTERFACE=p4p1.100\nIFINDEX=7\n");
}

// bond0 (active-backup) with ports eth0 and eth1.
inline void writeBond(const TempDir &root)
{
    // The bonding driver's control file sits among the netdevs.
    root.write("class/net/bonding_masters", "bond0\n");
    root.write("class/net/bond0/type", "1\n");
    root.write("class/net/bond0/ifindex", "10\n");
    root.write("class/net/bond0/mtu", "1500\n");
    root.write("class/net/bond0/address", "52:54:00:00:00:01\n");
    root.write("class/net/bond0/flags", "0x1403\n");
    root.write("class/net/bond0/uevent", "DEVTYPE=bond\nINTERFACE=bond0\nIFINDEX=10\n");
    root.write("class/net/bond0/bonding/mode", "active-backup 1\n");
    root.write("class/net/bond0/bonding/slaves", "eth0 eth1\n");
    root.write("class/net/bond0/bonding/primary", "eth0\n");
    root.write("class/net/bond0/bonding/active_slave", "eth0\n");
    root.write("class/net/bond0/bonding/miimon", "100\n");
    root.write("class/net/bond0/bonding/fail_over_mac", "active 1\n");
    for (const char *port : {"eth0", "eth1"}) {
        std::string n = std::string("class/net/") + port + "/";
        root.write(n + "type", "1\n");
        root.write(n + "ifindex", port[3] == '0' ? "11\n" : "12\n");
        root.write(n + "mtu", "1500\n");
        root.write(n + "address", "52:54:00:00:00:01\n");
        root.write(n + "flags", "0x1803\n");
        symlinkAt(root, "../bond0", n + "master");
    }
}

} // namespace ibnm::test::sysfs
