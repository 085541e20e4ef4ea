#!/bin/sh
# Starts PostgreSQL (Unix socket only) and then FerretDB on 127.0.0.1:$PORT.
# FerretDB prints "petstore-test-mongo ready: listening on ..." once it accepts
# connections. SIGTERM stops FerretDB, then PostgreSQL (fast shutdown).
set -eu

PORT="${PORT:-27017}"
case "$PORT" in
  '' | *[!0-9]*) echo "petstore-test-mongo: PORT must be a number, got '$PORT'" >&2; exit 2 ;;
esac

PG=/usr/lib/postgresql/18/bin
PGDATA=/var/lib/postgresql/data

install -d -o postgres -g postgres -m 2775 /var/run/postgresql
# setpriv execs PostgreSQL in place (runuser would stay as its parent and not pass signals on): $! is the postmaster.
setpriv --reuid=postgres --regid=postgres --init-groups -- "$PG/postgres" -D "$PGDATA" &
postgres=$!
ferretdb=

stop() {
  trap - TERM INT
  if [ -n "$ferretdb" ]; then kill -TERM "$ferretdb" 2>/dev/null || true; wait "$ferretdb" || true; fi
  kill -INT "$postgres" 2>/dev/null || true
  wait "$postgres" || true
  exit 0
}
trap stop TERM INT

until "$PG/pg_isready" -q -h /var/run/postgresql -U postgres -d postgres; do
  if ! kill -0 "$postgres" 2>/dev/null; then echo "petstore-test-mongo: PostgreSQL did not start" >&2; exit 1; fi
  sleep 0.1
done

/usr/local/bin/petstore-test-mongo --listen-addr="127.0.0.1:$PORT" "$@" &
ferretdb=$!
status=0
wait "$ferretdb" || status=$?
ferretdb=
kill -INT "$postgres" 2>/dev/null || true
wait "$postgres" || true
exit "$status"
