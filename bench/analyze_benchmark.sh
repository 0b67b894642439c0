#!/usr/bin/env bash
# Benchmark: `rocm-perf analyze` on a rocpd database of 1,000,000 dispatches over 2,000 kernel
# symbols and 8 queues, next to the sqlite3 command-line tool scanning the same dispatch table.
# Both are timed in the same run, alternating, and the ratio of their medians is reported.
# Target (issue 2): analyze within 3x of the scan, under 1 GiB peak memory.
#   usage: bench/analyze_benchmark.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
source "$(dirname "$0")/timing.sh"
build=${1:-build/release}
repeats=${2:-5}
bin="$build/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/bench_results.db"

benchmark_trace "$db"
echo "database: $(du -h "$db" | cut -f1), $(sqlite3 "$db" "SELECT count(*) FROM \"$table\"") dispatches"


measure "$bin/rocm-perf" analyze --json "$db" > /dev/null  # warm the page cache for both
analyze_s=(); scan_s=(); peak_kib=0
for ((i = 0; i < repeats; i++)); do
  read -r s kib < <(measure "$bin/rocm-perf" analyze --json "$db")
  analyze_s+=("$s"); (( kib > peak_kib )) && peak_kib=$kib
  read -r s _ < <(measure sqlite3 "$db" "$query")
  scan_s+=("$s")
done
a=$(median "${analyze_s[@]}"); q=$(median "${scan_s[@]}")
echo "rocm-perf analyze: median ${a} s of ${analyze_s[*]}; peak memory $((peak_kib / 1024)) MiB"
echo "sqlite3 scan     : median ${q} s of ${scan_s[*]}"
awk -v a="$a" -v q="$q" -v m="$peak_kib" 'BEGIN {
  printf "ratio analyze/scan: %.2f (target <= 3.00); peak memory %.0f MiB (target < 1024)\n", a / q, m / 1024 }'
