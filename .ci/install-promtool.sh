#!/usr/bin/env bash
# promtool for test/e2e/metrics.test.ts (`promtool check metrics` on a real scrape): Debian's prometheus package.
# Only the tool is wanted: recommends are skipped and the package's service is never started.
set -euo pipefail
command -v promtool >/dev/null && exit 0
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
command -v promtool
