#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU and PyTorch): what each CUPTI activity kind the tracer enables
# costs a launch-bound PyTorch loop (bench/torch_launch_bound.py), measured inside one process: the
# CUPTI probe switches the kinds between chunks of STEPS steps (rpl_probe_switch), ROUNDS rounds
# with the order rotated, so that each ratio is paired within a round and free of the spread
# between processes (about ±10 % on the shared GPU machine). PROCESSES such processes in a row show
# whether the ratios hold from one process to the next.
#   usage: bench/cupti_kinds_switching.sh [BUILD_DIR] [PROCESSES] [STEPS] [ROUNDS]
# SETS overrides the kind sets ('|' between sets, ',' within one; the first is the reference); a
# set may name callbacks too (reset, edgecb-runtime, edgecb-driver: cupti_overhead_probe.cpp). The
# default sets keep cudaDeviceReset's callback on, as the tracer does.
# CPUS=4-7 pins the processes to those cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/release}
processes=${2:-3}
steps=${3:-100}
rounds=${4:-12}
sets=${SETS:-"reset|kernel,reset|kernel,memcpy,reset|kernel,memset,reset|kernel,memcpy,memset,reset"}
lib="$(cd "$build/lib" && pwd)/librpl_cupti_probe.so"
for ((p = 1; p <= processes; p++)); do
  echo "process $p: $steps steps a chunk, $rounds rounds"
  ${CPUS:+taskset -c "$CPUS"} env CUDA_INJECTION64_PATH="$lib" RPL_PROBE=subscribe,switch \
    python3 "$here/torch_launch_bound.py" "$steps" 20 "$rounds" "--switch=$sets"
done
