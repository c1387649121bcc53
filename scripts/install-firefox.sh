#!/usr/bin/env bash
# Installs what TestBrowserFirefox (e2e/firefox_test.go) needs from Debian
# (CI and developers run as root): Firefox ESR, and Xvfb with Mesa's software
# OpenGL (llvmpipe), since headless Firefox has no WebGL and the game needs
# it. The npm side (puppeteer-core) is the Makefile's, from e2e/firefox's lock.
set -euo pipefail
missing=()
command -v firefox-esr >/dev/null 2>&1 || missing+=(firefox-esr)
command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
dpkg -s libgl1-mesa-dri >/dev/null 2>&1 || missing+=(libgl1-mesa-dri)
if [ ${#missing[@]} = 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
