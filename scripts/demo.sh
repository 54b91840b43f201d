#!/usr/bin/env bash
# The seed demo, end to end: a cookbook with indexed recipes, the indexer daemon, search and open.
# Runs in a scratch XDG home so it never touches your own index or recipes.
set -euo pipefail
cd "$(dirname "$0")/.."
# LIMELIGHT_BIN runs the demo with other builds of the programs (`make demo-release`: the release ones).
bin="${LIMELIGHT_BIN:-$(swift build --show-bin-path)}"
demo="$(mktemp -d -t limelight-demo.XXXXXX)"
export XDG_DATA_HOME="$demo/data" XDG_STATE_HOME="$demo/state" XDG_CONFIG_HOME="$demo/config"
export PATH="$bin:$PATH"
mkdir -p "$XDG_DATA_HOME" "$XDG_STATE_HOME"
daemon="" bus=""
cleanup() {
  [ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  # The search provider ends when its bus goes away.
  [ -n "$bus" ] && kill -TERM "$bus" 2>/dev/null && wait "$bus" 2>/dev/null
  true
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Waits until `limelight search "$1"` prints a line matching "$2".
wait_for() {
  local query="$1" pattern="$2" start end
  start=$(date +%s%N)
  for _ in $(seq 1 200); do
    out="$(limelight search "$query" 2>/dev/null || true)"
    if grep -q -- "$pattern" <<<"$out"; then break; fi
    sleep 0.02
  done
  end=$(date +%s%N)
  echo "   (index followed in $(( (end - start) / 1000000 )) ms)"
}

step "Register the cookbook for .recipe files (shared-mime-info + xdg-utils, in the scratch home)"
mkdir -p "$XDG_DATA_HOME/mime/packages" "$XDG_DATA_HOME/applications"
cp share/mime/packages/limelight-cookbook.xml "$XDG_DATA_HOME/mime/packages/"
cp share/applications/cookbook.desktop "$XDG_DATA_HOME/applications/"
update-mime-database "$XDG_DATA_HOME/mime" >/dev/null 2>&1 || true
xdg-mime default cookbook.desktop application/x-limelight-recipe || true
mkdir -p "$XDG_DATA_HOME/limelight/importers"
cp share/limelight/importers/cookbook.importer "$XDG_DATA_HOME/limelight/importers/"

step "Add two recipes"
cookbook add Guacamole --directions "Mash ripe avocados with lime juice, salt and cilantro." --ingredient "3 avocados" --ingredient "1 lime"
cookbook add Salsa --directions "Chopped tomato, onion, cilantro, lime." --ingredient "4 tomatoes" --ingredient "1 onion"
cookbook list

step "Start the indexer daemon"
limelightd --foreground &
daemon=$!
for _ in $(seq 1 100); do limelight status >/dev/null 2>&1 && break; sleep 0.05; done
limelight status

step "limelight search tomato"
wait_for tomato Salsa
limelight search tomato
marker="$(limelight search tomato --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["marker"])')"
echo "marker: $marker"

step "cookbook search tomato  (the application's own search: the index, resolved in its context)"
cookbook search tomato

step "limelight open <marker>  (runs the application registered for .recipe)"
limelight open "$marker"

step "The desktop's search: GNOME Shell's calls to limelight-search-provider (on a private session bus)"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$demo/bus"
dbus-daemon --session --nofork --address="$DBUS_SESSION_BUS_ADDRESS" 2>/dev/null &
bus=$!
for _ in $(seq 1 100); do busctl --user status >/dev/null 2>&1 && break; sleep 0.05; done
limelight-search-provider &
for _ in $(seq 1 100); do busctl --user list 2>/dev/null | grep -q org.limelight.SearchProvider && break; sleep 0.05; done
echo "GetInitialResultSet [tomato]:"
busctl --user call org.limelight.SearchProvider /org/limelight/SearchProvider org.gnome.Shell.SearchProvider2 GetInitialResultSet as 1 tomato
echo "GetResultMetas [marker]:"
busctl --user call org.limelight.SearchProvider /org/limelight/SearchProvider org.gnome.Shell.SearchProvider2 GetResultMetas as 1 "$marker"

step "Edit Salsa, delete Guacamole: the index follows"
cookbook edit Salsa --directions "Roasted tomatillo, onion, cilantro, lime."
wait_for tomatillo Salsa
limelight search tomatillo
cookbook delete Guacamole
start=$(date +%s%N)
for _ in $(seq 1 200); do [ "$(limelight search avocados --count)" = 0 ] && break; sleep 0.02; done
echo "   (index followed in $(( ($(date +%s%N) - start) / 1000000 )) ms)"
echo "search 'avocados' after the delete:"
limelight search avocados || true

step "Stop the daemon (SIGTERM finishes the batch and commits)"
kill -TERM "$daemon"; wait "$daemon" || true; daemon=""
echo "demo files in $demo"
