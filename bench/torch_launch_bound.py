"""A launch-bound PyTorch loop, as most training and inference loops at small batch are: a small
bf16 transformer-style MLP (LayerNorm, two Linear layers with GELU, a residual add, four blocks),
forward and backward with AdamW, on 64 tokens. Each step launches about a hundred kernels of a few
microseconds, so a tracer's cost per launch shows in the loop's wall time.
Prints the wall time of STEPS timed steps alone (after warm-up, synchronized): the median of CHUNKS
such timings in the one process, so that a passing hiccup of a shared machine does not decide it.
  usage: python3 bench/torch_launch_bound.py [STEPS] [WARMUP] [CHUNKS] [--profiler]
--profiler: the timed steps run inside torch.profiler with CUDA activities only (Kineto), to
compare with.
--switch=SET|SET|...: under the CUPTI probe with RPL_PROBE=subscribe,switch, each of CHUNKS
rounds times one chunk of STEPS steps per SET of activity kinds (none, or kernel, memcpy, memset
joined by commas), switched on in the one process (rotating the order each round); prints each
set's median, its ratio to the first set's, the median of the ratios paired within a round, and
the records a chunk gave (which shows the kinds were on)."""
import statistics
import sys
import time

import torch

args = [a for a in sys.argv[1:] if not a.startswith("--")]
steps = int(args[0]) if args else 200
warmup = int(args[1]) if len(args) > 1 else 20
chunks = int(args[2]) if len(args) > 2 else 1
torch.manual_seed(0)
dev = torch.device("cuda")
width, tokens, blocks = 512, 64, 4


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.up = torch.nn.Linear(width, 4 * width)
        self.down = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


model = torch.nn.Sequential(*[Block() for _ in range(blocks)]).to(dev, torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(tokens, width, device=dev, dtype=torch.bfloat16)
y = torch.randn(tokens, width, device=dev, dtype=torch.bfloat16)


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss


def timed():
    times = []
    for _ in range(chunks):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            loss = step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times), loss


def timed_switching(sets):
    import ctypes
    import os
    probe = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])  # the injected library, already loaded
    probe.rpl_probe_switch.argtypes = [ctypes.c_char_p]
    probe.rpl_probe_switch.restype = ctypes.c_long
    times = {s: [] for s in sets}
    records = {s: [] for s in sets}
    for r in range(chunks):
        for s in sets[r % len(sets):] + sets[:r % len(sets)]:
            probe.rpl_probe_switch(s.encode())
            for _ in range(3):  # the kinds settle in
                step()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            times[s].append(time.perf_counter() - start)
            records[s].append(probe.rpl_probe_switch(s.encode()))
    first = sets[0]
    for s in sets:
        paired = statistics.median(t / f for t, f in zip(times[s], times[first]))
        print(f"switch {s:24s} seconds {statistics.median(times[s]):.6f} ratio {statistics.median(times[s]) / statistics.median(times[first]):.3f}"
              f" paired {paired:.3f} records_per_chunk {statistics.median(records[s]):.0f}")


for _ in range(warmup):
    step()
switch = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--switch=")]
if switch:
    timed_switching(switch[0].split("|"))
    sys.exit(0)
if "--profiler" in sys.argv:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]):
        seconds, loss = timed()
else:
    seconds, loss = timed()
print(f"loop_seconds {seconds:.6f} steps {steps} loss {loss.item():.4f}")
