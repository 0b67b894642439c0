#!/usr/bin/env bash
# Benchmark: `rocm-perf analyze` of one trace of 1,000,000 dispatches (2,000 kernels, 8 queues) as a
# rocpd database and as rocprofv3's CSV files (rpl-make-trace --rocprofv3-csv), and the sqlite3
# command-line tool scanning the database's dispatch table. Timed in the same run, alternating;
# the ratios of the medians are reported.
# Targets (issue 36): CSV within 2x of rocpd, under 512 MiB; analyze of rocpd within 2x of the scan.
#   usage: bench/trace_formats_benchmark.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
source "$(dirname "$0")/timing.sh"
build=${1:-build/release}
repeats=${2:-5}
bin="$build/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/bench_results.db"

"$bin/rpl-make-trace" benchmark "$db" --dispatches 1000000 --kernels 2000 --queues 8 --rocprofv3-csv "$work/csv"
table=$(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_kernel_dispatch%'")
query="SELECT count(*), sum(\"end\"-\"start\") FROM \"$table\""
echo "rocpd: $(du -h "$db" | cut -f1); CSV: $(du -sh "$work/csv" | cut -f1), $(($(wc -l < "$work/csv/1_kernel_trace.csv") - 1)) dispatches"

measure "$bin/rocm-perf" analyze --json "$db" > /dev/null  # warm the page cache for all three
measure "$bin/rocm-perf" analyze --json "$work/csv" > /dev/null
rocpd_s=(); csv_s=(); scan_s=(); rocpd_kib=0; csv_kib=0
for ((i = 0; i < repeats; i++)); do
  read -r s kib < <(measure "$bin/rocm-perf" analyze --json "$db")
  rocpd_s+=("$s"); (( kib > rocpd_kib )) && rocpd_kib=$kib
  read -r s kib < <(measure "$bin/rocm-perf" analyze --json "$work/csv")
  csv_s+=("$s"); (( kib > csv_kib )) && csv_kib=$kib
  read -r s _ < <(measure sqlite3 "$db" "$query")
  scan_s+=("$s")
done
r=$(median "${rocpd_s[@]}"); c=$(median "${csv_s[@]}"); q=$(median "${scan_s[@]}")
echo "analyze rocpd: median ${r} s of ${rocpd_s[*]}; peak memory $((rocpd_kib / 1024)) MiB"
echo "analyze CSV  : median ${c} s of ${csv_s[*]}; peak memory $((csv_kib / 1024)) MiB"
echo "sqlite3 scan : median ${q} s of ${scan_s[*]}"
awk -v r="$r" -v c="$c" -v q="$q" -v m="$csv_kib" 'BEGIN {
  printf "ratio CSV/rocpd: %.2f (target <= 2.00); CSV peak memory %.0f MiB (target < 512)\n", c / r, m / 1024
  printf "ratio rocpd/scan: %.2f (target <= 2.00)\n", r / q }'
