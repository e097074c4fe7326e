#!/bin/sh
# CI (.ci/run): fuzzes each harness of a --enable-fuzzers build for
# FUZZ_SECONDS (default 60) from its seed corpus, with ASan and UBSan. A
# crash fails the run; libFuzzer writes the input as crash-* into
# tests/fuzz/crashes/NAME/ (commit it with the fix: make check replays it).
# Usage: tests/fuzz/run-fuzzers.sh BUILDDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run-fuzzers.sh BUILDDIR}
seconds=${FUZZ_SECONDS:-60}
# A fixed seed by default: CI replays what a developer ran (README.md).
seed=${FUZZ_SEED:-1}
names="keyfile-dir ifcfg nmcli-args host-file sysfs netlink apply"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in $names; do
  mkdir -p "$work/$name" "$here/crashes/$name"
  cp "$here/corpus/$name"/* "$work/$name/"
  [ "$name" = host-file ] && cp "$here"/../../examples/hosts/*.host "$work/$name/"
  echo "fuzz-$name: fuzzing for $seconds s from seed $seed"
  "$build/tests/fuzz/fuzz-$name" -seed="$seed" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$here/crashes/$name/" "$work/$name" 2>"$work/$name.log" || {
    echo "fuzz-$name: crashed:"; tail -n 60 "$work/$name.log"; exit 1; }
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$work/$name.log" | sed "s/^/fuzz-$name: /"
done
echo "fuzzers: $(echo $names | wc -w) harnesses, $seconds s each, no crash"
