#!/usr/bin/env bash
# Runs each fuzz program (Fuzz/, built with `swift build --sanitize=fuzzer`) for FUZZ_SECONDS on
# seeds it makes from the fixtures plus the corpus earlier runs kept, then says per program what
# it found. Anything found is left in FUZZ_DIR/<program>/ as crash-*, timeout-*, oom-* or leak-*;
# run the program on that file to see it again: `Fuzz/.build/debug/fuzz-xml-store <file>`.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
dir=${FUZZ_DIR:-.build/fuzz}
swift=${SWIFT:-swift}
# The build instruments every Swift and C++ file for coverage and links libFuzzer's driver into
# each program. SwiftPM also builds the main package's plugin tool along, which is not needed
# here and cannot link (it has a `main` and so does libFuzzer): that failure does not fail the
# build, and its messages are left out unless the build fails.
log=$(mktemp)
if ! (cd Fuzz && "$swift" build --sanitize=fuzzer >"$log" 2>&1); then cat "$log"; rm -f "$log"; exit 1; fi
tail -n 1 "$log"
rm -f "$log"
bin=$(cd Fuzz && "$swift" build --sanitize=fuzzer --show-bin-path)
targets=${FUZZ_TARGETS:-$(cd Fuzz/Sources && ls -d fuzz-* | sed 's/^fuzz-//')}
# The Swift runtime's own backtracer would print pages per crash; libFuzzer's report and the
# Swift message say what and where.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$dir"
summary=()
found=0
for target in $targets; do
  program="$bin/fuzz-$target"
  out="$dir/$target"
  rm -rf "$out/seeds"
  mkdir -p "$out/corpus" "$out/seeds"
  if ! LIMELIGHT_FUZZ_SEEDS="$out/seeds" "$program" >/dev/null 2>"$out/seeds.log"; then
    summary+=("$(printf '%-16s cannot make its seeds: %s' "$target" "$(tail -n 1 "$out/seeds.log")")")
    found=1
    continue
  fi
  echo "== fuzz-$target for ${seconds}s"
  "$program" "$out/corpus" "$out/seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/" -print_final_stats=1 >"$out/run.log" 2>&1
  status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/run.log" | grep -o '[0-9]*$' | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$out/run.log" | tail -n 1 | grep -o '[0-9]*')
  artifact=$(grep -o "Test unit written to [^ ]*" "$out/run.log" | tail -n 1 | sed 's/Test unit written to //')
  if [ "$status" -eq 0 ]; then
    result="nothing found"
  else
    found=1
    reason=$(grep -m 1 -E 'Fatal error|SUMMARY: libFuzzer|ERROR: libFuzzer' "$out/run.log" | cut -c 1-160)
    result="FOUND: ${reason:-exit status $status} -> ${artifact:-see $out/run.log}"
  fi
  summary+=("$(printf '%-16s %10s runs  cov %-6s %s' "$target" "${runs:-?}" "${cov:-?}" "$result")")
done
echo
echo "fuzzing, ${seconds}s per program (logs and findings in $dir/<program>/):"
printf '%s\n' "${summary[@]}"
exit $found
