#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root, with the carry of
# `PRESET=release EXAMPLES=rowsum_tunable WITH_CLANG=1 NO_TESTS=1 bash scripts/gpu/prepare_carry.sh`
# and the build before the change beside it as bin/rocm-perf-before (each may be xz-compressed,
# bin/NAME.xz): the row reduction at 32768 rows
# of 1024 floats (examples/rowsum, a kernel of about 31 µs whose launches spread by 5-6 % in many
# configurations) tuned live, cold, with bayes at 10 % and the default --max-runs (10), seeds
# ${SEEDS:-1 2}, by each build in turn: before, a configuration whose launches stay spread beyond
# --max-cv is run --max-runs times; now, until its median settles (median_settled). summary.txt: a
# line a run (scripts/gpu/autotune_run_summary.py), then the runs of the program each run made
# (the measurements' runs column summed; the two best's re-measurements not counted).
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
source scripts/gpu/autotune_run.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/machine.txt"
# PROGRAM=triton: the Triton matmul at 2048³ instead (tests/gpu/programs/triton_matmul_tunable.py,
# 54 configurations, a few of whose launches spread beyond --max-cv), to check the change on a program
# run through Triton's compiler and runtime.
case ${PROGRAM:-rowsum} in
  rowsum) label=1k tune=(--space examples/rowsum/rowsum_space.json --timeout 60
                --cmd-template "$carry/examples/rowsum_tunable 32768 1024 --block {BLOCK} --rows-per-block {ROWS} --vec {VEC} --unroll {UNROLL}") ;;
  triton) label=triton tune=(--space tests/gpu/programs/triton_space.json --kernel matmul_kernel --timeout 120
                --cmd-template "python3 tests/gpu/programs/triton_matmul_tunable.py --bm {BM} --bn {BN} --bk {BK} --warps {WARPS} --size 2048") ;;
  *) echo "PROGRAM: rowsum or triton" >&2; exit 2 ;;
esac
for seed in ${SEEDS:-1 2}; do
  for build in before now; do
    binary="$carry/bin/rocm-perf"
    [ "$build" = before ] && binary="$carry/bin/rocm-perf-before"
    name="${label}_${build}_seed$seed"
    autotune_run "$name" "$binary" "${tune[@]}" --budget 10% --seed "$seed"
    python3 -c 'import csv, sys; rows = list(csv.DictReader(open(sys.argv[2]))); runs = sum(int(r["runs"]) for r in rows)
print(sys.argv[1] + ": " + str(runs) + " runs of the program for " + str(len(rows)) + " configurations")' \
      "$name" "$out/$name.csv" | tee -a "$out/summary.txt"
  done
done
autotune_pack settled_median.tgz
