"""A small PyTorch program for the roofline: bf16 GEMMs (compute-bound on any recent GPU) and large
elementwise operations (memory-bound). Prints the FLOPs of each GEMM call."""
import torch

n = 4096
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
x = torch.randn(64 * 1024 * 1024, device="cuda")
for _ in range(3):
    c = a @ b
    y = torch.relu(x) * 2.0 + 1.0
torch.cuda.synchronize()
print(f"gemm flops {2 * n ** 3} calls 3")
print("done", float(c[0, 0]), float(y[0]))
