#!/usr/bin/env bash
# Binaries some tests and benches run on the host themselves, on loopback ports only: HAProxy in front of
# two service processes (replicas test and bench) and redis-server/redis-cli for the local Redis Cluster
# test, Prometheus and promtool for the query_metrics test. Installs the Debian packages when a binary is missing; never starts them as system services.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
missing=()
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
{ command -v redis-server && command -v redis-cli; } >/dev/null 2>&1 || missing+=(redis-server)
{ command -v prometheus && command -v promtool; } >/dev/null 2>&1 || missing+=(prometheus)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ensure-test-binaries: installing ${missing[*]} (apt)"
install() { DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
install || { $SUDO apt-get update >/dev/null && install; }
# The packages may start system services on their default configs; the tests run their own instances.
if command -v systemctl >/dev/null 2>&1; then
  for unit in "${missing[@]}"; do $SUDO systemctl disable --now "$unit" >/dev/null 2>&1 || true; done
fi
command -v haproxy >/dev/null 2>&1 && command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 \
  && command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1
