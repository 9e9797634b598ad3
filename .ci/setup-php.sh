#!/usr/bin/env bash
# PHP's command line and its SOAP extension (Debian php-cli, php-soap): the reference platform's
# SOAP client, whose SoapServer is the peer that decodes the encoded requests Portico sends
# (test/e2e/soap/php-encoded-peer.test.ts). Run as root; does nothing when both are there.
set -euo pipefail
php -r 'exit(class_exists("SoapServer") ? 0 : 1);' >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != 0 ]; then echo "php-soap is missing: run $0 as root" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends php-cli php-soap >/dev/null
