#!/usr/bin/env bash
# `npm test`: the lint gate (Prettier, ESLint, tsc over sources and specs), then the whole suite
# (unit + e2e against real MySQL/MariaDB, Redis and the stub LLM server). The e2e services come from
# Testcontainers by default: an engine that already answers is used as is; on a Debian CI machine
# without one, scripts/ensure-docker.sh starts a host-networking-only engine and stops it again on
# exit. TEST_SERVICES=external uses the machine's own services instead.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${TEST_SERVICES:-containers}" = external ]; then
  bash scripts/ensure-services.sh
else
  docker_env=$(bash scripts/ensure-docker.sh)
  eval "$docker_env"
  if [ -n "${SUPERBIZ_DOCKERD_PID:-}" ]; then
    trap 'bash scripts/ensure-docker.sh --stop "$SUPERBIZ_DOCKERD_PID"' EXIT
  fi
fi
bash scripts/ensure-browser.sh
bash scripts/ensure-test-binaries.sh
bash scripts/install-if-needed.sh
npm run lint
npm run build
mkdir -p test-artifacts
status=0
npx jest --ci --json --outputFile=test-artifacts/jest-results.json "$@" || status=$?
node -e '
  const r = require("./test-artifacts/jest-results.json");
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' || true
exit "$status"
