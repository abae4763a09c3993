#!/usr/bin/env bash
# The machine's own MariaDB and Redis, for TEST_SERVICES=external, the demo and the benchmarks.
# Installs Debian's mariadb-server / redis-server when missing (as root with apt; the package's own
# service start is suppressed) and starts them when not answering. Never touches a service that is up.
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

install_packages() {
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "ensure-services: $* missing; install them (as root: apt-get install $*) or point TEST_MYSQL_*/TEST_REDIS_* at running services" >&2
    exit 1
  fi
  echo "ensure-services: installing $*"
  export DEBIAN_FRONTEND=noninteractive
  # policy-rc.d 101: the packages' scripts must not start services; this script starts them below.
  local policy=/usr/sbin/policy-rc.d created_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
  fi
  apt-get install -y --no-install-recommends "$@" >/dev/null ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends "$@" >/dev/null; }
  [ -n "$created_policy" ] && rm -f "$policy"
  return 0
}

MYSQL_PORT=${TEST_MYSQL_PORT:-3306}
REDIS_PORT=${TEST_REDIS_PORT:-6379}

missing=()  # packages this call installs
port_open "$MYSQL_PORT" || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
port_open "$REDIS_PORT" || command -v redis-server >/dev/null || missing+=(redis-server)
[ "${#missing[@]}" -eq 0 ] || install_packages "${missing[@]}"

if ! port_open "$MYSQL_PORT"; then
  echo "ensure-services: starting MariaDB"
  install -d -o mysql -g mysql /run/mysqld
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  wait_for_port "$MYSQL_PORT" MariaDB
  if [[ " ${missing[*]} " == *" mariadb-server "* ]]; then
    # A fresh Debian install lets root in only through the socket; the suite and the demo connect over
    # TCP as root without a password (loopback only), like the machine kind's preinstalled MariaDB.
    mariadb -uroot -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('')"
  fi
fi

if ! port_open "$REDIS_PORT"; then
  echo "ensure-services: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no
  wait_for_port "$REDIS_PORT" Redis
fi
