#!/usr/bin/env bash
# Runs on the NVIDIA machine (through the device tool) with a carry holding lib/librpl_cupti_trace.so
# and lib/librpl_cupti_probe.so: bench/tracer_pause_switching.sh (the tracer paused and recording,
# chunk by chunk inside one process, on the launch-bound PyTorch loop), pinned to cores 4-7.
# PROCESSES, STEPS, ROUNDS, PARTS and CUPTI_ATTRS reach it. Results in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
CPUS=4-7 bash bench/tracer_pause_switching.sh "$carry" "${PROCESSES:-2}" "${STEPS:-20}" "${ROUNDS:-150}" 2>&1 |
  tee "$out/pause_switching.txt"
