#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU): the tracer judged against what it cannot avoid, side by side in
# one run, as ratios of medians over alternating runs:
#   1. tracer / CUPTI alone (the same activity kinds and callbacks, records discarded), wall time
#      of 100,000 empty kernels (target <= 1.03);
#   2. the same for 1,000 kernels of 1 ms (target <= 1.03);
#   3. a PyTorch training loop (bench/torch_train_loop.py), traced / untraced, wall time inside
#      the loop (target <= 1.03), with CUPTI alone on the same loop beside it.
#   usage: bench/tracer_vs_cupti.sh [BUILD_DIR] [REPEATS]   (TORCH_WIDTH=4096: a more compute-bound loop;
#          ONLY_TORCH=1: the training loop alone)
set -euo pipefail
source "$(dirname "$0")/timing.sh"
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/release}
repeats=${2:-9}
lib="$(cd "$build/lib" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1 and 2: the breakdown script's medians; its ratio column is to untraced, so tracer/cupti-alone
# is the quotient of the two rows.
cases=("tiny 100000" "long 1000 1")
[ -n "${ONLY_TORCH:-}" ] && cases=()
for case in "${cases[@]}"; do
  # shellcheck disable=SC2086  # the case is a list of arguments
  CONFIGS=untraced,cupti-alone,tracer bash "$here/tracer_overhead_breakdown.sh" "$build" "$repeats" $case 2> /dev/null \
    | tee "$work/breakdown" | sed 's/^/  /'
  awk -v name="launch_patterns $case" '$1 == "cupti-alone" { c = $2 } $1 == "tracer" { t = $2 }
    END { printf "RATIO %-36s tracer / cupti-alone = %.3f\n", name, t / c }' "$work/breakdown"
done

# 3: the training loop's own timing, untraced, under CUPTI alone and traced, alternating.
python3 "$here/torch_train_loop.py" 20 5 > /dev/null  # warm-up: driver, cuBLAS, page cache
untraced=() cupti=() traced=()
width=${TORCH_WIDTH:-2048}
loop() { "$@" python3 "$here/torch_train_loop.py" 200 20 "$width" | awk '{print $2}'; }
for ((r = 0; r < repeats; r++)); do
  untraced+=("$(loop env)")
  cupti+=("$(loop env CUDA_INJECTION64_PATH="$lib/librpl_cupti_probe.so" RPL_PROBE=subscribe,reset,kernel,copies,edgecb,graphcb)")
  traced+=("$(loop env CUDA_INJECTION64_PATH="$lib/librpl_cupti_trace.so" RPL_TRACE_DIR="$work/trace")")
  rm -rf "$work/trace"
done
u=$(median "${untraced[@]}") c=$(median "${cupti[@]}") t=$(median "${traced[@]}")
echo "  torch training loop (200 steps, width $width), seconds: untraced    ${untraced[*]}"
echo "  torch training loop (200 steps, width $width), seconds: cupti-alone ${cupti[*]}"
echo "  torch training loop (200 steps, width $width), seconds: traced      ${traced[*]}"
awk -v u="$u" -v c="$c" -v t="$t" 'BEGIN {
  printf "RATIO %-36s traced / untraced = %.3f (medians %.4f / %.4f s)\n", "torch training loop", t / u, t, u
  printf "RATIO %-36s cupti-alone / untraced = %.3f, traced / cupti-alone = %.3f\n", "torch training loop", c / u, t / c }'
