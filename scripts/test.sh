#!/usr/bin/env bash
# `npm test`: the lint gate (Prettier, ESLint, tsc over sources and specs), then the whole suite
# (unit + e2e against real MySQL/MariaDB, Redis and the stub LLM server). The e2e services come from
# Testcontainers by default: an engine that already answers is used as is; on a Debian CI machine
# without one, scripts/ensure-docker.sh starts a host-networking-only engine and stops it again on
# exit. TEST_SERVICES=external uses the machine's own services instead.
#
# The jest projects run in one jest process on JEST_MAX_WORKERS workers (default: one per core; each
# worker has its own service database and is replaced when its heap passes 1 GB,
# docs/contributing-ci.md). Each step's wall time goes to CI_TIMINGS when .ci/run sets it; the per-kind jest times and the 15 slowest
# files are printed after the suite (test-artifacts/jest-results.json has them all).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage-timing.sh
if [ "${TEST_SERVICES:-containers}" = external ]; then
  stage "npm test: services (external)" bash scripts/ensure-services.sh
else
  docker_env=$(stage "npm test: docker engine" bash scripts/ensure-docker.sh)
  eval "$docker_env"
  if [ -n "${SUPERBIZ_DOCKERD_PID:-}" ]; then
    trap 'bash scripts/ensure-docker.sh --stop "$SUPERBIZ_DOCKERD_PID"' EXIT
  fi
fi
stage "npm test: browser" bash scripts/ensure-browser.sh
stage "npm test: test binaries" bash scripts/ensure-test-binaries.sh
stage "npm test: install" bash scripts/install-if-needed.sh
# The build (what the e2e, process and browser files run) goes beside the lint: both are mostly one
# thread each. Its output is shown when it has ended; a lint failure stops it.
build_log=$(mktemp)
build_started=$EPOCHREALTIME
npm run build >"$build_log" 2>&1 &
build_pid=$!
trap 'kill "$build_pid" 2>/dev/null || true' ERR
# Its own line, as test/support/lint-gate.spec.ts checks (the lint runs before jest); a failure stops
# here and shows in the table as the failed "npm test" stage.
lint_started=$EPOCHREALTIME
npm run lint
stage_record "npm test: lint" "$lint_started" 0
build_status=0
wait "$build_pid" || build_status=$?
trap - ERR
cat "$build_log"
rm -f "$build_log"
stage_record "npm test: build (beside the lint)" "$build_started" "$build_status"
[ "$build_status" -eq 0 ] || exit "$build_status"
mkdir -p test-artifacts
cores=$(nproc)
workers=${JEST_MAX_WORKERS:-$cores}
echo "npm test: jest on $workers workers ($cores cores)"
status=0
stage "npm test: jest ($workers workers)" npx jest --ci --json --outputFile=test-artifacts/jest-results.json \
  --maxWorkers="$workers" "$@" || status=$?
if [ -f test-artifacts/jest-results.json ]; then
  node -e '
    const r = require("./test-artifacts/jest-results.json");
    console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
  ' || true
  node dist/test/support/jest-timings.js test-artifacts/jest-results.json --slowest 15 || true
fi
exit "$status"
