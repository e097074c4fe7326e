#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes COUNT NetworkManager keyfiles for the profile-store benchmark.

A mix as a large InfiniBand cluster node has: one InfiniBand profile per
IPoIB port (ib0 ... ib<PORTS-1>, as gen-sysfs.py creates), P_Key children of
them with [user] ipoib.umcast, bonds (active-backup, as IPoIB needs) with
two InfiniBand ports each, and Ethernet profiles of RoCE netdevs with [user]
rdma.roce-mode / rdma.roce-tos.  The format is what `nmcli --offline
connection add` writes; files are 0600 as NetworkManager requires.

usage: gen-keyfiles.py DIR COUNT [PORTS]
"""
import os
import sys
import uuid


def keyfile(groups):
    out = []
    for name, keys in groups:
        out.append("[%s]" % name)
        out.extend("%s=%s" % kv for kv in keys)
        out.append("")
    return "\n".join(out)


def ip_groups():
    return [("ipv4", [("method", "disabled")]), ("ipv6", [("addr-gen-mode", "default"), ("method", "ignore")]),
            ("proxy", [])]


def conn(cid, ctype, ifname, extra=()):
    keys = [("id", cid), ("uuid", str(uuid.uuid5(uuid.NAMESPACE_DNS, cid + ".ibnm-bench"))), ("type", ctype),
            ("interface-name", ifname)]
    keys.extend(extra)
    return ("connection", keys)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2])
    ports = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    os.makedirs(out, exist_ok=True)
    files = []
    # One InfiniBand profile per port.
    for p in range(ports):
        ib = "ib%d" % p
        files.append((ib, keyfile([conn(ib, "infiniband", ib), ("infiniband", [("transport-mode", "datagram")])] +
                                  ip_groups())))
    n = 0
    while len(files) < count:
        kind = n % 8
        p = n % ports
        ib = "ib%d" % p
        if kind < 5:
            # P_Key child: 0x8001 is already on every port (gen-sysfs.py).
            pkey = 0x8002 + n // ports
            name = "%s.%04x" % (ib, pkey)
            groups = [conn(name, "infiniband", name),
                      ("infiniband", [("mtu", "2044"), ("p-key", "%d" % pkey), ("parent", ib),
                                      ("transport-mode", "datagram")])]
            groups += ip_groups()
            if kind == 0:
                groups.append(("user", [("ipoib.umcast", "true")]))
            files.append((name, keyfile(groups)))
        elif kind == 5:
            bond = "bond%d" % (n // 8)
            files.append((bond, keyfile([conn(bond, "bond", bond),
                                         ("bond", [("fail_over_mac", "1"), ("miimon", "100"),
                                                   ("mode", "active-backup")])] + ip_groups())))
            for k in range(2):
                port = "%s-port%d" % (bond, k + 1)
                files.append((port, keyfile([conn(port, "infiniband", "ib%d" % ((p + k) % ports),
                                                  [("master", bond), ("slave-type", "bond")]),
                                             ("infiniband", [("transport-mode", "datagram")]),
                                             ("bond-port", [])])))
        else:
            eth = "eth%d" % p
            name = "%s-roce-%d" % (eth, n)
            files.append((name, keyfile([conn(name, "ethernet", eth, [("autoconnect", "false")]),
                                         ("ethernet", [])] + ip_groups() +
                                        [("user", [("rdma.roce-mode", "v2"), ("rdma.roce-tos", "106")])])))
        n += 1
    for name, text in files[:count]:
        path = os.path.join(out, name + ".nmconnection")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
    print("%s: %d keyfiles" % (out, min(count, len(files))))


if __name__ == "__main__":
    main()
