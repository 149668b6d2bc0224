#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian machine: etcd 3.5 (the etcd backend's
# tests and benchmark), kubectl (the kubectl tests), openssl. The build itself needs
# nothing but the Rust toolchain (etcd-client's protos are compiled by protox, see
# hack/etcd-client/vendor.sh). Idempotent: does nothing when everything is present.
#
# etcd: kube-apiserver v1.32+ serves consistent reads from its watch cache only on etcd
# >= 3.4.31 / 3.5.13 (progress requests answered in order), and so does this server.
# Debian stable ships 3.4.23, so Debian sid's etcd-server package (3.5.x, a static Go
# binary needing only libc) is unpacked into /usr/local/bin/etcd; nothing else from sid
# is installed, and the system's apt sources are left untouched.
set -euo pipefail
ETCD=/usr/local/bin/etcd
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi

need=()
command -v kubectl >/dev/null 2>&1 || need+=(kubectl)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi

# The installed etcd's version, as "3 5 30" (empty when none).
etcd_version() {
  [ -x "$ETCD" ] || return 0
  "$ETCD" --version 2>/dev/null | sed -n 's/^etcd Version: \([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/\1 \2 \3/p'
}
recent_enough() {
  read -r major minor patch <<<"$(etcd_version)"
  [ -n "${major:-}" ] || return 1
  [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && { [ "$minor" -gt 5 ] || { [ "$minor" -eq 5 ] && [ "$patch" -ge 13 ]; }; }; }
}
if ! recent_enough; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/lists/partial"
  echo "deb http://deb.debian.org/debian sid main" >"$work/sources.list"
  apt_sid=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=-
    -o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1)
  apt-get "${apt_sid[@]}" update -qq
  (cd "$work" && apt-get "${apt_sid[@]}" download -qq etcd-server)
  dpkg -x "$work"/etcd-server_*.deb "$work/x"
  $SUDO install -m 0755 "$work/x/usr/bin/etcd" "$ETCD"
  recent_enough || { echo "install-deps: $ETCD is not etcd >= 3.5.13: $("$ETCD" --version | sed -n 1p)" >&2; exit 1; }
fi
"$ETCD" --version | sed -n 1p
