#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=matmul_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# bayes's last measurement on the centre of the space, live. The SGEMM testbed at 1216³ at 5 % of its
# 225 configurations (12 measured; bench/data/sgemm_1216_h200_exhaustive.csv, whose best is the
# centre, BM=BN=64 BK=16 TM=TN=4: found within 3 % at 5 % in 100 of 100 replays with the change,
# 35 without) and the Triton matmul at 2048³ at 10 % of its 54 (6 measured, Triton compiling each
# configuration: three guided picks come before the last, fewer than its four parameters, so the
# rule must leave the last to the climb), seeds SEEDS (default 1 to 3). Per run, the best found, the
# centre (autotune.json:model.centre) and the configurations in the order measured in summary.txt;
# each run's files (scripts/gpu/autotune_run.sh) in runs.tgz.
# bench/data/autotune_centre_last_h200_live.txt is its output of 2026-12-01.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
run() {  # NAME SPACE BUDGET TEMPLATE [OPTIONS...]
  local name=$1 space=$2 budget=$3 template=$4; shift 4
  autotune_run "$name" "$carry/bin/rocm-perf" --space "$space" --cmd-template "$template" --budget "$budget" "$@"
}
for seed in ${SEEDS:-1 2 3}; do
  run "sgemm_1216_seed$seed" examples/matmul/matmul_space.json 5% \
    "$carry/examples/matmul_tunable 1216 1216 1216 --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10" \
    --timeout 60 --max-runs 2 --seed "$seed"
  run "triton_2k_seed$seed" tests/gpu/programs/triton_space.json 10% \
    "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 2048" \
    --kernel matmul_kernel --timeout 120 --max-runs 1 --seed "$seed"
done
autotune_pack runs.tgz
