#!/bin/bash
# editor-vpn.sh OUTDIR NAME EDITOR-ARGS KEY VALUE: opens nm-connection-editor
# (EDITOR-ARGS: "--edit=UUID", or "--create --type=ibnm" for a new RDMA
# secondary, what "+" -> VPN -> "RDMA provisioning (ibnm)" opens) on a
# private Xvfb display against the NetworkManager of the system bus, waits
# for ibnm's page, takes a screenshot (OUTDIR/editor-NAME.png), types VALUE
# into the field KEY through accessibility (tests/integration/editor-a11y.py),
# takes another (OUTDIR/editor-NAME-typed.png), prints the page's findings and
# presses Save. The caller sets NM_VPN_PLUGIN_DIR (where the .name file is)
# and LD_LIBRARY_PATH (libibnm of the build tree). Exit 77 when the GUI or
# accessibility tools are missing (.ci/run installs them).
set -u
out=$1 name=$2 args=$3 key=$4 value=$5
here=$(cd "$(dirname "$0")" && pwd)
for t in Xvfb xdotool import nm-connection-editor dbus-run-session; do
  command -v "$t" >/dev/null || { echo "editor-vpn: SKIP: $t is not installed"; exit 77; }
done
/usr/bin/python3 -c 'import gi; gi.require_version("Atspi", "2.0")' 2>/dev/null ||
  { echo "editor-vpn: SKIP: gir1.2-atspi-2.0 (python3-gi) is not installed"; exit 77; }
[ -x /usr/libexec/at-spi-bus-launcher ] ||
  { echo "editor-vpn: SKIP: at-spi2-core is not installed"; exit 77; }
mkdir -p "$out"
work=$(mktemp -d /tmp/ibnm-editor.XXXXXX)
trap 'kill $xpid 2>/dev/null; wait $xpid 2>/dev/null; rm -rf "$work"' EXIT
disp=
for n in $(seq 90 130); do
  [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ] || { disp=$n; break; }
done
[ -n "$disp" ] || { echo "editor-vpn: no free X display"; exit 1; }
Xvfb :$disp -screen 0 1024x768x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xpid=$!
for i in $(seq 100); do [ -S /tmp/.X11-unix/X$disp ] && break; sleep 0.05; done
# Accessibility on (no NO_AT_BRIDGE): the test reads the page through it.
export DISPLAY=:$disp HOME=$work XDG_RUNTIME_DIR=$work XDG_CONFIG_HOME=$work/.config GSETTINGS_BACKEND=memory
export LC_ALL=${LC_ALL:-C.UTF-8}
unset NO_AT_BRIDGE

dbus-run-session -- bash -c '
  set -u
  out=$1 name=$2 args=$3 key=$4 value=$5 here=$6
  a11y="/usr/bin/python3 $here/editor-a11y.py"
  nm-connection-editor $args >"$HOME/editor.log" 2>&1 & ed=$!
  fail() { echo "editor-vpn: $*"; cat "$HOME/editor.log"; kill $ed 2>/dev/null; exit 1; }
  $a11y wait "$key" || fail "the page did not show"
  # No window manager: the window keeps the size it first had, which is
  # the page without the findings; give it room, and keep the pointer off
  # it (no tooltip in the screenshots).
  w=$(xdotool search --onlyvisible --classname nm-connection-editor 2>/dev/null | tail -1)
  [ -n "$w" ] && xdotool windowsize "$w" 640 720 && xdotool windowmove "$w" 0 0
  xdotool mousemove 1000 740
  sleep 1
  shot() { if [ -n "$w" ]; then timeout 30 import -window "$w" "$1"; else timeout 30 import -window root "$1"; fi; }
  shot "$out/editor-$name.png" || fail "no screenshot"
  echo "editor-vpn: screenshot $out/editor-$name.png"
  $a11y set "$key" "$value" || fail "cannot type into $key"
  sleep 1
  shot "$out/editor-$name-typed.png"
  echo "editor-vpn: screenshot $out/editor-$name-typed.png"
  echo "editor-vpn: $key is now: $($a11y get "$key")"
  $a11y findings | sed "s/^/editor-vpn: finding: /"
  $a11y press Save || fail "cannot press Save"
  sleep 2
  kill $ed 2>/dev/null; wait $ed 2>/dev/null
  grep -i "critical\|warning" "$HOME/editor.log" | sed "s/^/editor-vpn: editor log: /"
  exit 0
' editor "$out" "$name" "$args" "$key" "$value" "$here"
