#!/usr/bin/env bash
# Benchmark: `rocm-perf analyze` of one trace of 1,000,000 dispatches (2,000 kernels, 8 queues) as a
# rocpd database and as rocprofv3's CSV files (rpl-make-trace --rocprofv3-csv), the reader alone
# (rpl-read-trace: the process, reading, nothing else), and the sqlite3 command-line tool scanning
# the database's dispatch table two ways: two columns (count, sum of durations), and every column
# the reader decodes (summed, so that no output is printed). Timed in the same run, alternating;
# the ratios of the medians are reported.
# Targets (issue 36): CSV within 2x of rocpd, under 512 MiB; the rocpd reader within 2x of a scan.
#   usage: bench/trace_formats_benchmark.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
source "$(dirname "$0")/timing.sh"
build=${1:-build/release}
repeats=${2:-5}
bin="$build/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/bench_results.db"

benchmark_trace "$db" --rocprofv3-csv "$work/csv"
query_all="SELECT count(*), max(guid), sum(id), sum(kernel_id), sum(agent_id), sum(queue_id), sum(stream_id), sum(\"end\"-\"start\"),
  sum(workgroup_size_x + workgroup_size_y + workgroup_size_z), sum(grid_size_x + grid_size_y + grid_size_z),
  sum(group_segment_size), sum(private_segment_size) FROM \"$table\""
echo "rocpd: $(du -h "$db" | cut -f1); CSV: $(du -sh "$work/csv" | cut -f1), $(($(wc -l < "$work/csv/1_kernel_trace.csv") - 1)) dispatches"

measure "$bin/rocm-perf" analyze --json "$db" > /dev/null  # warm the page cache for all three
measure "$bin/rocm-perf" analyze --json "$work/csv" > /dev/null
rocpd_s=(); csv_s=(); scan_s=(); read_s=(); all_s=(); rocpd_kib=0; csv_kib=0
for ((i = 0; i < repeats; i++)); do
  read -r s kib < <(measure "$bin/rocm-perf" analyze --json "$db")
  rocpd_s+=("$s"); (( kib > rocpd_kib )) && rocpd_kib=$kib
  read -r s kib < <(measure "$bin/rocm-perf" analyze --json "$work/csv")
  csv_s+=("$s"); (( kib > csv_kib )) && csv_kib=$kib
  read -r s _ < <(measure sqlite3 "$db" "$query")
  scan_s+=("$s")
  read -r s _ < <(measure "$bin/rpl-read-trace" "$db")
  read_s+=("$s")
  read -r s _ < <(measure sqlite3 "$db" "$query_all")
  all_s+=("$s")
done
r=$(median "${rocpd_s[@]}"); c=$(median "${csv_s[@]}"); q=$(median "${scan_s[@]}"); d=$(median "${read_s[@]}"); a=$(median "${all_s[@]}")
echo "analyze rocpd: median ${r} s of ${rocpd_s[*]}; peak memory $((rocpd_kib / 1024)) MiB"
echo "analyze CSV  : median ${c} s of ${csv_s[*]}; peak memory $((csv_kib / 1024)) MiB"
echo "read rocpd   : median ${d} s of ${read_s[*]} (rpl-read-trace)"
echo "sqlite3 scan : median ${q} s of ${scan_s[*]} (two columns)"
echo "sqlite3 scan : median ${a} s of ${all_s[*]} (the columns the reader decodes)"
awk -v r="$r" -v c="$c" -v q="$q" -v m="$csv_kib" -v d="$d" -v a="$a" 'BEGIN {
  printf "ratio CSV/rocpd: %.2f (target <= 2.00); CSV peak memory %.0f MiB (target < 512)\n", c / r, m / 1024
  printf "ratio analyze rocpd/scan of two columns: %.2f\n", r / q
  printf "ratio reader/scan of two columns: %.2f; reader/scan of its columns: %.2f (target <= 2.00)\n", d / q, d / a }'
