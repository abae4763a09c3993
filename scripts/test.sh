#!/usr/bin/env bash
# `npm test`: the lint gate (Prettier, ESLint, tsc over sources and specs), then the whole suite
# (unit + e2e against real MariaDB, Redis and the stub LLM server).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-services.sh
bash scripts/ensure-browser.sh
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
