#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the declarative-state benchmark's document: CHILDREN P_Key
children with an IPv4 address each (198.18.0.0/15, the benchmarking range),
spread over the 32 IPoIB ports ib0..ib31 of gen-apply.py's host as
gen-apply.py spreads its profiles. JSON (nmstate's schema; ibnm apply reads
YAML and JSON alike).

usage: gen-state.py DOCUMENT [CHILDREN]
"""
import json
import sys


def main():
    path = sys.argv[1]
    children = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    ports = 32
    interfaces = []
    for i in range(children):
        parent = "ib%d" % (i % ports)
        pkey = 0x8002 + i // ports
        interfaces.append({
            "name": "%s.%04x" % (parent, pkey),
            "type": "infiniband",
            "state": "up",
            "mtu": 2044,
            "infiniband": {"base-iface": parent, "pkey": "0x%04x" % pkey, "mode": "datagram"},
            "ipv4": {"enabled": True, "address": [{"ip": "198.18.%d.%d" % (i // 250, i % 250 + 1),
                                                   "prefix-length": 16}]},
            "ipv6": {"enabled": False},
        })
    with open(path, "w") as f:
        json.dump({"interfaces": interfaces}, f, indent=1)


if __name__ == "__main__":
    main()
