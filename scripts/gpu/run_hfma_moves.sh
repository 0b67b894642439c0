#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release WITH_CLANG=1 bash scripts/gpu/prepare_carry.sh`: ptxas's HFMA2.MMA register moves,
# which ncu counts as FP16 FMA thread instructions (smsp__sass_thread_inst_executed_op_hfma_pred_on),
# in profile --deep's instruction mix and the FP16 roofline. For our softmax and SGEMM testbeds (no
# FP16 arithmetic), a PyTorch program (cuBLAS's bf16 GEMM, PyTorch's random fills) and a Triton one:
#   MODE=counts: ncu's raw page in base units, ${LAUNCHES:-12} launches, with the hfma, hadd and hmul
#     thread instructions, the tensor pipe's warp instructions and its HFMA2.MMA ones
#     (sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum), and the thread instructions by opcode
#     with their instances: is 32 x the moves' warp instructions their thread count? ($OUT/NAME.csv;
#     the chip's hfma and hmma metrics in $OUT/query.txt.)
#   MODE=profile (default): rocm-perf profile --deep --roofline --debug of each, whose kept counter
#     pass output (ncu.csv) is what analyze reads; and for the PyTorch program the FP16 rates a full
#     set has (per cycle elapsed) with the opcode instances, the second form of the FP16 figure.
#     Packed in $OUT/hfma_moves.tar.xz; summary.txt has each run's FP16 FLOPs and mix.
# Both ran on an H100 on 2026-12-06 (bench/data/hfma_moves_h100.txt); the profile run's counter
# pass outputs became tests/fixtures/ncu_deep_roofline_{softmax,torch}_h100.csv and its rates
# tests/fixtures/ncu_fp16_rates_opcodes_torch_h100.csv (launches 0-3, columns cut).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
ncu --version | tail -1 | tee -a "$out/machine.txt"
softmax=("$carry/examples/softmax_testbed" 8192 1024 2)
sgemm=("$carry/examples/matmul_tunable" 2048 2048 2048 --bm 64 --bn 128 --bk 16 --tm 8 --tn 4)
torch=(python3 tests/gpu/programs/torch_roofline.py)
triton=(python3 tests/gpu/programs/triton_add.py)
opcodes=sass__thread_inst_executed_true_per_opcode_with_modifier_all
if [ "${MODE:-profile}" = counts ]; then
  metrics=smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,smsp__sass_thread_inst_executed_op_hadd_pred_on.sum
  metrics+=,smsp__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__inst_executed_pipe_tensor.sum
  metrics+=,sm__inst_executed_pipe_tensor_op_hmma_type_hfma2.sum,$opcodes
  for name in softmax sgemm torch triton; do
    declare -n program=$name
    start=$(date +%s)
    ncu --csv --page raw --print-units base --print-metric-instances details --metrics "$metrics" -c "${LAUNCHES:-12}" \
      "${program[@]}" > "$out/$name.csv" 2> "$out/$name.err"
    echo "$name: exit $?, $(( $(date +%s) - start )) s, $(wc -c < "$out/$name.csv") bytes" | tee -a "$out/summary.txt"
  done
  ncu --query-metrics --chip gh100 2>&1 | grep -i -E 'hfma|hmma' > "$out/query.txt"
  exit 0
fi
work=$(mktemp -d)
for name in softmax sgemm torch; do
  declare -n program=$name
  mkdir -p "$work/$name.tmp"
  start=$(date +%s)
  TMPDIR="$work/$name.tmp" "$carry/bin/rocm-perf" profile --debug --deep --roofline --runs 1 --out "$work/$name.out" \
    -- "${program[@]}" > "$work/$name.txt" 2> "$work/$name.err"
  status=$?
  cp "$work/$name.tmp"/rocm-perf-ncu-*/ncu.csv "$work/$name.pass.csv" 2>/dev/null
  echo "$name: profile exit $status, $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
  python3 - "$work/$name.out" <<'EOF' | tee -a "$out/summary.txt"
import json, sys
out = sys.argv[1]
try:
    roof = json.load(open(out + "/roofline.json"))
    for k in roof["kernels"]:
        print(f"  {k['name'][:60]}: fp16 FLOPs {k['flops'].get('fp16')}, fp32 {k['flops'].get('fp32')}")
    print(f"  mix of the dominant kernel: {json.load(open(out + '/analysis.json'))['stalls']['instruction_mix']}")
except Exception as e:
    print(f"  no result: {e}")
EOF
done
rates=smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed,smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed
rates+=,smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed,smsp__cycles_elapsed.avg,$opcodes
ncu --csv --page raw --print-units base --print-metric-instances details --metrics "$rates" -c 12 "${torch[@]}" \
  > "$work/torch.rates.csv" 2> "$work/torch.rates.err"
echo "torch rates: exit $?, $(wc -c < "$work/torch.rates.csv") bytes" | tee -a "$out/summary.txt"
"$carry/bin/rocm-perf" analyze --out "$work/torch.rates.out" "$work/torch.rates.csv" > /dev/null 2> "$work/torch.rates.analyze.err"
python3 -c "
import json
for k in json.load(open('$work/torch.rates.out/roofline.json'))['kernels']:
    print('  rates', k['name'][:60], 'fp16 FLOPs', k['flops'].get('fp16'))" | tee -a "$out/summary.txt"
rm -rf "$work"/*.tmp
tar -C "$work" -cf - . | xz -T0 -6 > "$out/hfma_moves.tar.xz"
