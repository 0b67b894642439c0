"""A small PyTorch training step traced by PyTorch's own profiler (Kineto), as its users record
traces: torch.profiler with CPU and CUDA activities, exported as Chrome trace JSON. Two streams
joined by events, a GEMM, a softmax, a layer norm and a copy, three steps.
    usage: torch_kineto_trace.py OUT.json   (or "none": the same steps, not profiled, for another profiler)"""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.LayerNorm(4096), torch.nn.Linear(4096, 1024)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(2048, 1024, device="cuda")
side = torch.cuda.Stream()


def step():
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        scores = torch.softmax(x @ x.T, dim=-1)  # on the side stream meanwhile
    loss = model(x).float().pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    torch.cuda.current_stream().wait_stream(side)
    return float(scores[0, 0].cpu()) + float(loss.cpu())  # a copy back, and the host waits


for _ in range(2):  # warm-up: cuBLAS handles, allocator
    step()
torch.cuda.synchronize()
if sys.argv[1] == "none":
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    sys.exit(0)
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(3):
        step()
    torch.cuda.synchronize()
prof.export_chrome_trace(sys.argv[1])
print("wrote", sys.argv[1])
