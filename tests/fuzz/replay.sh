#!/bin/sh
# make check: every fuzz harness runs once over its seed corpus (from the
# project's own fixtures), the examples it reads, and every saved crash. In
# a plain build the harnesses have a replaying main(); in a libFuzzer build
# (--enable-fuzzers) -runs=0 makes libFuzzer do the same.
set -eu
src="$top_srcdir/tests/fuzz"
bin="$top_builddir/tests/fuzz"
# One directory per harness with every input in it: libFuzzer takes either
# directories or files, not both at once.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
total=0
for name in $FUZZ_NAMES; do
  in="$work/$name"
  mkdir -p "$in"
  set -- "$src/corpus/$name"
  [ -d "$src/crashes/$name" ] && set -- "$@" "$src/crashes/$name"
  case $name in
    host-file) set -- "$@" "$top_srcdir"/examples/hosts/*.host ;;
  esac
  k=0
  for d in "$@"; do
    k=$((k + 1))
    if [ -d "$d" ]; then
      find "$d" -maxdepth 1 -type f ! -name README ! -name '.*' | while read -r f; do
        cp "$f" "$in/$k-$(basename "$f")"
      done
    else
      cp "$d" "$in/$k-$(basename "$d")"
    fi
  done
  n=$(find "$in" -type f | wc -l)
  echo "fuzz-$name: replaying $n inputs"
  "$bin/fuzz-$name" -runs=0 "$in" >/dev/null 2>"$bin/fuzz-$name.replay.log" || {
    echo "fuzz-$name: an input failed:"; tail -n 30 "$bin/fuzz-$name.replay.log"; exit 1; }
  total=$((total + n))
done
echo "replay: $total inputs through $(echo $FUZZ_NAMES | wc -w) harnesses, no crash"
