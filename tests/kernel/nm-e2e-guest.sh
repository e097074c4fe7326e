#!/bin/bash
# The README's story end to end, INSIDE the kernel lab's guest (make
# check-kernel, CI's package stage; tests/kernel/nm-e2e.sh starts it): the
# real NetworkManager 1.42, its D-Bus and nm-dispatcher, with ibnm as
# `make install` or the .deb packages lay it out (STAGE, copied over /), on
# Debian's kernel with real rdma_rxe, siw and configfs rdma_cm, none of them
# loaded beforehand. Prints "PASS: ..." / "FAIL: ..." per check and exits
# with the number of failures.
#
#   nm-e2e-guest.sh STAGE PREFIX LIBIBNM HOOK
# LIBIBNM and HOOK: where libibnm.so.0 and the dispatcher hook 90-ibnm are
# installed (their paths under STAGE).
set -u
stage=$1
prefix=$2
libibnm=$3
hook=$4
fails=0
check() { # check NAME COMMAND...: runs the command, counts a failure
  local name=$1; shift
  if "$@"; then echo "PASS: $name"; else echo "FAIL: $name"; fails=$((fails + 1)); fi
}
has_link() { rdma link show 2>/dev/null | grep -q "link $1/"; }
no_link() { ! has_link "$1"; }
attr_is() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
not_loaded() { [ ! -d "/sys/module/$1" ]; }
loaded() { [ -d "/sys/module/$1" ]; }
nmcli_fails() { ! nmcli connection up "$1" >/tmp/up.out 2>&1; }
in_syslog() { grep -q -E -- "$1" /run/syslog.log; }

cp -a "$stage"/. /
export PATH=$prefix/bin:$PATH
mkdir -p /etc/NetworkManager/system-connections /var/lib/NetworkManager /run/NetworkManager /run/dbus/services
[ -e /var/run ] || ln -s /run /var/run
# The library where the dynamic linker looks (ldconfig's job on a host; the
# guest has no ld.so.conf for /usr/local/lib): the packages put it there.
case ${libibnm%/*} in
  /usr/lib/x86_64-linux-gnu | /lib/x86_64-linux-gnu | /usr/lib) ;;
  *) cp -a "${libibnm%/*}"/libibnm.so* /usr/lib/x86_64-linux-gnu/ ;;
esac
# The hook where NetworkManager looks for packages' scripts: the packages
# (and make install with --prefix=/usr) put it there; a /usr/local install's
# goes there as an admin would put it.
case ${hook%/90-ibnm} in
  /usr/lib/NetworkManager/dispatcher.d | /etc/NetworkManager/dispatcher.d) ;;
  *) mkdir -p /usr/lib/NetworkManager && cp -a "${hook%/90-ibnm}" /usr/lib/NetworkManager/ ;;
esac
check "the hook and its links where NetworkManager looks" eval \
  '[ -x /usr/lib/NetworkManager/dispatcher.d/90-ibnm ] || [ -x /etc/NetworkManager/dispatcher.d/90-ibnm ]'
echo 0123456789abcdef0123456789abcdef > /etc/machine-id
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
printf '[D-BUS Service]\nName=org.freedesktop.nm_dispatcher\nExec=/usr/lib/NetworkManager/nm-dispatcher\nUser=root\n' \
  > /run/dbus/services/org.freedesktop.nm_dispatcher.service

check "no RDMA module and no configfs loaded beforehand" \
  eval 'not_loaded rdma_rxe && not_loaded siw && not_loaded rdma_cm && not_loaded configfs'

busybox syslogd -O /run/syslog.log -S
dbus-daemon --nofork --config-file=/run/dbus/bus.conf &
sleep 0.5
# No udevd in the guest: NetworkManager waits for udev while /sys is writable.
unshare -m --propagation private sh -c 'mount -o remount,bind,ro /sys && exec NetworkManager --no-daemon' \
  >/run/nm.out 2>&1 &
t0=$(date +%s)
check "NetworkManager starts" nm-online -s -q -t 120
echo "NetworkManager ready after $(( $(date +%s) - t0 )) s"

ip link add veth-a type veth peer name veth-b && ip link set veth-b up
ip link add veth-c type veth peer name veth-d && ip link set veth-d up
ip link add veth-e type veth peer name veth-f && ip link set veth-f up
sleep 1

# rxe over veth-a, with RoCE mode and ToS; ibnm's keys go in over D-Bus
# while NetworkManager runs.
nmcli connection add type ethernet con-name rxe-a ifname veth-a autoconnect no \
  ipv4.method manual ipv4.addresses 198.51.100.1/24 ipv6.method disabled >/dev/null
check "ibnm connection modify over D-Bus" \
  ibnm connection modify rxe-a rdma.link-type rxe rdma.link-name rxe0 rdma.roce-mode v2 rdma.roce-tos 106
check "NetworkManager's keyfile has the keys" \
  grep -q '^rdma.link-name=rxe0' /etc/NetworkManager/system-connections/rxe-a.nmconnection
for cycle in 1 2; do
  check "rxe cycle $cycle: nmcli connection up" nmcli connection up rxe-a
  check "rxe cycle $cycle: rxe0 over veth-a" has_link rxe0
  check "rxe cycle $cycle: configfs RoCE mode" attr_is /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_mode "RoCE v2"
  check "rxe cycle $cycle: configfs RoCE ToS" attr_is /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos 106
  check "rxe cycle $cycle: nmcli connection down" nmcli connection down rxe-a
  check "rxe cycle $cycle: rxe0 removed" no_link rxe0
done
check "the hook loaded rdma_rxe, rdma_cm and configfs" eval 'loaded rdma_rxe && loaded rdma_cm && loaded configfs'

# The same through ibnm: with NetworkManager running, `ibnm connection up`
# asks NetworkManager (as nmcli does), which owns the activation and runs
# the hook for the RDMA part; nothing is "connected (externally)".
exits() { # exits STATUS COMMAND...: the command exits with STATUS
  local want=$1; shift
  "$@" >/tmp/cmd.out 2>&1; local got=$?
  [ "$got" -eq "$want" ] || { echo "exit $got, not $want:"; cat /tmp/cmd.out; return 1; }
}
nm_active() { nmcli -t -f NAME,DEVICE,STATE connection show --active | grep -qx "$1"; }
for cycle in 1 2; do
  check "rxe ibnm cycle $cycle: ibnm connection up" eval 'ibnm connection up rxe-a > /tmp/ibnm-up.out 2>&1'
  cat /tmp/ibnm-up.out
  check "rxe ibnm cycle $cycle: the report's last line names ibnm rdma test" \
    eval 'tail -n 1 /tmp/ibnm-up.out | grep -q "ibnm rdma test --profile rxe-a PEER"'
  check "rxe ibnm cycle $cycle: NetworkManager has rxe-a activated on veth-a" nm_active "rxe-a:veth-a:activated"
  check "rxe ibnm cycle $cycle: not connected externally" eval 'nmcli -t -f DEVICE,STATE device | grep -qx "veth-a:connected"'
  check "rxe ibnm cycle $cycle: ibnm connection show lists veth-a" \
    eval 'ibnm -t -f NAME,DEVICE connection show | grep -qx "rxe-a:veth-a"'
  check "rxe ibnm cycle $cycle: the hook made rxe0 over veth-a" has_link rxe0
  check "rxe ibnm cycle $cycle: configfs RoCE mode" attr_is /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_mode "RoCE v2"
  check "rxe ibnm cycle $cycle: ibnm connection down" ibnm connection down rxe-a
  check "rxe ibnm cycle $cycle: rxe0 removed" no_link rxe0
done
check "ibnm connection down of an inactive profile exits 10" exits 10 ibnm connection down rxe-a

# Over a profile's life: its keys changed, then removed, while it is active.
# NetworkManager takes down the connection it applied, and so does the hook
# (its record in /run/ibnm/hook), whatever the profile says now.
check "lifecycle: nmcli connection up" nmcli connection up rxe-a
check "lifecycle: rxe0 over veth-a" has_link rxe0
# What rxe0 cannot do is refused when written, without a chosen host (issue
# 30): traffic class files are mlx5's. A device not here lets a profile wait.
check "traffic class on rxe0 refused at add" eval '! ibnm connection add type ethernet con-name tc-a ifname veth-a \
  autoconnect no rdma.traffic-class 106 >/tmp/tc.out 2>&1 && grep -q "rdma.traffic-class: rxe0 has no traffic class" \
  /tmp/tc.out && ! nmcli connection show tc-a >/dev/null 2>&1'
check "traffic class for an absent device kept at add" eval 'ibnm connection add type ethernet con-name tc-b \
  ifname veth-none autoconnect no rdma.traffic-class 106 >/tmp/tc.out 2>&1 && ibnm connection delete tc-b'
check "lifecycle: the hook recorded the activation" test -f /run/ibnm/hook/$(nmcli -g connection.uuid connection show rxe-a).nmconnection
check "lifecycle: link name changed while active" ibnm connection modify rxe-a rdma.link-name rxe1
check "lifecycle: the activation keeps rxe0 until reapplied" has_link rxe0
check "lifecycle: nmcli device reapply" nmcli device reapply veth-a
# nm-dispatcher runs the reapply event after nmcli returns.
for i in $(seq 1 50); do has_link rxe1 && break; sleep 0.2; done
check "lifecycle: after reapply rxe1 over veth-a" has_link rxe1
check "lifecycle: after reapply rxe0 removed" no_link rxe0
check "lifecycle: keys removed while active" ibnm connection modify rxe-a rdma.link-type "" rdma.link-name "" rdma.roce-mode "" rdma.roce-tos ""
check "lifecycle: --dry-run down shows the hook removing rxe1" \
  eval 'ibnm --dry-run connection down rxe-a | grep -q "delete-rdma-link *rxe1"'
check "lifecycle: rxe1 still there after the dry run" has_link rxe1
check "lifecycle: nmcli connection down" nmcli connection down rxe-a
check "lifecycle: rxe1 removed although the profile has no keys now" no_link rxe1
check "lifecycle: the record is gone" eval '! ls /run/ibnm/hook/*.nmconnection 2>/dev/null | grep -q .'
check "lifecycle: keys back" ibnm connection modify rxe-a rdma.link-type rxe rdma.link-name rxe0 rdma.roce-mode v2 rdma.roce-tos 106

# siw over veth-c: siw takes RoCE v1 defaults only.
nmcli connection add type ethernet con-name siw-c ifname veth-c autoconnect no \
  ipv4.method manual ipv4.addresses 192.0.2.1/24 ipv6.method disabled >/dev/null
ibnm connection modify siw-c rdma.link-type siw rdma.link-name siw0 rdma.roce-mode v1 rdma.roce-tos 32
for cycle in 1 2; do
  check "siw cycle $cycle: nmcli connection up" nmcli connection up siw-c
  check "siw cycle $cycle: siw0 over veth-c" has_link siw0
  check "siw cycle $cycle: configfs RoCE ToS" attr_is /sys/kernel/config/rdma_cm/siw0/ports/1/default_roce_tos 32
  check "siw cycle $cycle: nmcli connection down" nmcli connection down siw-c
  check "siw cycle $cycle: siw0 removed" no_link siw0
done

# A provisioning failure: RoCE v1 on rxe, which the device refuses, written
# into the keyfile past ibnm's check.
cat > /etc/NetworkManager/system-connections/bad-a.nmconnection <<EOF
[connection]
id=bad-a
uuid=2f1d8c3e-6a4b-4e2f-9b1a-7c5d3e8f0a12
type=ethernet
interface-name=veth-a
autoconnect=false

[ipv4]
method=disabled

[ipv6]
method=disabled

[user]
rdma.link-name=rxe9
rdma.link-type=rxe
rdma.roce-mode=v1
EOF
chmod 600 /etc/NetworkManager/system-connections/bad-a.nmconnection
nmcli connection load /etc/NetworkManager/system-connections/bad-a.nmconnection
links_before=$(rdma link show 2>/dev/null)
check "a failed provisioning makes nmcli connection up fail" nmcli_fails bad-a
cat /tmp/up.out
check "the host is as before" eval '[ "$(rdma link show 2>/dev/null)" = "$links_before" ]'
check "veth-a is not activated" eval '! nmcli -g GENERAL.STATE connection show bad-a | grep -q activated'
check "syslog has the reason" in_syslog "2f1d8c3e-6a4b-4e2f-9b1a-7c5d3e8f0a12: pre-up failed"
check "NetworkManager logs the hook's failure" in_syslog "NetworkManager.*pre-up.d/90-ibnm' exited with status 1"
check "NetworkManager logs the disconnect" \
  in_syslog "NetworkManager.*device \(veth-a\): state change: (prepare|config|ip-config|ip-check|secondaries) -> deactivating \(reason 'user-requested'"
check "the same failure through ibnm connection up exits 4" exits 4 ibnm connection up bad-a
cat /tmp/cmd.out
check "ibnm says the activation failed" grep -q "^Error: Connection activation failed: " /tmp/cmd.out
check "after ibnm's failed up the host is as before" eval '[ "$(rdma link show 2>/dev/null)" = "$links_before" ]'

# A profile without ibnm keys is left alone.
nmcli connection add type ethernet con-name plain-e ifname veth-e autoconnect no \
  ipv4.method manual ipv4.addresses 203.0.113.1/24 ipv6.method disabled >/dev/null
uuid_e=$(nmcli -g connection.uuid connection show plain-e)
links_before=$(rdma link show 2>/dev/null)
check "plain profile: nmcli connection up" nmcli connection up plain-e
check "plain profile: no RDMA change" eval '[ "$(rdma link show 2>/dev/null)" = "$links_before" ]'
check "plain profile: the hook logged nothing for it" eval '! grep -q "ibnm-dispatcher.*$uuid_e" /run/syslog.log'

if [ $fails -ne 0 ]; then
  echo "---- syslog"; tail -n 80 /run/syslog.log; echo "---- NetworkManager"; tail -n 20 /run/nm.out
fi
echo "nm-e2e: $fails failed"
exit $fails
