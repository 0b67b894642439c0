#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=softmax_testbed WITH_CLANG=1 bash scripts/gpu/prepare_carry.sh`:
# the gpu tests of rocm-perf optimize (tests/gpu/test_optimize_gpu.cpp) on the softmax testbed,
# the unroll proposer with candidate files, a stand-in model's answers, and a library kernel
# refused; a faster SGEMM for the matmul testbed (about 5 minutes alone: run it in a call of its
# own with GTEST_FILTER). Their logs and every optimize.json in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
export TMPDIR=${TMPDIR:-/tmp} RPL_KEEP_TEST_FILES=1
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/machine.txt"
timeout "${LIMIT:-560}" "$carry/tests/test_nvidia_gpu" --gtest_filter="${GTEST_FILTER:-NvidiaOptimize.*}" 2>&1 | tee "$out/optimize_tests.log"
find "$TMPDIR" -name optimize.json -path '*optimize_*' 2>/dev/null | while read -r f; do
  name=$(basename "$(dirname "$(dirname "$f")")")
  cp "$f" "$out/${name}_optimize.json"
  [ -f "$(dirname "$f")/best.patch" ] && cp "$(dirname "$f")/best.patch" "$out/${name}_best.patch"
done
true
