#!/usr/bin/env bash
# Benchmark: the dependency DAG and critical path of 1,000,000 dispatches over 16 streams with
# 100,000 cross-stream event waits. Times `rocm-perf analyze --out` (reads the trace, summary, DAG,
# dag.json) and `rocm-perf analyze` without --out (no DAG) alternately in one run; their difference
# is the DAG's cost. Target (issue 8): the whole analyze --out under 5 s on the 2-core CI machine,
# peak memory under 1 GiB.
#   usage: bench/dag_benchmark.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
source "$(dirname "$0")/timing.sh"
build=${1:-build/release}
repeats=${2:-3}
bin="$build/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/dag_results.db"

"$bin/rpl-make-trace" dag-benchmark "$db" --dispatches 1000000 --queues 16 --cross-edges 100000
echo "database: $(du -h "$db" | cut -f1), $(sqlite3 "$db" 'SELECT count(*) FROM rocpd_kernel_dispatch') dispatches," \
  "$(sqlite3 "$db" "SELECT count(*) FROM rocpd_event_operation WHERE type = 'WAIT'") waits"

measure "$bin/rocm-perf" analyze "$db" > /dev/null  # warm the page cache
with=(); without=(); peak_kib=0
for ((i = 0; i < repeats; i++)); do
  read -r s kib < <(measure "$bin/rocm-perf" analyze --out "$work/out" "$db")
  with+=("$s"); (( kib > peak_kib )) && peak_kib=$kib
  read -r s _ < <(measure "$bin/rocm-perf" analyze "$db")
  without+=("$s")
done
a=$(median "${with[@]}"); b=$(median "${without[@]}")
python3 -c "import json,sys; d=json.load(open('$work/out/dag.json')); print('dag.json:', d['nodes'], 'nodes,', d['edges'], 'critical path', d['critical_path_ns'], 'ns')"
echo "analyze --out (with the DAG): median ${a} s of ${with[*]}; peak memory $((peak_kib / 1024)) MiB"
echo "analyze (no DAG)            : median ${b} s of ${without[*]}"
awk -v a="$a" -v b="$b" -v m="$peak_kib" 'BEGIN {
  printf "DAG and dag.json: %.2f s; analyze --out %.2f s (target < 5 s), peak %.0f MiB (target < 1024)\n", a - b, a, m / 1024 }'
