#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="matmul_tunable" WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# autotune.json:model.likeliest_better, live. The SGEMM of examples/matmul at 1536³ (5 %, seeds
# SGEMM_SEEDS, default 1 2 3) and the Triton matmul (tests/gpu/programs/triton_matmul_tunable.py, a
# program we did not write) at 1536³ (10 %, seeds TRITON_SEEDS, default 1 2; TRITON=0 leaves it
# out) tuned with bayes; after each run, the configuration it names as likeliest to beat its best by
# 3 % is measured alone (a space of that one configuration, the same command and options). Per run,
# in summary.txt: the best, the chance, and the named configuration's time beside the best's; the
# runs' documents in runs.tar.gz (a call brings back few files).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
run() {  # NAME SPACE TEMPLATE BUDGET OPTIONS...: the run, then its likeliest configuration alone
  local name=$1 space=$2 template=$3 budget=$4; shift 4
  "$rp" autotune --space "$space" --cmd-template "$template" --backend cuda --timeout 120 --out "$out/$name" --json \
    --budget "$budget" "$@" \
    > "$out/$name.json" 2> "$out/$name.err"
  python3 - "$out/$name.json" "$out/$name.space.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
named = (doc.get("model") or {}).get("likeliest_better")
if named:
    json.dump({"parameters": {k: [v] for k, v in named["configuration"].items()}}, open(sys.argv[2], "w"))
PY
  [ -f "$out/$name.space.json" ] && "$rp" autotune --space "$out/$name.space.json" --cmd-template "$template" --backend cuda \
    --timeout 120 --out "$out/$name.alone" --json --budget 1 "$@" > "$out/$name.alone.json" 2> "$out/$name.alone.err"
  python3 - "$name" "$out/$name.json" "$out/$name.alone.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
name, run, alone = sys.argv[1:]
try:
    d = json.load(open(run))
    b, l = d["best"], d["model"]["likeliest_better"]
    line = (f"{name}: measured {d['measured']['total']} of {d['space']['size']}; best {b['value']} at {json.dumps(b['configuration'])}; "
            f"likeliest {json.dumps(l['configuration'])} chance {l['chance']:.3f}")
    try:
        a = json.load(open(alone))["best"]["value"]
        line += f"; measured alone {a} ({100 * (a / b['value'] - 1):+.1f} % against the best)"
    except Exception as e:
        line += f"; not measured alone ({e})"
    print(line)
except Exception as e:
    print(f"{name}: no likeliest ({e})")
PY
  rm -rf "$out/$name" "$out/$name.alone"
}
mm="$carry/examples/matmul_tunable"
for seed in ${SGEMM_SEEDS:-1 2 3}; do
  run "sgemm_1536_seed$seed" examples/matmul/matmul_space.json \
    "$mm 1536 1536 1536 --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10" 5% --max-runs 2 --seed "$seed"
done
if [ "${TRITON:-1}" != 0 ]; then
  for seed in ${TRITON_SEEDS:-1 2}; do
    run "triton_1536_seed$seed" tests/gpu/programs/triton_space.json \
      "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 1536" \
      10% --kernel matmul_kernel --max-runs 1 --seed "$seed"
  done
fi
(cd "$out" && tar -czf runs.tar.gz --remove-files ./*.json ./*.err)
true
