#!/bin/sh
# The README's story end to end in the kernel lab (tests/kernel/nm-e2e-guest.sh
# runs in the guest), with ibnm's files from STAGE: a `make install DESTDIR`
# (make check-kernel) or the .deb packages unpacked with dpkg-deb -x (CI's
# package stage). The guest gets STAGE copied over its root and the shared
# libraries that ibnm's ELF files need, found from their NEEDED entries on
# this machine (kernel-lab --add): nothing is copied by hand, so a library
# that ibnm opens without linking it would be missing in the guest.
#
#   tests/kernel/nm-e2e.sh KERNEL-LAB STAGE
set -eu
lab=$1
stage=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
one() { find "$stage" -path "$stage$1" \( -type f -o -type l \) | head -n 1; }
ibnm=$(one '*/bin/ibnm')
dispatcher=$(one '*/libexec/ibnm/ibnm-dispatcher')
libibnm=$(one '*/libibnm.so.0')
hook=$(one '*/NetworkManager/dispatcher.d/90-ibnm')
for f in "$ibnm" "$dispatcher" "$libibnm" "$hook"; do
  [ -n "$f" ] || { echo "nm-e2e: $stage lacks one of bin/ibnm, ibnm-dispatcher, libibnm.so.0, 90-ibnm"; exit 1; }
done
prefix=${ibnm%/bin/ibnm}
exec "$lab" run --timeout 600 --add "$stage" --add "$libibnm" --add "$dispatcher" --add "$ibnm" \
  --add /usr/sbin/NetworkManager --add /usr/bin/nmcli --add /usr/bin/nm-online \
  --add /usr/bin/dbus-daemon --add /usr/lib/NetworkManager/nm-dispatcher --add /usr/bin/unshare \
  "$here/nm-e2e-guest.sh" "$stage" "${prefix#"$stage"}" "${libibnm#"$stage"}" "${hook#"$stage"}"
