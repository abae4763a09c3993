#!/usr/bin/env bash
# `npm run eval [-- --llm-base-url URL --model NAME --api-key KEY] [-- --scenario NAME]`: scores diagnoses
# of every scenario in eval/scenarios, each on its own databases and log dir, through the built service
# over HTTP. Without a model it runs the scripted oracles on the stub LLM and requires 100 %.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-services.sh
bash scripts/install-if-needed.sh
if [ "${EVAL_SKIP_BUILD:-}" != 1 ]; then
  echo "eval: building (about a minute)" >&2
  build_output=$(npm run build 2>&1) || { echo "$build_output" >&2; echo "eval: the build failed (above)" >&2; exit 1; }
fi
node dist/eval/run-eval.js "$@"
