#!/bin/sh
# Each library exports exactly the names its version script lists, each in
# its versioned node: libibnm.so (libcore/libibnm.ver: IBNM_0.1, and
# IBNM_PRIVATE for the simulator) and libibnm-simulator.so
# (libcore/simulator/libibnm-simulator.ver). Nothing outside ibnm_ leaves
# either, and libibnm.so holds no simulator code.
set -eu
status=0
tmp="${TMPDIR:-/tmp}/ibnm-sym.$$"
trap 'rm -f "$tmp".*' EXIT

# "name@NODE" for each name listed in a version script's global: parts.
listed() {
  awk '
    /^[ \t]*\/\*/ { next }
    /^[A-Za-z_0-9.]+[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); glob = 0; next }
    /global:/ { glob = 1; next }
    /local:/ { glob = 0; next }
    glob && /^[ \t]*[a-z_0-9]+;/ { gsub(/[ \t;]/, ""); print $0 "@" node }
  ' "$1" | LC_ALL=C sort -u
}

check() {
  so="$1" ver="$2"
  [ -f "$so" ] || { echo "check-symbols: $so not built"; status=1; return; }
  # nm prints "name@@NODE" for a versioned definition.
  ${NM:-nm} -D --defined-only "$so" | awk '$2 ~ /^[TDRBVWiu]$/ { sub(/@@/, "@", $3); print $3 }' |
    LC_ALL=C sort -u > "$tmp.actual"
  listed "$ver" > "$tmp.expected"
  bad=$(cut -d@ -f1 "$tmp.actual" | grep -v '^ibnm_' || true)
  if [ -n "$bad" ]; then
    echo "check-symbols: $so exports symbols outside the ibnm_ namespace:"; echo "$bad"; status=1
  fi
  if ! cmp -s "$tmp.expected" "$tmp.actual"; then
    echo "check-symbols: $so differs from $ver (- listed, + exported):"
    diff -u "$tmp.expected" "$tmp.actual" | tail -n +3 || true
    status=1
  else
    echo "check-symbols: $so: $(wc -l < "$tmp.actual") symbols, each in its node of $(basename "$ver")"
  fi
}

check "$top_builddir/libcore/.libs/libibnm.so" "$top_srcdir/libcore/libibnm.ver"
check "$top_builddir/libcore/.libs/libibnm-simulator.so" "$top_srcdir/libcore/simulator/libibnm-simulator.ver"

# Debian's symbols file lists every public symbol with the upstream version
# that brought it: one it lacks, dpkg-gensymbols adds with the Debian
# revision, which lintian refuses (symbols-file-contains-current-version-
# with-debian-revision) and which would make packages depend on this
# revision for no reason.
symbols="$top_srcdir/debian/libibnm0.symbols"
if [ -f "$symbols" ]; then
  listed "$top_srcdir/libcore/libibnm.ver" | grep '@IBNM_0\.1$' > "$tmp.public" || true
  awk '/^ ibnm_[a-z_0-9]*@IBNM_0\.1 / { print $1 }' "$symbols" | LC_ALL=C sort -u > "$tmp.debian"
  if ! cmp -s "$tmp.public" "$tmp.debian"; then
    echo "check-symbols: debian/libibnm0.symbols differs from libibnm.ver's IBNM_0.1 (- ver, + symbols file):"
    diff -u "$tmp.public" "$tmp.debian" | tail -n +3 || true
    status=1
  else
    echo "check-symbols: debian/libibnm0.symbols lists the $(wc -l < "$tmp.public") public symbols"
  fi
fi

# The simulator, which libibnm's programs open and which links libibnm.so,
# registers no GType of libibnm's: a type is libibnm.so's, and GObject
# refuses a second registration of its name. What a library imports shows
# it, stripped or not.
for so in libibnm-simulator.so; do
  file="$top_builddir/libcore/.libs/$so"
  [ -f "$file" ] || { echo "check-symbols: $file not built"; status=1; continue; }
  regs=$(${NM:-nm} -D --undefined-only "$file" | awk '{ sub(/@.*/, "", $2); print $2 }' |
    grep -E '^g_(type_register_|[a-z_]+_register_(static|dynamic))' || true)
  if [ -n "$regs" ]; then
    echo "check-symbols: $so registers a GType of its own:"; echo "$regs"; status=1
  else
    echo "check-symbols: $so registers no GType"
  fi
done

# The production library carries no simulator: no fault injection, no
# simulated host files.
if strings "$top_builddir/libcore/.libs/libibnm.so" | grep -q 'IBNM_FAKE_FAIL'; then
  echo "check-symbols: libibnm.so contains the simulator's fault injection (IBNM_FAKE_FAIL)"; status=1
fi
exit $status
