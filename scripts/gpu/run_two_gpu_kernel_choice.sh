#!/usr/bin/env bash
# On the two-GPU NVIDIA machine (kind nvidia-h100-x2), from the repository root, with the carry of
# `PRESET=release EXAMPLES=rowsum_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# which kernel a tuning without --kernel times when two workers measure at once (--devices 0,1), the
# live check of 1aced76 (the configuration measured first runs alone until it has fixed the kernel
# timed). The Triton matmul at 2048³ (tests/gpu/programs/triton_matmul_tunable.py, --repeat 5) over
# the 16 configurations of run_kernel_choice.sh, all measured: without --kernel, seeds ${SEEDS:-1 2};
# then with --kernel matmul_kernel, the figures to compare with. summary.txt: a line a run
# (scripts/gpu/autotune_run_summary.py), each run's kernel timed, warnings and errors.
# Not yet run: no two-GPU machine was lent on 2026-12-05, when it was written.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
space="$out/triton_16_space.json"
echo '{"parameters": {"BM": [64, 128], "BN": [64, 128], "BK": [32, 64], "WARPS": [4, 8]}}' > "$space"
tune=(--space "$space" --timeout 120 --max-runs 2 --budget 100% --devices 0,1
      --cmd-template "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 2048 --repeat 5")
report() {  # the run's objective (the kernel timed), its warnings (autotune.json) and its error (stderr)
  python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print("  objective: {}".format(json.dumps(d.get("objective"))))
    for w in d["warnings"]: print("  warning: " + w)
except (OSError, ValueError): pass' "$out/$1.autotune.json" | tee -a "$out/summary.txt"
  grep 'error' "$out/$1.err" | sed 's/^/  /' | tee -a "$out/summary.txt"
}
for seed in ${SEEDS:-1 2}; do
  autotune_run "two_gpus_seed$seed" "$carry/bin/rocm-perf" "${tune[@]}" --seed "$seed"; report "two_gpus_seed$seed"
done
autotune_run "two_gpus_named" "$carry/bin/rocm-perf" "${tune[@]}" --seed 1 --kernel matmul_kernel; report two_gpus_named
autotune_pack two_gpu_kernel_choice.tgz
