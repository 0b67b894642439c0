# Sourced by the benchmark scripts: how they time a command and summarize repeats.
# measure CMD...: prints "SECONDS PEAK_KIB" of one run of CMD (its output discarded); needs $work.
# The seconds from bash's clock (microseconds; GNU time's %e has two decimals, a tenth of a
# 0.1-second scan), the peak memory from GNU time.
measure() {
  local start=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$work/time" "$@" > /dev/null 2>&1
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" -v kib="$(cat "$work/time")" 'BEGIN { printf "%.3f %d\n", b - a, kib }'
}
# median X...: the median of the numbers.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# benchmark_trace DB [OPTIONS...]: writes the benchmark trace (1,000,000 dispatches, 2,000 kernels,
# 8 queues; rpl-make-trace OPTIONS added) to DB, and sets $table to its dispatch table and $query to
# sqlite3's scan of two of its columns. Needs $bin.
benchmark_trace() {
  local db=$1; shift
  "$bin/rpl-make-trace" benchmark "$db" --dispatches 1000000 --kernels 2000 --queues 8 "$@"
  table=$(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_kernel_dispatch%'")
  query="SELECT count(*), sum(\"end\"-\"start\") FROM \"$table\""
}
