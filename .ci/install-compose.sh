#!/usr/bin/env bash
# docker-compose for test/e2e/compose.test.ts (`docker-compose config` validates compose.yaml): Debian's package.
set -euo pipefail
command -v docker-compose >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose; }
docker-compose version --short
