#!/bin/sh
# The data directory is initialised at build time, so a start takes about a second; the root password
# and MARIADB_DATABASE (or MYSQL_DATABASE) are applied on every start through --init-file.
set -eu
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  set -- mariadbd "$@"
fi
case "$1" in
  mariadbd)
    shift
    password=${MARIADB_ROOT_PASSWORD:-}
    if [ -z "$password" ] && [ "${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-}" != 1 ]; then
      echo "entrypoint: set MARIADB_ROOT_PASSWORD or MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1" >&2
      exit 1
    fi
    escaped=$(printf '%s' "$password" | sed "s/'/''/g")
    cat > /run/mysqld/init.sql <<SQL
ALTER USER 'root'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('$escaped');
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('$escaped');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
SQL
    database=${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}
    if [ -n "$database" ]; then
      printf 'CREATE DATABASE IF NOT EXISTS `%s` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;\n' \
        "$(printf '%s' "$database" | sed 's/`/``/g')" >> /run/mysqld/init.sql
    fi
    chown mysql:mysql /run/mysqld/init.sql
    exec mariadbd --user=mysql --datadir=/var/lib/mysql --init-file=/run/mysqld/init.sql "$@"
    ;;
  *) exec "$@" ;;
esac
