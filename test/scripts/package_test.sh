#!/usr/bin/env bash
# scripts/package on the suite's own build tree (no second compile), then the .deb inspected as
# dpkg sees it: the files and their modes, the conffiles, Depends from dpkg-shlibdeps, the
# maintainer scripts, the unit, and the manual pages. scripts/fresh-check --package installs
# the same package on a bare Debian 12.
#   package_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src_dir="$1" build_dir="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$src_dir/scripts/package" --from "$build_dir" --out "$tmp" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "scripts/package failed"; }
deb="$(tail -1 "$tmp/out")"
version="$(sed -n 's/^project(quell VERSION \([0-9.]*\).*/\1/p' "$src_dir/CMakeLists.txt")"
[ "$deb" = "$tmp/quell_${version}_amd64.deb" ] || fail "last line is '$deb', not the .deb's path"
[ -f "$deb" ] || fail "no $deb"

dpkg-deb -c "$deb" >"$tmp/contents"
has() {  # has MODE PATH: the package holds PATH with permissions MODE (ls -l style)
  grep -qE "^$1 root/root .* \./${2#/}\$" "$tmp/contents" || fail "no $2 with mode $1 in: $(grep -F "${2#/}" "$tmp/contents")"
}
has -rwxr-xr-x /usr/bin/quell
has -rwxr-xr-x /usr/bin/quell-sim
has -rw-r--r-- /lib/systemd/system/quell.service
has -rw-r--r-- /etc/quell/quell.yaml
has -rw-r----- /etc/default/quell
has -rw-r--r-- /usr/share/doc/quell/copyright
has -rw-r--r-- /usr/share/doc/quell/changelog.gz
for page in quell quell-run quell-demo quell-config-check quell-incidents-list quell-outbox-dead-list; do
  has -rw-r--r-- "/usr/share/man/man1/$page.1.gz"
done
# Nothing of the prefix install (the unit twice would be one file on a merged /usr), no tests.
! grep -qE '\./usr/lib/systemd|_test$|\./usr/share/quell/' "$tmp/contents" ||
  fail "unexpected files: $(grep -E '\./usr/lib/systemd|_test$|\./usr/share/quell/' "$tmp/contents")"

dpkg-deb -I "$deb" >"$tmp/info"
depends="$(sed -n 's/^ Depends: //p' "$tmp/info")"
for lib in libc6 libstdc++6 libsqlite3-0 libpq5 libcurl4 libyaml-cpp0.7 adduser; do
  tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ .*//' | grep -qxF "$lib" || fail "Depends lacks $lib: $depends"
done
mkdir "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
[ "$(cat "$tmp/control/conffiles")" = "$(printf '/etc/quell/quell.yaml\n/etc/default/quell')" ] ||
  fail "conffiles: $(cat "$tmp/control/conffiles")"
for script in postinst prerm postrm; do
  [ -x "$tmp/control/$script" ] || fail "no executable $script"
  sh -n "$tmp/control/$script" || fail "$script is not valid sh"
done
grep -q 'adduser --system --group --home /var/lib/quell' "$tmp/control/postinst" || fail "postinst makes no user"
grep -q 'chmod 0640 /etc/default/quell' "$tmp/control/postinst" || fail "postinst leaves the secrets' mode"
# purge, and only purge, removes data, config and user.
awk '/"\$1" = purge/,0' "$tmp/control/postrm" | grep -q 'rm -rf /var/lib/quell' || fail "purge keeps the data"
[ "$(grep -c 'rm -rf /var/lib/quell' "$tmp/control/postrm")" -eq 1 ] || fail "data removed outside purge"

dpkg-deb -x "$deb" "$tmp/root"
cmp -s "$tmp/root/etc/quell/quell.yaml" "$src_dir/examples/quell.yaml" || fail "the conffile is not the example"
unit="$tmp/root/lib/systemd/system/quell.service"
grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit" || fail "the unit does not reload with SIGHUP"
grep -qx 'User=quell' "$unit" || fail "the unit does not run as quell"
for line in NoNewPrivileges=yes ProtectSystem=strict StateDirectory=quell; do
  grep -qx "$line" "$unit" || fail "the unit lacks $line"
done
"$tmp/root/usr/bin/quell" --version | grep -q "$version" || fail "the packaged quell's --version"
# No test-only hook ships: nothing in the binary reads a QUELL_TEST_ variable.
! grep -aq 'QUELL_TEST_' "$tmp/root/usr/bin/quell" || fail "the packaged quell names a QUELL_TEST_ variable"
zcat "$tmp/root/usr/share/man/man1/quell-run.1.gz" >"$tmp/run.1"
grep -q '^\.TH QUELL-RUN "1"' "$tmp/run.1" || fail "quell-run(1) has no title: $(head -3 "$tmp/run.1")"
grep -q '^quell-run \\- The daemon' "$tmp/run.1" || fail "quell-run(1) has no NAME line from the help"
grep -qF -- 'no\-dispatch' "$tmp/run.1" || fail "quell-run(1) lacks run's options"
! grep -q 'man-wrappers' "$tmp/run.1" || fail "quell-run(1) names the wrapper's path"
if command -v systemd-analyze >/dev/null; then
  # The host's systemd checks the unit (its targets, /bin/kill, the man page it names), with
  # ExecStart pointing at the packaged binary, which is not installed here.
  mkdir "$tmp/unit"
  sed "s|/usr/bin/quell|$tmp/root/usr/bin/quell|" "$unit" >"$tmp/unit/quell.service"
  # Without man (scripts/install-deps installs man-db) systemd cannot open the page: not the
  # unit's fault, so that one check is left to systemd's --man=no.
  man_check=yes
  command -v man >/dev/null || man_check=no
  MANPATH="$tmp/root/usr/share/man" systemd-analyze verify --man="$man_check" "$tmp/unit/quell.service" >"$tmp/verify" 2>&1 ||
    { cat "$tmp/verify"; fail "systemd-analyze verify"; }
  [ ! -s "$tmp/verify" ] || { cat "$tmp/verify"; fail "systemd-analyze verify printed warnings"; }
fi
echo "package_test: ok: $(basename "$deb"), Depends: $depends"
