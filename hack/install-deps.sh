#!/usr/bin/env bash
# Installs the system packages the build and the tests need on a fresh Debian machine.
# Idempotent: does nothing when everything is present.
set -euo pipefail
need=()
command -v kubectl >/dev/null 2>&1 || need+=(kubectl)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q "${need[@]}"
fi
