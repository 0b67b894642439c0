#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU and PyTorch): the tracer's cost on a launch-bound PyTorch loop
# (bench/torch_launch_bound.py: a few hundred kernels of a few microseconds per step), one
# configuration per CUPTI activity kind and callback (the probe library, records discarded), the
# tracer at each --trace-level, and torch.profiler with CUDA activities; wall time inside the loop,
# configurations alternating within each round, medians, ratios to untraced.
# Each run reports the median of CHUNKS timings of STEPS steps inside the one process.
#   usage: bench/tracer_overhead_torch.sh [BUILD_DIR] [REPEATS] [STEPS] [CHUNKS]
# CONFIGS=name,name,... runs only those; RAW=FILE keeps every run's seconds; CHUNKS_RAW=FILE keeps
# every chunk's wall seconds, launching-thread CPU seconds and instructions, and ends with
# bench/overhead_chunks.py's summary of them; CPUS=4-7 pins every run to those cores (taskset),
# apart from the rest of a shared machine.
set -euo pipefail
source "$(dirname "$0")/timing.sh"
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/release}
repeats=${2:-5}
steps=${3:-200}
chunks=${4:-5}
lib="$(cd "$build/lib" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

probe="CUDA_INJECTION64_PATH=$lib/librpl_cupti_probe.so RPL_PROBE"
base="subscribe,reset,kernel"
tracer="CUDA_INJECTION64_PATH=$lib/librpl_cupti_trace.so RPL_TRACE_DIR=$work/trace RPL_TRACE_LEVEL"
configs=(
  "untraced|"
  "cupti:kernel|$probe=$base"
  "cupti:+copies|$probe=$base,copies"
  "cupti:+syncs|$probe=$base,copies,syncs"
  "cupti:+events|$probe=$base,copies,events"
  "cupti:+streams|$probe=$base,copies,streams"
  "cupti:+edge-callbacks|$probe=$base,copies,edgecb"
  "cupti:old-tracer-kinds|$probe=$base,copies,sync,streams,graphcb"
  "tracer:kernels|$tracer=kernels"
  "tracer:default|$tracer=default"
  "tracer:full|$tracer=full"
  "torch.profiler|--profiler"
)
if [ -n "${CONFIGS:-}" ]; then
  picked=()
  for c in "${configs[@]}"; do [[ ",$CONFIGS," == *",${c%%|*},"* ]] && picked+=("$c"); done
  configs=("${picked[@]}")
fi

run_once() {  # config index -> seconds inside the loop
  local spec=${configs[$1]#*|} flag=""
  if [ "$spec" = "--profiler" ]; then flag=--profiler spec=""; fi
  # shellcheck disable=SC2086  # the spec is a list of NAME=VALUE words
  ${CPUS:+taskset -c "$CPUS"} env $spec python3 "$here/torch_launch_bound.py" "$steps" 20 "$chunks" $flag > "$work/out" 2> "$work/err"
  awk '$1 == "loop_seconds" {print $2}' "$work/out"
  [ -n "${CHUNKS_RAW:-}" ] && awk -v n="${configs[$1]%%|*}" '
    BEGIN { m["chunk_seconds"] = "wall"; m["chunk_cpu_seconds"] = "cpu"; m["chunk_instructions"] = "instructions" }
    $1 in m { $1 = n " " m[$1]; print }' "$work/out" >> "$CHUNKS_RAW"
  grep -q '^rpl-cupti-trace' "$work/err" && grep '^rpl-cupti-trace' "$work/err" >&2
  rm -rf "$work/trace"
}

python3 "$here/torch_launch_bound.py" 20 5 > /dev/null  # warm-up: driver, cuBLAS, page cache
declare -A samples
for ((r = 0; r < repeats; r++)); do
  for i in "${!configs[@]}"; do
    s=$(run_once "$i")
    samples[$i]+="$s "
    [ -n "${RAW:-}" ] && echo "${configs[$i]%%|*} $s" >> "$RAW"
  done
done
# shellcheck disable=SC2086  # the samples are a list of numbers
u=$(median ${samples[0]})
printf '%-26s %10s %8s\n' "torch_launch_bound $steps steps" "seconds" "ratio"
for i in "${!configs[@]}"; do
  # shellcheck disable=SC2086
  m=$(median ${samples[$i]})
  awk -v n="${configs[$i]%%|*}" -v m="$m" -v u="$u" 'BEGIN { printf "%-26s %10.4f %8.3f\n", n, m, m / u }'
done
[ -n "${CHUNKS_RAW:-}" ] && python3 "$here/overhead_chunks.py" "$CHUNKS_RAW"
true
