#!/usr/bin/env bash
# On the NVIDIA machine, with a carry of scripts/gpu/prepare_carry.sh made with WITH_CLANG=1 (rocm-perf
# links libclang): the per-rank gpu test (a two-rank job of the softmax testbed, ranks in
# SLURM_PROCID as srun sets them; Slurm cannot run there) and the export and diff test next to it.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/machine.txt"
"$carry/tests/test_nvidia_gpu" --gtest_filter="${GTEST_FILTER:-NvidiaGpu.EachRankOfAJob*:NvidiaGpu.ExportAndDiffOfAPytorchProgram}" 2>&1 \
  | tee "$out/gpu_tests.log"
