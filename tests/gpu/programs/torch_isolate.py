"""A small PyTorch program for isolate: a cuBLAS GEMM (fp32 and bf16) and elementwise kernels, each
run a few times. Run it with PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync for the pool allocator.
Prints a checksum of the results, so a capture can be checked not to change them."""
import torch

torch.manual_seed(0)
n = 1024
a = torch.randn(n, n, device="cuda")
b = torch.randn(n, n, device="cuda")
x = torch.randn(4 * 1024 * 1024, device="cuda")
for _ in range(3):
    c = a @ b
    h = (a.bfloat16() @ b.bfloat16()).float()
    y = torch.sigmoid(x) * 2.0 + x
torch.cuda.synchronize()
print(f"checksum {float(c.double().sum()):.6e} {float(h.double().sum()):.6e} {float(y.double().sum()):.6e}")
