#!/usr/bin/env bash
# Benchmark: what running each measurement as a Slurm job step costs against running it on this
# machine. A throwaway Slurm (tests/slurm/local_slurm.sh) on localhost; the stand-in tunable program
# (its figure is exact, so every configuration runs the same number of times in each mode); one
# autotune run per mode and round, the modes alternating: --launcher local, --launcher slurm with
# one step at a time, then two workers each way (--devices 0,1 against --slurm-workers 2 over both
# nodes). Reports the medians, and the cost per step: (slurm - local) / steps.
#   usage: bench/slurm_step_overhead.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-build/release}" && pwd)
rounds=${2:-3}
work=$(mktemp -d)
export RPL_SLURM_PORT=$((20000 + ($$ % 6000) * 3))
trap 'bash "$here/../tests/slurm/local_slurm.sh" stop "$work/slurm" > /dev/null; rm -rf "$work"' EXIT
export "$(bash "$here/../tests/slurm/local_slurm.sh" start "$work/slurm")"

args=(autotune --space "$here/../tests/fixtures/autotune/synthetic_space.json"
      --cmd-template "$build/fixtures/rpl-synthetic-tunable --a {A} --b {B} --c {C} --mode {MODE}"
      --metric-regex 'time_ms: ([0-9.]+)' --min-samples 1 --timeout 5 --device-name bench --json)
declare -A modes=(
  [local]=""
  [slurm]="--launcher slurm"
  [local2]="--devices 0,1"
  [slurm2]="--launcher slurm --slurm-workers 2 --slurm-args --nodes=2"
)
order=(local slurm local2 slurm2)
declare -A times steps
for round in $(seq "$rounds"); do
  for mode in "${order[@]}"; do
    rm -rf "$work/out"
    # shellcheck disable=SC2086 # the mode's options are words
    start=$(date +%s.%N)
    "$build/bin/rocm-perf" "${args[@]}" --out "$work/out" ${modes[$mode]} > "$work/doc.json" 2> /dev/null
    end=$(date +%s.%N)
    times[$mode]+="$start:$end "
    steps[$mode]=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["measured"]; print(m["total"]+m["remeasurements"])' "$work/doc.json")
  done
done
python3 - "$rounds" "$(nproc)" "${steps[local]}" "${times[local]}" "${times[slurm]}" "${times[local2]}" "${times[slurm2]}" <<'PY'
import statistics, sys
rounds, cpus, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
def seconds(text): return [float(b) - float(a) for a, b in (span.split(":") for span in text.split())]
local, slurm, local2, slurm2 = (seconds(t) for t in sys.argv[4:8])
print(f"runs per autotune: {steps} (every mode measures the same configurations); {rounds} rounds; {cpus} CPUs")
for name_a, a, name_b, b in (("local", local, "slurm", slurm), ("--devices 0,1", local2, "--slurm-workers 2", slurm2)):
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{name_a:>14} {ma:6.2f} s  {name_b:>18} {mb:6.2f} s  ratio {mb / ma:5.2f}  per step {(mb - ma) * 1000 / steps:5.1f} ms"
          f"  (runs: {' '.join(f'{x:.2f}' for x in a)} | {' '.join(f'{x:.2f}' for x in b)})")
PY
