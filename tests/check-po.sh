#!/bin/sh
# Every translation passes msgfmt -c, every language in LINGUAS has one, and
# every user-visible message in the sources (_(), N_(), C_()) is translated,
# not fuzzy, in each of them.
set -eu
msgfmt=${MSGFMT:-msgfmt}
[ -n "$msgfmt" ] || msgfmt=msgfmt
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if command -v xgettext >/dev/null && command -v msgmerge >/dev/null; then
  (cd "$top_srcdir" && find libcore settings cli plugin -name '*.cpp' -o -name '*.hpp' | LC_ALL=C sort) > "$tmp/files"
  xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
    -D "$top_srcdir" -f "$tmp/files" -o "$tmp/all.pot" 2>"$tmp/xgettext.err" || { cat "$tmp/xgettext.err"; exit 1; }
  have_pot=1
else
  echo "check-po: xgettext/msgmerge missing: only msgfmt -c is checked"
  have_pot=0
fi

# Every file po/POTFILES.in names exists (gettext's po/Makefile stops on one
# that does not), and every source file with a translatable message is named.
for f in $(grep -v '^#' "$top_srcdir/po/POTFILES.in"); do
  [ -f "$top_srcdir/$f" ] || { echo "check-po: po/POTFILES.in names $f, which does not exist"; fail=1; }
done
for f in $(cd "$top_srcdir" && grep -rlE '(^|[^A-Za-z0-9_])N?_\("' libcore settings cli plugin --include='*.cpp' | LC_ALL=C sort); do
  grep -qx "$f" "$top_srcdir/po/POTFILES.in" || { echo "check-po: $f has translatable messages but is not in po/POTFILES.in"; fail=1; }
done

for lang in $(grep -v '^#' "$top_srcdir/po/LINGUAS"); do
  po="$top_srcdir/po/$lang.po"
  if [ ! -f "$po" ]; then echo "check-po: $lang is in LINGUAS but $po is missing"; fail=1; continue; fi
  if ! "$msgfmt" -c --check-accelerators -o /dev/null "$po"; then
    echo "check-po: $po fails msgfmt -c"; fail=1
  fi
  if [ $have_pot = 1 ] && [ -s "$tmp/all.pot" ]; then
    msgmerge --quiet --no-fuzzy-matching -o "$tmp/$lang.po" "$po" "$tmp/all.pot"
    missing=$(msgattrib --untranslated --no-obsolete "$tmp/$lang.po" | grep -c '^msgid ' || true)
    fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$tmp/$lang.po" | grep -c '^msgid ' || true)
    # The header entry counts as one untranslated msgid "" in msgattrib's output.
    [ "$missing" -gt 0 ] && missing=$((missing - 1))
    [ "$fuzzy" -gt 0 ] && fuzzy=$((fuzzy - 1))
    if [ "$missing" -ne 0 ] || [ "$fuzzy" -ne 0 ]; then
      echo "check-po: $po: $missing messages untranslated, $fuzzy fuzzy (run make -C po update-po, then translate):"
      msgattrib --untranslated --no-obsolete --no-location "$tmp/$lang.po" | grep '^msgid ' | head -20
      fail=1
    fi
  fi
done
[ $fail -eq 0 ] && echo "check-po: all catalogues pass msgfmt -c and translate every message"
exit $fail
