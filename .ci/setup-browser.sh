#!/usr/bin/env bash
# The browser the API docs page test drives (Debian's chromium, run headless by playwright-core).
# Run as root; does nothing when chromium is installed already.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then echo "chromium is missing: run $0 as root" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
