#!/bin/sh
# Messages name their property once, in code (issue 33 item 4): a finding's
# or an error's `setting.property: ` prefix is attached where it is built
# (rules::make(), Error::withProperty()), as NetworkManager's verify() does
# with g_prefix_error (error, "%s.%s: ", ...), never written into a
# translated string. This fails on any _(), N_() or C_() message of
# libcore/, settings/, cli/ or plugin/ that starts with `setting.property: `
# or `%s.%s: `, printing its file and line.
#
# One kind is exempt, by rule: a description, the tooltip argument of the
# editor page's addRow()/addConversionRow() (plugin/vpn-editor-page.cpp).
# It is not an error but a key and what it means, shown together as
# `rdma.ttl: the TTL of RoCE v2 packets`, as nmcli's describe shows a
# property's name with its description.
set -eu
cd "${top_srcdir:-.}"
command -v perl >/dev/null || { echo "check-message-prefix: perl missing"; exit 77; }

hits=$(find libcore settings cli plugin \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' \) |
  LC_ALL=C sort | xargs perl -0777 -ne '
    while (/(?<![A-Za-z0-9_])(?:N?_|N?C_\s*\(\s*"[^"]*"\s*,)\s*\(?\s*"((?:[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*|%s\.%s):[ "])/g) {
      my ($pos, $prefix) = ($-[0], $1);
      my $before = substr($_, 0, $pos);
      (my $code = length($before) > 4000 ? substr($before, -4000) : $before) =~ s/"(?:[^"\\\n]|\\.)*"|\x27(?:[^\x27\\\n]|\\.)*\x27/""/g;
      my $stmt = $code =~ /[;{}]([^;{}]*)\z/s ? $1 : $code;
      next if $stmt =~ /\badd(?:Conversion)?Row\s*\(/;
      my $line = ($before =~ tr/\n//) + 1;
      print "$ARGV:$line: $prefix\n";
    }')
if [ -n "$hits" ]; then
  echo "check-message-prefix: translated messages that carry their property (attach it in code:"
  echo "rules::make() for a finding, Error::withProperty() for an error):"
  echo "$hits"
  exit 1
fi
echo "check-message-prefix: no translated message starts with a setting.property prefix"
