#!/usr/bin/env bash
# Build the FerretDB test image petstore/ferretdb:1.24 from docker/ferretdb/.
# The Go binary is built on the host (CGO_ENABLED=0, static) because no base
# image (golang, alpine, ...) can be pulled; the image is FROM scratch.
# The image carries a label with a hash of docker/ferretdb/* and of this script:
# when an image with the same hash exists, nothing is rebuilt.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
IMAGE="${PETSTORE_FERRETDB_IMAGE:-petstore/ferretdb:1.24}"
LABEL=petstore.ferretdb.src-hash
SRC=docker/ferretdb
CTX=.ci/work/ferretdb-image

log() { echo "[build-ferretdb-image] $*"; }

hash="$(cat "$SRC/main.go" "$SRC/go.mod" "$SRC/go.sum" "$SRC/Dockerfile" "${BASH_SOURCE[0]}" \
  | sha256sum | cut -c1-16)"

current="$(docker image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$IMAGE" 2>/dev/null || true)"
if [ "$current" = "$hash" ]; then
  log "$IMAGE is up to date ($LABEL=$hash); skipping build"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    log "go toolchain not found (looked in PATH and /usr/local/go/bin)" >&2
    exit 1
  fi
fi

rm -rf "$CTX"
mkdir -p "$CTX"
log "go build ($(go env GOVERSION), CGO_ENABLED=0)"
start=$SECONDS
out="$PWD/$CTX/petstore-ferretdb"
if ! (
  cd "$SRC"
  CGO_ENABLED=0 GOOS=linux GOTOOLCHAIN=local \
    go build -mod=readonly -buildvcs=false -trimpath -ldflags='-s -w' -o "$out" .
) >"$CTX/go-build.log" 2>&1; then
  cat "$CTX/go-build.log" >&2
  log "go build failed" >&2
  exit 1
fi
log "go build done in $((SECONDS - start))s"

cp "$SRC/Dockerfile" "$CTX/Dockerfile"
start=$SECONDS
# The classic builder works offline with FROM scratch and needs no buildx plugin.
DOCKER_BUILDKIT=0 docker build -q --label "$LABEL=$hash" -t "$IMAGE" "$CTX" >"$CTX/build.log" 2>&1 \
  || { cat "$CTX/build.log" >&2; exit 1; }
log "built $IMAGE ($LABEL=$hash) in $((SECONDS - start))s"

# Drop superseded builds of this image (now untagged), quietly.
docker image prune -f --filter "label=$LABEL" >/dev/null 2>&1 || true
rm -f "$CTX/petstore-ferretdb"
