#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES="matmul_tunable" WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`:
# does a larger budget measure first what a smaller one did, live? The SGEMM of examples/matmul at
# SIZE³ (default 1536, where 15 % once began from other seeds than 10 % and ended worse) tuned with
# bayes at 10 % and at 15 %, seeds SEEDS (default 1 2 3), each run's --csv kept. Per seed, in
# summary.txt: each run's best, and how many of the 10 % run's configurations the 15 % run measured
# first in the same order (where the GPU's noise reorders two close candidates, the runs part).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
size=${SIZE:-1536}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
template="$carry/examples/matmul_tunable $size $size $size --bm {BM} --bn {BN} --bk {BK} --tm {TM} --tn {TN} --repeat 10"
for seed in ${SEEDS:-1 2 3}; do
  for budget in 10 15; do
    name="sgemm_${size}_${budget}pct_seed$seed"
    "$rp" autotune --space examples/matmul/matmul_space.json --cmd-template "$template" --backend cuda --timeout 120 \
      --budget "$budget%" --max-runs 2 --seed "$seed" --out "$out/$name" --csv "$out/$name.csv" --json \
      > "$out/$name.json" 2> "$out/$name.err"
    rm -rf "$out/$name"
  done
  python3 - "$out/sgemm_${size}_10pct_seed$seed" "$out/sgemm_${size}_15pct_seed$seed" "$seed" <<'PY' | tee -a "$out/summary.txt"
import csv, json, sys
small, large, seed = sys.argv[1:]
def run(stem):
    rows = list(csv.DictReader(open(stem + ".csv")))
    rows.sort(key=lambda r: int(r["order"]))
    configs = [tuple(r[p] for p in ("BM", "BN", "BK", "TM", "TN")) for r in rows]
    best = json.load(open(stem + ".json"))["best"]
    return configs, best
s, sb = run(small)
l, lb = run(large)
same = 0
while same < len(s) and same < len(l) and s[same] == l[same]:
    same += 1
print(f"seed {seed}: 10 % measured {len(s)}, best {sb['value']} ms at {json.dumps(sb['configuration'])}; "
      f"15 % measured {len(l)}, best {lb['value']} ms at {json.dumps(lb['configuration'])}; "
      f"the first {same} of the 10 % run's measured in the same order by the 15 % run")
PY
done
true
