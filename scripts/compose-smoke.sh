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
#
# The app image is tagged by a hash of everything its build reads (app_image_key below) and built only
# when no image of that tag exists, so a second run over the same tree on this machine reuses it and
# a changed input always builds a new one. `--build-only` builds the images and stops: .ci/run starts
# that in the background while npm test runs, then runs the smoke on the images it left.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "compose-smoke: $*" >&2; }
build_only=false
case ${1:-} in
  '') ;;
  --build-only) build_only=true ;;
  *)
    log "unknown option $1 (known: --build-only)"
    exit 2
    ;;
esac

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

# The app image's inputs, hashed: the base image, the build and compose files, and every file, link and
# folder of the build context with its mode. The context walk leaves out only the .dockerignore entries
# that name a path literally (node_modules, dist, .git, ...), exactly as Docker does; the wildcard entries'
# files are hashed anyway, which can cause a rebuild but never the reuse of a stale image. Exception
# (`!`) entries could bring back files from a left-out folder: then there is no key, and the image builds.
app_image_key() {
  local prune=() entry
  if grep -qE '^[[:space:]]*!' .dockerignore; then
    log ".dockerignore has exception entries; the app image is not cached (built every run)"
    return 1
  fi
  while IFS= read -r entry; do
    entry=${entry%%#*}
    entry=$(echo "$entry" | sed -E 's/^[[:space:]]+|[[:space:]]+$//g; s|^\./||; s|^/||; s|/+$||')
    [ -n "$entry" ] || continue
    [[ $entry == *[*?[\\]* ]] && continue
    prune+=(-path "./$entry" -o)
  done <.dockerignore
  {
    docker image inspect -f '{{.Id}}' "$1"
    cat Dockerfile .dockerignore docker-compose.yml docker/compose.ci.yml
    find . -mindepth 1 \( "${prune[@]}" -false \) -prune -o -printf '%y %m %p %l\n' | LC_ALL=C sort
    find . -mindepth 1 \( "${prune[@]}" -false \) -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
  } | sha256sum | cut -c1-16
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
export APP_BASE_IMAGE="$NODE_BASE"

if key=$(app_image_key "$NODE_BASE"); then
  APP_IMAGE=superbiz-diagnosis:ci-$key
else
  APP_IMAGE=superbiz-diagnosis:ci-uncached-$$
fi
export APP_IMAGE
if docker image inspect "$APP_IMAGE" >/dev/null 2>&1; then
  log "reusing $APP_IMAGE (built before from these exact inputs)"
else
  log "building $APP_IMAGE (Dockerfile, BASE_IMAGE=$NODE_BASE) with docker-compose build"
  build_started=$(date +%s)
  compose build -q app >&2
  log "image built in $(($(date +%s) - build_started)) s"
  # Older cached app images are stale by construction; their shared layers stay in the build cache.
  docker images --format '{{.Repository}}:{{.Tag}}' 'superbiz-diagnosis' | grep -E ':ci-' |
    grep -vxF "$APP_IMAGE" | xargs -r docker rmi >/dev/null 2>&1 || true
fi
if $build_only; then
  log "images ready: $APP_IMAGE on $NODE_BASE"
  exit 0
fi

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
