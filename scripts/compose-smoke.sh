#!/usr/bin/env bash
# Proves the compose stack users run boots: `docker-compose -f docker-compose.yml -f
# docker/compose.ci.yml up` with Debian's docker-compose (installed here when missing), on a `.env`
# made from .env.example's offline-demo block (secrets generated, the demo lines uncommented). The
# override only adapts the machine: host networking on free loopback ports (no bridge networks, no
# registry here) and the locally built images (MariaDB + Redis from docker/test-services, the app FROM
# docker/node-base). Then: the app's healthcheck turns healthy, it runs as `node`, /health answers, a
# document upload lands on the volume, config/ is the read-only mount, and one chat request through the
# stub LLM is released as a diagnosis. `down -v` removes everything it started on exit. Takes a few
# minutes the first time (image builds), about a minute after that.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "compose-smoke: $*" >&2; }

eval "$(bash scripts/ensure-docker.sh)"
if [ -z "${TEST_MYSQL_IMAGE:-}" ]; then
  log "a Docker engine of your own answers; use it directly: cp .env.example .env, fill it in, docker compose up"
  exit 1
fi
if ! command -v docker-compose >/dev/null; then
  log "installing docker-compose"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends docker-compose >/dev/null ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends docker-compose >/dev/null; }
fi

PROJECT=superbiz-smoke-$$
work=$(mktemp -d)
compose() {
  docker-compose -p "$PROJECT" --env-file "$work/.env" -f docker-compose.yml -f docker/compose.ci.yml "$@"
}
cleanup() {
  [ -f "$work/.env" ] && compose down -v --remove-orphans >/dev/null 2>&1
  rm -rf "$work"
}
if [ -n "${SUPERBIZ_DOCKERD_PID:-}" ]; then
  trap 'cleanup; bash scripts/ensure-docker.sh --stop "$SUPERBIZ_DOCKERD_PID"' EXIT
else
  trap 'cleanup' EXIT
fi

NODE_BASE=superbiz/node-base:$( (cat docker/node-base/Dockerfile; node --version) | sha256sum | cut -c1-12)
if ! docker image inspect "$NODE_BASE" >/dev/null 2>&1; then
  log "building $NODE_BASE from this machine's Node.js (once)"
  tar -C / -cf "$work/node.tar" usr/bin/node usr/bin/npm usr/bin/npx usr/lib/node_modules/npm
  cp /etc/ssl/certs/ca-certificates.crt "$work/ca.crt"
  cp docker/node-base/Dockerfile "$work/"
  DOCKER_BUILDKIT=0 docker build --network host -q -t "$NODE_BASE" -f "$work/Dockerfile" "$work" >/dev/null
  rm -f "$work/node.tar" "$work/ca.crt" "$work/Dockerfile"
fi

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
MYSQL_PORT=$(free_port)
REDIS_PORT=$(free_port)
STUB_PORT=$(free_port)
APP_PORT=$(free_port)
API_KEY=smoke-operator-key-$RANDOM$RANDOM

# .env.example with its four secrets filled in, as a user starts.
umask 077
sed -E \
  -e "s|^MYSQL_ROOT_PASSWORD=$|MYSQL_ROOT_PASSWORD=smoke-root-$RANDOM$RANDOM|" \
  -e "s|^REDIS_PASSWORD=$|REDIS_PASSWORD=smoke-redis-$RANDOM$RANDOM|" \
  -e "s|^(API_KEYS=.*=)$|\1$API_KEY|" \
  -e "s|^AUDIT_ENCRYPTION_KEYS=$|AUDIT_ENCRYPTION_KEYS=k1:$(head -c 32 /dev/urandom | base64)|" \
  .env.example >"$work/secrets-only.env"

# Plain `docker compose up` (docker-compose.yml + docker-compose.override.yml) on that file must stop
# before starting anything, naming the missing LLM settings.
if refusal=$(APP_ENV_FILE="$work/secrets-only.env" docker-compose -p "$PROJECT" \
  --env-file "$work/secrets-only.env" config 2>&1); then
  log "docker compose up without LLM settings did not stop"
  exit 1
fi
echo "$refusal" | grep -q 'set LLM_BASE_URL and LLM_API_KEY in .env' ||
  { echo "$refusal" >&2; log "docker compose up without LLM settings did not name them"; exit 1; }
log "without LLM settings, docker compose up stops: ${refusal##*: }"

# .env as the offline demo of docs/operations.md has it: the two LLM lines set to the stub, the demo block's lines
# uncommented. Host networking: the stack's host names become loopback ports.
sed -E \
  -e 's|^LLM_BASE_URL=$|LLM_BASE_URL=http://stub-llm:4010/v1|' \
  -e 's|^LLM_API_KEY=$|LLM_API_KEY=stub-key|' \
  -e '/^# Or the offline demo/,$ s|^# ([A-Z_]+=)|\1|' \
  "$work/secrets-only.env" |
  sed -e "s|//stub-llm:4010/|//127.0.0.1:$STUB_PORT/|" -e "s|//mysql:3306/|//127.0.0.1:$MYSQL_PORT/|" >"$work/.env"
cat >>"$work/.env" <<ENV
# compose.ci.yml: the machine's ports and images
DB_TYPE=mariadb
CI_MYSQL_PORT=$MYSQL_PORT
CI_REDIS_PORT=$REDIS_PORT
CI_STUB_PORT=$STUB_PORT
CI_APP_PORT=$APP_PORT
ENV
export APP_ENV_FILE="$work/.env" MYSQL_IMAGE="$TEST_MYSQL_IMAGE" REDIS_IMAGE="$TEST_REDIS_IMAGE"
export APP_BASE_IMAGE="$NODE_BASE" APP_IMAGE=superbiz-diagnosis:smoke

log "building $APP_IMAGE (Dockerfile, BASE_IMAGE=$NODE_BASE) with docker-compose build"
build_started=$(date +%s)
compose build -q app >&2
log "image built in $(($(date +%s) - build_started)) s"

log "docker-compose -f docker-compose.yml -f docker/compose.ci.yml up (profiles from .env: demo)"
compose up -d >&2
app=$(compose ps -q app)
[ -n "$app" ] || { compose logs >&2; log "compose started no app container"; exit 1; }
log "waiting for the app's healthcheck"
for _ in $(seq 1 180); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$app" 2>/dev/null || echo gone)
  [ "$health" = healthy ] && break
  [ "$(docker inspect -f '{{.State.Running}}' "$app")" = true ] || { compose logs >&2; log "the app exited"; exit 1; }
  sleep 1
done
[ "$health" = healthy ] || { compose logs >&2; log "the app did not turn healthy ($health)"; exit 1; }
[ "$(docker exec "$app" id -un)" = node ] || { log "the app does not run as node"; exit 1; }
docker exec "$app" sh -c 'test -f config/mysql-tools.yaml && ! touch config/.write-test 2>/dev/null' ||
  { log "config/ is not the read-only mount of the repository's config/"; exit 1; }
[ "$(docker exec "$app" printenv COMPOSE_PROFILES)" = demo ] ||
  { log ".env did not reach the app through env_file"; exit 1; }

base="http://127.0.0.1:$APP_PORT"
curl -fsS "$base/health" >&2 && echo >&2
printf '# Smoke runbook\n\nThe smoke test uploads this runbook.\n' >"$work/smoke.md"
upload=$(curl -fsS -H "x-api-key: $API_KEY" -F "file=@$work/smoke.md;type=text/markdown" -F title=Smoke \
  "$base/api/documents/upload")
doc_id=$(node -e 'console.log(JSON.parse(process.argv[1]).document_id)' "$upload")
docker exec "$app" sh -c "ls /app/var/documents | grep -q '^$doc_id'" ||
  { log "the upload did not land on the documents volume"; exit 1; }
stream=$(curl -fsS -N -H "x-api-key: $API_KEY" -H 'content-type: application/json' \
  -d '{"query":"订单 order-123 支付超时，帮我排查"}' "$base/api/chat")
echo "$stream" | grep -q '"content_type":"DIAGNOSIS_REPORT"' &&
  echo "$stream" | grep -q '^data: {"outcome":"SUCCESS"}' ||
  { echo "$stream" >&2; compose logs app >&2; log "the chat request was not released"; exit 1; }
log "passed: docker-compose.yml + docker/compose.ci.yml up, healthy as node, config/ read-only, /health, upload on the volume, one released diagnosis via the stub LLM"
