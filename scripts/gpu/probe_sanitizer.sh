#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=softmax_testbed bash scripts/gpu/prepare_carry.sh`: what compute-sanitizer
# says of a replay. Captures dispatch 1 of the softmax testbed, builds candidate kernels into the
# testbed (with -lineinfo), puts each one's cubin into a copy of the snapshot, and replays each
# under racecheck, synccheck and memcheck, keeping every log and its wall time in $OUT; then the
# same for a Triton kernel and a cuBLAS GEMM of PyTorch. The optimizer's sanitizer stage parses
# such logs (src/optimize/sanitizer.cpp; tests/fixtures/sanitizer holds some of these).
# ONLY_PROGRAMS=1 runs only the Triton and PyTorch part.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
work=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
compute-sanitizer --version | tee -a "$out/machine.txt"
splice() {  # splice CANDIDATE OUTPUT: the testbed with its kernel replaced by the candidate's file
  python3 - "$1" "$2" <<'PY'
import sys
src = open("examples/softmax/softmax_testbed.cu").read()
start = src.index("__global__ void softmax_naive")
end = src.index("\n}\n", start) + 3
open(sys.argv[2], "w").write(src[:start] + open(sys.argv[1]).read() + "\n" + src[end:])
PY
}
mkdir -p "$work/common" && cp examples/common/gpu_compat.hpp "$work/common/"
mkdir -p "$work/src"
nvcc -O3 -arch=sm_90 -lineinfo examples/softmax/softmax_testbed.cu -o "$work/original"
"$rp" isolate --quiet-app --kernel softmax_naive --dispatch 1 --out "$work/snap" -- "$work/original" 4096 1024 3 > "$out/isolate.txt" 2>&1
ls "$work/snap" >> "$out/isolate.txt"
testbed_candidates="original softmax_shared_race softmax_out_of_bounds softmax_row_registers"
[ -n "${ONLY_PROGRAMS:-}" ] && testbed_candidates=
for name in $testbed_candidates; do
  if [ "$name" != original ]; then
    splice "tests/fixtures/optimize/$name.cu" "$work/src/$name.cu"
    nvcc -O3 -arch=sm_90 -lineinfo -I"$work/src" "$work/src/$name.cu" -o "$work/$name" 2>> "$out/build.log" || { echo "$name: build failed"; continue; }
  fi
  (cd "$work" && cuobjdump -xelf all "$work/$name" > /dev/null)
  cubin=$(ls -t "$work"/*.sm_90.cubin | head -1)
  rm -rf "$work/snap_$name" && cp -r "$work/snap" "$work/snap_$name" && cp "$cubin" "$work/snap_$name/kernel.cubin"
  rm -f "$work"/*.cubin
  for tool in racecheck synccheck memcheck; do
    t0=$(date +%s%N)
    compute-sanitizer --tool "$tool" --log-file "$out/${name}_$tool.log" "$carry/bin/rpl-cuda-replay" full-vm \
      --capture-dir "$work/snap_$name" --result "$work/r.json" --iterations 1 > "$out/${name}_$tool.out" 2>&1
    rc=$?
    t1=$(date +%s%N)
    echo "$name $tool exit $rc $(( (t1 - t0) / 1000000 )) ms; result: $(head -c 300 "$work/r.json")" | tee -a "$out/summary.txt"
  done
  t0=$(date +%s%N)
  "$carry/bin/rpl-cuda-replay" full-vm --capture-dir "$work/snap_$name" --result "$work/r.json" --iterations 1 > /dev/null 2>&1
  t1=$(date +%s%N)
  echo "$name plain replay exit $? $(( (t1 - t0) / 1000000 )) ms" | tee -a "$out/summary.txt"
done
# Programs nobody here wrote: a Triton kernel and a PyTorch (cuBLAS) GEMM, each captured and its
# replay run under each tool, as the optimizer's stage runs a candidate's.
sanitize_program() {  # NAME KERNEL_REGEX DISPATCH -- COMMAND...
  local name=$1 kernel=$2 dispatch=$3; shift 4
  "$rp" isolate --quiet-app --kernel "$kernel" --dispatch "$dispatch" --out "$work/snap_$name" -- "$@" > "$out/${name}_isolate.txt" 2>&1 \
    || { echo "$name: isolate failed: $(tail -1 "$out/${name}_isolate.txt")" | tee -a "$out/summary.txt"; return; }
  for tool in racecheck synccheck memcheck; do
    t0=$(date +%s%N)
    compute-sanitizer --tool "$tool" --log-file "$out/${name}_$tool.log" "$carry/bin/rpl-cuda-replay" full-vm \
      --capture-dir "$work/snap_$name" --result "$work/r.json" --iterations 1 > /dev/null 2>&1
    rc=$?
    t1=$(date +%s%N)
    echo "$name $tool exit $rc $(( (t1 - t0) / 1000000 )) ms; $(grep SUMMARY "$out/${name}_$tool.log" | head -1)" | tee -a "$out/summary.txt"
  done
}
echo "import torch; a = torch.randn(512, 512, device='cuda'); [a @ a for _ in range(3)]; torch.cuda.synchronize()" > "$work/torch_gemm.py"
sanitize_program triton_add add_kernel 3 -- python3 tests/gpu/programs/triton_add.py
sanitize_program torch_gemm gemm 1 -- python3 "$work/torch_gemm.py"
# The race as a whole program under racecheck, for comparison with the replay's log.
compute-sanitizer --tool racecheck "$work/softmax_shared_race" 4096 1024 1 > "$out/program_race.log" 2>&1
cuobjdump -res-usage "$work/softmax_row_registers" 2>&1 | grep -A1 softmax_naive | tee -a "$out/summary.txt"
cd "$out" && tar czf /tmp/logs.tgz --exclude summary.txt --exclude machine.txt . && mv /tmp/logs.tgz . && find . -type f ! -name logs.tgz ! -name summary.txt ! -name machine.txt -delete
true
