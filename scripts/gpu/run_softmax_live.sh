#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=stencil_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# the Triton softmax (tests/gpu/programs/triton_softmax_tunable.py, a kind of kernel none of the
# strategies was chosen on) tuned live, cold, with bayes at --budget ${BUDGET:-10%}, seeds ${SEEDS:-1 2}:
# at 16384 rows of 3000, whose best (chunk 4096, one row, 4 warps) the replay of its exhaustive
# table never reaches at 10 %, and at 4096 rows of 8192, whose best it always does. Each live run
# beside the replay of the exhaustive table measured on an H200 at the same budget and seed
# (bench/data/softmax_odd_h200_exhaustive.csv, softmax_long_...). summary.txt: a line a run
# (scripts/gpu/autotune_run_summary.py: its best and every configuration in the order measured);
# each run's files (scripts/gpu/autotune_run.sh) in softmax_live.tgz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
space=tests/gpu/programs/triton_softmax_space.json
run() {  # NAME M N OPTIONS...
  local name=$1 m=$2 n=$3; shift 3
  autotune_run "$name" "$carry/bin/rocm-perf" --space "$space" --kernel softmax_kernel --timeout 120 --max-runs 1 \
    --budget "${BUDGET:-10%}" "$@" \
    --cmd-template "python3 tests/gpu/programs/triton_softmax_tunable.py --block {BLOCK} --rows {ROWS} --warps {WARPS} --m $m --n $n"
}
for seed in ${SEEDS:-1 2}; do
  for landscape in "odd 16384 3000" "long 4096 8192"; do
    read -r name m n <<< "$landscape"
    run "${name}_live_seed$seed" "$m" "$n" --seed "$seed"
    run "${name}_replay_table_seed$seed" "$m" "$n" --seed "$seed" --replay "bench/data/softmax_${name}_h200_exhaustive.csv"
  done
done
autotune_pack softmax_live.tgz
