#!/bin/sh
# The Python test of the bindings, against the typelibs and libraries of this
# build tree (not installed ones). Debian's python3 has PyGObject.
set -eu
python=${PYTHON_GI:-/usr/bin/python3}
[ -x "$python" ] || { echo "SKIP: $python not found (Debian's python3 with python3-gi)"; exit 77; }
[ -f "$top_builddir/libcore/Ibnm-0.1.typelib" ] ||
  { echo "SKIP: no Ibnm-0.1.typelib in this build (a sanitizer build makes none: configure.ac)"; exit 77; }
GI_TYPELIB_PATH="$top_builddir/libcore${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
LD_LIBRARY_PATH="$top_builddir/libcore/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GI_TYPELIB_PATH LD_LIBRARY_PATH
exec "$python" "$top_srcdir/tests/bindings/bindings-test.py"
