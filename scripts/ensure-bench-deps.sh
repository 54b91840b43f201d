#!/usr/bin/env bash
# Installs the benchmarks' peers when they are missing: libsqlite3-dev and libxapian-dev (raw
# sqlite3 and the raw Xapian peer), xapian-tools (quest) and recollcmd (recoll's recollindex and
# recollq, without its desktop interface). Not root: names what is missing; the benchmark then
# skips that peer with a note instead of faking its figure.
set -euo pipefail
need=()
for package in libsqlite3-dev libxapian-dev xapian-tools recollcmd; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
((${#need[@]})) || exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "note: benchmark peers not installed: ${need[*]} (sudo apt-get install -y ${need[*]}); their measures are skipped" >&2
  exit 0
fi
echo "Installing benchmark peers: ${need[*]} ..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
  || echo "note: could not install ${need[*]}; the benchmark skips what is missing" >&2
