#!/usr/bin/env bash
# On the NVIDIA machine, with a carry of scripts/gpu/prepare_carry.sh made with WITH_CLANG=1 (rocm-perf
# links libclang): the per-rank gpu test (a two-rank job of the softmax testbed, ranks in
# SLURM_PROCID as srun sets them; Slurm cannot run there) and the export and diff test next to it.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/machine.txt"
"$carry/tests/test_nvidia_gpu" --gtest_filter="${GTEST_FILTER:-NvidiaGpu.EachRankOfAJob*:NvidiaGpu.ExportAndDiffOfAPytorchProgram}" 2>&1 \
  | tee "$out/gpu_tests.log"
# A real program nobody here wrote: a two-rank job of a PyTorch training loop (bench/torch_train_loop.py,
# 5 steps on rank 0 and 10 on rank 1, after 20 warm-up steps each): its per-rank view and the export's
# process names.
dir=$(mktemp -d)
"$carry/bin/rocm-perf" profile --backend cuda --runs 1 --quiet-app --out "$dir" -- \
  python3 tests/gpu/programs/two_ranks.py python3 bench/torch_train_loop.py > /dev/null
echo "profile exit $?" | tee "$out/torch_ranks.txt"
"$carry/bin/rocm-perf" export "$dir"/.rocpd_profile/*.db -o "$dir/trace.json" > /dev/null
python3 - "$dir/profile.json" "$dir/trace.json" <<'PY' | tee -a "$out/torch_ranks.txt"
import json, sys
profile = json.load(open(sys.argv[1]))
print("kernel:", profile["kernel"]["name"])
print("ranks:", json.dumps(profile["ranks"]))
events = json.load(open(sys.argv[2]))["traceEvents"]
names = {e["pid"]: e["args"]["name"].split(":")[0] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
print("export processes:", [names[p] for p in sorted(names)])
PY
