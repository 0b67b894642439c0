"""Starts two GPU processes side by side (each a short PyTorch loop) and waits for both: one run of
a program, two processes, two trace databases."""
import subprocess
import sys

child = "import torch; a = torch.randn(2048, 2048, device='cuda'); [a @ a for _ in range(20)]; torch.cuda.synchronize(); print('child done')"
procs = [subprocess.Popen([sys.executable, "-c", child]) for _ in range(2)]
sys.exit(max(p.wait() for p in procs))
