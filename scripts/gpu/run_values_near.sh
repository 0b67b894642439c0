#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="matmul_tunable_large stencil_tunable" WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`
# and, beside its rocm-perf, the build before bayes's order of an anchor's single steps (a value
# measured nowhere near the anchor first, src/autotune/values_near.hpp) as bin/rocm-perf-before: that
# order live, at the size of space the autotune issue was filed on. The stencil's 410 launch
# geometries at 5 % (21 measured) at 2048² and 50 steps (bench/data/stencil_large_2k_h200_exhaustive.csv:
# the replays found one within 3 % of the best in 93 of 100 seeds with the order, 55 without) and at
# 3840² and 20 steps (stencil_large_3840: 100 and 68), seeds SEEDS (default 1 to 5), by each build in
# turn. Per run, the best found and the configurations in the order measured in summary.txt
# (scripts/gpu/autotune_run_summary.py); each run's files (scripts/gpu/autotune_run.sh) in runs.tgz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
run() {  # BUILD SIZE STEPS SEED
  autotune_run "$1_stencil_$2_seed$4" "$carry/bin/$1" --space examples/stencil/stencil_large_space.json \
    --cmd-template "$carry/examples/stencil_tunable $2 $3 --bx {BX} --by {BY} --rows {ROWS}" --budget 5% \
    --timeout 60 --max-runs 2 --seed "$4"
}
for seed in ${SEEDS:-1 2 3 4 5}; do
  for build in rocm-perf rocm-perf-before; do
    run "$build" 2048 50 "$seed"
    run "$build" 3840 20 "$seed"
  done
done
autotune_pack runs.tgz
