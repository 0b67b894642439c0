#!/usr/bin/env bash
# Runs on the NVIDIA machine with a carried build (prepare_carry.sh): how often the driver offers
# other addresses than a snapshot's (replay reserve-check exit 2), over several captures of one
# dispatch and several fresh replay processes each. Says whether retrying in a fresh process helps.
#   usage: bash scripts/gpu/probe_relocation.sh [CARRY] [CAPTURES] [CHECKS]
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
captures=${2:-6}
checks=${3:-10}
bin="$carry/bin/rocm-perf"
kept=0
for ((c = 1; c <= captures; c++)); do
  d=$(mktemp -d)/snapshot
  if ! "$bin" isolate --json --quiet-app --kernel softmax_naive --dispatch 5 --out "$d" -- \
      "$carry/examples/softmax_testbed" 4096 1024 30 > /dev/null 2> "$d.err"; then
    echo "capture $c: failed: $(tail -1 "$d.err")"; continue
  fi
  exits=""
  for ((i = 1; i <= checks; i++)); do
    "$bin" replay reserve-check --json --capture-dir "$d" > "$d.check.json" 2> /dev/null
    rc=$?
    exits+=" $rc"
    if [ "$rc" = 2 ] && [ "$kept" = 0 ]; then cp "$d.check.json" "$out/relocated_reserve_check.json"; kept=1; fi
  done
  echo "capture $c: reserve-check exits:$exits"
done
