#!/bin/bash
# RDMA secondaries end to end, INSIDE the kernel lab's guest (make
# check-kernel): the real NetworkManager 1.42, its D-Bus and nmcli, with
# ibnm as `make install` lays it out (STAGE, copied over /) and its VPN
# plugin's .name file where NetworkManager reads it, on Debian's kernel with
# real rdma_rxe and configfs rdma_cm, none loaded beforehand. A base profile
# on a veth lists an RDMA secondary (nmcli's vpn.data) in
# connection.secondaries: `nmcli connection up BASE` makes NetworkManager
# start nm-ibnm-service, which creates rxe0 and sets the RoCE defaults;
# RoCE v1 on rxe makes the base fail (exit 4) with nothing left; `down`
# removes it; a NetworkManager restart keeps it and the next `down`
# removes it. Prints "PASS: ..." / "FAIL: ..." per check and exits with the
# number of failures. About 80 s under TCG, most of it NetworkManager's
# start-ups and activations: the base profiles are keyfiles NetworkManager
# reads at start (only what the user runs goes through nmcli), and what the
# NM lab already proves with the same NetworkManager (ibnm connection add
# type rdma secondary-of, repeated cycles; tests/integration/
# vpn-lab-test.cpp) is not repeated here.
set -u
stage=$1
prefix=${2:-/usr/local}
fails=0
check() { # check NAME COMMAND...: runs the command, counts a failure
  local name=$1; shift
  if "$@"; then echo "PASS: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}
has_link() { rdma link show 2>/dev/null | grep -q "link $1/"; }
no_link() { ! has_link "$1"; }
no_links() { [ -z "$(rdma link show 2>/dev/null)" ]; }
attr_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
not_loaded() { [ ! -d "/sys/module/$1" ]; }
up_fails_with() { nmcli connection up "$1" >/tmp/up.out 2>&1; [ $? -eq "$2" ]; }
state_is() { [ "$(nmcli -g GENERAL.STATE connection show "$1" 2>/dev/null)" = "$2" ]; }
in_syslog() { grep -q -E -- "$1" /run/syslog.log; }
wait_for() { local i; for i in $(seq 50); do "$@" && return 0; sleep 0.2; done; return 1; }

cp -a "$stage"/. /
export PATH=$prefix/bin:$PATH
mkdir -p /etc/NetworkManager/system-connections /var/lib/NetworkManager /run/NetworkManager /run/dbus/services \
  /usr/lib/NetworkManager/VPN
[ -e /var/run ] || ln -s /run /var/run
cp -a "$prefix"/lib/libibnm.so* /usr/lib/x86_64-linux-gnu/
# The VPN plugin where NetworkManager and nmcli read it (configure
# --prefix=/usr puts it there; the stage's prefix is /usr/local).
cp "$prefix"/lib/NetworkManager/VPN/nm-ibnm-service.name /usr/lib/NetworkManager/VPN/
echo 0123456789abcdef0123456789abcdef > /etc/machine-id
# The base profiles (NetworkManager's keyfile format, as nmcli --offline
# writes it) and the refused secondary, read by NetworkManager at start.
keyfile() { # keyfile NAME UUID BODY: a keyfile NetworkManager accepts
  printf '[connection]\nid=%s\nuuid=%s\n%s\n' "$1" "$2" "$3" > "/etc/NetworkManager/system-connections/$1.nmconnection"
  chmod 600 "/etc/NetworkManager/system-connections/$1.nmconnection"
}
base='type=ethernet
interface-name=veth-a
autoconnect=false'
ip='[ipv4]
address1=198.51.100.1/24
method=manual
[ipv6]
method=disabled'
keyfile base-a 6a1d5f8e-0c1b-4b7e-9a55-1b1f7f1e0a01 "$base
$ip"
keyfile rdma-bad 6a1d5f8e-0c1b-4b7e-9a55-1b1f7f1e0a02 'type=vpn
autoconnect=false
[vpn]
service-type=org.freedesktop.NetworkManager.ibnm
rdma.link-type=rxe
rdma.link-name=rxe9
rdma.roce-mode=v1'
keyfile base-bad 6a1d5f8e-0c1b-4b7e-9a55-1b1f7f1e0a03 "$base
secondaries=6a1d5f8e-0c1b-4b7e-9a55-1b1f7f1e0a02;
$ip"
cat > /etc/NetworkManager/NetworkManager.conf <<EOF
[main]
plugins=keyfile
auth-polkit=root-only
dns=none
rc-manager=unmanaged
no-auto-default=*
firewall-backend=none
[connectivity]
enabled=false
[logging]
backend=syslog
EOF
cat > /run/dbus/bus.conf <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <servicedir>/run/dbus/services</servicedir>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
EOF

check "no RDMA module and no configfs loaded beforehand" \
  eval 'not_loaded rdma_rxe && not_loaded rdma_cm && not_loaded configfs'
check "the .name file names the installed service" \
  grep -q "^program=$prefix/libexec/nm-ibnm-service$" /usr/lib/NetworkManager/VPN/nm-ibnm-service.name

# configfs at /sys/kernel/config, as systemd loads and mounts it at boot
# (modprobe@configfs, sys-kernel-config.mount): NetworkManager
# runs in a mount namespace of its own here (below), and so does the
# service it starts; both see this mount (rdma_cm appears in it once the
# service loads the module).
modprobe configfs && mount -t configfs none /sys/kernel/config
busybox syslogd -O /run/syslog.log -S
dbus-daemon --nofork --config-file=/run/dbus/bus.conf &
sleep 0.5
start_nm() {
  # No udevd in the guest: NetworkManager waits for udev while /sys is writable.
  unshare -m --propagation private sh -c 'mount -o remount,bind,ro /sys && exec NetworkManager --no-daemon' \
    >>/run/nm.out 2>&1 &
  nm_pid=$!
  nm-online -s -q -t 120
}
check "NetworkManager starts" start_nm

ip link add veth-a type veth peer name veth-b && ip link set veth-b up
check "nmcli adds the RDMA secondary (vpn-type ibnm)" \
  nmcli connection add type vpn vpn-type ibnm con-name rdma-a \
  vpn.data "rdma.link-type=rxe, rdma.link-name=rxe0, rdma.roce-mode=v2, rdma.roce-tos=106"
check "its service type is ibnm's" \
  grep -q '^service-type=org.freedesktop.NetworkManager.ibnm$' /etc/NetworkManager/system-connections/rdma-a.nmconnection
check "nmcli attaches it to the base" nmcli connection modify base-a +connection.secondaries rdma-a

check "nmcli connection up base-a" nmcli connection up base-a
check "the secondary is active" state_is rdma-a activated
check "rxe0 over veth-a" has_link rxe0
check "configfs RoCE mode" attr_is /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_mode "RoCE v2"
check "configfs RoCE ToS" attr_is /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos 106
check "nmcli connection down base-a" nmcli connection down base-a
check "rxe0 removed" wait_for no_link rxe0
check "the service logged to syslog" in_syslog "nm-ibnm-service.*provisioning rdma-a .* on veth-a"

# A refusal: RoCE v1 on rxe (the kernel takes v2 only).
check "RoCE v1 on rxe: nmcli connection up exits 4" up_fails_with base-bad 4
cat /tmp/up.out
check "RoCE v1 on rxe: nmcli says the secondary failed" grep -q "A secondary connection of the base connection failed" /tmp/up.out
check "RoCE v1 on rxe: nothing left" no_links
check "RoCE v1 on rxe: NetworkManager logs the service's error" \
  in_syslog "NetworkManager.*rdma-bad.*failed to connect.*rdma-bad: rdma.roce-mode: rxe9/1 does not support IB/RoCE v1"
check "RoCE v1 on rxe: the base is not active" eval '! state_is base-bad activated'

# A NetworkManager restart keeps what the secondary provisioned.
check "restart: nmcli connection up base-a" nmcli connection up base-a
check "restart: rxe0 before" has_link rxe0
provisioned=$(grep -c "nm-ibnm-service.*provisioning rdma-a" /run/syslog.log)
kill -TERM "$nm_pid"; wait "$nm_pid" 2>/dev/null
sleep 1
check "restart: rxe0 kept with NetworkManager stopped" has_link rxe0
check "restart: NetworkManager starts again" start_nm
check "restart: rxe0 still there" has_link rxe0
# NetworkManager assumes the base's device again and activates its
# secondaries with it: a new service takes over what the old one made.
check "restart: the secondary is active again" wait_for state_is rdma-a activated
check "restart: the old service left the host as it was" in_syslog "nm-ibnm-service.*rdma-a: NetworkManager went away"
check "restart: a new service provisioned rdma-a" \
  eval '[ "$(grep -c "nm-ibnm-service.*provisioning rdma-a" /run/syslog.log)" -gt "$provisioned" ]'
check "restart: NetworkManager asked for no gateway" eval '! in_syslog "no VPN gateway address received"'
check "restart: its RoCE ToS still there" attr_is /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos 106
check "restart: nmcli connection down base-a" nmcli connection down base-a
check "restart: rxe0 removed by the new service's down" wait_for no_link rxe0

if [ $fails -ne 0 ]; then
  echo "---- syslog"; tail -n 80 /run/syslog.log; echo "---- NetworkManager"; tail -n 20 /run/nm.out
fi
echo "nm-vpn: $fails failed"
exit $fails
