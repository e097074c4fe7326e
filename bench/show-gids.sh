#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The shell way: the loop of Mellanox's show_gids, one cat per file.
# usage: show-gids.sh SYSFS_ROOT [MAX_DEVICES]
root=${1:-/sys}
max=${2:-0}
black="0000:0000:0000:0000:0000:0000:0000:0000"
printf 'DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4\t\tVER\tDEV\n'
n=0
for d in $(ls "$root/class/infiniband/"); do
	n=$((n + 1))
	if [ "$max" -gt 0 ] && [ "$n" -gt "$max" ]; then
		break
	fi
	for p in $(ls "$root/class/infiniband/$d/ports/"); do
		for g in $(ls "$root/class/infiniband/$d/ports/$p/gids/"); do
			gid=$(cat "$root/class/infiniband/$d/ports/$p/gids/$g" 2>/dev/null)
			if [ "$gid" = "$black" ]; then
				continue
			fi
			ndev=$(cat "$root/class/infiniband/$d/ports/$p/gid_attrs/ndevs/$g" 2>/dev/null)
			type=$(cat "$root/class/infiniband/$d/ports/$p/gid_attrs/types/$g" 2>/dev/null)
			ver=$(echo "$type" | grep -o "[Vv].*")
			ipv4=""
			if [ "$(echo "$gid" | cut -d ":" -f -6)" = "0000:0000:0000:0000:0000:ffff" ]; then
				ipv4=$(printf "%d.%d.%d.%d" 0x${gid:30:2} 0x${gid:32:2} 0x${gid:35:2} 0x${gid:37:2})
			fi
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$p" "$g" "$gid" "$ipv4" "$ver" "$ndev"
		done
	done
done
