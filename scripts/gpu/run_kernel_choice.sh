#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=rowsum_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`
# and the build before the change beside it as bin/rocm-perf-before (each may be xz-compressed,
# bin/NAME.xz): which kernel a tuning without --kernel times. The Triton matmul at 2048³
# (tests/gpu/programs/triton_matmul_tunable.py) with --repeat ${REPEAT:-5} checks its result against
# torch's float32 matmul, a cuBLAS kernel that can take more GPU time than the Triton kernel's
# launches where these are fast. Over 16 configurations (BM and BN 64 or 128, BK 32 or 64, 4 or 8
# warps), all measured:
#   - the build before, without --kernel (each configuration's dominant kernel timed), seed 1;
#   - this build without --kernel, seeds ${SEEDS:-1 2} (the kernel of the first run fixed, or the
#     run stopped where that run's two largest kernels are too close to tell);
#   - this build with --kernel matmul_kernel, the figures to compare with.
# And one profile of the fastest configuration of the table, for the kernels' GPU time.
# summary.txt: a line a run (scripts/gpu/autotune_run_summary.py), and each run's warnings and errors.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
space="$out/triton_16_space.json"
echo '{"parameters": {"BM": [64, 128], "BN": [64, 128], "BK": [32, 64], "WARPS": [4, 8]}}' > "$space"
program=(python3 tests/gpu/programs/triton_matmul_tunable.py)
repeat=${REPEAT:-5}
tune=(--space "$space" --timeout 120 --max-runs 2 --budget 100%
      --cmd-template "${program[*]} --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 2048 --repeat $repeat")
report() {  # the run's warnings (autotune.json) and its error (stderr), after its summary line
  python3 -c 'import json, sys
try:
    for w in json.load(open(sys.argv[1]))["warnings"]: print("  warning: " + w)
except (OSError, ValueError): pass' "$out/$1.autotune.json" | tee -a "$out/summary.txt"
  grep 'error' "$out/$1.err" | sed 's/^/  /' | tee -a "$out/summary.txt"
}
autotune_run "before_seed1" "$carry/bin/rocm-perf-before" "${tune[@]}" --seed 1; report before_seed1
for seed in ${SEEDS:-1 2}; do
  autotune_run "now_seed$seed" "$carry/bin/rocm-perf" "${tune[@]}" --seed "$seed"; report "now_seed$seed"
done
autotune_run "named_seed1" "$carry/bin/rocm-perf" "${tune[@]}" --seed 1 --kernel matmul_kernel; report named_seed1
"$carry/bin/rocm-perf" profile --backend cuda --json --out "$out/profile" -- "${program[@]}" --bm 128 --bn 128 --bk 64 --warps 8 \
  --size 2048 --repeat "$repeat" > "$out/profile.json" 2> "$out/profile.err"
python3 -c 'import json, sys
k = json.load(open(sys.argv[1]))["kernel"]
print("  profile: the dominant kernel {}, {} dispatches, {:.4f} ms, {:.1%} of the GPU time".format(
    k["short_name"], k["dispatches"], k["total_ms"], k["time_fraction"]))' "$out/profile.json" 2>&1 | tee -a "$out/summary.txt"
autotune_pack kernel_choice.tgz
