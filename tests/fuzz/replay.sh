#!/bin/sh
# make check: every fuzz harness runs once over its seed corpus (from the
# project's own fixtures), the examples it reads, and every saved crash. In
# a plain build the harnesses have a replaying main(); in a libFuzzer build
# (--enable-fuzzers) -runs=0 makes libFuzzer do the same.
set -eu
src="$top_srcdir/tests/fuzz"
bin="$top_builddir/tests/fuzz"
total=0
for name in $FUZZ_NAMES; do
  set -- "$src/corpus/$name"
  [ -d "$src/crashes/$name" ] && set -- "$@" "$src/crashes/$name"
  case $name in
    host-file) set -- "$@" "$top_srcdir"/examples/hosts/*.host ;;
  esac
  n=0
  for d in "$@"; do
    if [ -d "$d" ]; then n=$((n + $(find "$d" -maxdepth 1 -type f ! -name README ! -name '.*' | wc -l))); else n=$((n + 1)); fi
  done
  echo "fuzz-$name: replaying $n inputs"
  "$bin/fuzz-$name" -runs=0 "$@" >/dev/null 2>"$bin/fuzz-$name.replay.log" || {
    echo "fuzz-$name: an input failed:"; tail -n 30 "$bin/fuzz-$name.replay.log"; exit 1; }
  total=$((total + n))
done
echo "replay: $total inputs through $(echo $FUZZ_NAMES | wc -w) harnesses, no crash"
