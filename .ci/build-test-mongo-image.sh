#!/usr/bin/env bash
# Builds the MongoDB test image: FerretDB v2.7.0 (docker/test-mongo/main.go,
# compiled on the host from the Go module proxy) on PostgreSQL 18 + DocumentDB
# (Debian unstable's postgresql-18-documentdb). No base image can be pulled
# here, so the root filesystem is made with debootstrap and `docker import`ed.
#
# The image is tagged petstore/test-mongo:<hash> and petstore/test-mongo:latest
# and labelled with a hash of its inputs (this script, docker/test-mongo/*):
# when an image with that hash exists, nothing is rebuilt. Progress goes to
# stderr; the LAST line of stdout is the image tag.
#
#   docker run --rm --network host -e PORT=27018 "$(bash .ci/build-test-mongo-image.sh | tail -1)"
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="${PETSTORE_TEST_MONGO_REPO:-petstore/test-mongo}"
LABEL=petstore.test-mongo.src-hash
SRC=docker/test-mongo
WORK=.ci/work/test-mongo
MIRROR="${PETSTORE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PACKAGES=(postgresql-18 postgresql-18-documentdb)

log() { echo "[build-test-mongo-image] $*" >&2; }
fail() { log "$*"; exit 1; }

hash="$(cat "${BASH_SOURCE[0]}" "$SRC/main.go" "$SRC/go.mod" "$SRC/go.sum" "$SRC/Dockerfile" \
  "$SRC/entrypoint.sh" "$SRC/init.sh" "$SRC/healthcheck.sh" | sha256sum | cut -c1-16)"
TAG="$REPO:$hash"

current="$(docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$TAG" 2>/dev/null || true)"
if [ "$current" = "$hash" ]; then
  docker tag "$TAG" "$REPO:latest"
  log "$TAG is up to date ($LABEL=$hash); nothing to build"
  echo "$TAG"
  exit 0
fi

total=$SECONDS
log "building $TAG"

if ! command -v go >/dev/null 2>&1; then
  [ -x /usr/local/go/bin/go ] || fail "go toolchain not found (looked in PATH and /usr/local/go/bin)"
  export PATH="/usr/local/go/bin:$PATH"
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  log "installing debootstrap (apt-get)"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap; } >&2 \
    || fail "debootstrap is missing and could not be installed"
fi

rootfs="$WORK/rootfs"
cleanup() {
  mountpoint -q "$rootfs/proc" 2>/dev/null && umount "$rootfs/proc"
  true
}
trap cleanup EXIT
cleanup
rm -rf "$WORK"
mkdir -p "$WORK/context"

# 1. FerretDB, embedded in our main. Go's module and build caches (the defaults) make a rebuild quick.
step=$SECONDS
log "go build of $SRC ($(GOTOOLCHAIN=local go env GOVERSION), FerretDB $(grep -o 'FerretDB/v2 v[0-9.]*' "$SRC/go.mod" | cut -d' ' -f2))"
(
  cd "$SRC"
  CGO_ENABLED=0 GOOS=linux GOTOOLCHAIN=local \
    go build -mod=readonly -buildvcs=false -trimpath -ldflags='-s -w' -o "$OLDPWD/$WORK/context/petstore-test-mongo" .
) >"$WORK/go-build.log" 2>&1 || { cat "$WORK/go-build.log" >&2; fail "go build failed"; }
log "go build done in $((SECONDS - step))s"

# 2. Debian unstable root filesystem (bookworm's libc is too old for the packages).
step=$SECONDS
log "debootstrap --variant=minbase unstable ($MIRROR)"
debootstrap --variant=minbase unstable "$rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -20 "$WORK/debootstrap.log" >&2; fail "debootstrap failed (full log: $WORK/debootstrap.log)"; }
log "debootstrap done in $((SECONDS - step))s"

# 3. PostgreSQL 18 + DocumentDB from Debian. No service is started and no cluster created while installing;
#    unstable's Release files may carry an expired Valid-Until.
step=$SECONDS
log "apt-get install ${PACKAGES[*]}"
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod +x "$rootfs/usr/sbin/policy-rc.d"
mkdir -p "$rootfs/etc/postgresql-common"
echo 'create_main_cluster = false' >"$rootfs/etc/postgresql-common/createcluster.conf"
echo 'Acquire::Check-Valid-Until "false";' >"$rootfs/etc/apt/apt.conf.d/99petstore"
mount -t proc proc "$rootfs/proc"
chroot "$rootfs" /bin/sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends ${PACKAGES[*]} && apt-get clean" >"$WORK/apt.log" 2>&1 \
  || { tail -30 "$WORK/apt.log" >&2; fail "apt-get install failed (full log: $WORK/apt.log)"; }
umount "$rootfs/proc"
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/*
log "packages: $(chroot "$rootfs" dpkg-query -W -f='${Package}=${Version} ' postgresql-18 postgresql-18-documentdb postgresql-18-cron)"
log "apt-get done in $((SECONDS - step))s"

# 4. Base image from the root filesystem, then the image: our binary, cluster created at build time.
step=$SECONDS
base="$REPO-rootfs:$hash"
log "docker import -> $base"
tar -C "$rootfs" --numeric-owner -c . | docker import - "$base" >/dev/null
rm -rf "$rootfs"
cp "$SRC/Dockerfile" "$SRC/entrypoint.sh" "$SRC/init.sh" "$SRC/healthcheck.sh" "$WORK/context/"
log "docker build (initdb, CREATE EXTENSION documentdb)"
DOCKER_BUILDKIT=0 docker build --network host --build-arg "BASE=$base" --label "$LABEL=$hash" \
  -t "$TAG" -t "$REPO:latest" "$WORK/context" >"$WORK/docker-build.log" 2>&1 \
  || { tail -30 "$WORK/docker-build.log" >&2; fail "docker build failed (full log: $WORK/docker-build.log)"; }
docker rmi "$base" >/dev/null 2>&1 || true
log "image done in $((SECONDS - step))s"

# Drop superseded builds of this repository (other hashes), quietly.
for old in $(docker images "$REPO" --filter "label=$LABEL" --format '{{.Repository}}:{{.Tag}}' | grep -v -x -e "$TAG" -e "$REPO:latest"); do
  docker rmi "$old" >/dev/null 2>&1 || true
done
docker image prune -f --filter "label=$LABEL" >/dev/null 2>&1 || true
rm -rf "$WORK/context"

size="$(docker image inspect --format '{{.Size}}' "$TAG")"
log "built $TAG ($((size / 1000000)) MB) in $((SECONDS - total))s"
echo "$TAG"
