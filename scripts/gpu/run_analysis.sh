#!/usr/bin/env bash
# Runs on the NVIDIA machine (device tool), from the repository root, with a build carried in CARRY
# (scripts/gpu/prepare_carry.sh): the gpu tests (the multistream DAG, roofline calibration and the
# PyTorch roofline among them), dag.json of a PyTorch training loop and of a two-stream PyTorch
# program, and the tracer against CUPTI alone now that it also asks for CUDA event records
# (SKIP_BENCH=1 leaves that out). Results in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nproc; } | tee "$out/machine.txt"
"$carry/tests/test_nvidia_gpu" ${GTEST_FILTER:+--gtest_filter=$GTEST_FILTER} 2>&1 | tail -40 | tee "$out/gpu_tests.log"

echo "== dag.json of PyTorch programs" | tee "$out/dag_torch.log"
for prog in "bench/torch_train_loop.py 30 5" "tests/gpu/programs/torch_two_streams.py"; do
  dir=$(mktemp -d)
  # shellcheck disable=SC2086
  "$rp" profile --backend cuda --runs 1 --quiet-app --out "$dir" -- python3 $prog > "$dir/stdout" 2> "$dir/stderr"
  echo "-- $prog: exit $?" >> "$out/dag_torch.log"
  { grep -A1 "^DAG" "$dir/stdout"; tail -3 "$dir/stderr";
    python3 tests/support/validate_json.py schemas dag "$dir/dag.json" && echo "dag.json valid";
    python3 - "$dir/dag.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print('edges', d['edges'], 'dependencies', [p['dependencies'] for p in d['processes']],
      'critical_path_ns', d['critical_path_ns'], 'makespan_ns', d['makespan_ns'])
for k in d['kernels'][:3]:
    print('  ', k['name'][:70], k['critical_path_score'], k['impact'])
PY
  } >> "$out/dag_torch.log" 2>&1
  cp "$dir/dag.json" "$out/dag_$(basename "${prog%% *}" .py).json"
done
cat "$out/dag_torch.log"

if [ -z "${SKIP_BENCH:-}" ]; then
  echo "== tracer vs CUPTI alone"
  bash bench/tracer_vs_cupti.sh "$carry" "${REPEATS:-5}" 2>&1 | tee "$out/tracer_vs_cupti.log"
fi
