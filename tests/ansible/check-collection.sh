#!/bin/sh
# The Ansible collection ibnm.rdma as Galaxy and ansible-test see it:
#  - `ansible-galaxy collection build` makes its tarball, with the module and
#    a MANIFEST.json of the version in galaxy.yml;
#  - `ansible-test sanity` passes the tests that run offline (shebang,
#    compile on this Python, the boilerplate and code-smell tests);
#    validate-modules, pylint, pep8, yamllint, import and ansible-doc need
#    their Python requirements from PyPI (ansible-test installs them in a
#    venv), so they cannot run here;
#  - in their place, what validate-modules checks first: the module's
#    DOCUMENTATION parses, has version_added, requirements and attributes,
#    and documents exactly the argument_spec the module declares (names,
#    types, required, defaults), with check_mode and diff_mode support as
#    the code has it.
# Skips (77) without ansible-galaxy and ansible-test (Debian: ansible-core).
set -eu
for tool in ansible-galaxy ansible-test; do
  command -v $tool > /dev/null 2>&1 ||
    { echo "check-collection: SKIP: $tool is absent (Debian package ansible-core)"; exit 77; }
done
python=${PYTHON3:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibnm-collection.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# ansible-test works in the collection's tree (it writes tests/output/):
# a copy, never the sources.
coll=$tmp/ansible_collections/ibnm/rdma
mkdir -p "$tmp/ansible_collections/ibnm"
cp -R "$top_srcdir/ansible/ansible_collections/ibnm/rdma" "$coll"
chmod -R u+w "$coll"
export HOME="$tmp/home" ANSIBLE_HOME="$tmp/home/.ansible" ANSIBLE_NOCOLOR=1 LC_ALL=C.UTF-8
mkdir -p "$HOME"
status=0

# --- Galaxy -------------------------------------------------------------------------
version=$(sed -n 's/^version: *//p' "$coll/galaxy.yml")
if ! ansible-galaxy collection build "$coll" --output-path "$tmp/dist" > "$tmp/out" 2>&1; then
  cat "$tmp/out"; echo "check-collection: FAIL: ansible-galaxy collection build"; status=1
else
  tarball=$tmp/dist/ibnm-rdma-$version.tar.gz
  list=$(tar -tzf "$tarball")
  for f in MANIFEST.json FILES.json plugins/modules/state.py meta/runtime.yml README.md; do
    printf '%s\n' "$list" | grep -qx "$f" || { echo "check-collection: FAIL: $f not in the Galaxy tarball"; status=1; }
  done
  tar -xzOf "$tarball" MANIFEST.json | "$python" -c '
import json, sys
m = json.load(sys.stdin)["collection_info"]
assert (m["namespace"], m["name"], m["version"]) == ("ibnm", "rdma", sys.argv[1]), m
for key in ("repository", "documentation", "homepage", "issues"):
    assert "example" not in (m.get(key) or ""), (key, m[key])
' "$version" || { echo "check-collection: FAIL: the Galaxy MANIFEST.json"; status=1; }
fi

# --- ansible-test sanity, the offline tests ----------------------------------------------
py=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
tests=""
for t in action-plugin-docs compile empty-init future-import-boilerplate line-endings metaclass-boilerplate \
    no-assert no-basestring no-dict-iteritems no-dict-iterkeys no-dict-itervalues no-get-exception \
    no-illegal-filenames no-main-display no-smart-quotes no-unicode-literals replace-urlopen shebang \
    symlinks use-argspec-type-path use-compat-six; do
  tests="$tests --test $t"
done
# shellcheck disable=SC2086
if ! (cd "$coll" && ansible-test sanity --local --python "$py" $tests) > "$tmp/out" 2>&1; then
  grep -v 'locale' "$tmp/out"; echo "check-collection: FAIL: ansible-test sanity"; status=1
fi

# --- the module's documentation against its argument_spec --------------------------------
"$python" - "$coll/plugins/modules/state.py" <<'EOF' || status=1
import ast, sys
import yaml

path = sys.argv[1]
source = open(path, encoding="utf-8").read()
tree = ast.parse(source)
strings = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
           for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)}
doc = yaml.safe_load(strings["DOCUMENTATION"])
yaml.safe_load(strings["EXAMPLES"])
yaml.safe_load(strings["RETURN"])
problems = []

def value(node):
    """A literal, or dict(key=literal, ...), as Python data."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "dict":
        return {k.arg: value(k.value) for k in node.keywords}
    return ast.literal_eval(node)

call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "AnsibleModule")
kwargs = {k.arg: k.value for k in call.keywords}
spec = value(kwargs["argument_spec"])
check_mode = value(kwargs["supports_check_mode"]) if "supports_check_mode" in kwargs else False
for key in ("version_added", "requirements", "attributes", "author", "short_description"):
    if key not in doc:
        problems.append("DOCUMENTATION has no %s" % key)
options = doc.get("options", {})
if set(options) != set(spec):
    problems.append("documented options %s != argument_spec %s" % (sorted(options), sorted(spec)))
for name in set(options) & set(spec):
    o, s = options[name], spec[name]
    for key, default in (("type", "str"), ("required", False), ("default", None)):
        if o.get(key, default) != s.get(key, default):
            problems.append("%s: %s documented %r, declared %r" % (name, key, o.get(key, default), s.get(key, default)))
attrs = doc.get("attributes", {})
want = {"check_mode": "full" if check_mode else "none",
        "diff_mode": "full" if "module._diff" in source else "none"}
for attr, support in want.items():
    got = attrs.get(attr, {}).get("support")
    if got != support:
        problems.append("attributes.%s.support is %r, the code has %r" % (attr, got, support))
for p in problems:
    print("check-collection: FAIL: %s: %s" % (path.split("ansible_collections/")[-1], p))
sys.exit(1 if problems else 0)
EOF

[ $status -eq 0 ] && echo "check-collection: Galaxy tarball built; ansible-test sanity (offline tests) and the documentation check pass"
exit $status
