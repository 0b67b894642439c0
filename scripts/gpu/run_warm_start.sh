#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="matmul_tunable stencil_tunable" WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# autotune --warm-start live. An earlier bayes run at 15 % of a neighbouring size keeps its output
# folder; the next size is then tuned at a small budget cold and warm from that folder, seeds 1 to 3: the SGEMM of
# examples/matmul at 1536³ then 2048³ (5 %), and the Triton matmul
# (tests/gpu/programs/triton_matmul_tunable.py, a program we did not write) at 1536³ then 2048³
# (10 %, seeds TRITON_SEEDS, default 1 2; TRITON=0 leaves it out, SGEMM=0 the SGEMM), and the
# stencil's launch geometry at 1920² then 2048², 50 steps (5 %, seeds 1 to 5; STENCIL=0 leaves it out;
# TRITON_EARLIER=PATH takes the Triton matmul's earlier folder or CSV from PATH instead of measuring it).
# WALL=1 adds the Triton matmul over tests/gpu/programs/triton_wall_space.json, whose largest tiles
# fail to launch: an earlier run at 30 % of 2048³, then 4096³ at 15 % cold and warm, seeds
# WALL_SEEDS (default 1 2; WALL_EARLIER=PATH as TRITON_EARLIER); the summary counts each run's
# failures by kind.
# Each earlier folder is then replayed (--replay, nothing run) at 10 %. Per run, the best found and
# its time in summary.txt; each autotune.json and measurements.csv (as NAME.csv) in $OUT/runs.tar.gz.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
tune() {  # NAME SPACE TEMPLATE OPTIONS...
  local name=$1 space=$2 template=$3; shift 3
  local t0=$(date +%s%N)
  "$rp" autotune --space "$space" --cmd-template "$template" --backend cuda --timeout 120 --out "$out/$name" --json "$@" \
    > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  python3 - "$name" "$rc" "$(( ($(date +%s%N) - t0) / 1000000 ))" "$out/$name.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
name, rc, ms, path = sys.argv[1:]
try:
    d = json.load(open(path))
    b = d["best"]
    print(f"{name}: exit {rc} in {ms} ms; measured {d['measured']['total']}; best {b['value']} ms at {json.dumps(b['configuration'])}; warm start {json.dumps(d['warm_start'])}; failures {json.dumps(d['failures'])}")
except Exception as e:
    print(f"{name}: exit {rc} in {ms} ms; no autotune.json ({e})")
PY
  cp "$out/$name/measurements.csv" "$out/$name.csv" 2>/dev/null
  case $name in
    *_earlier) rm -rf "$out/$name/builds" ;;  # kept: warm starts name it
    *) rm -rf "$out/$name" ;;
  esac
}
mm="$carry/examples/matmul_tunable"
sgemm() { echo "$mm $1 $1 $1 --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10"; }
[ "${SGEMM:-1}" != 0 ] && tune sgemm_1536_earlier examples/matmul/matmul_space.json "$(sgemm 1536)" --budget 15% --max-runs 2
for seed in $([ "${SGEMM:-1}" != 0 ] && echo 1 2 3); do
  tune "sgemm_2048_cold_seed$seed" examples/matmul/matmul_space.json "$(sgemm 2048)" --budget 5% --max-runs 2 --seed "$seed"
  tune "sgemm_2048_warm_seed$seed" examples/matmul/matmul_space.json "$(sgemm 2048)" --budget 5% --max-runs 2 --seed "$seed" \
    --warm-start "$out/sgemm_1536_earlier"
done
if [ "${STENCIL:-1}" != 0 ]; then
  stencil() { echo "$carry/examples/stencil_tunable $1 50 --bx {BX} --by {BY} --rows {ROWS}"; }
  space=examples/stencil/stencil_space.json
  tune stencil_1920_earlier $space "$(stencil 1920)" --budget 15% --max-runs 2
  for seed in 1 2 3 4 5; do
    tune "stencil_2048_cold_seed$seed" $space "$(stencil 2048)" --budget 5% --max-runs 2 --seed "$seed"
    tune "stencil_2048_warm_seed$seed" $space "$(stencil 2048)" --budget 5% --max-runs 2 --seed "$seed" \
      --warm-start "$out/stencil_1920_earlier"
  done
fi
# The Triton matmul over SPACE: an earlier run at SMALL³ (unless EARLIER, an earlier folder or CSV,
# is given), then LARGE³ cold and warm from it for each of SEEDS.
triton_sizes() {  # NAME SPACE SMALL EARLIER_BUDGET LARGE BUDGET EARLIER SEEDS
  local name=$1 space=$2 small=$3 earlier_budget=$4 large=$5 budget=$6 earlier=$7 seeds=$8
  triton() { echo "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size $1"; }
  if [ -z "$earlier" ]; then
    earlier=$out/${name}_${small}_earlier
    tune "${name}_${small}_earlier" "$space" "$(triton "$small")" --kernel matmul_kernel --max-runs 1 --budget "$earlier_budget"
  fi
  for seed in $seeds; do
    tune "${name}_${large}_cold_seed$seed" "$space" "$(triton "$large")" --kernel matmul_kernel --max-runs 1 --budget "$budget" --seed "$seed"
    tune "${name}_${large}_warm_seed$seed" "$space" "$(triton "$large")" --kernel matmul_kernel --max-runs 1 --budget "$budget" --seed "$seed" \
      --warm-start "$earlier"
  done
}
[ "${TRITON:-1}" != 0 ] && triton_sizes triton tests/gpu/programs/triton_space.json 1536 15% 2048 10% "${TRITON_EARLIER:-}" "${TRITON_SEEDS:-1 2}"
[ "${WALL:-0}" != 0 ] && triton_sizes wall tests/gpu/programs/triton_wall_space.json 2048 30% 4096 15% "${WALL_EARLIER:-}" "${WALL_SEEDS:-1 2}"
# The earlier folders replayed: the same search over their measurements, nothing run.
for earlier in "$out"/*_earlier; do
  [ -d "$earlier" ] || continue
  name=$(basename "$earlier")
  field() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d[sys.argv[2]][sys.argv[3]])' "$earlier/autotune.json" "$@"; }
  "$rp" autotune --space "$(field space file)" --cmd-template "$(field command template)" --replay "$earlier" --budget 10% \
    --out "$out/${name}_replayed" --json > "$out/${name}_replayed.json" 2> "$out/${name}_replayed.err"
  python3 - "$name" "$?" "$out/${name}_replayed.json" <<'PY' | tee -a "$out/summary.txt"
import json, sys
name, rc, path = sys.argv[1:]
try:
    d = json.load(open(path))
    print(f"{name} replayed: exit {rc}; {d['device']['name']}; measured {d['measured']['total']}; best {d['best']['value']} at {json.dumps(d['best']['configuration'])}")
except Exception as e:
    print(f"{name} replayed: exit {rc}; no autotune.json ({e})")
PY
  rm -rf "$out/${name}_replayed" "$earlier"
done
(cd "$out" && tar -czf runs.tar.gz --remove-files ./*.json ./*.err ./*.csv)  # a call brings back few files
true
