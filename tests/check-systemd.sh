#!/bin/sh
# The boot unit passes systemd-analyze verify (its ExecStart binary is the
# built ibnm, substituted in a copy). Skips (77) without systemd-analyze.
set -eu
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "check-systemd: SKIP: systemd-analyze is absent (package systemd)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e "s|@bindir@|$top_builddir/cli|g" -e "s|@nmkeyfiledir@|/etc/NetworkManager/system-connections|g" \
  "$top_srcdir/systemd/ibnm.service.in" > "$tmp/ibnm.service"
# Units the unit names but this machine may not have (rdma-core) are not errors.
out=$(cd "$tmp" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$tmp/ibnm.service" 2>&1) || {
  echo "$out"; echo "check-systemd: systemd-analyze verify failed"; exit 1; }
if printf '%s\n' "$out" | grep -v -e 'rdma-hw.target' -e 'rdma-load-modules' -e '^$' | grep -q .; then
  echo "$out"; echo "check-systemd: systemd-analyze verify reported problems"; exit 1
fi
echo "check-systemd: systemd/ibnm.service passes systemd-analyze verify"
