#!/bin/sh
# The D-Bus policy of nm-ibnm-service (plugin/nm-ibnm-service.conf) in a
# system bus that, like Debian's system.conf, denies owning names and method
# calls by default: dbus-daemon 1.14 takes it, root may own the names
# NetworkManager gives the service (org.freedesktop.NetworkManager.ibnm and
# .Connection_N) and call them, another user may do neither. Skips (77)
# without dbus-daemon, dbus-send or setpriv, or when not run as root.
set -u
for t in dbus-daemon dbus-send setpriv; do
  command -v "$t" >/dev/null || { echo "check-dbus-policy: SKIP: no $t"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "check-dbus-policy: SKIP: needs root (to be root and nobody on the bus)"; exit 77; }
policy=$(cd "$top_srcdir" && pwd)/plugin/nm-ibnm-service.conf
dir=$(mktemp -d)
chmod 755 "$dir"
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
cat > "$dir/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <!-- Debian 12's /usr/share/dbus-1/system.conf, default context -->
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <include>$policy</include>
</busconfig>
EOF
dbus-daemon --nofork --config-file="$dir/bus.conf" >"$dir/daemon.log" 2>&1 &
pid=$!
for i in $(seq 100); do [ -S "$dir/bus" ] && break; sleep 0.05; done
[ -S "$dir/bus" ] || { echo "check-dbus-policy: dbus-daemon refused the policy:"; cat "$dir/daemon.log"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/bus"
fail=0
own() { # own USER NAME: whether USER may own NAME
  setpriv --reuid="$1" --regid="$1" --clear-groups dbus-send --system --print-reply --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.RequestName string:"$2" uint32:0 2>&1 | grep -q "uint32 1"
}
expect() { # expect yes|no DESCRIPTION COMMAND...
  want=$1 what=$2; shift 2
  if "$@"; then got=yes; else got=no; fi
  if [ "$got" = "$want" ]; then echo "PASS: $what"; else echo "FAIL: $what"; fail=1; fi
}
expect yes "root owns org.freedesktop.NetworkManager.ibnm" own 0 org.freedesktop.NetworkManager.ibnm
expect yes "root owns org.freedesktop.NetworkManager.ibnm.Connection_7" own 0 org.freedesktop.NetworkManager.ibnm.Connection_7
expect no "nobody owns org.freedesktop.NetworkManager.ibnm.Connection_8" own 65534 org.freedesktop.NetworkManager.ibnm.Connection_8
expect no "root owns no other name" own 0 org.freedesktop.NetworkManager.openvpn

# Calls: a root process holds a Connection_N name as the service does (GDBus
# answers org.freedesktop.DBus.Peer.Ping for it); root may call it, nobody
# may not.
if /usr/bin/python3 -c 'from gi.repository import Gio' 2>/dev/null; then
  /usr/bin/python3 -c '
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
Gio.bus_own_name_on_connection(bus, "org.freedesktop.NetworkManager.ibnm.Connection_9", 0, None, None)
GLib.MainLoop().run()' &
  holder=$!
  for i in $(seq 100); do own 0 org.freedesktop.NetworkManager.ibnm.Connection_9 || break; sleep 0.05; done
  ping() { # ping USER
    setpriv --reuid="$1" --regid="$1" --clear-groups dbus-send --system --print-reply \
      --dest=org.freedesktop.NetworkManager.ibnm.Connection_9 /org/freedesktop/NetworkManager/VPN/Plugin \
      org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1
  }
  expect yes "root calls the service" ping 0
  expect no "nobody calls the service" ping 65534
  kill $holder; wait $holder 2>/dev/null
else
  echo "check-dbus-policy: no python3-gi: the calls are not checked"
fi
[ $fail -eq 0 ] && echo "check-dbus-policy: the policy does what it says"
exit $fail
