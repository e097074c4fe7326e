#!/bin/sh
# Every translation passes msgfmt -c, and every language in LINGUAS has one.
set -eu
msgfmt=${MSGFMT:-msgfmt}
[ -n "$msgfmt" ] || msgfmt=msgfmt
fail=0
for lang in $(grep -v '^#' "$top_srcdir/po/LINGUAS"); do
  po="$top_srcdir/po/$lang.po"
  if [ ! -f "$po" ]; then echo "check-po: $lang is in LINGUAS but $po is missing"; fail=1; continue; fi
  if ! "$msgfmt" -c --check-accelerators -o /dev/null "$po"; then
    echo "check-po: $po fails msgfmt -c"; fail=1
  fi
done
[ $fail -eq 0 ] && echo "check-po: all catalogues pass msgfmt -c"
exit $fail
