#!/bin/sh
# What `make install` lays out, checked as installed (issue 29): this build
# tree installed into a DESTDIR, then the installed files themselves, never
# the sources they came from:
#  - no libtool archive (.la) and no path of the build or source tree in any
#    installed file (binaries included);
#  - the boot unit passes systemd-analyze verify, its ExecStart is the
#    installed ibnm;
#  - the dispatcher hook is in NetworkManager's directory for packages, with
#    its pre-up.d/pre-down.d links, and runs the installed ibnm-dispatcher;
#  - the installed ibnm runs (--version, device status, connection show
#    with the installed libibnm.so), loads nothing of the build tree, and
#    libibnm.so links libnl, libibverbs, libkmod and librdmacm, ibnm
#    json-glib (package tools see them);
#  - the simulator is not installed unless configured with
#    --enable-simulator, and the demo passes with the installed ibnm;
#  - the man pages pass mandoc -Tlint and every file they name is installed;
#  - bash completion, the documents and the Ansible collection are installed;
#  - NetworkManager's VPN plugin (when configured): the .name file in
#    NetworkManager's VPN directory names the installed service and libnm
#    plugin, libnm reads it and loads that plugin, the editor pages are
#    installed, the D-Bus policy parses and owns the .name file's service;
#  - make uninstall leaves no file behind.
# Makefile.am gives the configured directories in IBNM_INSTALL_DIRS.
set -eu
: "${top_builddir:?}" "${top_srcdir:?}" "${IBNM_INSTALL_DIRS:?}"
for kv in $IBNM_INSTALL_DIRS; do
  eval "inst_${kv%%=*}=\${kv#*=}"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibnm-install.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
dest=$tmp/root
status=0
fail() { echo "check-install: FAIL: $*"; status=1; }

${MAKE:-make} -C "$top_builddir" install DESTDIR="$dest" > "$tmp/install.log" 2>&1 ||
  { tail -n 40 "$tmp/install.log"; echo "check-install: FAIL: make install"; exit 1; }
find "$dest" \( -type f -o -type l \) | sed "s|^$dest||" | LC_ALL=C sort > "$tmp/files"
echo "check-install: $(wc -l < "$tmp/files") files installed under $inst_prefix"

# --- no .la, no build path --------------------------------------------------
if grep '\.la$' "$tmp/files"; then fail "libtool archives installed"; fi
# The installed files as they run: ELF files without their debugging
# sections, whose DW_AT_comp_dir names the build directory as debuggers
# need (distributions move it to -dbgsym/-debuginfo packages).
scan=$tmp/scan
(cd "$dest" && find . -type f) | while read -r f; do
  mkdir -p "$scan/${f%/*}"
  if [ "$(head -c 4 "$dest/$f" | tail -c 3)" = ELF ] && command -v strip > /dev/null 2>&1; then
    strip --strip-debug -o "$scan/$f" "$dest/$f"
  else
    cp "$dest/$f" "$scan/$f"
  fi
done
# A directory as an extended regular expression.
ere() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
for dir in "$(cd "$top_builddir" && pwd -P)" "$(cd "$top_srcdir" && pwd -P)" "$top_builddir" "$top_srcdir"; do
  # Paths under the install prefix are not build paths (distcheck installs
  # into a prefix inside the source tree).
  LC_ALL=C grep -raoE "$(ere "$dir")[^[:space:][:cntrl:]\"']*" "$scan" 2>/dev/null |
    sed "s|^$scan||" | grep -v ":$(ere "$inst_prefix")" > "$tmp/buildpaths" || true
  if [ -s "$tmp/buildpaths" ]; then
    sed 's|^|  |' "$tmp/buildpaths" | sort -u | head -n 20
    fail "installed files name the build or source tree ($dir)"
  fi
done

# --- the boot unit ----------------------------------------------------------
unit=$dest$inst_systemdsystemunitdir/ibnm.service
if [ ! -f "$unit" ]; then
  fail "no ibnm.service in $inst_systemdsystemunitdir"
else
  if grep -n '@[a-z_]*@' "$unit"; then fail "ibnm.service has unsubstituted @...@"; fi
  grep -q "^ExecStart=$inst_bindir/ibnm " "$unit" || fail "ibnm.service does not start $inst_bindir/ibnm"
  if command -v systemd-analyze > /dev/null 2>&1; then
    # verify checks every Exec*= program in --root: the installed ibnm at
    # its installed path, and the system's sh and echo the unit also runs.
    # The unit goes where systemd looks in that root, /etc/systemd/system
    # (the configured directory may be none of systemd's: distcheck's
    # prefix).
    vroot=$tmp/verify-root
    mkdir -p "$vroot$inst_bindir" "$vroot/bin" "$vroot/etc/systemd/system"
    cp "$dest$inst_bindir/ibnm" "$vroot$inst_bindir/"
    cp /bin/sh /bin/echo "$vroot/bin/"
    cp "$unit" "$vroot/etc/systemd/system/"
    out=$(cd "$tmp" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no --root="$vroot" \
      "$vroot/etc/systemd/system/ibnm.service" 2>&1) ||
      { echo "$out"; fail "systemd-analyze verify failed on the installed unit"; }
    # Units it names that this machine may not have (rdma-core) are not errors.
    if printf '%s\n' "$out" | grep -v -e 'rdma-hw.target' -e 'rdma-load-modules' -e '^$' | grep -q .; then
      echo "$out"; fail "systemd-analyze verify reported problems"
    fi
  else
    echo "check-install: systemd-analyze is absent: the unit is not verified (package systemd)"
  fi
fi

# --- the dispatcher hook ------------------------------------------------------
hookdir=$dest$inst_nmdispatcherdir
if [ ! -x "$hookdir/90-ibnm" ] || [ -L "$hookdir/90-ibnm" ]; then
  fail "no executable hook $inst_nmdispatcherdir/90-ibnm"
else
  [ "$(stat -c %a "$hookdir/90-ibnm")" = 755 ] || fail "90-ibnm is not mode 0755 (NetworkManager skips it)"
  # A program that loads libc alone and runs the installed ibnm-dispatcher
  # (plugin/90-ibnm.c) for a profile that may carry ibnm keys.
  grep -qa "$inst_libexecdir/ibnm/ibnm-dispatcher" "$hookdir/90-ibnm" ||
    fail "90-ibnm does not run $inst_libexecdir/ibnm/ibnm-dispatcher"
  if command -v readelf > /dev/null 2>&1 && [ "${IBNM_SANITIZED:-no}" != yes ]; then
    libs=$(LC_ALL=C readelf -d "$hookdir/90-ibnm" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    [ "$libs" = libc.so.6 ] || fail "90-ibnm loads more than libc: $(echo $libs)"
  fi
  [ -x "$dest$inst_libexecdir/ibnm/ibnm-dispatcher" ] || fail "no $inst_libexecdir/ibnm/ibnm-dispatcher"
fi
# The installed hook and VPN service have no test switch (the tests build
# their own: tests/plugin/*-test.cpp) and never load the simulator.
for prog in "$inst_libexecdir/ibnm/ibnm-dispatcher" "$inst_libexecdir/nm-ibnm-service"; do
  [ -f "$dest$prog" ] || continue
  if grep -qa -e '--test-config' -e 'libibnm-simulator' "$dest$prog"; then
    fail "$prog has a test switch or opens the simulator"
  fi
done
for d in pre-up.d pre-down.d; do
  [ "$(readlink "$hookdir/$d/90-ibnm" 2>/dev/null)" = ../90-ibnm ] ||
    fail "$inst_nmdispatcherdir/$d/90-ibnm is not a link to ../90-ibnm"
done
# NetworkManager reads its nmlibdir's dispatcher.d ($prefix/lib, never the
# multiarch libdir) and /etc's: the default is the first.
case $inst_nmdispatcherdir in
  "$inst_prefix/lib/NetworkManager/dispatcher.d" | */etc/NetworkManager/dispatcher.d) ;;
  *) echo "check-install: note: the hook is in $inst_nmdispatcherdir (--with-nm-dispatcher-dir)" ;;
esac

# --- the installed ibnm ----------------------------------------------------------
# The installed libraries stand in for $libdir; nothing of the build tree.
ibnm=$dest$inst_bindir/ibnm
run_installed() {
  env -u IBNM_SIMULATE -u IBNM_SIMULATE_STATE -u IBNM_SYSFS_ROOT LC_ALL=C LANGUAGE= \
    LD_LIBRARY_PATH="$dest$inst_libdir" "$ibnm" "$@"
}
mkdir -p "$tmp/sys/class/net" "$tmp/sys/class/infiniband" "$tmp/keyfiles"
if ! version=$(run_installed --version 2>&1); then
  fail "installed ibnm --version: $version"
else
  case $version in *"${PACKAGE_VERSION:-0}"*) ;; *) fail "ibnm --version says '$version'" ;; esac
  echo "check-install: installed: $version"
fi
run_installed --sysfs-root "$tmp/sys" device status > "$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "installed ibnm device status"; }
# A command that reads profiles: the installed libibnm.so, libnm.
# (LD_DEBUG=libs: the dynamic linker names each object it initialises by its path.)
LD_DEBUG=libs run_installed --keyfile-dir "$tmp/keyfiles" --sysfs-root "$tmp/sys" connection show \
  > "$tmp/out" 2> "$tmp/debug" || { cat "$tmp/out"; grep -v '^ *[0-9]*:' "$tmp/debug"; fail "installed ibnm connection show"; }
loaded=$(sed -n 's/.*calling init: \([^ ]*\).*/\1/p' "$tmp/debug" | sort -u)
printf '%s\n' "$loaded" | grep -q "^$dest$inst_libdir/libibnm.so" || fail "connection show did not load the installed libibnm.so"
if printf '%s\n' "$loaded" | grep -e "$top_builddir" -e "$(cd "$top_builddir" && pwd -P)"; then
  fail "the installed ibnm loaded files of the build tree"
fi
run_installed --offline connection add type infiniband con-name ib0 ifname ib0 > "$tmp/out" 2>&1 &&
  grep -q '^type=infiniband' "$tmp/out" || { cat "$tmp/out"; fail "installed ibnm --offline connection add"; }
# Package tools find the run-time dependencies in the ELF files.
needed() { LC_ALL=C readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
if command -v readelf > /dev/null 2>&1; then
  for lib in libnl-3 libnl-route-3 libibverbs libkmod librdmacm; do
    needed "$dest$inst_libdir/libibnm.so.0" | grep -q "^$lib\.so\." || fail "libibnm.so does not link $lib"
  done
  needed "$ibnm" | grep -q '^libibnm\.so\.0$' || fail "ibnm does not link libibnm.so"
  needed "$ibnm" | grep -q '^libjson-glib-1\.0\.so\.' || fail "ibnm does not link json-glib"
fi

# --- the simulator: apart from the product ------------------------------------
sim=$(grep -e 'libibnm-simulator' -e 'IbnmSimulator' -e 'ibnm-simulator\.h' -e '/hosts/' "$tmp/files" || true)
if [ "${IBNM_INSTALL_SIMULATOR:-no}" = yes ]; then
  [ -e "$dest$inst_libdir/libibnm-simulator.so.0" ] || fail "--enable-simulator: libibnm-simulator.so.0 not installed"
  hosts=$dest$inst_pkgdatadir/hosts
  simlibs=$dest$inst_libdir
else
  [ -z "$sim" ] || { echo "$sim"; fail "the simulator is installed without --enable-simulator"; }
  # The product's ibnm says what is missing (unless this machine has a
  # simulator installed at the real $libdir, where the loader looks last).
  if [ ! -e "$inst_libdir/libibnm-simulator.so.0" ]; then
    if run_installed --simulate "$top_srcdir/examples/hosts/mlx4-dual-port.host" device status > "$tmp/out" 2>&1; then
      fail "ibnm --simulate worked without the simulator installed"
    fi
    grep -q 'is ibnm installed with it' "$tmp/out" || { cat "$tmp/out"; fail "ibnm --simulate without the simulator: no clear error"; }
  fi
  # The demo then runs the installed ibnm with this build's simulator, as
  # the ibnm-simulator package adds it beside the installed libibnm.so.
  hosts=$top_srcdir/examples/hosts
  simlibs=$dest$inst_libdir:$top_builddir/libcore/.libs
fi
cat > "$tmp/ibnm" <<EOF
#!/bin/sh
LD_LIBRARY_PATH='$simlibs' exec '$ibnm' "\$@"
EOF
chmod +x "$tmp/ibnm"
IBNM="$tmp/ibnm" IBNM_DEMO_HOSTS="$hosts" LC_ALL=C LANGUAGE= sh "$top_srcdir/examples/demo.sh" > "$tmp/demo.log" 2>&1 ||
  { tail -n 30 "$tmp/demo.log"; fail "make demo's procedures with the installed ibnm"; }

# --- man pages ------------------------------------------------------------------
pages=$(grep "^$inst_mandir/man[0-9]/" "$tmp/files" || true)
[ -n "$pages" ] || fail "no man page installed"
for page in $pages; do
  if command -v mandoc > /dev/null 2>&1; then
    mandoc -Tlint -Wwarning "$dest$page" || fail "mandoc -Tlint: $page"
  fi
  if command -v man > /dev/null 2>&1; then
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$dest$page" 2>&1 > /dev/null) || true
    [ -z "$w" ] || { echo "$w"; fail "man --warnings: $page"; }
  fi
  # Every file the page names in ibnm's installed directories is installed.
  sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$dest$page" | grep -o '/usr/[A-Za-z0-9._/-]*[A-Za-z0-9_/]' |
    sort -u | while read -r p; do
      case $p in
        /usr/share/doc/ibnm/*) f=$inst_docdir/${p#/usr/share/doc/ibnm/} ;;
        /usr/share/ibnm/*) f=$inst_pkgdatadir/${p#/usr/share/ibnm/}
          [ "${IBNM_INSTALL_SIMULATOR:-no}" = yes ] || continue ;;
        /usr/lib/NetworkManager/dispatcher.d/*) f=$inst_nmdispatcherdir/${p#/usr/lib/NetworkManager/dispatcher.d/} ;;
        /usr/libexec/ibnm/*) f=$inst_libexecdir/ibnm/${p#/usr/libexec/ibnm/} ;;
        /usr/lib/ibnm/*) f=$inst_pkglibdir/${p#/usr/lib/ibnm/} ;;
        *) continue ;;
      esac
      [ -e "$dest$f" ] || echo "$page names $p: $f is not installed"
    done > "$tmp/missing"
  [ ! -s "$tmp/missing" ] || { cat "$tmp/missing"; fail "a man page names a file that is not installed"; }
done

# --- completion, documents, translations, the Ansible collection ---------------
comp=$dest$inst_bashcompletiondir/ibnm
if [ ! -f "$comp" ]; then
  fail "no bash completion in $inst_bashcompletiondir"
elif command -v bash > /dev/null 2>&1; then
  bash -c ". '$comp' && complete -p ibnm" > /dev/null 2>&1 || fail "the installed completion does not complete ibnm"
fi
for doc in README.md json-schema.md declarative-state.md active-connections.md differences-from-nmcli.md; do
  [ -f "$dest$inst_docdir/$doc" ] || fail "$inst_docdir/$doc not installed"
done
for lang in de fr; do
  [ -f "$dest$inst_localedir/$lang/LC_MESSAGES/ibnm.mo" ] || fail "no $lang catalogue in $inst_localedir"
done
coll=$dest$inst_datadir/ansible/collections/ansible_collections/ibnm/rdma
for f in galaxy.yml README.md meta/runtime.yml plugins/modules/state.py; do
  [ -f "$coll/$f" ] || fail "Ansible collection: $f not installed"
done
[ "$(head -n 1 "$coll/plugins/modules/state.py" 2>/dev/null)" = '#!/usr/bin/python' ] ||
  fail "the Ansible module's shebang is not #!/usr/bin/python (Ansible requires it)"
if command -v ansible-doc > /dev/null 2>&1; then
  ANSIBLE_HOME=$tmp/ansible ANSIBLE_COLLECTIONS_PATH=$dest$inst_datadir/ansible/collections \
    ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false ansible-doc -t module ibnm.rdma.state > "$tmp/out" 2>&1 &&
    grep -q 'check_mode' "$tmp/out" || { cat "$tmp/out"; fail "ansible-doc cannot read the installed module"; }
fi

# --- NetworkManager's VPN plugin ---------------------------------------------------
name=$dest$inst_nmvpndir/nm-ibnm-service.name
if [ -n "${IBNM_INSTALL_NMPLUGINS:-}" ]; then
  if [ ! -f "$name" ]; then
    fail "no nm-ibnm-service.name in $inst_nmvpndir"
  else
    if grep -n '@[A-Z_]*@' "$name"; then fail "nm-ibnm-service.name has unsubstituted @...@"; fi
    key() { sed -n "s/^$1=//p" "$name" | head -n 1; }
    [ "$(key program)" = "$inst_libexecdir/nm-ibnm-service" ] ||
      fail "nm-ibnm-service.name: program=$(key program), not $inst_libexecdir/nm-ibnm-service"
    [ -x "$dest$(key program)" ] || fail "nm-ibnm-service.name: program $(key program) is not installed"
    [ "$(key plugin)" = "$inst_nmplugindir/libnm-vpn-plugin-ibnm.so" ] ||
      fail "nm-ibnm-service.name: plugin=$(key plugin), not in $inst_nmplugindir"
    [ -f "$dest$(key plugin)" ] || fail "nm-ibnm-service.name: plugin $(key plugin) is not installed"
    service=$(key service)
  fi
  for la in $IBNM_INSTALL_NMPLUGINS; do
    so=${la##*/}
    [ -f "$dest$inst_nmplugindir/${so%.la}.so" ] || fail "$inst_nmplugindir/${so%.la}.so is not installed"
  done
  # libnm as nmcli and nm-connection-editor use it: the installed .name file
  # read, its service, and the plugin it names loaded (the installed path,
  # rewritten into the DESTDIR).
  if [ "${IBNM_SANITIZED:-no}" = yes ]; then
    # Python is not built with the sanitizers: it cannot load a sanitizer
    # build's plugin (the build without them checks this).
    echo "check-install: a sanitizer build: libnm in Python did not load the installed VPN plugin"
  elif [ -f "$name" ] && "${PYTHON3:-/usr/bin/python3}" -c 'import gi; gi.require_version("NM", "1.0")' 2> /dev/null; then
    sed "s|^plugin=|plugin=$dest|" "$name" > "$tmp/nm-ibnm-service.name"
    LD_LIBRARY_PATH="$dest$inst_libdir" "${PYTHON3:-/usr/bin/python3}" - "$tmp/nm-ibnm-service.name" > "$tmp/out" 2>&1 <<'PY' ||
import sys, gi
gi.require_version("NM", "1.0")
from gi.repository import NM
info = NM.VpnPluginInfo.new_from_file(sys.argv[1])
assert info.get_service() == "org.freedesktop.NetworkManager.ibnm", info.get_service()
plugin = info.load_editor_plugin()
assert plugin is not None and plugin.props.service == info.get_service(), plugin
print("libnm loaded", info.get_plugin(), "for", plugin.props.service)
PY
      { cat "$tmp/out"; fail "libnm cannot read the installed nm-ibnm-service.name or load its plugin"; }
    echo "check-install: $(cat "$tmp/out")"
  else
    echo "check-install: PyGObject with NM 1.0 is absent: libnm did not load the installed VPN plugin"
  fi
  policy=$dest$inst_dbusconfdir/nm-ibnm-service.conf
  if [ ! -f "$policy" ]; then
    fail "no D-Bus policy nm-ibnm-service.conf in $inst_dbusconfdir"
  else
    owned=$("${PYTHON3:-/usr/bin/python3}" -c 'import sys, xml.dom.minidom as d
for a in d.parse(sys.argv[1]).getElementsByTagName("allow"):
    if a.getAttribute("own_prefix"): print(a.getAttribute("own_prefix"))' "$policy" 2>&1) ||
      { echo "$owned"; fail "the installed D-Bus policy is not well-formed XML"; }
    [ -z "${service:-}" ] || [ "$owned" = "$service" ] ||
      fail "the D-Bus policy lets root own '$owned', the .name file's service is '$service'"
  fi
elif [ -e "$name" ]; then
  fail "nm-ibnm-service.name installed without the VPN plugin"
fi

# --- make uninstall -------------------------------------------------------------
${MAKE:-make} -C "$top_builddir" uninstall DESTDIR="$dest" > "$tmp/uninstall.log" 2>&1 ||
  { tail -n 20 "$tmp/uninstall.log"; fail "make uninstall"; }
left=$(find "$dest" \( -type f -o -type l \) | sed "s|^$dest||")
[ -z "$left" ] || { echo "$left"; fail "make uninstall left files"; }

[ $status -eq 0 ] && echo "check-install: the installed tree passes"
exit $status
