#!/usr/bin/env bash
# Installs the system packages Limelight builds and runs with, when they are missing.
set -euo pipefail
need=()
check() { dpkg -s "$1" >/dev/null 2>&1 || need+=("$1"); }
check libsqlite3-dev
check sqlite3
check libxapian-dev
check xapian-tools
check libjemalloc-dev
check libxml2-dev
check zlib1g-dev
check xdg-utils
check shared-mime-info
# The desktop search provider: sd-bus to build it, a session bus and busctl to test and demonstrate it.
check libsystemd-dev
check dbus-daemon
check systemd
if ((${#need[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "Limelight needs these Debian packages: ${need[*]}" >&2
    echo "Install them with: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "Installing ${need[*]} ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "Limelight needs a Swift 6 toolchain on PATH (swift.org/install)." >&2
  exit 1
fi
