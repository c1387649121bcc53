#!/usr/bin/env bash
# Installs Debian's nats-server for the cluster tests against external NATS
# servers (CI and developers run as root). Debian 12 ships 2.9.10; installing
# it starts a system service on 127.0.0.1:4222, which the tests leave alone:
# they run servers of their own on ports of their own.
set -euo pipefail
if command -v nats-server >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q nats-server
