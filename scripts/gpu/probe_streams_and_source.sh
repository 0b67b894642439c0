#!/usr/bin/env bash
# Runs on the NVIDIA machine with a carried build (scripts/gpu/prepare_carry.sh): what CUPTI reports
# of each kind of stream (tests/gpu/programs/stream_kinds_probe.cu) and of CUDA Graphs
# (tests/gpu/programs/graph_probe.cu), and what ncu's source page
# gives per SASS instruction and per source line for a kernel built with -lineinfo (softmax) and
# one without (a Triton kernel). Outputs in $OUT.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
"$carry/examples/stream_kinds_probe" > "$out/stream_kinds.log" 2>&1
cat "$out/stream_kinds.log"
"$carry/examples/graph_probe" > "$out/graph_probe.log" 2>&1
cat "$out/graph_probe.log"
"$ncu" --version | tail -1
work=$(mktemp -d)
"$ncu" --section SourceCounters --section WarpStateStats --kernel-name regex:softmax --launch-count 1 -f -o "$work/softmax" \
  "$carry/examples/softmax_testbed" 1024 256 2 > "$work/softmax_run.log" 2>&1 || tail -5 "$work/softmax_run.log"
"$ncu" --section SourceCounters --section WarpStateStats --kernel-name regex:add_kernel --launch-count 1 -f -o "$work/triton" \
  python3 tests/gpu/programs/triton_add.py > "$work/triton_run.log" 2>&1 || tail -5 "$work/triton_run.log"
for rep in softmax triton; do
  for what in sass cuda "cuda,sass"; do
    name="ncu_source_${rep}_${what/,/_}.csv"
    "$ncu" --import "$work/$rep.ncu-rep" --page source --csv --print-source "$what" > "$out/$name" 2>&1
    echo "== $name: $(wc -l < "$out/$name") lines"; head -c 1500 "$out/$name"; echo
  done
done
"$ncu" --import "$work/softmax.ncu-rep" --page details --csv > "$out/ncu_details_softmax.csv" 2>&1
grep -i "stall\|source\|sampl" "$out/ncu_details_softmax.csv" | head -30
"$ncu" --help | grep -A6 -i "print-source\|--page\b" | head -40
