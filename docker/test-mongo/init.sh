#!/bin/sh
# Runs once while the image is built (see Dockerfile): creates the PostgreSQL
# cluster, configures it for the test server and creates the DocumentDB
# extension, so that a container is ready seconds after it starts.
set -eu

PG=/usr/lib/postgresql/18/bin
PGDATA=/var/lib/postgresql/data
SOCKETS=/var/run/postgresql

install -d -o postgres -g postgres -m 0700 "$PGDATA"
install -d -o postgres -g postgres -m 2775 "$SOCKETS"
runuser -u postgres -- "$PG/initdb" -D "$PGDATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null

# What DocumentDB needs (its extension control file requires pg_cron, which
# runs the TTL task), what the test image wants (no TCP port, so containers on
# the host network never collide: pg_cron runs its jobs in background workers
# and DocumentDB's own loopback connections, used e.g. to build indexes, go to
# the Unix socket instead of its default host=localhost), and speed over
# durability where it is free: fsync=off loses nothing when the container (or
# the database process) is killed, only if the machine itself crashes, and the
# data of a test run lives and dies with its container. synchronous_commit
# stays on: a test kills the database and expects every acknowledged write.
# deadlock_timeout: DocumentDB checks a unique secondary index as an exclusion
# constraint, so concurrent inserts of one key wait on each other and only
# PostgreSQL's deadlock check (after deadlock_timeout of waiting) frees them;
# with the default 1 s, a race of ten inserts of one name took 27 s. The
# adapters run a deadlock's victim again (adapters/mongo/duplicate-key.ts).
cat >>"$PGDATA/postgresql.conf" <<'CONF'

# petstore test image
listen_addresses = ''
unix_socket_directories = '/var/run/postgresql'
shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'
cron.database_name = 'postgres'
cron.use_background_workers = on
documentdb.localhost_connection_string = 'host=/var/run/postgresql'
max_worker_processes = 32
max_connections = 300
fsync = off
full_page_writes = off
deadlock_timeout = 20ms
log_min_messages = warning
log_min_error_statement = panic
log_line_prefix = 'postgres %m [%p] '
CONF

runuser -u postgres -- "$PG/pg_ctl" -D "$PGDATA" -w -t 120 -l /tmp/postgres-init.log start >/dev/null \
  || { cat /tmp/postgres-init.log >&2; exit 1; }

# DocumentDB schedules its TTL task with pg_cron once a minute ('* * * * *'),
# like MongoDB's TTL monitor (60 s). The test image runs it every second so a
# test can watch a TTL index expire a document without waiting a minute.
runuser -u postgres -- "$PG/psql" -X -q -v ON_ERROR_STOP=1 -h "$SOCKETS" -d postgres <<'SQL'
CREATE EXTENSION IF NOT EXISTS documentdb CASCADE;
SELECT cron.alter_job(jobid, schedule => '1 seconds') FROM cron.job WHERE jobname = 'documentdb_ttl_task';
SELECT jobname, schedule FROM cron.job ORDER BY jobname;
SQL

runuser -u postgres -- "$PG/pg_ctl" -D "$PGDATA" -w -m fast stop >/dev/null
rm -f /tmp/postgres-init.log
