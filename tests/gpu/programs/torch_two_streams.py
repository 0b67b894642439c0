"""Two CUDA streams joined by events, as a PyTorch user writes them: a side stream computes while
the main stream does other work, then the main stream waits for it (torch.cuda.Stream.wait_stream
records an event and makes the stream wait on it)."""
import torch

main = torch.cuda.current_stream()
side = torch.cuda.Stream()
a = torch.randn(4096, 4096, device="cuda")
b = torch.randn(4096, 4096, device="cuda")
torch.cuda.synchronize()
for _ in range(5):
    side.wait_stream(main)
    with torch.cuda.stream(side):
        c = a @ b            # long: on the critical path
    d = torch.relu(a) * 2     # short, on the main stream meanwhile
    main.wait_stream(side)
    e = c + d
torch.cuda.synchronize()
print("done", float(e[0, 0]))
