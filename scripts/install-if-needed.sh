#!/usr/bin/env bash
# Installs exactly the locked dependencies when node_modules is missing or older than the lock file.
set -euo pipefail
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
