#!/usr/bin/env bash
# Installs the system packages the tests need on a fresh Debian machine: etcd (the etcd
# backend's tests and benchmark), kubectl (the kubectl tests). The build itself needs
# nothing but the Rust toolchain (etcd-client's protos are compiled by protox, see
# hack/etcd-client/vendor.sh). Idempotent: does nothing when everything is present.
set -euo pipefail
need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v kubectl >/dev/null 2>&1 || need+=(kubectl)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi
# Debian's etcd-server starts a system etcd on the default ports; tests start their own
# on free ports, so the packaged service is not needed (and is stopped when present).
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet etcd 2>/dev/null; then
  systemctl stop etcd || true
fi
