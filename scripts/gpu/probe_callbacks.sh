#!/usr/bin/env bash
# Runs on the NVIDIA machine with a carried build (scripts/gpu/prepare_carry.sh): which CUPTI API
# callbacks a runtime launch, a runtime allocation, PyTorch (caching and cudaMallocAsync
# allocators, cuBLAS) and Triton reach, and when modules load. Logs in $OUT/probe_*.log.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
probe=(env CUDA_INJECTION64_PATH="$carry/lib/librpl_callback_probe.so")
"${probe[@]}" "$carry/examples/softmax_testbed" 1024 256 2 > "$out/probe_softmax.log" 2>&1
"${probe[@]}" python3 tests/gpu/programs/torch_isolate.py > "$out/probe_torch.log" 2>&1
"${probe[@]}" env PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync python3 tests/gpu/programs/torch_isolate.py \
  > "$out/probe_torch_async.log" 2>&1
"${probe[@]}" python3 tests/gpu/programs/triton_add.py > "$out/probe_triton.log" 2>&1
for f in "$out"/probe_*.log; do echo "== $f"; sort "$f" | uniq -c | sort -rn | head -40; done
