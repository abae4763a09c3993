#!/usr/bin/env bash
# Makes a Docker engine available to the e2e suite's Testcontainers and prints, on stdout, the shell
# assignments that point the suite at it (callers `eval` them; progress goes to stderr).
#
# - An engine already answers (Docker Desktop, a system dockerd, DOCKER_HOST): nothing to start or
#   print; Testcontainers uses it with the public images.
# - Otherwise (this CI machine kind: no image registry, no bridge networks allowed) as root on Debian:
#   installs docker.io, starts its own dockerd on its own socket with bridge, iptables, ip forwarding
#   and masquerading off (containers get host networking only), builds a debootstrapped Debian base
#   image and the MariaDB + Redis image FROM it once (cached under DOCKER_DATA_ROOT), and prints
#   DOCKER_HOST, the local images and host networking. SUPERBIZ_DOCKERD_PID is printed only when this
#   call started the engine.
#
# `ensure-docker.sh --stop PID` removes the containers Testcontainers left (by its label) and stops that
# dockerd by PID; it refuses a PID that is not a dockerd.
set -euo pipefail
cd "$(dirname "$0")/.."

STATE_DIR=${SUPERBIZ_DOCKER_STATE:-/run/superbiz-docker}
SOCKET="$STATE_DIR/docker.sock"
DATA_ROOT=${DOCKER_DATA_ROOT:-/var/lib/superbiz-docker}
BASE_IMAGE=superbiz/debian-base:bookworm
# Tagged by the content of its build files, so a change to them builds a new image.
SERVICES_IMAGE=superbiz/test-services:$(cat docker/test-services/* | sha256sum | cut -c1-12)
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

log() { echo "ensure-docker: $*" >&2; }

if [ "${1:-}" = --stop ]; then
  pid=${2:?usage: ensure-docker.sh --stop PID}
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != dockerd ]; then
    log "PID $pid is not a running dockerd; nothing to stop"
    exit 0
  fi
  export DOCKER_HOST="unix://$SOCKET"
  leftovers=$(docker ps -aq --filter label=org.testcontainers=true 2>/dev/null || true)
  [ -n "$leftovers" ] && docker rm -f -v $leftovers >/dev/null 2>&1 || true
  kill -TERM "$pid"
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || exit 0
    sleep 0.2
  done
  log "dockerd $pid did not stop within 20 s"
  exit 1
fi

if [ "${DOCKER_HOST:-}" != "unix://$SOCKET" ] && docker info >/dev/null 2>&1; then
  exit 0
fi

export DOCKER_HOST="unix://$SOCKET"
started_pid=""
if ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    log "no Docker engine answers; start one (Docker Desktop, dockerd) or run the suite with TEST_SERVICES=external"
    exit 1
  fi
  if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    log "installing docker.io and debootstrap"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends docker.io debootstrap >/dev/null ||
      { apt-get update >/dev/null && apt-get install -y --no-install-recommends docker.io debootstrap >/dev/null; }
  fi
  mkdir -p "$STATE_DIR" "$DATA_ROOT"
  # No bridge, no iptables rules, no forwarding: containers run with host networking only.
  cat >"$STATE_DIR/daemon.json" <<JSON
{ "bridge": "none", "iptables": false, "ip6tables": false, "ip-forward": false, "ip-masq": false,
  "hosts": ["unix://$SOCKET"], "data-root": "$DATA_ROOT", "exec-root": "$STATE_DIR/exec",
  "pidfile": "$STATE_DIR/dockerd.pid", "log-level": "warn" }
JSON
  log "starting dockerd (host networking only)"
  dockerd --config-file "$STATE_DIR/daemon.json" >"$STATE_DIR/dockerd.log" 2>&1 &
  started_pid=$!
  # An engine this call started must not outlive a failure here: nobody would know its PID.
  trap '[ $? -eq 0 ] || kill -TERM "$started_pid" 2>/dev/null' EXIT
  for _ in $(seq 1 100); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$started_pid" 2>/dev/null || { log "dockerd exited; see $STATE_DIR/dockerd.log"; exit 1; }
    sleep 0.2
  done
  docker info >/dev/null 2>&1 || { log "dockerd did not answer within 20 s"; exit 1; }
fi

if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  log "building $BASE_IMAGE with debootstrap (once; a few minutes)"
  rootfs=$(mktemp -d)
  debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$STATE_DIR/debootstrap.log" 2>&1 ||
    { log "debootstrap failed; see $STATE_DIR/debootstrap.log"; rm -rf "$rootfs"; exit 1; }
  tar -C "$rootfs" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$rootfs"
fi

if ! docker image inspect "$SERVICES_IMAGE" >/dev/null 2>&1; then
  log "building $SERVICES_IMAGE (MariaDB + Redis from Debian; once)"
  DOCKER_BUILDKIT=0 docker build --network host -q -t "$SERVICES_IMAGE" \
    --build-arg BASE_IMAGE="$BASE_IMAGE" docker/test-services >/dev/null
fi

cat <<ENV
export DOCKER_HOST='$DOCKER_HOST'
export TEST_MYSQL_IMAGE='$SERVICES_IMAGE'
export TEST_REDIS_IMAGE='$SERVICES_IMAGE'
export TEST_CONTAINER_NETWORK=host
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
ENV
[ -n "$started_pid" ] && echo "export SUPERBIZ_DOCKERD_PID=$started_pid"
exit 0
