#!/usr/bin/env bash
# Chromium for test/e2e/docs-browser.test.ts and test/e2e/console-browser.test.ts: Debian's package, driven by playwright-core (no browser download).
set -euo pipefail
[ -x /usr/bin/chromium ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
