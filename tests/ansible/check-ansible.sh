#!/bin/sh
# The ibnm.rdma collection with Debian's ansible: one playbook against
# IBNM_ANSIBLE_HOSTS (default 16; bench/ runs 64) simulated hosts, each its
# own simulated host and keyfile store (a local inventory). The first run
# converges every node but one, whose document has a bad P_Key: it fails
# alone, naming the property, and is left unchanged; the second run changes
# nothing; --check reports a change and makes none; --diff shows keyfile
# lines. Skips (77) without ansible-playbook.
set -eu
if ! command -v ansible-playbook >/dev/null 2>&1; then
  echo "check-ansible: SKIP: ansible-playbook is absent (Debian package ansible; build-aux/install-deps installs it)"
  exit 77
fi
hosts=${IBNM_ANSIBLE_HOSTS:-16}
bad=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ANSIBLE_HOME="$tmp/ansible-home" ANSIBLE_LOCAL_TEMP="$tmp/ansible-tmp" ANSIBLE_REMOTE_TEMP="$tmp/ansible-tmp"
export ANSIBLE_COLLECTIONS_PATH="$top_srcdir/ansible" ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_FORKS=${ANSIBLE_FORKS:-8}
export ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_DEPRECATION_WARNINGS=0 LC_ALL=C.UTF-8
{
  echo "[fleet]"
  i=1
  while [ "$i" -le "$hosts" ]; do
    n=$(printf 'node%03d' "$i")
    mkdir -p "$tmp/$n/keyfiles"
    echo "$n node=$i host_dir=$tmp/$n"
    i=$((i + 1))
  done
  echo "[fleet:vars]"
  echo "ansible_connection=local"
  echo "ibnm=$top_builddir/cli/ibnm"
  echo "host_file=$top_srcdir/examples/hosts/mlx4-dual-port.host"
} > "$tmp/inventory"
fail() { echo "check-ansible: FAIL: $*"; exit 1; }
play() { ansible-playbook -i "$tmp/inventory" "$top_srcdir/tests/ansible/fleet.yml" -e "bad_node=$bad" "$@" > "$tmp/out" 2>&1 || true; }
# recap NODE FIELD: the node's number in PLAY RECAP.
recap() { sed -n "s/^$1 *: .*$2=\([0-9]*\).*/\1/p" "$tmp/out"; }
# The profiles (not the store's lock file, in which each writer records itself).
store() { (cd "$tmp" && find node* -path '*/keyfiles/*' -type f ! -name .ibnm.lock | LC_ALL=C sort | xargs cat) | cksum; }
badnode=$(printf 'node%03d' "$bad")

start=$(date +%s)
play
i=1
while [ "$i" -le "$hosts" ]; do
  n=$(printf 'node%03d' "$i")
  if [ "$n" = "$badnode" ]; then
    [ "$(recap "$n" failed)" = 1 ] || { cat "$tmp/out"; fail "$n should have failed"; }
    [ -z "$(ls "$tmp/$n/keyfiles")" ] || fail "$n failed but its profiles changed"
  else
    [ "$(recap "$n" changed)" = 1 ] && [ "$(recap "$n" failed)" = 0 ] || { cat "$tmp/out"; fail "$n did not converge"; }
    [ "$(ls "$tmp/$n/keyfiles" | wc -l)" = 3 ] || fail "$n has not its 3 profiles"
  fi
  i=$((i + 1))
done
grep -q "interfaces\[3\] 'mlx4_ib0.8000': infiniband.p-key" "$tmp/out" || { cat "$tmp/out"; fail "the failure does not name the property"; }
# The bad node's simulated host is as it was: no child created.
IBNM_SIMULATE_STATE="$tmp/$badnode/state" "$top_builddir/cli/ibnm" --keyfile-dir "$tmp/$badnode/keyfiles" \
  --simulate "$top_srcdir/examples/hosts/mlx4-dual-port.host" -t -f DEVICE device status > "$tmp/bad-devices" 2>&1
! grep -q '^mlx4_ib0\.' "$tmp/bad-devices" || fail "the failed node's host changed"
first=$(( $(date +%s) - start ))

before=$(store)
play
n=$(printf 'node%03d' 1)
[ "$(recap "$n" changed)" = 0 ] || { cat "$tmp/out"; fail "second run changed $n"; }
grep -q "changed=[1-9]" "$tmp/out" && { cat "$tmp/out"; fail "second run changed something"; }
[ "$(store)" = "$before" ] || fail "second run rewrote profiles"

play --check --diff -e more=true
[ "$(recap "$n" changed)" = 1 ] || { cat "$tmp/out"; fail "--check did not report the change"; }
grep -q '+\[infiniband\] p-key=32773' "$tmp/out" || { cat "$tmp/out"; fail "--diff did not show the new profile"; }
[ "$(store)" = "$before" ] || fail "--check changed profiles"
[ -z "$(ls "$tmp/$n/keyfiles" | grep 8005)" ] || fail "--check wrote a profile"

echo "check-ansible: $hosts hosts: first run ${first}s (converged, $badnode failed alone and unchanged); second run changed=0; --check changed nothing"
