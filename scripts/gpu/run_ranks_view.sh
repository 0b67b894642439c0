#!/usr/bin/env bash
# On the NVIDIA machine, with a carry of scripts/gpu/prepare_carry.sh made with WITH_CLANG=1 (rocm-perf
# links libclang): the per-rank gpu test (a two-rank job of the softmax testbed, ranks in
# SLURM_PROCID as srun sets them; Slurm cannot run there) and the export and diff test next to it.
set -uo pipefail
carry="$PWD/${1:-.devcarry}"
out=${OUT:-/tmp/rpl-gpu}
mkdir -p "$out"
clang=$(mktemp -d)
xz -dc "$carry/clang.tar.xz" | tar -C "$clang" -xf -
export LD_LIBRARY_PATH="$clang:$carry/syslib:${LD_LIBRARY_PATH:-}"
export PYTHONPATH="$carry/py"
export RPL_SOURCE_DIR="$PWD" RPL_BUILD_DIR="$carry" RPL_TEST_PYTHON=python3
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/machine.txt"
"$carry/tests/test_nvidia_gpu" --gtest_filter="${GTEST_FILTER:-NvidiaGpu.EachRankOfAJob*:NvidiaGpu.ExportAndDiffOfAPytorchProgram}" 2>&1 \
  | tee "$out/gpu_tests.log"
