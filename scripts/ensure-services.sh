#!/usr/bin/env bash
# Starts the local MariaDB and Redis when they are not answering. On this machine kind they usually
# already run; CI and fresh machines may need them started. Never touches a service that is up.
set -euo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for_port() {
  local port=$1 name=$2
  for _ in $(seq 1 60); do
    port_open "$port" && return 0
    sleep 0.5
  done
  echo "ensure-services: $name did not come up on 127.0.0.1:$port" >&2
  exit 1
}

MYSQL_PORT=${TEST_MYSQL_PORT:-3306}
REDIS_PORT=${TEST_REDIS_PORT:-6379}

if ! port_open "$MYSQL_PORT"; then
  echo "ensure-services: starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  wait_for_port "$MYSQL_PORT" MariaDB
fi

if ! port_open "$REDIS_PORT"; then
  echo "ensure-services: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no
  wait_for_port "$REDIS_PORT" Redis
fi
