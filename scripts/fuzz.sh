#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (Debian's clang-15, with AddressSanitizer and UBSan) and
# runs each for a fixed time on its corpus in tests/fuzz/corpus/<target>/ (new inputs that reach
# new code are kept in build/fuzz/corpus/, not in the repository). Prints per target the
# executions, their rate and the findings; exits 1 when any target found a crash.
#   usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# FUZZ_MAX_LEN caps the input size (default 1 MiB); a smaller cap runs many more executions per second.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift $(( $# > 0 ? 1 : 0 ))
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(cuda_binary amd_code_object ncu_csv ncu_trace rocpd_reader search_space)
build=build/fuzz
CXX=clang++-15 CC=clang-15 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRPL_FUZZ=ON \
  -DRPL_ENABLE_TESTS=OFF > /dev/null
cmake --build "$build" --target "${targets[@]/#/fuzz_}"
found=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t" findings="$build/findings/$t"
  mkdir -p "$work" "$findings"
  log="$build/$t.log"
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-1048576}" -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$work" "tests/fuzz/corpus/$t" > "$log" 2>&1 || true
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  crashes=$(find "$findings" -type f | wc -l)
  found=$((found + crashes))
  where=""
  [ "$crashes" -gt 0 ] && where=" in $findings (log: $log)"
  echo "fuzz_$t: ${runs:-0} executions in ${seconds} s ($(( ${runs:-0} / seconds )) per second), $crashes finding(s)$where"
done
[ "$found" -eq 0 ]
