"""A Triton matmul whose block sizes and warps come from the command line, for `rocm-perf autotune`:
    python3 triton_matmul_tunable.py --bm 64 --bn 64 --bk 32 --warps 4 [--size 2048] [--repeat 10]
Runs the kernel `repeat` times after one warm-up launch and checks the result against torch.matmul."""
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def main():
    p = argparse.ArgumentParser()
    for name in ("bm", "bn", "bk", "warps"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--repeat", type=int, default=10)
    args = p.parse_args()
    n = args.size
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    c = torch.empty(n, n, device="cuda", dtype=torch.float16)
    grid = (triton.cdiv(n, args.bm), triton.cdiv(n, args.bn))
    for _ in range(args.repeat + 1):
        matmul_kernel[grid](a, b, c, n, n, n, BM=args.bm, BN=args.bn, BK=args.bk, num_warps=args.warps)
    torch.cuda.synchronize()
    err = (c.float() - (a.float() @ b.float())).abs().max().item()
    print(f"max_abs_error: {err:.4f}")
    if err > 1.0:
        raise SystemExit("wrong result")


if __name__ == "__main__":
    main()
