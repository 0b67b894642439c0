#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=rowsum_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# the row reduction (examples/rowsum/rowsum_tunable, rowsum_space.json: 240 configurations, a kind of
# kernel none of the strategies was chosen on) tuned live, cold, with bayes at --budget ${BUDGETS:-5% 10%},
# seeds ${SEEDS:-1 2}, at 32768 rows of 1024 floats (a kernel of about 31 µs whose launches spread
# by 5-6 % in many configurations: the best is kept on its medians' agreement, warning best_noisy)
# and at 262144 rows of 128. Each live run beside the replay of the exhaustive table measured on an
# H200 at the same budget and seed (bench/data/rowsum_1k_h200_exhaustive.csv, rowsum_128_...).
# summary.txt: a line a run (scripts/gpu/autotune_run_summary.py); each run's files
# (scripts/gpu/autotune_run.sh) in rowsum_live.tgz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
space=examples/rowsum/rowsum_space.json
for budget in ${BUDGETS:-5% 10%}; do
  for seed in ${SEEDS:-1 2}; do
    for landscape in "1k 32768 1024" "128 262144 128"; do
      read -r name rows cols <<< "$landscape"
      for how in live replay_table; do
        replay=()
        [ "$how" = replay_table ] && replay=(--replay "bench/data/rowsum_${name}_h200_exhaustive.csv")
        autotune_run "${name}_${how}_${budget%\%}pct_seed$seed" "$carry/bin/rocm-perf" --space "$space" --timeout 60 --max-runs 2 \
          --budget "$budget" --seed "$seed" "${replay[@]}" \
          --cmd-template "$carry/examples/rowsum_tunable $rows $cols --block {BLOCK} --rows-per-block {ROWS} --vec {VEC} --unroll {UNROLL}"
      done
    done
  done
done
autotune_pack rowsum_live.tgz
