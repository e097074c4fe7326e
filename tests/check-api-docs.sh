#!/bin/sh
# The API reference is complete: gi-docgen finds every public symbol,
# parameter and return value of the GIRs documented (no warning at all).
set -eu
command -v gi-docgen >/dev/null 2>&1 ||
  { echo "SKIP: gi-docgen not found (Debian package gi-docgen, build-aux/install-deps)"; exit 77; }
[ -f "$top_builddir/libcore/Ibnm-0.1.gir" ] ||
  { echo "SKIP: no libcore/Ibnm-0.1.gir in this build (configure without GObject introspection)"; exit 77; }
status=0
for gir in Ibnm-0.1 IbnmSimulator-0.1; do
  file="$top_builddir/libcore/$gir.gir"
  [ -f "$file" ] || { echo "FAIL: $file is missing"; status=1; continue; }
  out=$(gi-docgen check --quiet --add-include-path "$top_builddir/libcore" "$file" 2>&1) || status=1
  if [ -n "$out" ]; then
    printf '%s\n' "$out"
    count=$(printf '%s\n' "$out" | grep -c -i 'warning' || true)
    echo "FAIL: $gir.gir: $count gi-docgen warning(s): document these symbols (gtk-doc comments with Since: 0.1)"
    status=1
  else
    echo "PASS: $gir.gir: every symbol documented"
  fi
done
exit $status
