#!/usr/bin/env bash
# Runs on the NVIDIA machine with a carried build (scripts/gpu/prepare_carry.sh): the isolate and
# replay gpu tests, then captures out of programs nobody here wrote kernels for — a cuBLAS GEMM
# (fp32 and bf16) and PyTorch elementwise kernels, with PyTorch's caching allocator and with its
# cudaMallocAsync backend, a Triton kernel, and an XLA GEMM of JAX with its default preallocated
# pool — each replayed in a fresh process and compared with the memory the program had after that
# dispatch. Prints capture overhead (program wall time with and without the capture), snapshot
# sizes and the replay's wall time. Results in $OUT.
# OLD=DIR (a carry of an earlier build: bin/rocm-perf, bin/rpl-cuda-replay, lib/librpl_cupti_trace.so)
# captures and replays each program with it too, right after, for side-by-side sizes and times.
# ONLY="name ..." runs only those captures.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
if [ -z "${SKIP_TESTS:-}" ]; then
  "$carry/tests/test_nvidia_gpu" --gtest_filter="${GTEST_FILTER:-NvidiaIsolate.*}" 2>&1 | tee "$out/isolate_tests.log"
fi
work=$(mktemp -d)
now() { date +%s.%N; }
# capture NAME KERNEL_REGEX DISPATCH [ENV=VALUE...] -- COMMAND...
capture() {
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $1 "* ]] && return
  capture_with "$rp" "$@"
  # An earlier build stores JAX's whole pool, more than the machine's disk: not run there.
  if [ -n "${OLD:-}" ] && [ "$1" != jax_gemm ]; then local name=$1; shift; capture_with "$PWD/$OLD/bin/rocm-perf" "$name.old" "$@"; fi
}
capture_with() {
  local rp=$1 name=$2 kernel=$3 dispatch=$4; shift 4
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local t0 t1 t2
  t0=$(now); env "${envs[@]}" "$@" > /dev/null 2>&1; t1=$(now)
  env "${envs[@]}" "$rp" isolate --json --quiet-app --kernel "$kernel" --dispatch "$dispatch" --out "$work/$name" -- "$@" \
    > "$out/$name.isolate.json" 2> "$out/$name.isolate.err"
  local rc=$?; t2=$(now)
  if [ $rc -ne 0 ]; then echo "$name: isolate failed ($rc): $(tail -1 "$out/$name.isolate.err")"; return; fi
  local t3 t4
  t3=$(now)
  "$rp" replay full-vm --json --iterations 20 --capture-dir "$work/$name" --dump-outputs "$work/$name.replayed" \
    > "$out/$name.replay.json" 2> "$out/$name.replay.err" || {
    echo "$name: replay failed: $(tail -1 "$out/$name.replay.err")"
    "$rp" replay reserve-check --capture-dir "$work/$name"
    return
  }
  t4=$(now)
  "$rp" replay compare --json "$work/$name/after" "$work/$name.replayed" > "$out/$name.compare.json"
  local same=$?
  python3 - "$name" "$out" "$t0" "$t1" "$t2" "$same" "$t3" "$t4" <<'PY'
import json, sys
name, out, t0, t1, t2, same, t3, t4 = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6]), int(sys.argv[6]), *map(float, sys.argv[7:9])
i = json.load(open(f"{out}/{name}.isolate.json")); r = json.load(open(f"{out}/{name}.replay.json"))
c = json.load(open(f"{out}/{name}.compare.json"))
pt = i["program_time"] or {}
print(f"{name}: {i['kernel']['name'][:70]}\n  {i['memory']['regions']} regions {i['memory']['bytes']/2**20:.1f} MiB, "
      f"{i['memory']['globals']} globals, snapshot {i['snapshot_bytes']/2**20:.1f} MiB on disk "
      f"(skipped {i['memory'].get('skipped_bytes', 0)/2**20:.1f} MiB, stored {i['memory'].get('stored_bytes', 0)/2**20:.1f} MiB before); "
      f"capture {i['capture_ms']:.1f} ms + after {i['after_ms'] or 0:.1f} ms; program {t1-t0:.2f} s alone, {t2-t1:.2f} s under isolate\n"
      f"  program median {pt.get('median_ms')} ms, replay median {r['gpu_time_ms']['median']:.4f} ms, replay wall {t4-t3:.2f} s; "
      f"memory after replay {'bit-identical' if same == 0 else 'DIFFERENT'} ({c['bytes']} bytes compared)")
PY
  if [[ "$name" == *.old ]]; then  # the earlier build's snapshot, replayed by this build
    if "$carry/bin/rocm-perf" replay full-vm --iterations 3 --capture-dir "$work/$name" --dump-outputs "$work/$name.cross" > /dev/null \
      && "$carry/bin/rocm-perf" replay compare "$work/$name/after" "$work/$name.cross" > /dev/null; then
      echo "  replayed by this build: bit-identical"
    else
      echo "  replayed by this build: FAILED"
    fi
  fi
  rm -rf "${work:?}/$name" "$work/$name.replayed" "$work/$name.cross"
}
programs="$PWD/tests/gpu/programs"
capture torch_gemm_f32 'xmma_gemm|cutlass|ampere_sgemm|sm90.*gemm' 1 -- python3 "$programs/torch_isolate.py"
capture torch_gemm_bf16 'nvjet|bf16.*gemm|gemm.*bf16' 1 -- python3 "$programs/torch_isolate.py"
capture torch_sigmoid 'sigmoid' 1 -- python3 "$programs/torch_isolate.py"
capture torch_async_gemm 'xmma_gemm|cutlass|ampere_sgemm|sm90.*gemm' 1 PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync -- \
  python3 "$programs/torch_isolate.py"
capture torch_async_sigmoid 'sigmoid' 1 PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync -- python3 "$programs/torch_isolate.py"
capture triton_add 'add_kernel' 3 -- python3 "$programs/triton_add.py"
capture softmax 'softmax_naive' 5 -- "$carry/examples/softmax_testbed" 4096 1024 30
capture matmul 'sgemm' 1 -- "$carry/examples/matmul_tunable" 2048 2048 2048 --bm 128 --bn 128 --bk 16 --tm 8 --tn 8
capture roofline_fma 'fma_bound' 0 -- "$carry/examples/roofline_calibration" $((1 << 24)) 1024
capture roofline_copy 'stream_copy' 0 -- "$carry/examples/roofline_calibration" $((1 << 24)) 1024
capture roofline_triad 'triad' 0 -- "$carry/examples/roofline_calibration" $((1 << 24)) 1024
capture multistream 'spin_kernel' 3 -- "$carry/examples/multistream_dag" 200
capture jax_gemm 'gemm|nvjet|xmma|cutlass' 1 -- python3 "$programs/jax_gemm.py"
rm -rf "$work"
