#!/usr/bin/env bash
# `npm run test:timing [-- <test files>]`: the timing-sensitive tests (deadlines, timeouts, cancellation,
# shutdown), run TIMING_REPEAT times (default 20) while a CPU hog keeps every core busy, so a test that
# depends on which timer the event loop serves first fails here rather than once in a while in CI.
# Stops at the first failing repetition. Uses the machine's MariaDB and Redis (TEST_SERVICES=external).
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${TIMING_REPEAT:-20}
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(
    libs/harness/src/tools/tool-boundary.spec.ts
    libs/harness/src/model/model-gateway.spec.ts
    libs/chat/src/chat-application.use-case.spec.ts
    libs/chat/src/diagnosis/diagnosis-pipeline.spec.ts
    test/medium/tool-boundary-error-codes.medium-spec.ts
    test/e2e/run-deadline.e2e-spec.ts
    test/e2e/chat-cancel-mid-tool.e2e-spec.ts
    test/medium/harness-tool-boundary.medium-spec.ts
  )
fi
export TEST_SERVICES=external
bash scripts/ensure-services.sh

hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq 1 "$(nproc)"); do
  (while :; do :; done) &
  hogs+=($!)
done
echo "timing-under-load: ${#hogs[@]} busy loops on $(nproc) cores; ${#files[@]} files x $repeat"

for run in $(seq 1 "$repeat"); do
  start=$(date +%s)
  if ! npx jest --ci --silent "${files[@]}" >"test-artifacts/timing-run-$run.log" 2>&1; then
    echo "timing-under-load: run $run of $repeat FAILED (test-artifacts/timing-run-$run.log)"
    grep -E '^\s+●|✕' "test-artifacts/timing-run-$run.log" | head -20 || true
    exit 1
  fi
  echo "timing-under-load: run $run of $repeat passed ($(($(date +%s) - start)) s)"
  rm -f "test-artifacts/timing-run-$run.log"
done
echo "timing-under-load: all $repeat runs passed under load"
