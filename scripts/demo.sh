#!/usr/bin/env bash
# `npm run demo`: installs, builds, migrates and starts the service offline against the stub LLM, with
# a Prometheus (Debian's package, on loopback) holding the demo incident's metrics for query_metrics.
# The console shows one progress line per step and, last, the URL and the dev key; the service's and
# the stub's JSON logs go to DEMO_LOG_FILE (default var/log/demo.log), named on the console, and its
# last lines are printed when a step fails. Binds 127.0.0.1 unless HOST says otherwise (the demo
# enables an all-roles dev key). Ctrl-C or SIGTERM stops the server, the stub and Prometheus (package.json runs
# this script with `exec`, so npm's SIGTERM reaches it). DEMO_SKIP_BUILD=true reuses dist/ as built
# (the e2e test of this script).
set -euo pipefail
cd "$(dirname "$0")/.."

LOG_FILE=${DEMO_LOG_FILE:-var/log/demo.log}
mkdir -p "$(dirname "$LOG_FILE")"
: >"$LOG_FILE"
say() { echo "demo: $*"; }
# Runs one step with its output in the log file; a failure names the step and shows the log's end.
step() {
  local what=$1
  shift
  say "$what"
  "$@" >>"$LOG_FILE" 2>&1 || {
    local status=$?
    say "FAILED: $what (exit $status); last lines of $LOG_FILE:" >&2
    tail -n 20 "$LOG_FILE" >&2
    exit "$status"
  }
}

say "logs of every step and of the running service: $LOG_FILE"
step "starting services (MariaDB, Redis)" bash scripts/ensure-services.sh
if [ "${DEMO_SKIP_BUILD:-false}" != true ]; then
  step "installing dependencies (when node_modules is missing or stale)" bash scripts/install-if-needed.sh
  step "building (about a minute)" npm run build
fi

export DEMO_MODE=true
export HOST=${HOST:-127.0.0.1}
export PORT=${PORT:-3000}
export LOG_BACKEND=${LOG_BACKEND:-mock}
# The documented dev key (docs/demo.md) for the trace and audit APIs; never valid unless enabled like this.
export AUTH_DEV_KEY_ENABLED=${AUTH_DEV_KEY_ENABLED:-true}
export DB_NAME=${DB_NAME:-superbiz}
export STUB_LLM_PORT=${STUB_LLM_PORT:-4010}
export LLM_BASE_URL=${LLM_BASE_URL:-http://127.0.0.1:${STUB_LLM_PORT}/v1}
export LLM_API_KEY=${LLM_API_KEY:-stub-key}
export MYSQL_TOOLS_CONFIG=${MYSQL_TOOLS_CONFIG:-demo/mysql-tools.yaml}
export ORDER_MYSQL_URL=${ORDER_MYSQL_URL:-mysql://127.0.0.1:3306/superbiz_demo_orders}
export ORDER_MYSQL_USERNAME=${ORDER_MYSQL_USERNAME:-superbiz_reader}
export ORDER_MYSQL_PASSWORD=${ORDER_MYSQL_PASSWORD:-demo-reader-password}
export PROMETHEUS_PORT=${PROMETHEUS_PORT:-4011}
export PROMETHEUS_URL=http://127.0.0.1:${PROMETHEUS_PORT}
export METRICS_TOOLS_CONFIG=${METRICS_TOOLS_CONFIG:-demo/metrics-tools.yaml}
# The incident's metrics end at the demo's start and query_metrics' window ends there too, so the
# follow-up finds them however long the demo has been running.
export METRICS_NOW=${METRICS_NOW:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}

step "migrating the service database ($DB_NAME)" node dist/apps/server/src/cli/migrate.js run --create-database
step "seeding the demo order database and runbooks" sh -c \
  'node dist/test/support/business-db-cli.js && node dist/apps/server/src/cli/seed-knowledge.js demo/runbooks'
if ! { command -v prometheus && command -v promtool; } >/dev/null 2>&1; then
  step "installing Prometheus (Debian package prometheus, once)" bash scripts/ensure-test-binaries.sh prometheus
fi

# All run in the background and the script waits for them: a signal to a shell blocked on a
# foreground child is handled only after that child exits, which left the ports taken.
pids=()
names=()
stop() {
  trap - EXIT INT TERM
  [ "${#pids[@]}" -gt 0 ] && kill -TERM "${pids[@]}" 2>/dev/null
  wait "${pids[@]}" 2>/dev/null || true
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
start() {
  local name=$1
  shift
  "$@" >>"$LOG_FILE" 2>&1 &
  pids+=($!)
  names+=("$name")
}
# Polls a URL until it answers 2xx; a background process that exits first, or the time running out,
# fails the demo naming what it was waiting for. Each poll is bounded: a port held by something that
# accepts and never answers must not hang the demo.
wait_until_up() {
  local what=$1 check_url=$2 seconds=$3
  for _ in $(seq 1 $((seconds * 2))); do
    node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$check_url" &&
      return 0
    for index in "${!pids[@]}"; do
      kill -0 "${pids[$index]}" 2>/dev/null && continue
      say "FAILED: $what: the ${names[$index]} exited; last lines of $LOG_FILE:" >&2
      tail -n 20 "$LOG_FILE" >&2
      exit 1
    done
    sleep 0.5
  done
  say "FAILED: $what: $check_url did not answer within $seconds s; last lines of $LOG_FILE:" >&2
  tail -n 20 "$LOG_FILE" >&2
  exit 1
}

say "starting Prometheus with the demo incident's metrics ($PROMETHEUS_URL)"
start "demo Prometheus" node dist/test/support/demo-prometheus-cli.js --port "$PROMETHEUS_PORT" --now "$METRICS_NOW"
wait_until_up "starting Prometheus" "$PROMETHEUS_URL/-/ready" 60

say "starting the stub LLM and the service"
start "stub LLM" node dist/test/support/stub-llm/cli.js --script demo/stub-llm-script.json --port "$STUB_LLM_PORT"
start service node dist/apps/server/src/main.js

url="http://${HOST}:${PORT}/"
health="http://$([ "$HOST" = 0.0.0.0 ] && echo 127.0.0.1 || echo "$HOST"):${PORT}/health"
wait_until_up "starting the stub LLM and the service" "$health" 120
key_hint=""
[ "$AUTH_DEV_KEY_ENABLED" = true ] && key_hint=", API key: superbiz-dev-key-change-me"
say "ready (logs: $LOG_FILE); Ctrl-C stops it"
if [ "$AUTH_DEV_KEY_ENABLED" = true ]; then
  # The demo incident as Alertmanager would send it (docs/alerts.md); startsAt is filled in when it runs.
  say "fire the demo incident's alert (Alertmanager webhook, as the dev key): sed \"s/STARTS_AT/\$(date -u +%Y-%m-%dT%H:%M:%SZ)/\" demo/alertmanager-alert.json | curl -sS -X POST ${url}api/alerts/alertmanager -H 'Authorization: Bearer superbiz-dev-key-change-me' -H 'content-type: application/json' --data-binary @-"
  say "its report appears in the web UI under Runs → Alert investigations (${url}#/runs); a repeat within 30 minutes is recorded there as DUPLICATE_WITHIN_WINDOW"
fi
say "web UI on ${url}${key_hint} (OpenAPI at /api/docs, health at /health)"
# Any of the three ending ends the demo.
wait -n
