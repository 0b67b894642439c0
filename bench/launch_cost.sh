#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU): what the tracer's activity kinds and callbacks cost each host API
# call, paired inside one process: bench/cupti_probe/launch_cost.cpp under the CUPTI probe, which
# switches them between chunks. The sets: nothing; kernel records; plus cudaDeviceReset's runtime
# callback (which the tracer always enables); plus copies and memsets (the tracer's level kernels);
# plus the edge callbacks of the runtime, of the driver, and of both (level default's).
#   usage: bench/launch_cost.sh [BUILD_DIR] [ROUNDS] [N]
# SETS="a|b|..." replaces the sets; CPUS=4-7 pins the run to those cores (taskset).
set -euo pipefail
build=${1:-build/release}
rounds=${2:-30}
n=${3:-20000}
k=kernel,reset,memcpy,memset
sets=${SETS:-"none|kernel|kernel,reset|$k|$k,edgecb-runtime|$k,edgecb-driver|$k,edgecb-runtime,edgecb-driver"}
${CPUS:+taskset -c "$CPUS"} env CUDA_INJECTION64_PATH="$(cd "$build/lib" && pwd)/librpl_cupti_probe.so" \
  RPL_PROBE=subscribe,switch "$build/bin/rpl-launch-cost" "$rounds" "$n" "$sets"
