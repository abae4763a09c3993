#!/usr/bin/env bash
# `npm run bench`: every benchmark in bench/, against the real local services and the stub LLM.
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
for bench in dist/bench/*.bench.js; do
  node "$bench"
done
echo
echo "results: bench/results/latest.json"
