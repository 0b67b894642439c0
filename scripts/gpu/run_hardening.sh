#!/usr/bin/env bash
# Runs on the NVIDIA machine (device tool), from the repository root, with a build carried in CARRY
# (scripts/gpu/prepare_carry.sh): the gpu tests, inspect against cuobjdump on real libraries, the
# tracer measured against CUPTI alone and on a PyTorch training loop, and profiles of a PyTorch,
# a Triton and a two-process program (their output must pass through). Results in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nproc; } | tee "$out/machine.txt"
[ -z "${SKIP_TESTS:-}" ] && "$carry/tests/test_nvidia_gpu" 2>&1 | tail -25 | tee "$out/gpu_tests.log"

echo "== profile: PyTorch, Triton, two processes" | tee "$out/profiles.log"
for prog in "bench/torch_train_loop.py 30 5" "tests/gpu/programs/triton_add.py" "tests/gpu/programs/two_processes.py"; do
  dir=$(mktemp -d)
  # shellcheck disable=SC2086
  "$rp" profile --backend cuda --runs 1 --out "$dir" -- python3 $prog > "$dir/stdout" 2> "$dir/stderr"
  echo "-- $prog: exit $?" >> "$out/profiles.log"
  { echo "stdout:"; cat "$dir/stdout"; echo "stderr:"; tail -5 "$dir/stderr"; echo "run1.log:"; cat "$dir/.rocpd_profile/run1.log";
    ls "$dir/.rocpd_profile"; } >> "$out/profiles.log" 2>&1
done
cat "$out/profiles.log"

echo "== inspect vs cuobjdump"
python3 scripts/gpu/inspect_libraries.py "$rp" "$out/inspect_libraries.json" 2>&1 | tee "$out/inspect_libraries.log"

echo "== tracer vs CUPTI alone"
bash bench/tracer_vs_cupti.sh "$carry" "${REPEATS:-7}" 2>&1 | tee "$out/tracer_vs_cupti.log"
