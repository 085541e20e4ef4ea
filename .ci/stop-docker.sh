#!/usr/bin/env bash
# Clean up after the test run:
#   - removes leftover containers labelled by our test setup (petstore.test);
#   - stops the dockerd that .ci/ensure-docker.sh started (pid in
#     .ci/work/dockerd.pid), and nothing else.
# Safe to run any number of times; never fails the caller.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
PIDFILE=.ci/work/dockerd.pid
LABEL=petstore.test

log() { echo "[stop-docker] $*"; }

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  ids="$(docker ps -aq --filter "label=$LABEL" 2>/dev/null || true)"
  if [ -n "$ids" ]; then
    log "removing leftover test containers: $(echo $ids)"
    # shellcheck disable=SC2086
    docker rm -f $ids >/dev/null 2>&1 || true
  fi
fi

[ -f "$PIDFILE" ] || exit 0
pid="$(cat "$PIDFILE")"
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null \
   && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
  log "stopping dockerd (pid $pid) started by ensure-docker.sh"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "dockerd (pid $pid) still running after 30s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
fi
rm -f "$PIDFILE"
exit 0
