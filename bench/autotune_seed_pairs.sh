#!/usr/bin/env bash
# How the bayes strategy's outcome on one landscape depends on its two seeds: over N seeds, for
# each pair of seed configurations the maximin design drew, how many seeds drew it, how many of
# those reported a best within 3 % of the true best, and the pair (each seed's true distance from
# the best, in %). From rpl-autotune-landscapes --trajectory. No GPU needed.
#   usage: bench/autotune_seed_pairs.sh BUILD_DIR NAME=SPACE.json:MEASUREMENTS.csv BUDGET_PERCENT [SEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 3 ]] || { echo "usage: $0 BUILD_DIR NAME=SPACE.json:MEASUREMENTS.csv BUDGET_PERCENT [SEEDS]" >&2; exit 2; }
"$1/bin/rpl-autotune-landscapes" --seeds "${4:-100}" --strategies bayes --budgets "$3" --trajectory "$2" |
  awk '/^  seed +[0-9]+:/ { hit = ($4 + 0 <= 3); n = 0; pair = ""; next }
       /^      seed / && n < 2 { pair = pair " " $2 "(" int($3) ")"; if (++n == 2) { split(pair, a, " "); if (a[1] > a[2]) { t = a[1]; a[1] = a[2]; a[2] = t }
                                 k = a[1] " " a[2]; drawn[k]++; hits[k] += hit } }
       END { for (k in drawn) printf "%4d drawn %4d within 3 %%   %s\n", drawn[k], hits[k], k }' | LC_ALL=C sort -k1,1nr -k6
