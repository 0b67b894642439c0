#!/usr/bin/env bash
# Runs on the NVIDIA machine (device tool), from the repository root, with a build carried in CARRY
# (scripts/gpu/prepare_carry.sh): the tuner on matmul_tunable (225 configurations) measured
# exhaustively once (kernel time from the CUPTI trace), then one live tuning run with the default
# options, then a Triton matmul (a program nobody here wrote the runtime of) tuned through its
# traced kernel time. Replays of the exhaustive CSV run here afterwards (bench/autotune_landscapes.sh).
# DEVICES=0,1 adds a two-worker run for the speed-up. Results in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
mm="$carry/examples/matmul_tunable"
size=${SIZE:-2048}
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; nproc; } | tee "$out/machine.txt"
template="$mm $size $size $size --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10"
tune() {  # NAME ARGS...: one autotune run, its time and exit status in NAME.log
  local name=$1; shift
  local t0=$(date +%s%N)
  "$rp" autotune --space examples/matmul/matmul_space.json --cmd-template "$template" --backend cuda --timeout 60 --max-runs 3 \
    --out "$out/$name" --csv "$out/$name.csv" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  local rc=$?
  echo "$name: exit $rc in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/summary.log"
  tail -12 "$out/$name.txt"
}
[ -z "${SKIP_EXHAUSTIVE:-}" ] && tune exhaustive --seed-fraction 1 --budget 100%
[ -z "${SKIP_LIVE:-}" ] && for seed in ${LIVE_SEEDS:-1}; do tune "live_seed$seed" --seed "$seed"; done
if [ -n "${DEVICES:-}" ]; then
  tune sequential_all --seed-fraction 1 --budget 100% --devices 0
  tune parallel_all --seed-fraction 1 --budget 100% --devices "$DEVICES"
  python3 - "$out" <<'PY'
import json, sys
a, b = (json.load(open(f"{sys.argv[1]}/{n}/autotune.json")) for n in ("sequential_all", "parallel_all"))
print("sequential vs parallel: measured", a["measured"]["total"], b["measured"]["total"], "best", a["best"]["configuration"],
      b["best"]["configuration"], "values", a["best"]["value"], b["best"]["value"],
      "top-5 equal", [t["configuration"] for t in a["top"]] == [t["configuration"] for t in b["top"]])
PY
fi
if [ -z "${SKIP_TRITON:-}" ]; then
  t0=$(date +%s%N)
  "$rp" autotune --space tests/gpu/programs/triton_space.json --backend cuda --kernel matmul_kernel --timeout 120 \
    --out "$out/triton" \
    --csv "$out/triton.csv" --budget 50% --cmd-template \
    "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS}" \
    > "$out/triton.txt" 2> "$out/triton.err"
  echo "triton: exit $? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$out/summary.log"
  tail -12 "$out/triton.txt"; tail -3 "$out/triton.err"
fi
