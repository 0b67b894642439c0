#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU): where the tracer's overhead on many tiny kernels comes from.
# Runs `launch_patterns tiny 100000` (or the arguments given) untraced, under the CUPTI probe library with more and more switched
# on (bench/cupti_probe; "cupti-alone" asks of CUPTI what the tracer asks and discards the
# records), and under the real tracer, alternating, and prints per configuration the
# median wall time, the program's own phases (CUDA start-up, launch loop, final wait) and the
# ratio to untraced.
#   usage: bench/tracer_overhead_breakdown.sh [BUILD_DIR] [REPEATS] [LAUNCH_PATTERNS_ARGS...]
# CONFIGS=name,name,... runs only those configurations; RAW=FILE keeps every run's figures.
set -euo pipefail
build=${1:-build/release}
repeats=${2:-5}
shift $(( $# < 2 ? $# : 2 ))
args=("$@")
[ $# -eq 0 ] && args=(tiny 100000)
program="$build/examples/launch_patterns"
lib="$(cd "$build/lib" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

probe="CUDA_INJECTION64_PATH=$lib/librpl_cupti_probe.so RPL_PROBE"
configs=(
  "untraced|"
  "probe:load-only|$probe="
  "probe:subscribe,reset|$probe=subscribe,reset"
  "probe:kernel|$probe=kernel"
  "probe:serial|$probe=serial"
  "probe:kernel,zeroed|$probe=kernel,zeroed"
  "probe:kernel,pinned|$probe=kernel,pinned"
  "probe:kernel,devbuf32|$probe=kernel,devbuf32"
  "probe:kernel,shared|$probe=kernel,shared"
  "probe:kernel,copies|$probe=kernel,copies"
  "probe:kernel,sync|$probe=kernel,sync"
  "probe:kernel,syncs|$probe=kernel,syncs"
  "probe:kernel,events|$probe=kernel,events"
  "probe:kernel,streams|$probe=kernel,streams"
  "probe:subscribe,kernel,edgecb|$probe=subscribe,kernel,edgecb"
  "probe:subscribe,kernel,graphcb|$probe=subscribe,kernel,graphcb"
  "cupti-alone|$probe=subscribe,reset,kernel,copies,edgecb,graphcb"
  "tracer|CUDA_INJECTION64_PATH=$lib/librpl_cupti_trace.so RPL_TRACE_DIR=$work/trace RPL_TRACE_VERBOSE=1"
  "tracer:2MB|CUDA_INJECTION64_PATH=$lib/librpl_cupti_trace.so RPL_TRACE_DIR=$work/trace RPL_TRACE_VERBOSE=1 RPL_TRACE_BUFFER_KB=2048"
  "tracer:kernels|CUDA_INJECTION64_PATH=$lib/librpl_cupti_trace.so RPL_TRACE_DIR=$work/trace RPL_TRACE_LEVEL=kernels"
  "tracer:full|CUDA_INJECTION64_PATH=$lib/librpl_cupti_trace.so RPL_TRACE_DIR=$work/trace RPL_TRACE_LEVEL=full"
)

run_once() {  # config index, repeat -> "wall startup launches wait"
  local spec=${configs[$1]#*|} start end phases
  # shellcheck disable=SC2086  # the spec is a list of NAME=VALUE words
  start=$(date +%s%N)
  env $spec "$program" "${args[@]}" > /dev/null 2> "$work/err"
  end=$(date +%s%N)
  grep -q '^rpl-cupti-trace' "$work/err" && grep '^rpl-cupti-trace' "$work/err" >&2
  phases=$(grep '^phases:' "$work/err" | tr -dc '0-9. \n' | awk '{print $1, $2, $3}')
  echo "$(( (end - start) / 1000 )) $phases"
}

if [ -n "${CONFIGS:-}" ]; then
  picked=()
  for c in "${configs[@]}"; do [[ ",$CONFIGS," == *",${c%%|*},"* ]] && picked+=("$c"); done
  configs=("${picked[@]}")
fi
"$program" "${args[@]}" 2> /dev/null  # warm-up: driver and page cache
declare -A samples
for ((r = 0; r < repeats; r++)); do
  for i in "${!configs[@]}"; do
    line=$(run_once "$i")
    samples[$i]+="$line"$'\n'
    [ -n "${RAW:-}" ] && echo "${configs[$i]%%|*} $line" >> "$RAW"
    rm -rf "$work/trace"
  done
done

median_of() { awk -v c="$1" 'NF { print $c }' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
base=$(printf '%s' "${samples[0]}" | median_of 1)
printf '%-28s %10s %8s %12s %12s %10s\n' "launch_patterns ${args[*]}" "wall ms" "ratio" "start-up ms" "launches ms" "wait ms"
for i in "${!configs[@]}"; do
  s=${samples[$i]}
  awk -v name="${configs[$i]%%|*}" -v base="$base" -v wall="$(printf '%s' "$s" | median_of 1)" \
      -v up="$(printf '%s' "$s" | median_of 2)" -v launch="$(printf '%s' "$s" | median_of 3)" \
      -v wait="$(printf '%s' "$s" | median_of 4)" \
      'BEGIN { printf "%-28s %10.1f %8.3f %12.1f %12.1f %10.1f\n", name, wall / 1000, wall / base, up, launch, wait }'
done
