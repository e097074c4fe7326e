#!/bin/sh
# The unit tests again under valgrind: the RAII handles and the GObject
# private-data macro must neither leak nor free twice.
set -eu
if [ -z "${VALGRIND:-}" ]; then
  echo "check-valgrind: SKIP: valgrind is not installed (build-aux/install-deps installs it)"
  exit 77
fi
case "${LD_PRELOAD:-}${ASAN_OPTIONS:-}" in *asan*) echo "check-valgrind: SKIP under ASan"; exit 77;; esac
# Whether the build has the sanitizers (GCC's runtime is libasan.so, clang's
# static): the build says (Makefile.am, AM_TESTS_ENVIRONMENT).
if [ "${IBNM_SANITIZED:-no}" = yes ]; then
  echo "check-valgrind: SKIP: built with sanitizers"; exit 77
fi
G_SLICE=always-malloc G_DEBUG=gc-friendly exec "$VALGRIND" --quiet --error-exitcode=1 \
  --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
  "$top_builddir/tests/unit/unit-tests" --gtest_brief=1
