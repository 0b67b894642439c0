#!/usr/bin/env bash
# Runs on the NVIDIA machine (through the device tool) with a carry holding bin/rpl-launch-cost and
# lib/librpl_cupti_probe.so: bench/launch_cost.sh (each CUPTI kind and callback set's cost per host
# call, paired in one process), then bench/cupti_kinds_switching.sh on the launch-bound PyTorch loop
# with the tracer's level kernels against the edge callbacks of the runtime, the driver and both.
# ROUNDS and N reach launch_cost.sh; PROCESSES and STEPS cupti_kinds_switching.sh. Results in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
bash bench/launch_cost.sh "$carry" "${ROUNDS:-30}" "${N:-20000}" 2>&1 | tee "$out/launch_cost.txt"
CPUS=4-7 bash bench/launch_cost.sh "$carry" "${ROUNDS:-30}" "${N:-20000}" 2>&1 | tee "$out/launch_cost_pinned.txt"
k=kernel,reset,memcpy,memset
SETS="$k|$k,edgecb-runtime|$k,edgecb-driver|$k,edgecb-runtime,edgecb-driver" CPUS=4-7 \
  bash bench/cupti_kinds_switching.sh "$carry" "${PROCESSES:-2}" "${STEPS:-100}" 12 2>&1 | tee "$out/torch_switching.txt"
