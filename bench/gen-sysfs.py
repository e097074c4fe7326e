#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes a sysfs tree (class/infiniband, class/net) for the inventory benchmark.

The files are the ones libcore/platform/linux/sysfs.cpp reads, with the contents the
kernel shows: DEVICES mlx5 devices with port 1 InfiniBand and port 2 Ethernet
(RoCE), GIDS entries per port of which the used ones have gid_attrs/types and
gid_attrs/ndevs and the rest read all-zero, and NETDEVS netdevs (per device an
IPoIB port netdev, a P_Key child, an Ethernet netdev and a VLAN on it).

usage: gen-sysfs.py ROOT [DEVICES [GIDS]]
"""
import os
import sys

ZERO = "0000:0000:0000:0000:0000:0000:0000:0000"


def write(path, text):
    with open(path, "w") as f:
        f.write(text + "\n")


def mkdirs(path):
    os.makedirs(path, exist_ok=True)


def gid(prefix, iid):
    return prefix + ":" + iid


def main():
    root = sys.argv[1]
    devices = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    gids = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    ib_class = os.path.join(root, "class", "infiniband")
    net_class = os.path.join(root, "class", "net")
    drivers = os.path.join(root, "bus", "pci", "drivers", "mlx5_core")
    mkdirs(ib_class)
    mkdirs(net_class)
    mkdirs(drivers)
    write(os.path.join(net_class, "bonding_masters"), "")
    ifindex = 2
    used_files = 0
    for d in range(devices):
        name = "mlx5_%d" % d
        guid = "0c42:a103:00%02x:%04x" % (d >> 8, d & 0xffff)
        ddir = os.path.join(ib_class, name)
        mkdirs(os.path.join(ddir, "device"))
        os.symlink(os.path.relpath(drivers, os.path.join(ddir, "device")), os.path.join(ddir, "device", "driver"))
        write(os.path.join(ddir, "device", "roce_enable"), "1")
        write(os.path.join(ddir, "node_guid"), guid)
        write(os.path.join(ddir, "node_type"), "1: CA")
        write(os.path.join(ddir, "fw_ver"), "20.31.1014")
        write(os.path.join(ddir, "hca_type"), "MT4123")
        write(os.path.join(ddir, "board_id"), "MT_0000000223")
        ib = "ib%d" % d
        eth = "eth%d" % d
        vlan = "eth%d.100" % d
        mac = "0c:42:a1:%02x:%02x:%02x" % (d >> 8, d & 0xff, 0x10)
        eui = "0e42:a1ff:fe%02x:%02x10" % (d >> 8, d & 0xff)
        for port, ll in ((1, "InfiniBand"), (2, "Ethernet")):
            pdir = os.path.join(ddir, "ports", str(port))
            for sub in ("gids", "gid_attrs/types", "gid_attrs/ndevs", "pkeys"):
                mkdirs(os.path.join(pdir, sub))
            write(os.path.join(pdir, "state"), "4: ACTIVE")
            write(os.path.join(pdir, "phys_state"), "5: LinkUp")
            write(os.path.join(pdir, "rate"), "200 Gb/sec (4X HDR)" if port == 1 else "100 Gb/sec (2X HDR)")
            write(os.path.join(pdir, "link_layer"), ll)
            write(os.path.join(pdir, "lid"), "0x%x" % (d + 1) if port == 1 else "0x0")
            write(os.path.join(pdir, "sm_lid"), "0x1" if port == 1 else "0x0")
            tc = os.path.join(ddir, "tc", str(port))
            mkdirs(tc)
            write(os.path.join(tc, "traffic_class"), "Global tclass=106")
            write(os.path.join(tc, "ttl"), "Global ttl=64")
            if port == 1:
                used = [(gid("fe80:0000:0000:0000", guid), "IB/RoCE v1", None)]
                pkeys = ["0xffff", "0x8001"] + ["0x0000"] * 126
            else:
                ll6 = gid("fe80:0000:0000:0000", eui)
                v4 = "0000:0000:0000:0000:0000:ffff:0a%02x:%02x01" % (d >> 8, d & 0xff)
                v4b = "0000:0000:0000:0000:0000:ffff:0b%02x:%02x01" % (d >> 8, d & 0xff)
                used = []
                for g, nd in ((ll6, eth), (v4, eth), (ll6, vlan), (v4b, vlan)):
                    used.append((g, "IB/RoCE v1", nd))
                    used.append((g, "RoCE v2", nd))
                pkeys = ["0xffff"]
            for i, pk in enumerate(pkeys):
                write(os.path.join(pdir, "pkeys", str(i)), pk)
            for i in range(gids):
                if i < len(used):
                    g, t, nd = used[i]
                    write(os.path.join(pdir, "gids", str(i)), g)
                    write(os.path.join(pdir, "gid_attrs", "types", str(i)), t)
                    if nd is not None:
                        write(os.path.join(pdir, "gid_attrs", "ndevs", str(i)), nd)
                    used_files += 1
                else:
                    # The kernel shows unused entries all-zero; their
                    # attributes read EINVAL, here they are absent (ENOENT).
                    write(os.path.join(pdir, "gids", str(i)), ZERO)

        ipoib_addr = "00:00:10:49:fe:80:00:00:00:00:00:00:" + ":".join(
            guid.replace(":", "")[i:i + 2] for i in range(0, 16, 2))
        for nd, kind in ((ib, "ipoib"), (ib + ".8001", "child"), (eth, "eth"), (vlan, "vlan")):
            ndir = os.path.join(net_class, nd)
            mkdirs(ndir)
            write(os.path.join(ndir, "ifindex"), str(ifindex))
            ifindex += 1
            write(os.path.join(ndir, "flags"), "0x1003")
            if kind in ("ipoib", "child"):
                write(os.path.join(ndir, "type"), "32")
                write(os.path.join(ndir, "mtu"), "2044" if kind == "ipoib" else "4092")
                write(os.path.join(ndir, "address"), ipoib_addr)
                write(os.path.join(ndir, "mode"), "datagram")
                write(os.path.join(ndir, "umcast"), "0")
                write(os.path.join(ndir, "pkey"), "0xffff" if kind == "ipoib" else "0x8001")
                write(os.path.join(ndir, "parent"), ib)
                write(os.path.join(ndir, "uevent"), "INTERFACE=%s\nIFINDEX=%d" % (nd, ifindex - 1))
            else:
                write(os.path.join(ndir, "type"), "1")
                write(os.path.join(ndir, "mtu"), "9000" if kind == "eth" else "1500")
                write(os.path.join(ndir, "address"), mac)
                write(os.path.join(ndir, "uevent"),
                      "INTERFACE=%s\nIFINDEX=%d%s" % (nd, ifindex - 1, "\nDEVTYPE=vlan" if kind == "vlan" else ""))
            if kind in ("ipoib", "child", "eth"):
                mkdirs(os.path.join(ndir, "device", "infiniband", name))
                write(os.path.join(ndir, "dev_port"), "0" if kind != "eth" else "1")
                write(os.path.join(ndir, "dev_id"), "0x0")
    print("%s: %d devices x 2 ports x %d GIDs (%d used), %d netdevs" %
          (root, devices, gids, used_files, devices * 4))


if __name__ == "__main__":
    main()
