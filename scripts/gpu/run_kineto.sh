#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root: a real PyTorch profiler (Kineto) trace of a small
# training step (tests/gpu/programs/torch_kineto_trace.py), for the Kineto reader's tests. No carry.
#   usage: bash scripts/gpu/run_kineto.sh   (files under $OUT)
set -euo pipefail
out=${OUT:-/tmp/rpl-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" | tee -a "$out/gpu.txt"
python3 tests/gpu/programs/torch_kineto_trace.py "$out/torch_kineto.json"
ls -la "$out"
