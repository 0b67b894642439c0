#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=stencil_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`
# and, beside its rocm-perf, the same build without bayes's pattern move as bin/rocm-perf-before
# (kPatternValues set past every parameter's count of values, then built and stripped):
# the stencil's launch geometry at 1600² and 70 steps (bench/data/stencil_1600_h200_exhaustive.csv,
# where the replays found one within 3 % of the best at 10 % in 100 of 100 seeds with the move, 76
# without) tuned live at 10 % of its 96 configurations, seeds SEEDS (default 1 to 5), by each build
# in turn. Per run, the best found and the configurations in the order measured in summary.txt;
# each run's files (scripts/gpu/autotune_run.sh) in runs.tgz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
space=examples/stencil/stencil_space.json
template="$carry/examples/stencil_tunable 1600 70 --bx {BX} --by {BY} --rows {ROWS}"
for seed in ${SEEDS:-1 2 3 4 5}; do
  for build in rocm-perf rocm-perf-before; do
    autotune_run "${build}_seed$seed" "$carry/bin/$build" --space "$space" --cmd-template "$template" --timeout 120 \
      --budget 10% --max-runs 2 --seed "$seed"
  done
done
autotune_pack runs.tgz
