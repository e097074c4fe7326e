#!/bin/bash
# editor-save.sh UUID NAME OUTDIR: opens the profile in nm-connection-editor on
# a private Xvfb display against the NetworkManager at $DBUS_SYSTEM_BUS_ADDRESS,
# takes a screenshot, clicks Save, takes another. Exit 77 when the GUI tools
# are missing (.ci/run installs them: xvfb xdotool imagemagick
# network-manager-gnome).
set -u
uuid=$1 name=$2 out=$3
for t in Xvfb xdotool import nm-connection-editor dbus-run-session; do
  command -v "$t" >/dev/null || { echo "editor-save: SKIP: $t is not installed"; exit 77; }
done
mkdir -p "$out"
work=$(mktemp -d /tmp/ibnm-editor.XXXXXX)
trap 'kill $xpid 2>/dev/null; wait $xpid 2>/dev/null; rm -rf "$work"' EXIT
# A display nobody else uses.
disp=
for n in $(seq 90 120); do
  [ -e /tmp/.X11-unix/X$n ] || [ -e /tmp/.X$n-lock ] || { disp=$n; break; }
done
[ -n "$disp" ] || { echo "editor-save: no free X display"; exit 1; }
Xvfb :$disp -screen 0 1280x900x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xpid=$!
for i in $(seq 100); do [ -S /tmp/.X11-unix/X$disp ] && break; sleep 0.05; done
export DISPLAY=:$disp HOME=$work XDG_RUNTIME_DIR=$work XDG_CONFIG_HOME=$work/.config NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory

dbus-run-session -- bash -c '
  set -u
  uuid=$1 name=$2 out=$3
  nm-connection-editor --edit="$uuid" >"$HOME/editor.log" 2>&1 & ed=$!
  w=
  for i in $(seq 150); do
    w=$(xdotool search --name "Editing $name" 2>/dev/null | head -1); [ -n "$w" ] && break; sleep 0.1
  done
  [ -n "$w" ] || { echo "editor-save: no editor window for $name"; cat "$HOME/editor.log"; kill $ed; exit 1; }
  sleep 1.5
  import -window root "$out/editor-$name.png"
  geo=$(xdotool getwindowgeometry "$w" | sed -n "s/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p")
  set -- $geo
  # Save is the bottom-right button (no window manager: mouse only).
  xdotool mousemove --window "$w" $(( $1 - 50 )) $(( $2 - 24 )) click 1
  sleep 1.5
  import -window root "$out/editor-$name-after-save.png"
  kill $ed 2>/dev/null; wait $ed 2>/dev/null
  exit 0
' editor "$uuid" "$name" "$out"
