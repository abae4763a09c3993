#!/usr/bin/env bash
# The multi-replica test and bench put HAProxy (Debian package) in front of two service processes.
# Installs it when missing; it is only ever started by those, on loopback ports.
set -euo pipefail
command -v haproxy >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "ensure-haproxy: installing haproxy (apt)"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends haproxy >/dev/null ||
  { $SUDO apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends haproxy >/dev/null; }
# The package may start a system service on its default config; the tests run their own instances.
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now haproxy >/dev/null 2>&1 || true; fi
command -v haproxy >/dev/null 2>&1
