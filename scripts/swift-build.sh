#!/usr/bin/env bash
# `swift build` with its arguments, run once more when the package manager itself was killed by a
# signal (exit status above 128: it has crashed in its own event loop on a busy machine). A
# compile error exits 1 and is not retried.
set -u
swift=${SWIFT:-swift}
"$swift" build "$@"
status=$?
if [ "$status" -gt 128 ]; then
  echo "swift build stopped by signal $((status - 128)); running it once more" >&2
  "$swift" build "$@"
  status=$?
fi
exit "$status"
