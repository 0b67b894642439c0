"""A PyTorch CUDA graph: a matmul and elementwise work captured once (torch.cuda.graph) and replayed
ten times, as training and inference loops do to cut launch overhead."""
import torch

a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):  # warm-up outside the capture, as PyTorch asks
    for _ in range(2):
        y = torch.relu(a @ b) * 2
torch.cuda.current_stream().wait_stream(s)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    y = torch.relu(a @ b) * 2
for _ in range(10):
    graph.replay()
torch.cuda.synchronize()
print("replayed", float(y[0, 0]))
