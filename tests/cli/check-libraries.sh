#!/bin/sh
# Issue 33: ibnm is one program linked with libibnm.so (as nmcli is with
# libnm), and libibnm.so links what the Linux platform calls (libnl,
# libibverbs, libkmod, librdmacm): package tools see every dependency in the
# NEEDED entries, and a missing library stops ibnm when it starts, not at the
# first activation. The dynamic linker's own account (LD_DEBUG=files) says
# for each object it loads whether it was needed or opened at run time
# ("dynamically loaded by"). No command of ibnm opens a library at run time,
# except what others open by design: --simulate the simulator (a test and
# demo tool; the control that shows this check sees run-time loads),
# libibverbs its providers (rdma-core's plugin ABI) and libc its NSS and
# gconv modules.
set -eu
ibnm="${top_builddir:?}/cli/ibnm"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibnm-libs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sys/class/net" "$tmp/sys/class/infiniband" "$tmp/keyfiles"
unset IBNM_SIMULATE IBNM_SIMULATE_STATE IBNM_SYSFS_ROOT || true

# The objects opened at run time for `ibnm ARGS` ("OBJECT by OPENER"), one
# per line; the command's exit status does not matter (this machine has no
# RDMA device), only what it loaded.
opened() {
  LD_DEBUG=files "$ibnm" "$@" > "$tmp/out" 2> "$tmp/debug" || true
  sed -n 's/.*file=\([^ ]*\) *\[[0-9]*\]; *dynamically loaded by \([^ ]*\).*/\1 by \2/p' "$tmp/debug" | sort -u
}

# A libc without LD_DEBUG (not glibc) tells nothing: skip.
LD_DEBUG=files "$ibnm" --version > /dev/null 2> "$tmp/debug" || true
if ! grep -q 'file=' "$tmp/debug"; then
  echo "check-libraries: SKIP: the dynamic linker does not report with LD_DEBUG=files"
  exit 77
fi

status=0
# The control: --simulate opens the simulator at run time, and the check sees it.
control=$(opened --simulate "${top_srcdir:?}/examples/hosts/mlx4-dual-port.host" \
  --keyfile-dir "$tmp/keyfiles" device status)
if ! printf '%s\n' "$control" | grep -q '^[^ ]*libibnm-simulator\.so'; then
  echo "check-libraries: --simulate did not open libibnm-simulator.so at run time: the check cannot see it"
  printf '%s\n' "$control"
  status=1
fi

for args in "version" "device status" "--sysfs-root $tmp/sys device show" "-j --sysfs-root $tmp/sys device show" \
    "rdma link show" "rdma gid show" "--keyfile-dir $tmp/keyfiles connection show" \
    "--keyfile-dir $tmp/keyfiles check" \
    "--offline connection add type infiniband con-name ib0 ifname ib0"; do
  # shellcheck disable=SC2086
  libs=$(opened $args | grep -v -e ' by [^ ]*/libc\.so\.6$' -e ' by [^ ]*/libibverbs\.so\.1$' || true)
  if [ -n "$libs" ]; then
    echo "check-libraries: 'ibnm $args' opened at run time:"; printf '%s\n' "$libs"; status=1
  else
    echo "check-libraries: 'ibnm $args' opened no library at run time"
  fi
done

# What the Linux platform calls is in libibnm.so's NEEDED entries.
if command -v readelf > /dev/null 2>&1; then
  needed=$(LC_ALL=C readelf -d "$top_builddir/libcore/.libs/libibnm.so.0" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  for lib in libnm libnl-3 libnl-route-3 libibverbs libkmod librdmacm libjson-glib-1.0 libyaml-0; do
    printf '%s\n' "$needed" | grep -q "^$lib\.so\." || { echo "check-libraries: libibnm.so does not link $lib"; status=1; }
  done
fi
exit $status
