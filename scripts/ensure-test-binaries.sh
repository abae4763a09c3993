#!/usr/bin/env bash
# Binaries some tests and benches run on the host themselves, on loopback ports only: HAProxy in front of
# two service processes (replicas test and bench) and redis-server/redis-cli for the local Redis Cluster
# test, Prometheus and promtool for the query_metrics test and the demo, Alertmanager (and amtool) for the
# alert-ingest test and the demo's alert line, ripgrep as the log benches' reference scanner. Installs the
# Debian packages when a binary is missing; never starts them as system services. Arguments name the
# packages to check (haproxy, redis-server, prometheus, prometheus-alertmanager, ripgrep; default all), so
# the demo installs Prometheus alone.
set -euo pipefail
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
binaries_of() {
  case $1 in
    haproxy) echo haproxy ;;
    redis-server) echo redis-server redis-cli ;;
    prometheus) echo prometheus promtool ;;
    prometheus-alertmanager) echo prometheus-alertmanager amtool ;;
    ripgrep) echo rg ;;
    *)
      echo "ensure-test-binaries: unknown package $1 (known: haproxy, redis-server, prometheus, prometheus-alertmanager, ripgrep)" >&2
      return 1
      ;;
  esac
}
packages=("$@")
[ ${#packages[@]} -eq 0 ] && packages=(haproxy redis-server prometheus prometheus-alertmanager ripgrep)
missing=()
for package in "${packages[@]}"; do
  binaries=$(binaries_of "$package")
  for binary in $binaries; do
    command -v "$binary" >/dev/null 2>&1 || {
      missing+=("$package")
      break
    }
  done
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ensure-test-binaries: installing ${missing[*]} (apt)"
install() { DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
install || { $SUDO apt-get update >/dev/null && install; }
# The packages may start system services on their default configs; the tests run their own instances.
if command -v systemctl >/dev/null 2>&1; then
  for unit in "${missing[@]}"; do $SUDO systemctl disable --now "$unit" >/dev/null 2>&1 || true; done
fi
for package in "${missing[@]}"; do
  for binary in $(binaries_of "$package"); do
    command -v "$binary" >/dev/null 2>&1 || {
      echo "ensure-test-binaries: $binary is still missing after installing $package" >&2
      exit 1
    }
  done
done
