#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU): wall time of a program traced by rocm-perf's CUPTI tracer
# against the same program untraced and against CUPTI alone (the same activity kinds and
# callbacks, records discarded: the floor any CUPTI tracer pays), alternating, as ratios of medians:
#   100,000 empty kernels (launch-bound: the worst case; target <= 1.10),
#   100,000 kernels of 5 us (short but not empty), and 1,000 kernels of 1 ms (target <= 1.02).
# The traced time includes writing the rocpd database at exit.
#   usage: bench/tracer_overhead.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
here=$(dirname "$0")
build=${1:-build/release}
repeats=${2:-9}
for case in "tiny 100000" "long 100000 0.005" "long 1000 1"; do
  # shellcheck disable=SC2086  # the case is a list of arguments
  CONFIGS=untraced,cupti-alone,tracer bash "$here/tracer_overhead_breakdown.sh" "$build" "$repeats" $case 2> /dev/null
done
