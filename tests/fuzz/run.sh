#!/usr/bin/env bash
# Runs each libFuzzer target for the given number of seconds (default 30), keeping its corpus in
# <build>/corpus/<target> so that later runs start where earlier ones stopped. A finding stops its
# run with a crash file in <build> and makes this script fail. With a build directory, the targets
# come from that tree (configured with clang and FFI_BUILD_FUZZERS=ON, as tests/asan_python.sh
# does); without one, they are built here with clang (ASan + UBSan, -O1) in build/fuzz.
#   tests/fuzz/run.sh [seconds] [build-dir]
set -euo pipefail

seconds="${1:-30}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${2:-$root/build/fuzz}"

if [ $# -lt 2 ]; then
  # -O1 and line tables: a third less build time than -O2 -g, at little cost in executions.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DFFI_BUILD_TESTS=OFF -DFFI_BUILD_FUZZERS=ON >/dev/null
  cmake --build "$build" --target fuzz_dlpack fuzz_any -j2
fi
for target in fuzz_dlpack fuzz_any; do
  if [ ! -x "$build/tests/fuzz/$target" ]; then
    echo "error: no $build/tests/fuzz/$target (configure with clang and -DFFI_BUILD_FUZZERS=ON)" >&2
    exit 1
  fi
done

status=0
for target in fuzz_dlpack fuzz_any; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  echo "== $target: ${seconds}s, corpus $corpus"
  # LeakSanitizer runs at the end of each input too: a leaked value or tensor is a finding.
  # Backtraces off (FFI_BACKTRACE=0): most inputs raise errors, and taking a backtrace for each
  # would cut the executions to a quarter.
  if ! FFI_BACKTRACE=0 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/$target" -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$build/$target-" "$corpus" 2>"$build/$target.log"; then
    status=1
    tail -n 60 "$build/$target.log"
  fi
  grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/$target.log" || true
done
exit $status
