#!/usr/bin/env bash
# Runs on the NVIDIA machine (through the device tool) with a build carried in CARRY
# (scripts/gpu/prepare_carry.sh): the gpu tests of the DAG's recorded edges (event waits, the
# legacy default stream, CUDA Graphs, PyTorch's streams and graphs) at the tracer's default level,
# then the overhead benchmark of the trace levels on a launch-bound PyTorch loop
# (bench/tracer_overhead_torch.sh), one PyTorch two-stream profile per level, and the per-kind
# breakdown on launch_patterns (bench/tracer_overhead_breakdown.sh). Results in $OUT.
# PARTS=tests,levels,torch,breakdown picks parts (default all); REPEATS, TORCH_CONFIGS,
# TORCH_STEPS, TORCH_CHUNKS and BREAKDOWN_CONFIGS reach the benchmarks (the torch one keeps every
# chunk's wall and CPU seconds in overhead_torch_chunks.txt and summarizes them) (one call stays under the device's 10 minutes with
# REPEATS=3 and about 6 configurations).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$out/machine.txt"
filter=${GTEST_FILTER:-'NvidiaGpu.Multistream*:NvidiaGpu.TheLegacy*:NvidiaGpu.Graph*:NvidiaGpu.APytorch*:NvidiaGpu.ExportAndDiff*:NvidiaGpu.SeveralThreads*:NvidiaGpu.CrashMidRun*:NvidiaGpu.TestbedsProfile*:NvidiaGpu.TraceLevels*:NvidiaGpu.APausedTracer*'}
parts=",${PARTS:-tests,levels,torch,breakdown},"
[[ $parts == *,tests,* ]] && timeout 300 "$carry/tests/test_nvidia_gpu" --gtest_filter="$filter" 2>&1 | tee "$out/gpu_tests.log" | grep -E '^\[|critical|edges|torch'
[[ $parts == *,levels,* ]] && for level in kernels default full; do
  dir=$(mktemp -d)
  "$carry/bin/rocm-perf" profile --backend cuda --runs 1 --quiet-app --trace-level "$level" --out "$dir" -- \
    python3 tests/gpu/programs/torch_two_streams.py > "$out/two_streams_$level.txt" 2>&1
  echo "level $level: $(python3 -c "import json,sys; d=json.load(open('$dir/dag.json')); print(d['edges'], d['critical_path_ns'], d['warnings'][:1])")" \
    | tee -a "$out/levels.txt"
  "$carry/bin/rocm-perf" export "$dir"/.rocpd_profile/run1_*.db -o "$out/two_streams_$level.json" > /dev/null 2>&1
done
[[ $parts == *,torch,* ]] && CONFIGS=${TORCH_CONFIGS:-} CPUS=${CPUS:-4-7} RAW="$out/overhead_torch_raw.txt" \
  CHUNKS_RAW="$out/overhead_torch_chunks.txt" bash bench/tracer_overhead_torch.sh "$carry" "${REPEATS:-5}" \
  "${TORCH_STEPS:-200}" "${TORCH_CHUNKS:-5}" 2>&1 | tee "$out/overhead_torch.log"
[[ $parts == *,breakdown,* ]] && CONFIGS=${BREAKDOWN_CONFIGS:-} RAW="$out/breakdown_raw.txt" \
  bash bench/tracer_overhead_breakdown.sh "$carry" "${REPEATS:-5}" 2>&1 | tee "$out/breakdown.log"
true
