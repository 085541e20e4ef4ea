#!/usr/bin/env bash
# Python 3.11+ with venv and pip for test/e2e/python-client.test.ts (the petstore-client wheel, built and installed
# into a fresh virtual environment, its packages from PyPI): the machine's python3 when it has them, else Debian's.
set -euo pipefail
if python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  python3 --version
else
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip
  python3 --version
fi
