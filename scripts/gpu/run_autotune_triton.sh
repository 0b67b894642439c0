#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=softmax_testbed WITH_CLANG=1 bash scripts/gpu/prepare_carry.sh`: a live
# tuning run of a Triton matmul (tests/gpu/programs/triton_matmul_tunable.py, 54 configurations,
# Triton compiling in each process) with the default strategy at a small budget (BUDGET, default
# 15 %), its kernel time from the CUPTI trace; autotune.json and the HTML report of its curve in $OUT.
# SPACE and SIZE name another space and problem size (default tests/gpu/programs/triton_space.json,
# 2048): SPACE=tests/gpu/programs/triton_wall_space.json SIZE=4096 tunes over blocks that run out of
# shared memory.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
t0=$(date +%s%N)
"$rp" autotune --space "${SPACE:-tests/gpu/programs/triton_space.json}" --backend cuda --kernel matmul_kernel --timeout 120 --max-runs 1 \
  --budget "${BUDGET:-15%}" --out "$out/triton" --cmd-template \
  "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size ${SIZE:-2048}" > "$out/triton.txt" 2> "$out/triton.err"
echo "triton: exit $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/triton.txt"
cat "$out/triton.txt"; tail -3 "$out/triton.err"
RPL_CHARTJS="$carry/js/chart.min.js" "$rp" report "$out/triton" -o "$out/triton_report.html"
cp "$out/triton/autotune.json" "$out/triton_autotune.json"
rm -rf "$out/triton"
true
