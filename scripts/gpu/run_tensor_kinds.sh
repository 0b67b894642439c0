#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release NO_TESTS=1 WITH_CLANG=1 bash scripts/gpu/prepare_carry.sh` (rocm-perf links
# libclang): the roofline's matrix FLOPs by input type, checked against the GEMMs' own 2 n^3 a
# call. A PyTorch program
# (tests/gpu/programs/torch_tensor_kinds.py: cuBLAS GEMMs in fp16, bf16, TF32, fp64, fp8 and int8)
# and a JAX one (tests/gpu/programs/jax_gemm.py: an fp32 GEMM through XLA at its default precision).
#   - the chip's tensor metrics (ncu --query-metrics): $OUT/query.txt;
#   - ncu's raw page of every sm__ops_path_tensor_* counter the chip has, per launch, for the
#     PyTorch program: which counter each GEMM's work lands in ($OUT/torch.ops.csv; JAX's, all
#     launches, ran past 500 s: XLA autotunes its GEMMs with many kernels, each replayed by ncu);
#     SKIP_OPS=1 leaves this step out (its figures are in bench/data/tensor_kinds_h100.txt);
#   - rocm-perf profile --roofline --debug of both, kept counter pass and all
#     ($OUT/NAME.out/, $OUT/NAME.pass.csv); summary.txt has each kernel's FLOPs by kind a launch.
# On an H100 on 2026-12-06 (bench/data/tensor_kinds_h100.txt): the first two steps in one call, the
# profile step in another with SKIP_OPS=1 (15 s for PyTorch, 82 s for JAX).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
ncu --version | tail -1 | tee -a "$out/machine.txt"
python3 -c "import torch, jax; print('torch', torch.__version__, 'jax', jax.__version__)" 2>&1 | tail -1 | tee -a "$out/machine.txt"
torch=(python3 tests/gpu/programs/torch_tensor_kinds.py)
jax=(python3 tests/gpu/programs/jax_gemm.py)
gemms=(--kernel 'gemm|nvjet|xmma|cutlass' --roofline-launches 3)  # JAX's: the three calls, not XLA's autotuning
ncu --query-metrics --chip gh100 2>&1 | grep -i -E 'tensor' > "$out/query.txt"
ops=$(grep -o -E '^sm__ops_path_tensor[a-z0-9_]*' "$out/query.txt" | sort -u | sed 's/$/.sum/' | paste -sd, -)
echo "ops metrics: $ops" >> "$out/summary.txt"
if [ -z "${SKIP_OPS:-}" ]; then
  start=$(date +%s)
  ncu --csv --page raw --print-units base --metrics "gpu__time_duration.sum,$ops" "${torch[@]}" \
    > "$out/torch.ops.csv" 2> "$out/torch.ops.err"
  echo "torch ops: exit $?, $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
fi
for name in torch jax; do
  declare -n program=$name
  limit=()
  [ $name = jax ] && limit=("${gemms[@]}")
  mkdir -p "$out/$name.tmp"
  start=$(date +%s)
  TMPDIR="$out/$name.tmp" "$carry/bin/rocm-perf" profile --debug --roofline --runs 1 "${limit[@]}" --out "$out/$name.out" \
    -- "${program[@]}" > "$out/$name.txt" 2> "$out/$name.err"
  status=$?
  cp "$out/$name.tmp"/rocm-perf-ncu-*/ncu.csv "$out/$name.pass.csv" 2>/dev/null
  rm -rf "$out/$name.tmp" "$out/$name.out"/*.db
  echo "$name: profile exit $status, $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
  python3 - "$out/$name.out" <<'EOF' | tee -a "$out/summary.txt"
import json, sys
try:
    roof = json.load(open(sys.argv[1] + "/roofline.json"))
    for k in roof["kernels"]:
        n = max(k["measured_dispatches"], 1)
        flops = {kind: f"{v / n:.4g}" for kind, v in k["flops"].items() if v}
        print(f"  {k['short_name'][:70]}: {k['measured_dispatches']} measured, a launch {flops},"
              f" {k['binding_ceiling']} {k['percent_of_roof']}")
    print("  ceilings", json.dumps(roof["ceilings"])[:600])
    print("  warnings", roof["warnings"])
except Exception as e:
    print(f"  no result: {e}")
EOF
done
# The call returns few files: all but the summary packed in one.
tar -C "$out" --exclude=summary.txt --exclude=tensor_kinds.tar.xz -cf - . | xz -T0 -6 > /tmp/tensor_kinds.tar.xz
find "$out" -mindepth 1 -not -name summary.txt -delete
mv /tmp/tensor_kinds.tar.xz "$out/"
