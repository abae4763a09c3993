#!/usr/bin/env bash
# Proves the compose stack boots: builds the service image and runs docker-compose.yml's configuration
# (`--profile demo`: MySQL-compatible DB, Redis with a password, the demo order database, the stub LLM,
# the app as `node` with its documents volume and healthcheck) with host networking on free loopback
# ports, since this machine kind has no bridge networks and no registry: the DB and Redis come from the
# locally built test-services image (MariaDB, DB_TYPE=mariadb) and the app's BASE_IMAGE from
# docker/node-base. Then: the app's healthcheck turns healthy, /health answers, a document upload lands
# on the volume, and one chat request through the stub LLM is released. Everything it started is
# removed on exit. Takes a few minutes the first time (image builds), about a minute after that.
set -euo pipefail
cd "$(dirname "$0")/.."

eval "$(bash scripts/ensure-docker.sh)"
if [ -z "${TEST_MYSQL_IMAGE:-}" ]; then
  echo "compose-smoke: a Docker engine of your own answers; use it directly: docker compose --profile demo up" >&2
  exit 1
fi
if [ -n "${SUPERBIZ_DOCKERD_PID:-}" ]; then
  trap 'cleanup; bash scripts/ensure-docker.sh --stop "$SUPERBIZ_DOCKERD_PID"' EXIT
else
  trap 'cleanup' EXIT
fi
log() { echo "compose-smoke: $*" >&2; }

NODE_BASE=superbiz/node-base:$( (cat docker/node-base/Dockerfile; node --version) | sha256sum | cut -c1-12)
APP_IMAGE=superbiz-diagnosis:smoke
SERVICES_IMAGE=$TEST_MYSQL_IMAGE
PREFIX=superbiz-smoke-$$
containers=()
cleanup() {
  [ "${#containers[@]}" -gt 0 ] && docker rm -f -v "${containers[@]}" >/dev/null 2>&1
  docker volume rm -f "$PREFIX-documents" >/dev/null 2>&1 || true
}
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
run() { # name, then docker run arguments
  local name="$PREFIX-$1"
  shift
  containers+=("$name")
  docker run -d --name "$name" --network host "$@" >/dev/null
}

if ! docker image inspect "$NODE_BASE" >/dev/null 2>&1; then
  log "building $NODE_BASE from this machine's Node.js (once)"
  context=$(mktemp -d)
  tar -C / -cf "$context/node.tar" usr/bin/node usr/bin/npm usr/bin/npx usr/lib/node_modules/npm
  cp /etc/ssl/certs/ca-certificates.crt "$context/ca.crt"
  cp docker/node-base/Dockerfile "$context/"
  DOCKER_BUILDKIT=0 docker build --network host -q -t "$NODE_BASE" "$context" >/dev/null
  rm -rf "$context"
fi
log "building $APP_IMAGE (Dockerfile, BASE_IMAGE=$NODE_BASE)"
build_started=$(date +%s)
DOCKER_BUILDKIT=0 docker build --network host -q --build-arg BASE_IMAGE="$NODE_BASE" -t "$APP_IMAGE" . >/dev/null
log "image built in $(($(date +%s) - build_started)) s"

MYSQL_ROOT_PASSWORD=smoke-root-$RANDOM$RANDOM
REDIS_PASSWORD=smoke-redis-$RANDOM$RANDOM
ORDER_MYSQL_PASSWORD=smoke-reader-$RANDOM$RANDOM
API_KEY=smoke-operator-key-$RANDOM$RANDOM
# The roles the smoke's one key needs: chat, and whatever role document uploads require.
API_ROLES=${SMOKE_API_ROLES:-chat|trace_reader|knowledge_admin}
AUDIT_KEY="k1:$(head -c 32 /dev/urandom | base64)"
MYSQL_PORT=$(free_port)
REDIS_PORT=$(free_port)
STUB_PORT=$(free_port)
APP_PORT=$(free_port)

# mysql and redis services (compose: healthchecks mysqladmin ping / redis-cli ping with the password)
run mysql -e MARIADB_ROOT_PASSWORD="$MYSQL_ROOT_PASSWORD" -e MARIADB_DATABASE=superbiz "$SERVICES_IMAGE" \
  --port="$MYSQL_PORT" --bind-address=127.0.0.1 --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci
run redis -e REDIS_PASSWORD="$REDIS_PASSWORD" "$SERVICES_IMAGE" \
  sh -c "exec redis-server --requirepass \"\$REDIS_PASSWORD\" --save '' --appendonly no --port $REDIS_PORT --bind 127.0.0.1"
for _ in $(seq 1 120); do
  docker exec "$PREFIX-mysql" mariadb-admin ping -h 127.0.0.1 -P "$MYSQL_PORT" -uroot -p"$MYSQL_ROOT_PASSWORD" --silent >/dev/null 2>&1 &&
    [ "$(docker exec -e REDISCLI_AUTH="$REDIS_PASSWORD" "$PREFIX-redis" redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && break
  sleep 0.5
done
[ "$(docker exec "$PREFIX-redis" redis-cli -p "$REDIS_PORT" ping 2>&1)" != PONG ] || { log "Redis answers without its password"; exit 1; }

# The app's environment (compose: x app-environment, shared by app and demo-data), on this host's ports.
app_env=(
  -e PORT="$APP_PORT" -e HOST=127.0.0.1 -e DB_TYPE=mariadb -e DB_HOST=127.0.0.1 -e DB_PORT="$MYSQL_PORT"
  -e DB_USER=root -e DB_PASSWORD="$MYSQL_ROOT_PASSWORD" -e DB_NAME=superbiz
  -e REDIS_HOST=127.0.0.1 -e REDIS_PORT="$REDIS_PORT" -e REDIS_PASSWORD="$REDIS_PASSWORD"
  -e API_KEYS="$API_ROLES=$API_KEY" -e AUDIT_ENCRYPTION_KEYS="$AUDIT_KEY"
  -e LLM_BASE_URL="http://127.0.0.1:$STUB_PORT/v1" -e LLM_API_KEY=stub-key -e LLM_MODEL=deepseek-chat
  -e DEMO_MODE=true -e LOG_BACKEND=mock -e MYSQL_TOOLS_CONFIG=demo/mysql-tools.yaml
  -e ORDER_MYSQL_URL="mysql://127.0.0.1:$MYSQL_PORT/superbiz_demo_orders" -e ORDER_MYSQL_USERNAME=superbiz_reader
  -e ORDER_MYSQL_PASSWORD="$ORDER_MYSQL_PASSWORD"
)
docker volume create "$PREFIX-documents" >/dev/null

# stub-llm and demo-data (the demo profile); demo-data completes before the app starts.
run stub-llm "$APP_IMAGE" node dist/test/support/stub-llm/cli.js --script demo/stub-llm-script.json \
  --host 127.0.0.1 --port "$STUB_PORT"
docker run --rm --network host "${app_env[@]}" -v "$PREFIX-documents:/app/var/documents" "$APP_IMAGE" \
  sh -c 'node dist/test/support/business-db-cli.js && node dist/apps/server/src/cli/seed-knowledge.js demo/runbooks' >&2

# app (compose: user node from the image, documents volume, healthcheck from the image)
run app "${app_env[@]}" -v "$PREFIX-documents:/app/var/documents" "$APP_IMAGE"

log "waiting for the app's healthcheck"
for _ in $(seq 1 120); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$PREFIX-app" 2>/dev/null || echo gone)
  [ "$health" = healthy ] && break
  [ "$(docker inspect -f '{{.State.Running}}' "$PREFIX-app")" = true ] || { docker logs "$PREFIX-app" >&2; log "the app exited"; exit 1; }
  sleep 1
done
[ "$health" = healthy ] || { docker logs "$PREFIX-app" >&2; log "the app did not turn healthy ($health)"; exit 1; }
[ "$(docker exec "$PREFIX-app" id -un)" = node ] || { log "the app does not run as node"; exit 1; }

base="http://127.0.0.1:$APP_PORT"
curl -fsS "$base/health" >&2 && echo >&2
printf '# Smoke runbook\n\nThe smoke test uploads this runbook.\n' >"/tmp/$PREFIX.md"
upload=$(curl -fsS -H "x-api-key: $API_KEY" -F "file=@/tmp/$PREFIX.md;type=text/markdown" -F title=Smoke \
  "$base/api/documents/upload")
rm -f "/tmp/$PREFIX.md"
doc_id=$(node -e 'console.log(JSON.parse(process.argv[1]).document_id)' "$upload")
docker exec "$PREFIX-app" sh -c "ls /app/var/documents | grep -q '^$doc_id'" ||
  { log "the upload did not land on the documents volume"; exit 1; }
stream=$(curl -fsS -N -H "x-api-key: $API_KEY" -H 'content-type: application/json' \
  -d '{"query":"订单 order-123 支付超时，帮我排查"}' "$base/api/chat")
echo "$stream" | grep -q '"content_type":"DIAGNOSIS_REPORT"' &&
  echo "$stream" | grep -q '^data: {"outcome":"SUCCESS"}' ||
  { echo "$stream" >&2; log "the chat request was not released"; exit 1; }
log "passed: healthy as node, /health, upload on the volume, one released diagnosis via the stub LLM"
