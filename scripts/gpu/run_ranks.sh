#!/usr/bin/env bash
# On the NVIDIA machine, with the carry of scripts/gpu/prepare_carry.sh: a two-process "job" whose
# processes carry PMI_RANK 0 and 1, as a launcher would set them (Slurm cannot run there), profiled
# by the tracer; each process's database must name its rank and host. Prints what they hold.
set -uo pipefail
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
out=$(mktemp -d)
testbed="$carry/examples/softmax_testbed"
"$carry/bin/rocm-perf" profile --backend cuda --runs 1 --quiet-app --out "$out/p" -- \
  bash -c "PMI_RANK=0 $testbed 4096 1024 5 & PMI_RANK=1 $testbed 4096 1024 10 & wait" | head -3
python3 - "$out"/p/.rocpd_profile/*.db <<'PY'
import os, sqlite3, sys
rank = "select value from rocpd_metadata where tag = 'rpl_rank'"
host = "select hostname from rocpd_info_node limit 1"
dispatches = "select count(*) from rocpd_kernel_dispatch"
for path in sys.argv[1:]:
    db = sqlite3.connect(path)
    one = lambda sql: (db.execute(sql).fetchone() or [None])[0]
    print(f"{os.path.basename(path)}: rank {one(rank)}, host {one(host)}, dispatches {one(dispatches)}")
PY
