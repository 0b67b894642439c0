#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release NO_TESTS=1 WITH_CLANG=1 EXAMPLES=matmul_tunable bash scripts/gpu/prepare_carry.sh`
# (rocm-perf links libclang, which the machine lacks; or the full carry with WITH_CLANG=1):
# whether a kernel's place on the roofline survives the clock ncu runs it at. ncu locks the GPU's
# clock to base by default (--clock-control base) and leaves it free with --clock-control none; the
# roofline puts each kernel's compute roof at the clock its launches ran at, where the file records
# it. Programs nobody here wrote, each recorded twice with ncu's full set (first LAUNCHES launches,
# default 12), once under each clock control, then exported (raw page, base units) and analyzed:
#   - tests/gpu/programs/torch_roofline.py (cuBLAS's bf16 GEMM and PyTorch's elementwise kernels);
#   - tests/gpu/programs/triton_matmul_tunable.py at 4096³ (a Triton fp16 matmul on the tensor cores);
#   - examples/matmul's matmul_tunable at 2048³ (our FP32 SGEMM, FFMA only).
# scripts/gpu/roofline_clocks_summary.py prints, per kernel and clock control, its clock, its percent
# of the roof at that clock, and what the percent would be at the device's maximum clock:
# $OUT/summary.txt; the raw pages and roofline.json files are packed in $OUT/roofline_clocks.tar.xz,
# with, for the base clock, the raw page with the values of each instanced metric too
# (--print-metric-instances details: the full set's instructions per opcode, its source counters).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$out/machine.txt"
ncu --version | tail -1 | tee -a "$out/machine.txt"
work=$(mktemp -d)
launches=${LAUNCHES:-12}
run() {  # NAME CONTROL PROGRAM...
  local name=$1.$2
  shift 2
  local control=${name##*.}
  ncu -f -o "$work/$name" --set full --clock-control "$control" -c "$launches" "$@" > "$work/$name.ncu.log" 2>&1
  ncu --import "$work/$name.ncu-rep" --csv --page raw --print-units base > "$work/$name.raw.csv" 2> "$work/$name.raw.err"
  [ "$control" = base ] && ncu --import "$work/$name.ncu-rep" --csv --page raw --print-units base \
    --print-metric-instances details > "$work/$name.instances.csv" 2>> "$work/$name.raw.err"
  "$carry/bin/rocm-perf" analyze --out "$work/$name.out" "$work/$name.raw.csv" > "$work/$name.txt" 2> "$work/$name.err"
  echo "$name: analyze exit $?, $(grep -c . "$work/$name.raw.csv") raw lines" | tee -a "$out/summary.txt"
  # Each result comes back even if the call's time runs out before the rest.
  mkdir -p "$out/$name.out" && cp "$work/$name.out/roofline.json" "$out/$name.out/" 2> /dev/null
  rm -f "$work/$name.ncu-rep"
}
for control in base none; do
  run torch_roofline "$control" python3 tests/gpu/programs/torch_roofline.py
  run sgemm "$control" "$carry/examples/matmul_tunable" 2048 2048 2048 --bm 64 --bn 128 --bk 16 --tm 8 --tn 4 --repeat 3
done
for control in base none; do
  run triton_matmul "$control" python3 tests/gpu/programs/triton_matmul_tunable.py --bm 128 --bn 128 --bk 64 --warps 4 --size 4096 --repeat 3
done
python3 scripts/gpu/roofline_clocks_summary.py "$out" | tee -a "$out/summary.txt"
tar -C "$work" -cf - . | xz -6 > "$out/roofline_clocks.tar.xz"
