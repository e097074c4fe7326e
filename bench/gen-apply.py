#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the apply benchmark's simulated host and its profiles.

Host: DEVICES mlx4 devices with two InfiniBand ports each (IPoIB netdevs
ib0 ... ib<2*DEVICES-1>, connected mode available) and ETH Ethernet netdevs
(eth0 ...). Profiles: CHILDREN P_Key children spread over the first half of
the IPoIB ports, RXE Ethernet profiles with an rxe link each ([user]
rdma.link-type=rxe, rdma.link-name=rxeN), and BONDS active-backup bonds of two
IPoIB ports each from the second half.

usage: gen-apply.py HOSTFILE KEYFILE_DIR [CHILDREN RXE BONDS]
"""
import os
import sys
import uuid


def write(path, text, mode=0o644):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def conn(cid, ctype, ifname, extra=""):
    return ("[connection]\nid=%s\nuuid=%s\ntype=%s\ninterface-name=%s\n%s\n" %
            (cid, uuid.uuid5(uuid.NAMESPACE_DNS, cid + ".ibnm-apply-bench"), ctype, ifname, extra))


NOIP = "[ipv4]\nmethod=disabled\n\n[ipv6]\naddr-gen-mode=default\nmethod=ignore\n\n[proxy]\n"


def main():
    hostfile, kdir = sys.argv[1], sys.argv[2]
    children = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    rxe = int(sys.argv[4]) if len(sys.argv) > 4 else 32
    bonds = int(sys.argv[5]) if len(sys.argv) > 5 else 16
    child_ports = 32
    ib_ports = child_ports + 2 * bonds
    devices = (ib_ports + 1) // 2
    host = ["[host]", "kernel-release=6.1.0-13-amd64", "child-naming=upstream", ""]
    for d in range(devices):
        guid = "0002:c903:00%02x:%04x" % (d >> 8, (d & 0xff) << 4)
        host += ["[device mlx4_%d]" % d, "driver=mlx4_core", "node-guid=%s" % guid, "fw-ver=2.42.5000",
                 "hca-type=MT4099", "board-id=MT_1090120019", "connected-mode=true", ""]
        for p in (1, 2):
            pguid = "0002:c903:00%02x:%04x" % (d >> 8, ((d & 0xff) << 4) + p)
            host += ["[port mlx4_%d/%d]" % (d, p), "link-layer=InfiniBand", "state=4: ACTIVE",
                     "phys-state=5: LinkUp", "rate=56 Gb/sec (4X FDR)", "lid=%d" % (2 * d + p), "sm-lid=1",
                     "max-mtu=4096", "active-mtu=4096", "broadcast-mtu=4096", "pkeys=0xffff",
                     "port-guid=%s" % pguid, ""]
            n = 2 * d + p - 1
            addr = "80:00:02:08:fe:80:00:00:00:00:00:00:" + ":".join(
                pguid.replace(":", "")[i:i + 2] for i in range(0, 16, 2))
            host += ["[netdev ib%d]" % n, "kind=ipoib", "rdma-port=mlx4_%d/%d" % (d, p), "address=%s" % addr,
                     "mtu=2044", "mode=datagram", "up=true", ""]
    for e in range(rxe):
        host += ["[netdev eth%d]" % e, "address=52:54:00:%02x:%02x:01" % (e >> 8, e & 0xff), "mtu=1500",
                 "max-mtu=9000", "up=true", ""]
    write(hostfile, "\n".join(host))

    os.makedirs(kdir, exist_ok=True)
    for i in range(children):
        parent = "ib%d" % (i % child_ports)
        pkey = 0x8002 + i // child_ports
        name = "%s.%04x" % (parent, pkey)
        write(os.path.join(kdir, name + ".nmconnection"),
              conn(name, "infiniband", name) +
              "[infiniband]\nmtu=2044\np-key=%d\nparent=%s\ntransport-mode=datagram\n\n" % (pkey, parent) + NOIP,
              0o600)
    for e in range(rxe):
        name = "eth%d-rxe" % e
        write(os.path.join(kdir, name + ".nmconnection"),
              conn(name, "ethernet", "eth%d" % e) + "[ethernet]\n\n" + NOIP +
              "\n[user]\nrdma.link-name=rxe%d\nrdma.link-type=rxe\n" % e, 0o600)
    for b in range(bonds):
        bond = "bond%d" % b
        write(os.path.join(kdir, bond + ".nmconnection"),
              conn(bond, "bond", bond) + "[bond]\nfail_over_mac=active\nmiimon=100\nmode=active-backup\n\n" + NOIP,
              0o600)
        for k in range(2):
            port = "%s-port%d" % (bond, k + 1)
            write(os.path.join(kdir, port + ".nmconnection"),
                  conn(port, "infiniband", "ib%d" % (child_ports + 2 * b + k), "master=%s\nslave-type=bond\n" % bond) +
                  "[infiniband]\ntransport-mode=datagram\n\n[bond-port]\n", 0o600)
    print("%s: %d IPoIB ports, %d Ethernet netdevs; %s: %d P_Key children, %d rxe, %d bonds" %
          (hostfile, ib_ports, rxe, kdir, children, rxe, bonds))


if __name__ == "__main__":
    main()
