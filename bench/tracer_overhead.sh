#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU): wall time of a program traced by rocm-perf's CUPTI tracer
# against the same program untraced, alternating, as the ratio of medians:
#   100,000 tiny kernels (target <= 1.10) and 1,000 kernels of 1 ms each (target <= 1.02).
# The traced time includes writing the rocpd database at exit.
#   usage: bench/tracer_overhead.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
build=${1:-build/release}
repeats=${2:-5}
program="$build/examples/launch_patterns"
tracer="$(cd "$build/lib" && pwd)/librpl_cupti_trace.so"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() {  # wall seconds of one command
  local start end
  start=$(date +%s%N)
  "$@" > /dev/null
  end=$(date +%s%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f\n", (e - s) / 1e9 }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for case in "tiny 100000" "long 1000 1"; do
  plain=(); traced=()
  "$program" $case  # warm-up: driver and page cache
  for ((i = 0; i < repeats; i++)); do
    plain+=("$(seconds "$program" $case)")
    traced+=("$(seconds env CUDA_INJECTION64_PATH="$tracer" RPL_TRACE_DIR="$work/run$i" "$program" $case)")
  done
  p=$(median "${plain[@]}"); t=$(median "${traced[@]}")
  echo "launch_patterns $case: untraced median ${p} s (${plain[*]}), traced median ${t} s (${traced[*]})"
  awk -v p="$p" -v t="$t" -v c="$case" 'BEGIN { printf "ratio traced/untraced for %s: %.3f\n", c, t / p }'
done
