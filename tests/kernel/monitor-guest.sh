#!/bin/bash
# `ibnm monitor` INSIDE the kernel lab's guest (make check-kernel), with ibnm
# as `make install` lays it out (STAGE, copied over /): an rxe link added and
# deleted with iproute2's `rdma link` is printed as its port created and
# removed, announced by the kernel (Debian 12's 6.1 sends no RDMA netlink
# event: the infiniband class's uevent announces it), and its port going
# DOWN with its netdev is found by the once-a-second reading of the port
# states (no kernel announces it). Prints "PASS: ..." / "FAIL: ..." per
# check and the latencies as "LATENCY: ...", and exits with the number of
# failures.
set -u
stage=$1
prefix=${2:-/usr/local}
fails=0
check() { # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "PASS: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}
ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); } # busybox date has no %N
# seen FILE TEXT: waits (at most 5 s) until FILE holds TEXT; prints the ms it took.
seen() {
  local t0; t0=$(ms)
  while [ $(($(ms) - t0)) -lt 5000 ]; do grep -qF "$2" "$1" && { echo $(($(ms) - t0)); return 0; }; sleep 0.01; done
  echo "  '$2' not in $1:" >&2; cat "$1" >&2; return 1
}

cp -a "$stage"/. /
export PATH=$prefix/bin:$PATH
cp -a "$prefix"/lib/libibnm.so* /usr/lib/x86_64-linux-gnu/
mkdir -p /tmp/kf
ip=/usr/sbin/ip
# (not "ma": ip's prefix matching reads it as "master")
$ip link add vmon0 type veth peer name vmon1
$ip link set vmon0 up; $ip link set vmon1 up

IBNM_DEBUG=monitor ibnm --keyfile-dir /tmp/kf -t device monitor > /tmp/mon.out 2> /tmp/mon.err &
pid=$!
seen /tmp/mon.err "announced" > /dev/null
cat /tmp/mon.err
check "the kernel announces links and RDMA devices; ports are read again" \
  grep -q "announced: links,addresses,rdma-devices; read again every 1000 ms: ports" /tmp/mon.err

t0=$(ms); rdma link add rxe0 type rxe netdev vmon0; t1=$(ms)
add=$(seen /tmp/mon.out "rxe0/1:rdma:created:"); rc=$?
check "rdma link add rxe0: rxe0/1:rdma:created:" [ $rc -eq 0 ]
check "rdma link add rxe0: read on the kernel's announcement (rdma-devices)" \
  eval 'grep "reading the host" /tmp/mon.err | grep -q rdma-devices'
echo "LATENCY: rdma link add returned after $((t1 - t0)) ms; the line $((add)) ms later"
check "rdma link add rxe0: printed within 500 ms" [ $rc -eq 0 -a "${add:-9999}" -lt 500 ]

# An address on the rxe's netdev: its RoCE v2 GID entry (the kernel writes
# it after rtnetlink announced the address: the GID tables' second look).
$ip addr add 198.51.100.1/24 dev vmon0
gid=$(seen /tmp/mon.out "198.51.100.1") ; rc=$?
check "an address: rxe0/1:gid:created: ... ::ffff:198.51.100.1" \
  eval "[ $rc -eq 0 ] && grep 'rxe0/1:gid:created:' /tmp/mon.out | grep -q '198.51.100.1'"
echo "LATENCY: GID entry printed $((gid)) ms after the address was added"

# No kernel announces a port's state: the state files, read once a second.
$ip link set vmon0 down
down=$(seen /tmp/mon.out "rxe0/1:rdma:port:DOWN"); rc=$?
check "netdev down: rxe0/1:rdma:port:DOWN" [ $rc -eq 0 ]
echo "LATENCY: port DOWN printed $((down)) ms after the netdev went down (read once a second)"
check "netdev down: printed within 1500 ms" [ $rc -eq 0 -a "${down:-9999}" -lt 1500 ]

before=$(grep -c "reading the host" /tmp/mon.err)
t0=$(ms); rdma link delete rxe0; t1=$(ms)
del=$(seen /tmp/mon.out "rxe0/1:rdma:removed:"); rc=$?
check "rdma link delete rxe0: rxe0/1:rdma:removed:" [ $rc -eq 0 ]
echo "LATENCY: rdma link delete returned after $((t1 - t0)) ms; the line $((del)) ms later"
check "rdma link delete rxe0: printed within 500 ms" [ $rc -eq 0 -a "${del:-9999}" -lt 500 ]

# Nothing changes: nothing is read (2 s), once the delete's second looks
# are over (the GID tables' half a second, the port states' next second).
sleep 1.5; idle0=$(grep -c "reading the host" /tmp/mon.err); sleep 2
idle1=$(grep -c "reading the host" /tmp/mon.err)
check "idle: no reading in 2 s" [ "$idle0" -eq "$idle1" ]
echo "readings: $before before the delete, $idle1 in all"

kill -TERM $pid; wait $pid; rc=$?
check "SIGTERM: exit 0" [ $rc -eq 0 ]
echo "--- the monitor's output"; cat /tmp/mon.out
echo "--- its readings"; cat /tmp/mon.err
exit $fails
