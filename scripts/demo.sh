#!/usr/bin/env bash
# `npm run demo`: installs, builds, migrates and starts the service offline against the stub LLM.
# Binds 127.0.0.1 unless HOST says otherwise (the demo enables an all-roles dev key). Ctrl-C or SIGTERM
# stops the server and the stub (package.json runs this script with `exec`, so npm's SIGTERM reaches
# it). DEMO_SKIP_BUILD=true reuses dist/ as built (the e2e test of this script).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-services.sh
if [ "${DEMO_SKIP_BUILD:-false}" != true ]; then
  bash scripts/install-if-needed.sh
  npm run build
fi

export DEMO_MODE=true
export HOST=${HOST:-127.0.0.1}
export LOG_BACKEND=${LOG_BACKEND:-mock}
# The documented dev key (README) for the trace and audit APIs; never valid unless enabled like this.
export AUTH_DEV_KEY_ENABLED=${AUTH_DEV_KEY_ENABLED:-true}
export DB_NAME=${DB_NAME:-superbiz}
export STUB_LLM_PORT=${STUB_LLM_PORT:-4010}
export LLM_BASE_URL=${LLM_BASE_URL:-http://127.0.0.1:${STUB_LLM_PORT}/v1}
export LLM_API_KEY=${LLM_API_KEY:-stub-key}
export MYSQL_TOOLS_CONFIG=${MYSQL_TOOLS_CONFIG:-demo/mysql-tools.yaml}
export ORDER_MYSQL_URL=${ORDER_MYSQL_URL:-mysql://127.0.0.1:3306/superbiz_demo_orders}
export ORDER_MYSQL_USERNAME=${ORDER_MYSQL_USERNAME:-superbiz_reader}
export ORDER_MYSQL_PASSWORD=${ORDER_MYSQL_PASSWORD:-demo-reader-password}

node dist/apps/server/src/cli/migrate.js run --create-database
node dist/test/support/business-db-cli.js
node dist/apps/server/src/cli/seed-knowledge.js demo/runbooks

# Both run in the background and the script waits for them: a signal to a shell blocked on a
# foreground child is handled only after that child exits, which left both ports taken.
pids=()
stop() {
  trap - EXIT INT TERM
  [ "${#pids[@]}" -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null || true
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM

node dist/test/support/stub-llm/cli.js --script demo/stub-llm-script.json --port "$STUB_LLM_PORT" &
pids+=($!)
key_hint=""
[ "$AUTH_DEV_KEY_ENABLED" = true ] && key_hint=" (API key: superbiz-dev-key-change-me)"
echo "demo: web UI on http://${HOST}:${PORT:-3000}/${key_hint}, OpenAPI at /api/docs, health at /health; Ctrl-C stops it"
node dist/apps/server/src/main.js &
pids+=($!)
# Either process ending ends the demo.
wait -n
