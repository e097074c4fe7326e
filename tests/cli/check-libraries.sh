#!/bin/sh
# Issue 17: the read-only commands (device status, device show, rdma gid
# show, rdma link show) do not load libnm nor libibnm.so: cli/ibnm is built
# without them, and only the full CLI module (ibnm-cli.so), which a command
# that reads profiles opens, brings them. On a sysfs tree they load neither
# libnl, libibverbs nor libkmod: the Linux platform's module (ibnm-linux.so),
# which this machine's host opens, brings those. json-glib (and GIO behind
# it) is linked, not opened for -j (issue 29: package tools must see every
# dependency), so every command maps it. The dynamic linker's own account
# (LD_DEBUG=files) lists every object it loads, dlopen()ed ones included.
set -eu
ibnm="${top_builddir:?}/cli/ibnm"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibnm-libs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# An empty sysfs tree: the commands read it and print nothing.
mkdir -p "$tmp/sys/class/net" "$tmp/sys/class/infiniband" "$tmp/keyfiles"
unset IBNM_SIMULATE IBNM_SIMULATE_STATE IBNM_SYSFS_ROOT || true

# The objects the dynamic linker loads for `ibnm ARGS`, one per line.
loaded() {
  LD_DEBUG=files "$ibnm" --sysfs-root "$tmp/sys" "$@" > "$tmp/out" 2> "$tmp/debug" || {
    echo "check-libraries: 'ibnm $*' failed:"; cat "$tmp/debug" | grep -v '^ *[0-9]*:' ; exit 1; }
  sed -n 's/.*file=\([^ ]*\).*/\1/p' "$tmp/debug" | sort -u
}

# A libc without LD_DEBUG (not glibc) tells nothing: skip.
if [ -z "$(loaded --version)" ]; then
  echo "check-libraries: SKIP: the dynamic linker does not report with LD_DEBUG=files"
  exit 77
fi

status=0
# The control: a command that reads profiles loads them, so the check can fail.
control=$(loaded --keyfile-dir "$tmp/keyfiles" connection show)
for lib in libnm.so.0 libibnm.so.0 ibnm-cli.so libgio-2.0.so; do
  if ! printf '%s\n' "$control" | grep -q "$lib"; then
    echo "check-libraries: 'connection show' did not load $lib: the check cannot see it"; status=1
  fi
done

# The control of the Linux platform's module: this machine's host opens it
# (whether or not reading this machine then succeeds here).
LD_DEBUG=files "$ibnm" device status > "$tmp/out" 2> "$tmp/debug" || true
live=$(sed -n 's/.*file=\([^ ]*\).*/\1/p' "$tmp/debug" | sort -u)
for lib in ibnm-linux.so libnl-3.so libnl-route-3.so libibverbs.so libkmod.so; do
  if ! printf '%s\n' "$live" | grep -q "$lib"; then
    echo "check-libraries: 'device status' on this machine did not load $lib: the check cannot see it"; status=1
  fi
done

for cmd in "device status" "device show" "rdma gid show" "rdma link show" "-j device show" "version"; do
  # shellcheck disable=SC2086
  libs=$(loaded $cmd)
  # libnl, libibverbs and libkmod (and libcrypto behind it), and the module
  # that links them, only for this machine.
  for lib in libnm.so libibnm.so ibnm-cli.so libgnutls libp11-kit libkmod libcrypto ibnm-linux.so libnl-3.so \
      libnl-route-3.so libibverbs.so; do
    if printf '%s\n' "$libs" | grep -q "$lib"; then
      echo "check-libraries: 'ibnm $cmd' loads $lib"; status=1
    fi
  done
  if ! printf '%s\n' "$libs" | grep -q libjson-glib; then
    echo "check-libraries: 'ibnm $cmd' did not load json-glib, which ibnm links"; status=1
  fi
  echo "ibnm $cmd: $(printf '%s\n' "$libs" | wc -l) objects loaded, none of libnm, libibnm.so, ibnm-cli.so, libkmod, libnl, libibverbs"
done
exit $status
