#!/usr/bin/env bash
# Benchmark (needs an NVIDIA GPU and PyTorch): the tracer's cost on the launch-bound PyTorch loop
# (bench/torch_launch_bound.py) measured inside each process, where the spread between processes
# (about ±10 % on the shared GPU machine) cannot reach it: short chunks of STEPS steps alternate,
# ROUNDS rounds with the order rotated, between the tracer paused and recording (rpl_trace_pause),
# and each ratio is paired within a round; many short rounds make the paired median's confidence
# interval narrow. Per process round, in this order:
#   tracer:kernels, tracer:default   the tracer at that level, paused | on
#   cupti                            the probe: CUPTI detached (cuptiFinalize: no client at all) |
#                                    a subscriber recording nothing (what the tracer is, paused) |
#                                    the bare CUPTI kernel-only client
#   torch.profiler                   no tracer; torch.profiler with CUDA activities off | on
#   A/A                              the probe with nothing switched, twice: what the method reads
#                                    when nothing differs
# So the tracer against untraced is its ratio to paused times cupti's "reset" against detached.
# PARTS=tracer,cupti,profiler,aa picks parts (default all). CUPTI_ATTRS="zeroed pinned ..." adds,
# per word, the kernel-only client against detached with that probe option (CUPTI's buffer
# attributes: cupti_overhead_probe.cpp), to see whether any of them lowers CUPTI's own cost.
#   usage: bench/tracer_pause_switching.sh [BUILD_DIR] [PROCESSES] [STEPS] [ROUNDS]
# CPUS=4-7 pins the processes to those cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build/release}
processes=${2:-2}
steps=${3:-20}
rounds=${4:-150}
parts=",${PARTS:-tracer,cupti,profiler,aa},"
lib="$(cd "$build/lib" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # LABEL SETS ENV...
  local label=$1 sets=$2
  shift 2
  ${CPUS:+taskset -c "$CPUS"} env "$@" python3 "$here/torch_launch_bound.py" "$steps" 20 "$rounds" "--switch=$sets" |
    sed -n "s|^switch |$label |p" | tail -n +2
}
tracer="CUDA_INJECTION64_PATH=$lib/librpl_cupti_trace.so"
probe="CUDA_INJECTION64_PATH=$lib/librpl_cupti_probe.so"
echo "# $steps steps a chunk, $rounds rounds a process; paired: median ratio to the reference in the same round, ci95 its interval"
for ((p = 1; p <= processes; p++)); do
  echo "process round $p"
  if [[ $parts == *,tracer,* ]]; then
    run tracer:kernels "paused|on" "$tracer" RPL_TRACE_DIR="$work/trace" RPL_TRACE_LEVEL=kernels
    run tracer:default "paused|on" "$tracer" RPL_TRACE_DIR="$work/trace" RPL_TRACE_LEVEL=default
  fi
  [[ $parts == *,cupti,* ]] && run cupti "detached|reset|kernel,reset" "$probe" RPL_PROBE=subscribe,reset,switch
  [[ $parts == *,profiler,* ]] && run torch.profiler "off|profiler"
  [[ $parts == *,aa,* ]] && run A/A "reset|reset,same" "$probe" RPL_PROBE=subscribe,reset,switch
  for attr in ${CUPTI_ATTRS:-}; do
    run "cupti+$attr" "detached|kernel,reset" "$probe" RPL_PROBE="subscribe,reset,switch,$attr"
  done
done
