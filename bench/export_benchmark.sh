#!/usr/bin/env bash
# Benchmark: `rocm-perf export --format perfetto` of 1,000,000 dispatches over 16 streams with
# 100,000 cross-stream event waits (the DAG benchmark's trace), timed side by side with
# `rocm-perf analyze` of the same file in one run. Target (issue 11): the export under 10 s.
#   usage: bench/export_benchmark.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
source "$(dirname "$0")/timing.sh"
build=${1:-build/release}
repeats=${2:-3}
bin="$build/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/export_results.db"
"$bin/rpl-make-trace" dag-benchmark "$db" --dispatches 1000000 --queues 16 --cross-edges 100000
measure "$bin/rocm-perf" analyze "$db" > /dev/null  # warm the page cache
exported=(); analyzed=(); peak_kib=0
for ((i = 0; i < repeats; i++)); do
  read -r s kib < <(measure "$bin/rocm-perf" export "$db" -o "$work/trace.json")
  exported+=("$s"); (( kib > peak_kib )) && peak_kib=$kib
  read -r s _ < <(measure "$bin/rocm-perf" analyze "$db")
  analyzed+=("$s")
done
a=$(median "${exported[@]}"); b=$(median "${analyzed[@]}")
echo "trace.json: $(du -h "$work/trace.json" | cut -f1)"
echo "export  : median ${a} s of ${exported[*]}; peak memory $((peak_kib / 1024)) MiB"
echo "analyze : median ${b} s of ${analyzed[*]}"
awk -v a="$a" -v b="$b" 'BEGIN { printf "export / analyze = %.2f; export %.2f s (target < 10 s)\n", a / b, a }'
