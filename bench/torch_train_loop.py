"""A small PyTorch training loop (bf16 MLP, AdamW): a real program nobody here wrote the kernels of.
Prints the wall time of the timed steps alone (after warm-up, synchronized), so a tracer's cost
inside the loop can be told from its start-up and exit cost.
  usage: python3 bench/torch_train_loop.py [STEPS] [WARMUP] [WIDTH]
WIDTH (default 2048) sets how compute-bound a step is: at 2048 an H100 step takes about 1.7 ms and
launch costs weigh; at 4096 the matrix work is 8 times larger."""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
warmup = int(sys.argv[2]) if len(sys.argv) > 2 else 20
torch.manual_seed(0)
dev = torch.device("cuda")
width = int(sys.argv[3]) if len(sys.argv) > 3 else 2048
model = torch.nn.Sequential(*[m for _ in range(4) for m in (torch.nn.Linear(width, width), torch.nn.GELU())]).to(dev, torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(4096, width, device=dev, dtype=torch.bfloat16)
y = torch.randn(4096, width, device=dev, dtype=torch.bfloat16)


def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss


for _ in range(warmup):
    step()
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(steps):
    loss = step()
torch.cuda.synchronize()
print(f"loop_seconds {time.perf_counter() - start:.6f} steps {steps} loss {loss.item():.4f}")
