#!/bin/sh
# libibnm.so exports exactly the C API listed in libcore/libibnm.sym: only
# ibnm_* symbols, none missing, none extra. Update the list with the API.
set -eu
so="$top_builddir/libcore/.libs/libibnm.so"
[ -f "$so" ] || { echo "check-symbols: $so not built"; exit 1; }
actual=$(${NM:-nm} -D --defined-only "$so" | awk '$2 ~ /^[TDRBVWiu]$/ { print $3 }' | sed 's/@.*//' | LC_ALL=C sort -u)
expected=$(grep -v '^#' "$top_srcdir/libcore/libibnm.sym" | grep -v '^$' | LC_ALL=C sort -u)
bad=$(printf '%s\n' "$actual" | grep -v '^ibnm_' || true)
if [ -n "$bad" ]; then
  echo "check-symbols: symbols outside the ibnm_ namespace are exported:"; echo "$bad"; exit 1
fi
if [ "$actual" != "$expected" ]; then
  echo "check-symbols: exported symbols differ from libcore/libibnm.sym (- listed, + exported):"
  printf '%s\n' "$expected" > "${TMPDIR:-/tmp}/ibnm-sym-expected.$$"
  printf '%s\n' "$actual" > "${TMPDIR:-/tmp}/ibnm-sym-actual.$$"
  diff -u "${TMPDIR:-/tmp}/ibnm-sym-expected.$$" "${TMPDIR:-/tmp}/ibnm-sym-actual.$$" | tail -n +3 || true
  rm -f "${TMPDIR:-/tmp}/ibnm-sym-expected.$$" "${TMPDIR:-/tmp}/ibnm-sym-actual.$$"
  exit 1
fi
echo "check-symbols: $(printf '%s\n' "$actual" | wc -l) symbols, all listed"
