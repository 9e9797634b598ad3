#!/usr/bin/env bash
# The reverse proxy the scale-out test puts in front of two Portico instances (HAProxy from
# Debian). Run as root; does nothing when haproxy is installed already.
set -euo pipefail
command -v haproxy >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then echo "haproxy is missing: run $0 as root" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends haproxy >/dev/null
