#!/bin/sh
# Layers point down (README, "Layout"; issue 33 item 3): no source includes a
# layer above its own, settings/ does not reach into the planner's
# internals (activation::detail), and libcore/ibnm.h, the core's umbrella
# header, does not pull in the store's headers. Each violation is printed
# with its file and line.
set -eu
cd "${top_srcdir:-.}"
fail=0

# $1: the layer (a directory); $2: an extended regular expression of the
# include paths it must not name; $3: why.
forbid() {
  hits=$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"($2)" "$1" \
           --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.c' || true)
  if [ -n "$hits" ]; then
    echo "check-layers: $3:"
    echo "$hits"
    fail=1
  fi
}

forbid libcore/model 'libcore/(profiles|activation|platform|state|simulator)/|settings/|cli/|plugin/' \
  'model/ (the facts) includes a layer above it'
forbid libcore/profiles 'libcore/(activation|platform|state|simulator)/|settings/|cli/|plugin/' \
  'profiles/ includes a layer above it (the planner is asked from libcore/activation/check.hpp)'
forbid libcore/activation 'libcore/simulator/|settings/|cli/|plugin/' \
  'activation/ includes a layer above it'
forbid libcore/platform 'libcore/(profiles|activation|state)/|settings/|cli/|plugin/' \
  'platform/ includes a layer above it'
forbid libcore/support 'libcore/(model|profiles|activation|platform|state|simulator)/|settings/|cli/|plugin/' \
  'support/ (no domain knowledge) includes a domain layer'
forbid libcore 'settings/|cli/|plugin/|ibnm-settings\.h|ibnm-state\.h' \
  'libcore/ includes settings/, cli/ or plugin/'
forbid settings 'cli/|plugin/|libcore/activation/planner\.hpp' \
  'settings/ includes cli/, plugin/ or the planner'

hits=$(grep -rn 'detail::' settings --include='*.cpp' --include='*.hpp' || true)
if [ -n "$hits" ]; then
  echo "check-layers: settings/ uses activation's internals (ask activation::writeFiles()):"
  echo "$hits"
  fail=1
fi

[ $fail -eq 0 ] && echo "check-layers: every include points down"
exit $fail
