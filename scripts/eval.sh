#!/usr/bin/env bash
# `npm run eval [-- --llm-base-url URL --model NAME --api-key KEY] [-- --scenario NAME]`: scores diagnoses
# of every scenario in eval/scenarios, each on its own databases and log dir, through the built service
# over HTTP. Without a model it runs the scripted oracles on the stub LLM and requires 100 %.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-services.sh
bash scripts/install-if-needed.sh
[ "${EVAL_SKIP_BUILD:-}" = 1 ] || npm run build
node dist/eval/run-eval.js "$@"
