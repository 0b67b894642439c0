#!/usr/bin/env bash
# The tuner against random search and the seeds' algorithm, all given the same budget, replayed on
# an exhaustive measurement of matmul_tunable's 225 configurations (bench/data/, measured on an
# H100 with scripts/gpu/run_autotune.sh). No GPU needed.
#   usage: bench/autotune_replay.sh [BUILD_DIR] [SEEDS] [BUDGET_FRACTION]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
"$build/bin/rpl-autotune-replay" examples/matmul/matmul_space.json bench/data/matmul_tunable_h100_exhaustive.csv \
  "${2:-20}" "${3:-0.2}"
