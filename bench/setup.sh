#!/usr/bin/env bash
# The benchmark's load generator: wrk from Debian, installed when missing (root can apt-get).
set -euo pipefail
command -v wrk >/dev/null && exit 0
if [ "$(id -u)" != 0 ]; then echo "bench needs wrk: run 'apt-get install -y wrk' as root" >&2; exit 1; fi
echo "installing wrk" >&2
apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
