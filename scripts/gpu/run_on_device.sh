#!/usr/bin/env bash
# Runs on the NVIDIA machine (through the device tool), from the repository root, with a build made
# on a development machine carried in CARRY (scripts/gpu/prepare_carry.sh): the gpu-labelled
# tests, the tracer overhead benchmark, and a real trace of the softmax testbed. Results in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; ncu --version | tail -1; } \
  | tee "$out/machine.txt"
"$carry/tests/test_nvidia_gpu" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} 2>&1 | tee "$out/gpu_tests.log"
if [ -z "${SKIP_BENCH:-}" ]; then bash bench/tracer_overhead.sh "$carry" "${REPEATS:-9}" 2>&1 | tee "$out/overhead.log"; fi
trace=$(mktemp -d)
"$carry/bin/rocm-perf" profile --backend cuda --runs 1 --out "$trace" -- "$carry/examples/softmax_testbed" 4096 1024 20 \
  | tee "$out/softmax_profile.txt"
cp "$trace"/.rocpd_profile/run1_*_results.db "$out/softmax_trace.db"
# Real tool output for the parsers' tests
cuobjdump --dump-resource-usage "$carry/examples/roofline_calibration" > "$out/cuobjdump_roofline_calibration.txt"
ncu --csv --page raw --print-units base --print-kernel-base mangled --clock-control none \
  --metrics gpu__time_duration.sum,launch__registers_per_thread,sm__maximum_warps_per_active_cycle_pct \
  "$carry/examples/softmax_testbed" 1024 256 2 > "$out/ncu_raw_softmax.csv" 2>&1
