#!/usr/bin/env bash
# The bayes strategy started warm from one earlier run and from several (rocm-perf autotune
# --warm-start given K times), on the landscapes of bench/autotune_landscapes.sh: each landscape's
# run starts from bayes runs at WARM percent (default 15) of the K landscapes of its space nearest in
# problem size among the benchmark's, the nearest first (its best the first seed), each with a seed
# of its own. Nearest: the least sum of |log| of the ratios of M, N and K; of the stencil's side and
# steps; of the Triton matmul's size; of the softmax's and the row reduction's rows and columns (the
# sizes of scripts/gpu/run_landscapes.sh). Prints the table from the nearest alone, then from the K
# nearest.
# No GPU needed. With TARGETS="NAME=SPACE:TABLE ..."
# (landscapes outside the benchmark, such as bench/data/sealed/'s, named in run_landscapes.sh), those
# are the landscapes run, cold first, each from the nearest of the benchmark's, and the table lists
# them alone.
#   usage: bench/autotune_warm_start_several.sh [BUILD_DIR] [K] [WARM] [extra rpl-autotune-landscapes options...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
runs=${2:-3}
warm=${3:-15}
shift $(( $# < 3 ? $# : 3 ))
# TARGET=EARLIER for the K nearest of each landscape, nearest first.
benchmark=$(LIST_LANDSCAPES=1 bash bench/autotune_landscapes.sh)
nearest() {
  python3 - "$1" "$benchmark" "${TARGETS:-}" <<'PY'
import math, re, sys
k = int(sys.argv[1])
benchmark = {line.split("=", 1)[0] for line in sys.argv[2].split()}
targets = [t.split("=", 1)[0] for t in sys.argv[3].split()] or None
sizes = {"sgemm": ("sgemm", [2048, 2048, 2048])}  # measured by scripts/gpu/run_autotune.sh
for line in open("scripts/gpu/run_landscapes.sh"):
    m = re.match(r"^([a-z_0-9]+) +(sgemm|stencil|triton|softmax|rowsum) +([0-9a-z ]+)$", line.strip())
    if not m:
        continue
    name, kind, rest = m.groups()
    words = rest.split()
    group = kind
    if words[0] == "large":
        group, words = kind + "_large", words[1:]
    if words[-1] == "wall":
        group, words = kind + "_wall", words[:-1]
    sizes[name] = (group, [float(w) for w in words])
names = sorted(n for n in sizes if n in benchmark)
for target in targets or names:
    group, size = sizes[target]
    others = sorted((sum(abs(math.log(a / b)) for a, b in zip(size, sizes[o][1])), o)
                    for o in names if o != target and sizes[o][0] == group)
    for _, earlier in others[:k]:
        print(f"{target}={earlier}")
PY
}
# The landscapes to run: the benchmark's, or the targets and the benchmark's they start from (whose
# own lines are left out).
landscapes() {
  if [ -z "${TARGETS:-}" ]; then
    bash bench/autotune_landscapes.sh "$build" "$@"
    return
  fi
  local earlier=() target
  for p in $(nearest "$runs"); do earlier+=("$(grep "^${p#*=}=" <<< "$benchmark")"); done
  local names=" $(for target in $TARGETS; do echo -n "${target%%=*} "; done)"
  # An earlier run that is a target too is run once, as the target (twice, each line came twice).
  local others=()
  for target in $(printf '%s\n' "${earlier[@]}" | sort -u); do
    [[ $names == *" ${target%%=*} "* ]] || others+=("$target")
  done
  # shellcheck disable=SC2086 # TARGETS is a list of words
  "$build/bin/rpl-autotune-landscapes" "$@" $TARGETS "${others[@]}" |
    awk -v names="$names" 'NR == 1 || index(names, " " $1 " ")'
}
if [ -n "${TARGETS:-}" ]; then
  echo "cold:"
  landscapes --strategies bayes "$@"
fi
for k in 1 "$runs"; do
  priors=()
  for p in $(nearest "$k"); do priors+=(--prior "$p"); done
  echo "warm, from runs at $warm % of the $k nearest size(s):"
  landscapes --strategies bayes --warm-start "$warm" --warm-runs "$k" "${priors[@]}" "$@"
done
