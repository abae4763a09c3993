#!/usr/bin/env bash
# `npm run bench`: every benchmark in bench/, against the real local services and the stub LLM.
# `npm run bench -- soak session-list` runs only the named ones (bench/<name>.bench.ts). The soak runs
# for minutes (BENCH_SOAK_DURATION_S), so it runs only when named.
# Figures go to bench/results/latest.json (not committed) and are printed as tables.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-services.sh
bash scripts/ensure-test-binaries.sh
bash scripts/install-if-needed.sh
npm run build
export LOG_LEVEL=${LOG_LEVEL:-silent}
export AUTH_DEV_KEY_ENABLED=true
export LOG_BACKEND=${LOG_BACKEND:-mock}
export TEST_CHAT_API_KEY=superbiz-dev-key-change-me
export AUDIT_ENCRYPTION_KEYS=${AUDIT_ENCRYPTION_KEYS:-bench:$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))")}
export ORDER_MYSQL_URL=${ORDER_MYSQL_URL:-mysql://127.0.0.1:3306/order_db}
export ORDER_MYSQL_USERNAME=${ORDER_MYSQL_USERNAME:-superbiz_reader}
export ORDER_MYSQL_PASSWORD=${ORDER_MYSQL_PASSWORD:-bench-reader-password}
if [ "$#" -gt 0 ]; then
  for name in "$@"; do
    if [ ! -f "dist/bench/$name.bench.js" ]; then
      echo "no benchmark named '$name' (bench/$name.bench.ts)" >&2
      exit 2
    fi
    node "dist/bench/$name.bench.js"
  done
else
  for bench in dist/bench/*.bench.js; do
    [ "$(basename "$bench")" = soak.bench.js ] || node "$bench"
  done
fi
echo
echo "results: bench/results/latest.json"
