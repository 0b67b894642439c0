"""A launch-bound PyTorch loop, as most training and inference loops at small batch are: a small
bf16 transformer-style MLP (LayerNorm, two Linear layers with GELU, a residual add, four blocks),
forward and backward with AdamW, on 64 tokens. Each step launches about a hundred kernels of a few
microseconds, so a tracer's cost per launch shows in the loop's wall time.
Prints the wall time of STEPS timed steps alone (after warm-up, synchronized): the median of CHUNKS
such timings in the one process, so that a passing hiccup of a shared machine does not decide it.
  usage: python3 bench/torch_launch_bound.py [STEPS] [WARMUP] [CHUNKS] [--profiler]
--profiler: the timed steps run inside torch.profiler with CUDA activities only (Kineto), to
compare with."""
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


for _ in range(warmup):
    step()
if "--profiler" in sys.argv:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]):
        seconds, loss = timed()
else:
    seconds, loss = timed()
print(f"loop_seconds {seconds:.6f} steps {steps} loss {loss.item():.4f}")
