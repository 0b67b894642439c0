#!/usr/bin/env bash
# Benchmark: the HTML report's timeline on 100,000 dispatches over 16 streams (the DAG benchmark's
# trace), beside one of 1,000 dispatches, in one run: the time `rocm-perf report` takes, the page's
# size, and in headless Chromium the time until the page's script has drawn everything and the
# mean time of a zoom, pan or reset (the page's own self-test, #rpl-selftest).
#   usage: bench/report_timeline_benchmark.sh [BUILD_DIR]
set -euo pipefail
source "$(dirname "$0")/timing.sh"
build=${1:-build/release}
bin="$build/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
attribute() { grep -o "$1=\"[^\"]*\"" "$2" | head -1 | cut -d'"' -f2; }
declare -A loaded step
for n in 1000 100000; do
  db="$work/dag_$n.db"
  "$bin/rpl-make-trace" dag-benchmark "$db" --dispatches "$n" --queues 16 --cross-edges $((n / 10))
  "$bin/rocm-perf" analyze --out "$work/out_$n" "$db" > /dev/null 2>&1
  read -r s kib < <(measure "$bin/rocm-perf" report "$work/out_$n" --trace "$db" -o "$work/page_$n.html")
  chromium --headless=new --no-sandbox --disable-gpu --dump-dom "file://$work/page_$n.html#rpl-selftest" \
    > "$work/dom_$n.html" 2> /dev/null
  loaded[$n]=$(attribute data-loaded-ms "$work/dom_$n.html")
  step[$n]=$(attribute data-selftest "$work/dom_$n.html" | grep -o 'ms=[0-9.]*' | cut -d= -f2)
  echo "$n dispatches: report ${s} s (peak $((kib / 1024)) MiB), page $(du -h "$work/page_$n.html" | cut -f1)," \
       "drawn in ${loaded[$n]} ms after navigation, ${step[$n]} ms per zoom/pan step," \
       "$(attribute data-drawn "$work/dom_$n.html") bars drawn"
done
awk -v a="${loaded[100000]}" -v b="${loaded[1000]}" -v c="${step[100000]}" -v d="${step[1000]}" \
  'BEGIN { printf "100,000 / 1,000 dispatches: load %.2f×, zoom step %.2f×\n", a / b, c / d }'
