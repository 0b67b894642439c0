#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=stencil_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# whether a replayed time budget spends time as a live run does. The Triton matmul
# (tests/gpu/programs/triton_matmul_tunable.py, a program we did not write) at 2048³ is tuned live
# with --budget ${BUDGET:-60s}, seeds ${SEEDS:-1 2 3}, each run with a Triton cache of its own (as the
# exhaustive table was measured: every configuration built anew). Then each live run's measurements
# are replayed (--replay, nothing run) at the same budget and seed, and so is the exhaustive table of
# the same program and size measured on an H200 (bench/data/triton_h200_exhaustive.csv). Per run, in
# summary.txt: its wall time, how many configurations it measured and the seconds they took, its best
# (scripts/gpu/autotune_run_summary.py); each run's files in runs.tgz (scripts/gpu/autotune_run.sh:
# its measurements, and its autotune.json with the seconds into the run of each point of the curve).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
space=tests/gpu/programs/triton_space.json
template="python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 2048"
run() {  # NAME OPTIONS...
  local name=$1; shift
  autotune_run "$name" "$carry/bin/rocm-perf" --space "$space" --cmd-template "$template" --kernel matmul_kernel \
    --timeout 120 --max-runs 1 --budget "${BUDGET:-60s}" "$@"
}
for seed in ${SEEDS:-1 2 3}; do
  run "live_seed$seed" --seed "$seed"
  run "replay_live_seed$seed" --seed "$seed" --replay "$out/live_seed$seed.csv"
  run "replay_table_seed$seed" --seed "$seed" --replay bench/data/triton_h200_exhaustive.csv
done
autotune_pack runs.tgz
