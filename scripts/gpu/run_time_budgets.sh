#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=stencil_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# scripts/gpu/run_time_budget.sh at several budgets in one call, each into $OUT/BUDGET (its
# machine.txt, summary.txt and runs.tgz). RUNS lists BUDGET=SEEDS, the seeds split by commas; the
# default is what ran on 2026-12-04 (bench/data/autotune_time_budget_h200_live.txt). Prints each
# summary, since a call brings back at most 8 files.
set -uo pipefail
top=${OUT:-/tmp/rpl-gpu}
for run in ${RUNS:-60s=1,2 90s=1}; do
  budget=${run%%=*}
  seeds=${run#*=}
  OUT="$top/$budget" BUDGET="$budget" SEEDS="${seeds//,/ }" bash scripts/gpu/run_time_budget.sh "${1:-.devcarry}" > /dev/null 2>&1
  echo "== $budget"
  cat "$top/$budget/summary.txt"
done
