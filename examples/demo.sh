#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The main job on simulated hosts: the seeds' procedures (RHEL "Configuring
# InfiniBand and RDMA networks", "Configuring IPoIB", "Configuring RoCE";
# NVIDIA "IP over InfiniBand", "RDMA over Converged Ethernet") with ibnm in
# place of nmcli, rdma and the sysfs/configfs writes. Every command is echoed
# and its result shown. Profiles go to a temporary keyfile directory and the
# simulated hosts keep their state in a temporary directory: nothing on this
# machine changes. Exits non-zero if a step that should succeed fails, or a
# step that should be refused is not.
#
#   IBNM=path/to/ibnm examples/demo.sh      (make demo sets IBNM)
set -u

IBNM=${IBNM:-ibnm}
HOSTS=${IBNM_DEMO_HOSTS:-$(cd "$(dirname "$0")" && pwd)/hosts}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibnm-demo.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM
failures=0
HOST=

# Each procedure starts from its host file, with an empty keyfile store.
use_host() {
    HOST=$1
    rm -rf "$WORK/keyfiles" "$WORK/state"
    mkdir -p "$WORK/keyfiles"
    IBNM_SIMULATE_STATE="$WORK/state"
    export IBNM_SIMULATE_STATE
    echo
    echo "=== $2"
    echo "=== simulated host: examples/hosts/$HOST (every command below runs with"
    echo "===   --keyfile-dir $WORK/keyfiles --simulate examples/hosts/$HOST)"
}

say() {
    echo
    echo "# $*"
}

ibnm_run() {
    "$IBNM" --keyfile-dir "$WORK/keyfiles" --simulate "$HOSTS/$HOST" "$@" 2>&1
}

# ok CMD...: must succeed.
ok() {
    echo "\$ ibnm $*"
    ibnm_run "$@"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "!!! expected success, got exit status $rc"
        failures=$((failures + 1))
    fi
}

# refused STATUS CMD...: must fail with exit status STATUS (nothing written).
refused() {
    want=$1
    shift
    echo "\$ ibnm $*"
    ibnm_run "$@"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "!!! expected exit status $want, got $rc"
        failures=$((failures + 1))
    else
        echo "(refused as expected: exit status $rc)"
    fi
}

"$IBNM" --version || { echo "demo: cannot run $IBNM" >&2; exit 1; }

###############################################################################
use_host mlx4-dual-port.host "IPoIB on a ConnectX-3: connected mode, MTU 65520, a P_Key child, IPv4 and IPv6 (RHEL 9)"

say "The host: ibstat/ibdev2netdev view, then the port details (ibv_devinfo)"
ok device status
ok -f GENERAL,PORT1 device show mlx4_0

say "The seed's commands, verbatim:"
ok connection add type infiniband con-name mlx4_ib0 ifname mlx4_ib0 transport-mode Connected mtu 65520
say "The seed's next command fails in nmcli 1.42 too: a P_Key profile needs its parent."
refused 1 connection modify mlx4_ib0 infiniband.p-key 0x8002
say "The P_Key 0x8002 child is a profile of its own, over the parent. In datagram mode the kernel"
echo "# refuses an MTU above the port's IB MTU - 4 (4092 here): 65520 is refused, with a hint:"
refused 1 connection add type infiniband con-name mlx4_ib0.8002 ifname mlx4_ib0.8002 parent mlx4_ib0 p-key 0x8002 mtu 65520
ok connection add type infiniband con-name mlx4_ib0.8002 ifname mlx4_ib0.8002 parent mlx4_ib0 p-key 0x8002
say "Without NetworkManager ibnm does no DHCP: check and up refuse ipv4.method auto on IPoIB"
echo "# (NetworkManager does DHCP over IPoIB with the port GUID's client id). This child has no IP:"
refused 4 connection up mlx4_ib0.8002
ok connection modify mlx4_ib0.8002 ipv4.method disabled ipv6.method disabled
ok connection modify mlx4_ib0 ipv4.method manual ipv4.addresses 192.0.2.1/24 ipv4.gateway 192.0.2.254 ipv4.dns 192.0.2.253
ok connection modify mlx4_ib0 ipv6.method manual ipv6.addresses 2001:db8:1::1/32 ipv6.gateway 2001:db8:1::fffe ipv6.dns 2001:db8:1::fffd
ok connection show
ok -f infiniband,ipv4.addresses,ipv6.addresses connection show mlx4_ib0

say "A bad value names its property and changes nothing (exit 2):"
refused 2 connection modify mlx4_ib0 mtu 70000x

say "What ibnm check says about these profiles on this host:"
ok check

say "Activation on the (simulated) host: the plan first, then the real thing"
ok --dry-run connection up mlx4_ib0
ok connection up mlx4_ib0
ok connection up mlx4_ib0.8002
ok device status
ok -f DEV,PORT,INDEX,GID,TYPE,NETDEV rdma gid show mlx4_0
say "The same again changes nothing:"
ok connection up mlx4_ib0
say "The step report as JSON (docs/json-schema.md):"
ok -j connection down mlx4_ib0.8002

###############################################################################
use_host mlx4-dual-port.host "An IPoIB active-backup bond (NVIDIA: IPoIB ports join active-backup bonds only)"

ok connection add type bond con-name bond0 ifname bond0 bond.options mode=active-backup,miimon=100 ipv4.method manual ipv4.addresses 192.0.2.20/24
ok connection add type infiniband con-name bond0-port1 ifname mlx4_ib0 master bond0 slave-type bond
ok check
ok connection up bond0
ok connection up bond0-port1
ok device status
say "A round-robin bond cannot take IPoIB ports: refused at add, nothing written:"
ok connection add type bond con-name bond1 ifname bond1 bond.options mode=balance-rr
refused 1 connection add type infiniband con-name bond1-port1 ifname mlx4_ib0 master bond1 slave-type bond
ok connection show

###############################################################################
use_host ethernet-only.host "Soft-RoCE: rxe0 over an Ethernet device (RHEL 9 \"Configuring Soft-RoCE\")"

ok rdma link add rxe0 type rxe netdev enp1s0
ok rdma link show
ok rdma gid show rxe0
say "rxe has RoCE v2 only: the default RoCE mode v1 is refused by the device, and the change rolled back."
refused 1 rdma roce-mode rxe0 v1
ok rdma roce-mode rxe0 v2
ok rdma roce-mode rxe0
ok rdma link delete rxe0
say "The same link as a profile, so it comes back after a reboot (rdma link add has no persistence):"
ok connection add type ethernet con-name rxe0 ifname enp1s0 rdma.link-type rxe rdma.link-name rxe0
ok connection up rxe0
ok rdma link show
say "A profile asking a new rxe link for RoCE v1: rxe has RoCE v2 only, so ibnm refuses it at add:"
refused 1 connection add type ethernet con-name rxe-v1 ifname enp0s1 rdma.link-type rxe rdma.link-name rxe1 rdma.roce-mode v1
say "Written past ibnm (here by --offline, as by nmcli or an editor), ibnm check reports it, and up,"
echo "# where the device refuses v1, rolls everything back:"
echo "\$ ibnm --offline connection add type ethernet con-name rxe-v1 ... > rxe-v1.nmconnection"
"$IBNM" --offline connection add type ethernet con-name rxe-v1 ifname enp0s1 rdma.link-type rxe rdma.link-name rxe1 \
    rdma.roce-mode v1 > "$WORK/keyfiles/rxe-v1.nmconnection" && chmod 600 "$WORK/keyfiles/rxe-v1.nmconnection"
refused 1 check rxe-v1
refused 4 connection up rxe-v1
say "The memlock policy for group rdma (seed: core RDMA limits):"
ok rdma memlock
ok rdma memlock write

###############################################################################
use_host mlx5-roce.host "RoCE on mlx5: the GID table, RoCE v1 as the default for RDMA-CM (NVIDIA RoCE; RHEL \"Configuring RoCE\")"

ok rdma gid show mlx5_0
ok rdma roce-mode mlx5_0
ok rdma roce-mode mlx5_0 1 v1
ok rdma roce-mode mlx5_0 1
say "As a profile, so the mode is set again at every activation:"
ok connection add type ethernet con-name p4p2 ifname p4p2 rdma.roce-mode v1 rdma.roce-tos 106
ok check
ok connection up p4p2
ok rdma roce-mode mlx5_1
say "The seeds' testing chapters (ibping, qperf, ibv_rc_pingpong -g N, ucmatose) are one command,"
echo "# ibnm rdma test, run between two hosts (the report of 'connection up' above names it). It sends"
echo "# real RDMA traffic, which a simulated host cannot carry: it says so and exits 2 rather than make"
echo "# up figures. 'make check-kernel' runs it for real, between rxe and siw links that ibnm profiles"
echo "# make in the kernel lab's guest (tests/kernel/rdma-test-guest.sh):"
refused 2 rdma test --profile p4p2 192.0.2.2

###############################################################################
use_host cx6-mlx5-ib.host "ConnectX-6 with Enhanced IPoIB: datagram mode only (NVIDIA IPoIB)"

ok device status
refused 1 connection add type infiniband con-name ib0 ifname ib0 transport-mode connected mtu 65520
ok connection add type infiniband con-name ib0 ifname ib0 transport-mode datagram mtu 4092 ipv4.method disabled
ok check
ok connection up ib0
ok device status

echo
if [ "$failures" -ne 0 ]; then
    echo "demo: $failures step(s) did not go as expected"
    exit 1
fi
echo "demo: every step went as expected"
