#!/bin/sh
# Fuzzes each harness of a --enable-fuzzers build for FUZZ_SECONDS (default
# 60) from its seed corpus, with ASan and UBSan. A crash fails the run;
# libFuzzer writes the input as crash-* into tests/fuzz/crashes/NAME/ of the
# sources (commit it with the fix: make check replays it), or of BUILDDIR
# when the sources are read-only (make distcheck), and the input is printed
# in base64 so that a CI log carries it.
# Usage: tests/fuzz/run-fuzzers.sh [BUILDDIR]; make check of a libFuzzer
# build runs it (CI: the distcheck stage of .ci/run).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${top_builddir:?usage: run-fuzzers.sh BUILDDIR}}
seconds=${FUZZ_SECONDS:-60}
# A fixed seed by default: CI replays what a developer ran (README.md).
seed=${FUZZ_SEED:-1}
crashes=$here/crashes
if ! touch "$crashes/.writable" 2>/dev/null; then crashes=$build/tests/fuzz/crashes; fi
rm -f "$crashes/.writable"
names="keyfile-dir ifcfg nmcli-args host-file sysfs netlink apply"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in $names; do
  mkdir -p "$work/$name" "$crashes/$name"
  cp "$here/corpus/$name"/* "$work/$name/"
  [ "$name" = host-file ] && cp "$here"/../../examples/hosts/*.host "$work/$name/"
  echo "fuzz-$name: fuzzing for $seconds s from seed $seed"
  "$build/tests/fuzz/fuzz-$name" -seed="$seed" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/$name/" "$work/$name" 2>"$work/$name.log" || {
    echo "fuzz-$name: crashed:"; tail -n 60 "$work/$name.log"
    for f in "$crashes/$name"/crash-* "$crashes/$name"/leak-* "$crashes/$name"/timeout-* "$crashes/$name"/oom-*; do
      [ -f "$f" ] && [ "$f" -nt "$work/$name" ] || continue
      echo "fuzz-$name: $f, in base64 (base64 -d > tests/fuzz/crashes/$name/$(basename "$f")):"
      head -c 65536 "$f" | base64
    done
    exit 1; }
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$name.log" | sed "s/^/fuzz-$name: /"
done
echo "fuzzers: $(echo $names | wc -w) harnesses, $seconds s each, no crash"
