#!/usr/bin/env bash
# `npm run test:timing [-- <options>] [-- <test files>]`: tests run while a CPU hog keeps every core
# busy, so a test that depends on which timer the event loop serves first, or on a deadline a loaded
# machine misses, fails here rather than once in a while in CI. Uses the machine's MariaDB and Redis
# (TEST_SERVICES=external).
#
# Default: the known timing-sensitive files (deadlines, timeouts, cancellation, shutdown), run
# TIMING_REPEAT times (default 20), stopping at the first failing repetition.
# --all: every medium, e2e and process file instead (the sweep), TIMING_REPEAT default 1; every file
#   runs and the failing ones are listed at the end (a sweep finds all it can in one pass).
# --chunk I/N: only the I-th of N equal slices of the file list, to split a sweep over several runs.
# e2e and process files run the built service: dist/ is built first when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
all=false
chunk=""
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --all) all=true ;;
    --chunk)
      chunk=${2:?--chunk needs I/N}
      shift
      ;;
    --chunk=*) chunk=${1#--chunk=} ;;
    -*)
      echo "timing-under-load: unknown option $1 (known: --all, --chunk I/N)" >&2
      exit 2
      ;;
    *) files+=("$1") ;;
  esac
  shift
done
export TEST_SERVICES=external

if $all; then
  [ ${#files[@]} -eq 0 ] || { echo "timing-under-load: --all takes no file arguments" >&2; exit 2; }
  # Only the file paths: jest also prints the projects it selected.
  mapfile -t files < <(npx jest --listTests --selectProjects medium e2e process | grep "^$PWD/" |
    sed "s|^$PWD/||" | sort)
  [ ${#files[@]} -gt 0 ] || { echo "timing-under-load: jest listed no medium/e2e/process files" >&2; exit 1; }
  repeat=${TIMING_REPEAT:-1}
elif [ ${#files[@]} -eq 0 ]; then
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
  repeat=${TIMING_REPEAT:-20}
else
  repeat=${TIMING_REPEAT:-20}
fi

if [ -n "$chunk" ]; then
  if ! [[ $chunk =~ ^([0-9]+)/([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 1 ] ||
    [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
    echo "timing-under-load: --chunk must be I/N with 1 <= I <= N, got $chunk" >&2
    exit 2
  fi
  index=${BASH_REMATCH[1]} count=${BASH_REMATCH[2]}
  total=${#files[@]}
  from=$(((index - 1) * total / count))
  to=$((index * total / count))
  files=("${files[@]:from:to-from}")
  echo "timing-under-load: chunk $chunk: files $((from + 1))-$to of $total"
fi

bash scripts/ensure-services.sh
if printf '%s\n' "${files[@]}" | grep -qE '^test/(e2e|process|browser)/'; then
  if [ -f dist/apps/server/src/main.js ] && [ -f dist/test/support/jest-timings.js ]; then
    echo "timing-under-load: using the existing dist/ (run npm run build after changing sources)"
  else
    npm run build
  fi
fi
mkdir -p test-artifacts

hogs=()
stop_hogs() { [ ${#hogs[@]} -eq 0 ] || kill "${hogs[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq 1 "$(nproc)"); do
  (while :; do :; done) &
  hogs+=($!)
done
echo "timing-under-load: ${#hogs[@]} busy loops on $(nproc) cores; ${#files[@]} files x $repeat"

failed_runs=0
for run in $(seq 1 "$repeat"); do
  start=$(date +%s)
  log="test-artifacts/timing-run-$run.log"
  json="test-artifacts/timing-run-$run.json"
  rm -f "$json"
  status=0
  npx jest --ci --silent --json --outputFile="$json" --runTestsByPath "${files[@]}" >"$log" 2>&1 || status=$?
  # A pass is jest's exit status 0 and its results file naming every file as run and passed (an install
  # pulled away under a running jest once ended it with 0 and no results).
  if [ "$status" -eq 0 ] && [ -f "$json" ] && node -e '
    const r = require(require("path").resolve(process.argv[1]));
    process.exit(r.success && r.numTotalTestSuites === Number(process.argv[2]) && r.numFailedTestSuites === 0 ? 0 : 1);
  ' "$json" "${#files[@]}"; then
    echo "timing-under-load: run $run of $repeat passed ($(($(date +%s) - start)) s)"
    rm -f "$log"
    continue
  fi
  [ -f "$json" ] || echo "timing-under-load: jest exited $status and wrote no results ($json)"
  failed_runs=$((failed_runs + 1))
  echo "timing-under-load: run $run of $repeat FAILED ($(($(date +%s) - start)) s; $log)"
  node dist/test/support/jest-timings.js "$json" --failed || grep -E '^\s+●|✕' "$log" | head -20 || true
  $all || exit 1
done
if [ "$failed_runs" -gt 0 ]; then
  echo "timing-under-load: $failed_runs of $repeat runs failed under load"
  exit 1
fi
echo "timing-under-load: all $repeat runs passed under load"
