#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="stencil_tunable matmul_tunable" WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# a smoke check of the scripts that time autotune runs through scripts/gpu/autotune_run.sh, each at
# one seed and its smallest budget, each into a folder of its own, all packed into $OUT/checks.tgz
# beside checks.txt (each script's exit status and summary.txt). The scripts that compare two builds
# get the same build twice (bin/rocm-perf-before, a copy made here).
set -uo pipefail
carry_dir=${1:-.devcarry}
top=${OUT:-/tmp/rpl-gpu}
mkdir -p "$top"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$top/machine.txt"
[ -e "$carry_dir/bin/rocm-perf-before" ] || cp "$carry_dir/bin/rocm-perf" "$carry_dir/bin/rocm-perf-before"
check() {  # SCRIPT VARIABLE=VALUE...
  local script=$1; shift
  local folder="$top/checks/$script"
  mkdir -p "$folder"
  env OUT="$folder" "$@" bash "scripts/gpu/$script.sh" "$carry_dir" > "$folder/stdout.txt" 2>&1
  local rc=$?
  { echo "== $script: exit $rc"; cat "$folder/summary.txt" 2>/dev/null; ls "$folder"; } >> "$top/checks.txt"
}
check run_softmax_live SEEDS=1 BUDGET=5%
check run_centre_last SEEDS=1
check run_time_budget SEEDS=1 BUDGET=20s
check run_pattern_move SEEDS=1
check run_warm_start_several STENCIL_SEEDS=1 TRITON_SEEDS=1
(cd "$top" && tar czf checks.tgz checks && rm -rf checks)
cat "$top/checks.txt"
