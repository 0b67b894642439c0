#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=stencil_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# autotune --warm-start from one earlier run and from two, live. The earlier runs are exhaustive
# tables of neighbouring sizes measured on an H200 (bench/data, as a run's --csv writes them):
# - the stencil's launch geometry at 2048², 50 steps, at 5 % (5 measured), seeds ${STENCIL_SEEDS:-1 2 3 4 5}:
#   cold, from 1920², and from 1920² and 2176²;
# - the Triton matmul (tests/gpu/programs/triton_matmul_tunable.py, a program we did not write) at
#   2048³ at 5 % (3 measured), seeds ${TRITON_SEEDS:-1 2}, each run with a Triton cache of its own:
#   cold, from 1792³, and from 1792³ and 2560³.
# Per run, in summary.txt: its wall time, best and what it measured in order
# (scripts/gpu/autotune_run_summary.py); each run's files (scripts/gpu/autotune_run.sh) in runs.tgz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
data=bench/data
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
run() {  # NAME SPACE TEMPLATE OPTIONS...
  local name=$1 space=$2 template=$3; shift 3
  autotune_run "$name" "$carry/bin/rocm-perf" --space "$space" --cmd-template "$template" --timeout 120 "$@"
}
# NAME SEEDS SPACE TEMPLATE FIRST SECOND OPTIONS...: per seed, cold, from the table FIRST, and from
# FIRST and SECOND (bench/data), nearest first.
cold_one_two() {
  local name=$1 seeds=$2 space=$3 template=$4 first=$data/$5 second=$data/$6; shift 6
  for seed in $seeds; do
    run "${name}_cold_seed$seed" "$space" "$template" --seed "$seed" "$@"
    run "${name}_one_seed$seed" "$space" "$template" --seed "$seed" "$@" --warm-start "$first"
    run "${name}_two_seed$seed" "$space" "$template" --seed "$seed" "$@" --warm-start "$first" --warm-start "$second"
  done
}
cold_one_two stencil_2048 "${STENCIL_SEEDS:-1 2 3 4 5}" examples/stencil/stencil_space.json \
  "$carry/examples/stencil_tunable 2048 50 --bx {BX} --by {BY} --rows {ROWS}" \
  stencil_1920_h200_exhaustive.csv stencil_2176_h200_exhaustive.csv --budget 5% --max-runs 2
cold_one_two triton_2048 "${TRITON_SEEDS:-1 2}" tests/gpu/programs/triton_space.json \
  "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 2048" \
  triton_1792_h200_exhaustive.csv triton_2560_h200_exhaustive.csv --kernel matmul_kernel --max-runs 1 --budget 5%
autotune_pack runs.tgz
