#!/bin/sh
# Starts PostgreSQL (Unix socket only) and then FerretDB on HOST:PORT (defaults 127.0.0.1:27017).
# DATA_DIR is PostgreSQL's data directory (default: the cluster made when the image was built); an empty one, such as
# a fresh volume, starts as a copy of that cluster, so a volume mounted there keeps the data across containers.
# FerretDB prints "petstore-test-mongo ready: listening on ..." once it accepts
# connections. SIGTERM stops FerretDB, then PostgreSQL (fast shutdown).
set -eu

PORT="${PORT:-27017}"
case "$PORT" in
  '' | *[!0-9]*) echo "petstore-test-mongo: PORT must be a number, got '$PORT'" >&2; exit 2 ;;
esac
HOST="${HOST:-127.0.0.1}"
case "$HOST" in
  *[!0-9A-Za-z.:_-]*) echo "petstore-test-mongo: HOST must be an address or host name (0.0.0.0 for every interface), got '$HOST'" >&2; exit 2 ;;
esac
case "$HOST" in
  *:*) LISTEN="[$HOST]:$PORT" ;;
  *) LISTEN="$HOST:$PORT" ;;
esac

PG=/usr/lib/postgresql/18/bin
BUILT=/var/lib/postgresql/data
PGDATA="${DATA_DIR:-$BUILT}"
case "$PGDATA" in
  /*) ;;
  *) echo "petstore-test-mongo: DATA_DIR must be an absolute path, got '$PGDATA'" >&2; exit 2 ;;
esac

if [ "$PGDATA" != "$BUILT" ]; then
  mkdir -p "$PGDATA"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -n "$(ls -A "$PGDATA")" ]; then
      echo "petstore-test-mongo: DATA_DIR $PGDATA holds files but no PostgreSQL cluster" >&2
      exit 2
    fi
    cp -a "$BUILT/." "$PGDATA/"
  fi
  # PostgreSQL refuses a data directory others may read; a fresh volume belongs to root.
  chown -R postgres:postgres "$PGDATA"
  chmod 0700 "$PGDATA"
fi

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

/usr/local/bin/petstore-test-mongo --listen-addr="$LISTEN" "$@" &
ferretdb=$!
status=0
wait "$ferretdb" || status=$?
ferretdb=
kill -INT "$postgres" 2>/dev/null || true
wait "$postgres" || true
exit "$status"
