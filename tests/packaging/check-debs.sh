#!/bin/bash
# CI's package stage (issue 29), as root on Debian 12: the .deb packages
# built from the release tarball as a distribution would (dpkg-buildpackage,
# debian/), checked with lintian, installed with apt, run, put through the
# kernel lab's NetworkManager story, and purged.
#
#   tests/packaging/check-debs.sh TARBALL|DIR [KERNEL-LAB]
#
# DIR: packages built already (the .debs and their .changes): steps 2-5.
# 1. dpkg-buildpackage -us -uc from the unpacked tarball, with its
#    Build-Depends installed by apt-get build-dep (nocheck: CI ran the suite);
#    lintian with no error (warnings are printed).
# 2. apt-get install ./*.deb (apt resolves their Depends), then, as a user
#    would: ibnm --version, ibnm device status, the demo on the packaged
#    simulator, Python through the typelib, ansible-doc on the packaged
#    collection, systemd-analyze verify on the packaged unit.
# 3. Every shared library that a packaged ELF file loads belongs to a package
#    its package depends on (directly or not): a library opened at run time
#    without a Depends would fail this on a machine without it.
# 4. The kernel lab's NetworkManager story (tests/kernel/nm-e2e.sh) on the
#    packages' files unpacked with dpkg-deb -x.
# 5. apt-get purge: no file of the packages is left, and /etc is as before
#    the install (the packages ship no conffile; nothing was configured).
#    A first install and purge brings the dependencies, whose own /etc files
#    and groups are then in the "before".
set -euo pipefail
input=$(realpath "$1")
lab=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
export DEBIAN_FRONTEND=noninteractive
work=$(mktemp -d /tmp/ibnm-debs.XXXXXX)
chmod 0755 "$work"
fail() { echo "check-debs: FAIL: $*"; exit 1; }
t0=$(date +%s)

# --- 1. build -----------------------------------------------------------------
if [ -d "$input" ]; then
  cp "$input"/*.deb "$work/"
  cp "$input"/ibnm_*.changes "$work/" 2>/dev/null || true
else
  apt-get install -y -qq --no-install-recommends dpkg-dev debhelper lintian > /dev/null
  version=$(basename "$input" | sed -n 's/^ibnm-\(.*\)\.tar\.xz$/\1/p')
  [ -n "$version" ] || fail "$input is not ibnm-VERSION.tar.xz"
  cp "$input" "$work/ibnm_$version.orig.tar.xz"
  tar -C "$work" -xf "$input"
  cd "$work/ibnm-$version"
  apt-get build-dep -y -qq ./ > /dev/null
  DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc > "$work/build.log" 2>&1 ||
    { tail -n 60 "$work/build.log"; fail "dpkg-buildpackage"; }
  cd "$work"
  echo "check-debs: built in $(( $(date +%s) - t0 )) s"
  lintian --fail-on error --display-level '>=warning' --tag-display-limit 0 "$work"/ibnm_*.changes ||
    fail "lintian reports errors"
fi
# The packages (the -dbgsym ones hold debugging symbols only).
mapfile -t debs < <(ls "$work"/*.deb | grep -v -- '-dbgsym_')
for deb in "${debs[@]}"; do
  printf '  %-46s %8s bytes, installed %6s KiB\n' "$(basename "$deb")" "$(stat -c %s "$deb")" \
    "$(dpkg-deb -f "$deb" Installed-Size)"
done
mapfile -t pkgs < <(for d in "${debs[@]}"; do dpkg-deb -f "$d" Package; done)

# --- 2. install and run -------------------------------------------------------------
# /etc's files and their checksums; ld.so.cache is rebuilt by ldconfig on
# every library change.
snapshot() {
  find /etc -xdev \( -type f -o -type l \) ! -path /etc/ld.so.cache -print0 | sort -z |
    xargs -0 md5sum 2>/dev/null || true
}
# The dependencies first (an install and a purge of the packages), so that
# /etc's snapshot already holds what they bring (groups, conffiles).
apt-get install -y -qq --no-install-recommends "${debs[@]}" > /dev/null || fail "apt-get install of the packages"
apt-get purge -y -qq "${pkgs[@]}" > /dev/null || fail "apt-get purge"
snapshot > "$work/etc.before"
apt-get install -y -qq --no-install-recommends "${debs[@]}" > /dev/null || fail "apt-get install of the packages"
ibnm --version
ibnm device status || fail "ibnm device status on this machine"
IBNM=/usr/bin/ibnm IBNM_DEMO_HOSTS=/usr/share/ibnm/hosts sh "$src/examples/demo.sh" > "$work/demo.log" 2>&1 ||
  { tail -n 30 "$work/demo.log"; fail "the demo with the packaged ibnm and simulator"; }
echo "check-debs: the demo passes with the packaged ibnm and ibnm-simulator"
# Debian's python3 (the packaged gir1.2 and python3-gi are its): a python3
# earlier in PATH (pyenv) has no PyGObject.
/usr/bin/python3 -c 'import gi; gi.require_version("Ibnm", "0.1"); from gi.repository import Ibnm; print("Python: Ibnm", Ibnm.get_version())' ||
  fail "the typelib from Python"
ANSIBLE_HOME=$work/ansible ansible-doc -t module ibnm.rdma.state > /dev/null 2>&1 ||
  fail "ansible-doc does not find the packaged collection ibnm.rdma"
unit=$(dpkg -L ibnm | grep '/ibnm\.service$')
out=$(SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$unit" 2>&1 | grep -v -e rdma-hw.target -e rdma-load-modules -e '^$' || true)
[ -z "$out" ] || { echo "$out"; fail "systemd-analyze verify $unit"; }
for d in pre-up.d pre-down.d; do
  [ -x "/usr/lib/NetworkManager/dispatcher.d/$d/90-ibnm" ] || fail "no hook link in /usr/lib/NetworkManager/dispatcher.d/$d"
done

# --- 3. every library loaded is depended on --------------------------------------------
# The package that ships a library, by the path ldd gives, its target, or
# either with or without /usr (Debian 12 registers /lib paths, merged into /usr).
owner_of() {
  local p r
  r=$(realpath "$1")
  for p in "$1" "$r" "${1#/usr}" "/usr$1" "${r#/usr}" "/usr$r"; do
    dpkg -S "$p" 2>/dev/null | grep -v '^diversion' | head -n 1 | sed 's/:.*//; s/, .*//' | grep . && return 0
  done
  return 0
}
for pkg in "${pkgs[@]}"; do
  # The packages this one depends on, recursively (with itself).
  closure=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "$pkg" | grep -v '^ ' | sed 's/:.*//; s/^<//; s/>$//' | sort -u)
  for f in $(dpkg -L "$pkg"); do
    [ -f "$f" ] && [ ! -L "$f" ] && head -c 4 "$f" | grep -q ELF || continue
    for lib in $(ldd "$f" | awk '/=> \//{ print $3 }'); do
      owner=$(owner_of "$lib")
      [ -n "$owner" ] || fail "$f loads $lib, which no package owns"
      printf '%s\n' "$closure" | grep -qx "$owner" || fail "$pkg: $f loads $lib of $owner, which $pkg does not depend on"
    done
  done
done
echo "check-debs: every library the packaged programs and libraries load comes from their Depends"

# --- 4. the kernel lab's NetworkManager story on the packaged files -----------------
if [ -n "$lab" ] && [ -x "$lab" ]; then
  stage=$work/stage
  mkdir -p "$stage"
  for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$stage"; done
  "$lab" setup > /dev/null && "$lab" build > /dev/null
  "$src/tests/kernel/nm-e2e.sh" "$lab" "$stage" || fail "the kernel lab's NetworkManager story on the packages"
elif [ -n "${IBNM_REQUIRE_LABS:-}" ] && [ "$IBNM_REQUIRE_LABS" != 0 ]; then
  fail "no kernel lab at '$lab' (IBNM_REQUIRE_LABS is set)"
else
  echo "check-debs: SKIP: no kernel lab: the NetworkManager story did not run on the packages"
fi

# --- 5. purge -------------------------------------------------------------------------
files=$(for p in "${pkgs[@]}"; do dpkg -L "$p"; done | sort -u)
apt-get purge -y -qq "${pkgs[@]}" > /dev/null || fail "apt-get purge"
for p in "${pkgs[@]}"; do
  ! dpkg -s "$p" > /dev/null 2>&1 || fail "$p is still known to dpkg after purge"
done
for f in $files; do
  [ -d "$f" ] || [ ! -e "$f" ] || fail "$f is left after purge"
done
snapshot > "$work/etc.after"
diff "$work/etc.before" "$work/etc.after" || fail "/etc differs after install and purge"
echo "check-debs: purged: no file of the packages and nothing in /etc left"
echo "check-debs: package stage took $(( $(date +%s) - t0 )) s"
rm -rf "$work"
