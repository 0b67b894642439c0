"""A row-wise softmax in Triton whose chunk, rows per program and warps come from the command line,
for `rocm-perf autotune` (a kernel of another kind than the matmuls: memory-bound, two passes over
each row, a running maximum and sum in the first):
    python3 triton_softmax_tunable.py --block 1024 --rows 2 --warps 4 [--m 4096] [--n 8192] [--repeat 10]
Runs the kernel `repeat` times after one warm-up launch and checks the result against torch.softmax."""
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x, y, M, N, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M
    cols = tl.arange(0, BLOCK)
    # First pass: each row's maximum and its sum of exponentials, rescaled as the maximum grows.
    most = tl.full((ROWS,), float("-inf"), tl.float32)
    total = tl.zeros((ROWS,), tl.float32)
    for start in range(0, N, BLOCK):
        c = start + cols
        mask = row_ok[:, None] & (c[None, :] < N)
        v = tl.load(x + rows[:, None] * N + c[None, :], mask=mask, other=float("-inf"))
        new_most = tl.maximum(most, tl.max(v, axis=1))
        total = total * tl.exp(most - new_most) + tl.sum(tl.exp(v - new_most[:, None]), axis=1)
        most = new_most
    # Second pass: the normalised exponentials.
    for start in range(0, N, BLOCK):
        c = start + cols
        mask = row_ok[:, None] & (c[None, :] < N)
        v = tl.load(x + rows[:, None] * N + c[None, :], mask=mask, other=float("-inf"))
        tl.store(y + rows[:, None] * N + c[None, :], tl.exp(v - most[:, None]) / total[:, None], mask=mask)


def main():
    p = argparse.ArgumentParser()
    for name in ("block", "rows", "warps"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--m", type=int, default=4096)
    p.add_argument("--n", type=int, default=8192)
    p.add_argument("--repeat", type=int, default=10)
    args = p.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.m, args.n, device="cuda", dtype=torch.float32)
    y = torch.empty_like(x)
    grid = (triton.cdiv(args.m, args.rows),)
    for _ in range(args.repeat + 1):
        softmax_kernel[grid](x, y, args.m, args.n, BLOCK=args.block, ROWS=args.rows, num_warps=args.warps)
    torch.cuda.synchronize()
    err = (y - torch.softmax(x, dim=1)).abs().max().item()
    print(f"max_abs_error: {err:.3g}")
    if err > 1e-5:
        raise SystemExit("wrong result")


if __name__ == "__main__":
    main()
