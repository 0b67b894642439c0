"""A small PyTorch program for the roofline's tensor kinds: one square GEMM per input type the
tensor cores take (fp16, bf16, fp32 as TF32, fp64, fp8 through torch._scaled_mm where the GPU has
it, int8 through torch._int_mm), each called twice, so that each kind's FLOPs can be checked
against 2 n^3 a call. Prints the kinds it ran and the FLOPs of each call."""
import torch

n = 4096
torch.backends.cuda.matmul.allow_tf32 = True
ran = []


def twice(name, f):
    for _ in range(2):
        f()
    torch.cuda.synchronize()
    ran.append(name)


for name, dtype in [("fp16", torch.float16), ("bf16", torch.bfloat16), ("tf32", torch.float32), ("fp64", torch.float64)]:
    a = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, n, device="cuda", dtype=dtype)
    twice(name, lambda: a @ b)

if torch.cuda.get_device_capability() >= (8, 9) and hasattr(torch, "_scaled_mm"):
    a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as cuBLASLt asks
    one = torch.tensor(1.0, device="cuda")
    twice("fp8", lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))

if hasattr(torch, "_int_mm"):
    a = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
    b = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
    twice("int8", lambda: torch._int_mm(a, b))

print(f"kinds {' '.join(ran)} flops_per_call {2 * n ** 3} calls 2")
