"""A two-rank job as a launcher starts one (Slurm cannot run on the GPU machine): the program given
runs twice side by side, with SLURM_PROCID 0 and 1 in its environment and, as its last argument,
the iterations: 5 for rank 0 and 10 for rank 1, so that rank 1 is the slow one."""
import os
import subprocess
import sys

program = sys.argv[1:]
ranks = [subprocess.Popen(program + [str(5 * (rank + 1))], env={**os.environ, "SLURM_PROCID": str(rank)}) for rank in range(2)]
sys.exit(max(rank.wait() for rank in ranks))
