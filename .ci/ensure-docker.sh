#!/usr/bin/env bash
# Make a Docker engine reachable for the MongoDB test suites.
#   - installs Debian's docker.io when dockerd is missing;
#   - starts dockerd in the background when `docker info` fails, recording its
#     pid in .ci/work/dockerd.pid so .ci/stop-docker.sh stops only what we started;
#   - waits (bounded) until `docker info` succeeds.
# Idempotent: a second run with the engine up does nothing.
# dockerd runs without iptables/NAT and without the docker0 bridge: our test
# containers use host networking bound to 127.0.0.1 only.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
WORK=.ci/work
mkdir -p "$WORK"
PIDFILE="$WORK/dockerd.pid"
LOG="$WORK/dockerd.log"
WAIT_SECONDS="${PETSTORE_DOCKER_WAIT_SECONDS:-60}"

log() { echo "[ensure-docker] $*"; }

if docker info >/dev/null 2>&1; then
  log "docker engine already reachable"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    log "dockerd is not installed and we are not root: cannot install docker.io" >&2
    exit 1
  fi
  log "installing Debian docker.io (apt-get update + install)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$WORK/apt.log" 2>&1 || { tail -20 "$WORK/apt.log" >&2; exit 1; }
  apt-get install -y -qq docker.io >>"$WORK/apt.log" 2>&1 \
    || { tail -20 "$WORK/apt.log" >&2; exit 1; }
fi

started=0
if [ -n "${DOCKER_HOST:-}" ] && [ "${DOCKER_HOST}" != "unix:///var/run/docker.sock" ]; then
  log "DOCKER_HOST=$DOCKER_HOST is set but not reachable; not starting a local dockerd" >&2
  exit 1
fi

# Only start one if no dockerd of ours (or anybody's) is running already.
if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  log "dockerd (pid $(cat "$PIDFILE")) started earlier is still coming up"
elif [ -f /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
  log "a dockerd (pid $(cat /var/run/docker.pid)) is running but not ready yet (not ours); waiting for it"
else
  rm -f "$PIDFILE"
  log "starting dockerd in the background (log: $LOG)"
  # setsid: keep it out of our process group so Ctrl-C/HUP of this script does not kill it.
  setsid dockerd --iptables=false --ip-forward=false --ip-masq=false --bridge=none \
    >"$LOG" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  started=1
fi

deadline=$((SECONDS + WAIT_SECONDS))
until docker info >/dev/null 2>&1; do
  if [ "$started" = 1 ] && ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    log "dockerd exited during startup; last log lines:" >&2
    tail -20 "$LOG" >&2 || true
    rm -f "$PIDFILE"
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    log "docker engine not reachable after ${WAIT_SECONDS}s" >&2
    tail -20 "$LOG" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 1
done
log "docker engine ready ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))"
