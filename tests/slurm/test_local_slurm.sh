#!/usr/bin/env bash
# The local Slurm that the Slurm tests run on (tests/slurm/local_slurm.sh): both nodes take a rank
# of a step, --gpus is granted, a batch job is queued and cancelled, and stopping leaves no daemon.
# Exit 77 (skipped) where Slurm is not installed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
  echo "skipped: Slurm is not installed (tests/slurm/local_slurm.sh needs slurm-wlm and munge: scripts/setup.sh)"
  exit 77
fi
dir=$(mktemp -d)
export RPL_SLURM_PORT=$((20000 + $$ % 4000 * 3))  # below the ephemeral ports (32768 and up), which clients take
trap 'bash "$here/local_slurm.sh" stop "$dir"; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
conf=$(bash "$here/local_slurm.sh" start "$dir") || fail "local_slurm.sh start"
export "${conf?}"
ranks=$(timeout 60 srun -N2 -n2 bash -c 'echo $SLURMD_NODENAME:$SLURM_PROCID' | sort | tr '\n' ' ')
[ "$ranks" = "node1:0 node2:1 " ] || fail "srun -N2 -n2 ran as: '$ranks'"
gpus=$(timeout 60 srun -n1 --gpus=1 bash -c 'echo $SLURM_GPUS_ON_NODE')
[ "$gpus" = 1 ] || fail "srun --gpus=1 got '$gpus' GPUs"
job=$(sbatch --parsable --wrap 'sleep 60') || fail "sbatch"
[ -n "$(squeue -h -j "$job")" ] || fail "job $job is not in the queue"
scancel "$job"
for _ in $(seq 50); do [ -z "$(squeue -h)" ] && break; sleep 0.2; done
[ -z "$(squeue -h)" ] || fail "the queue is not empty after scancel: $(squeue -h)"
bash "$here/local_slurm.sh" stop "$dir"
left=$(pgrep -f "$dir/" || true)
[ -z "$left" ] || fail "daemons left running: $left"
echo "ok: two nodes, --gpus, sbatch and scancel on the local Slurm"
