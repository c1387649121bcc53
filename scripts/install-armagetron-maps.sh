#!/usr/bin/env bash
# Installs Debian's armagetronad-common, whose
# /usr/share/games/armagetronad/resource/included/ holds the ten stock
# Armagetron maps that package aamap's and sim's map tests play (square,
# diamond, 40-gon, inaktek, repeat and Z-Man's five fortress and sumo maps).
# The maps are Armagetron's (GPL-2+ as the package says; some files say
# "Public Domain" or "Do with it what you want"); none is copied into this
# repository. CI and developers run as root.
set -euo pipefail
DIR=/usr/share/games/armagetronad/resource/included
if [ -f "$DIR/Z-Man/fortress/sumo_4x4-0.1.1.aamap.xml" ] && [ -f "$DIR/Your_mom/clever/inaktek-0.7.2.aamap.xml" ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends armagetronad-common
