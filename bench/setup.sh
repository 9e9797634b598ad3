#!/usr/bin/env bash
# The benchmark's tools from Debian, installed when missing (root can apt-get): wrk, the load
# generator, and valgrind for `--instructions` (pass `valgrind` as the first argument).
set -euo pipefail
needed=(wrk)
[ "${1:-}" = valgrind ] && needed+=(valgrind)
missing=()
for tool in "${needed[@]}"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then echo "bench needs ${missing[*]}: run 'apt-get install -y ${missing[*]}' as root" >&2; exit 1; fi
echo "installing ${missing[*]}" >&2
apt-get install -y "${missing[@]}" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
