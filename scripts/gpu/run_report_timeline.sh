#!/usr/bin/env bash
# Runs on the NVIDIA machine (through the device tool) with a carried build (prepare_carry.sh):
# `profile --html` of real programs nobody here wrote the kernels of (PyTorch's two-stream
# program with --roofline, a Triton kernel, a PyTorch training loop of about 80,000 dispatches), the
# reports and a summary of each brought back through $OUT to open in Chromium where it is
# installed, the two-stream program's whole folder too; and the gpu test of the Perfetto export
# and diff of a PyTorch program.
#   usage: bash scripts/gpu/run_report_timeline.sh [CARRY] [TRAIN_STEPS]
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
steps=${2:-2000}
export RPL_CHARTJS="$carry/js/chart.min.js"
log="$out/timeline.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log"
work=$(mktemp -d)
profile() {  # NAME [OPTIONS] -- CMD...: profile --html of CMD, its report and a summary into $out
  local name=$1; shift
  local t0=$SECONDS
  "$carry/bin/rocm-perf" profile --backend cuda --runs 1 --quiet-app --html --out "$work/$name" "$@" > /dev/null 2> "$work/$name.err"
  local rc=$?
  echo "$name: profile --html exit $rc in $((SECONDS - t0)) s; $(tail -1 "$work/$name.err")" | tee -a "$log"
  [ -f "$work/$name/report.html" ] || return
  cp "$work/$name/report.html" "$out/$name.html"
  "$carry/bin/rocm-perf" export "$work/$name"/.rocpd_profile/run1_*.db -o "$work/$name.trace.json" --json \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print('  export:', {k: d[k] for k in d if k != 'output'})" | tee -a "$log"
  python3 - "$work/$name" <<'PY' | tee -a "$log"
import json, sys
d = json.load(open(sys.argv[1] + "/dag.json"))
print("  dag.json: critical_path_ns", d.get("critical_path_ns"), "makespan_ns", d.get("makespan_ns"), "nodes", d.get("nodes"))
PY
  ls -la "$work/$name/report.html" | awk '{print "  report.html bytes", $5}' | tee -a "$log"
}
profile torch_two_streams --roofline -- python3 tests/gpu/programs/torch_two_streams.py
tar czf "$out/torch_two_streams_folder.tgz" -C "$work" torch_two_streams  # to write its report again elsewhere
profile triton_add -- python3 tests/gpu/programs/triton_add.py
profile train_loop -- python3 bench/torch_train_loop.py "$steps" 20
"$carry/tests/test_nvidia_gpu" --gtest_filter='NvidiaGpu.ExportAndDiffOfAPytorchProgram' > "$out/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED) |^\[       OK" "$out/gpu_tests.log" | tee -a "$log"
