#!/bin/sh
# Every installed header compiles on its own as C (C99 and C11), warning-free
# (its dependencies, libnm among them, are system headers: -isystem).
set -eu
fail=0
for h in $INSTALLED_HEADERS; do
  name=$(basename "$h")
  for std in c99 c11; do
    if ! printf '#include "%s"\nint main(void) { return 0; }\n' "$name" |
        ${CC:-cc} -x c -std=$std -Wall -Wextra -Werror -pedantic-errors -Wno-variadic-macros \
          $HEADER_CFLAGS -fsyntax-only - ; then
      echo "check-headers: $name does not compile as $std"
      fail=1
    fi
  done
done
[ $fail -eq 0 ] && echo "check-headers: $(echo $INSTALLED_HEADERS | wc -w) headers compile as C"
exit $fail
