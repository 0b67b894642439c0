#!/usr/bin/env bash
# A throwaway Slurm on this machine for the tests: munged, slurmctld and two slurmd (node1 and
# node2, 2 CPUs and 2 GPUs each) on localhost, every file of theirs (configuration, key, state,
# spool, logs, sockets, pids) under DIR. The GPUs are GRES backed by placeholder files: Slurm 22.05
# drops count-only GPUs, and --gpus is what the tests exercise, not a device.
#   tests/slurm/local_slurm.sh start DIR   starts it (stopping first what an earlier start left
#                                          in DIR); prints SLURM_CONF=DIR/slurm.conf
#   tests/slurm/local_slurm.sh stop DIR    stops everything it started
# RPL_SLURM_PORT (default 16817) and the next two ports are slurmctld's and the slurmds'.
# RPL_SLURM_HIDE=FOLDER: node2 does not see FOLDER (its slurmd runs in a mount namespace with an
# empty tmpfs over it), as a node that does not mount a site's shared storage; where namespaces are
# not allowed, it says so on stderr and node2 sees everything.
# Exit 3 when Slurm or munge is not installed (scripts/setup.sh installs Debian's slurm-wlm and
# munge); 1 when the daemons did not come up (their logs' ends are printed, and all is stopped).
set -uo pipefail
action=${1:-}
dir=${2:-}
if [ -z "$action" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
for tool in munged slurmctld slurmd srun sinfo; do
  command -v "$tool" > /dev/null || { echo "$tool is not installed: run scripts/setup.sh (slurm-wlm, munge)" >&2; exit 3; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

stop() {
  for pid_file in "$dir"/slurmd.node1.pid "$dir"/slurmd.node2.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pid_file" ] || continue
    pid=$(cat "$pid_file")
    kill "$pid" 2> /dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2> /dev/null
    rm -f "$pid_file"
  done
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi
[ "$action" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
stop
rm -rf "$dir"/{state,spool,log,dev}
mkdir -p "$dir"/{state,spool/node1,spool/node2,log,dev}
touch "$dir"/dev/gpu0 "$dir"/dev/gpu1
[ -f "$dir/munge.key" ] || { head -c 1024 /dev/urandom > "$dir/munge.key" && chmod 400 "$dir/munge.key"; }
port=${RPL_SLURM_PORT:-16817}
host=$(hostname -s)
cat > "$dir/slurm.conf" <<CONF
ClusterName=rpltest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
GresTypes=gpu
NodeName=node1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=2 Gres=gpu:2 State=UNKNOWN
NodeName=node2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 2)) CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
cat > "$dir/gres.conf" <<CONF
AutoDetect=off
NodeName=node[1-2] Name=gpu File=$dir/dev/gpu[0-1]
CONF
export SLURM_CONF="$dir/slurm.conf"
failed() {
  echo "the local Slurm did not start: $1" >&2
  for log in "$dir"/log/*.log; do echo "== $log" >&2; tail -n 5 "$log" >&2; done
  stop
  exit 1
}
munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" --log-file="$dir/log/munged.log" \
  --pid-file="$dir/munged.pid" --seed-file="$dir/munged.seed" || failed "munged"
slurmctld -f "$SLURM_CONF" -c -i || failed "slurmctld"
slurmd -f "$SLURM_CONF" -N node1 || failed "slurmd node1"
if [ -n "${RPL_SLURM_HIDE:-}" ] && unshare --mount --propagation private true 2> /dev/null; then
  mkdir -p "$RPL_SLURM_HIDE"
  unshare --mount --propagation private sh -c 'mount -t tmpfs rpl-hidden "$1" && exec slurmd -f "$2" -N node2' \
    sh "$RPL_SLURM_HIDE" "$SLURM_CONF" || failed "slurmd node2 (hiding $RPL_SLURM_HIDE)"
else
  [ -z "${RPL_SLURM_HIDE:-}" ] || echo "local_slurm.sh: mount namespaces are not allowed here: node2 sees $RPL_SLURM_HIDE" >&2
  slurmd -f "$SLURM_CONF" -N node2 || failed "slurmd node2"
fi
for _ in $(seq 100); do
  [ "$(sinfo -h -o '%T %D' 2> /dev/null)" = "idle 2" ] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.2
done
failed "the nodes are not idle after 20 s: $(sinfo -h 2>&1)"
