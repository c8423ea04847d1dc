#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on loopback for the tests and benchmarks
# (docs/operations.md, "A standby coordinator"): Debian's server binaries, a new cluster
# in DIR owned by the `postgres` system user (initdb refuses root), listening on
# 127.0.0.1:PORT only, trusting loopback. Prints the store URL a coordinator takes:
#   postgresql://reelfarm@127.0.0.1:PORT/reelfarm
# Usage: cluster/postgres-serve.sh DIR [PORT]     (stop: cluster/postgres-serve.sh --stop DIR)
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "postgres-serve: no PostgreSQL server (apt-get install postgresql-15)" >&2; exit 2; }
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "${1:-}" = --stop ]; then
  as_owner "$bin/pg_ctl" -D "$2/data" -m fast stop >/dev/null
  exit 0
fi
dir=${1:?usage: postgres-serve.sh DIR [PORT]}
port=${2:-55432}
mkdir -p "$dir"
[ "$(id -u)" = 0 ] && chown postgres: "$dir"
if [ ! -f "$dir/data/PG_VERSION" ]; then
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
fi
if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  # fsync stays on: the store's durability is part of what the tests check.
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c shared_buffers=128MB" >/dev/null \
    || { tail -20 "$dir/server.log" >&2; exit 1; }
fi
psql() { "$bin/psql" -qAt -h 127.0.0.1 -p "$port" -U postgres "$@"; }
[ "$(psql -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname='reelfarm'")" = 1 ] || psql -d postgres -c "CREATE ROLE reelfarm LOGIN CREATEDB"
[ "$(psql -d postgres -c "SELECT 1 FROM pg_database WHERE datname='reelfarm'")" = 1 ] || psql -d postgres -c "CREATE DATABASE reelfarm OWNER reelfarm"
echo "postgresql://reelfarm@127.0.0.1:$port/reelfarm"
