"""A launch-bound PyTorch loop, as most training and inference loops at small batch are: a small
bf16 transformer-style MLP (LayerNorm, two Linear layers with GELU, a residual add, four blocks),
forward and backward with AdamW, on 64 tokens. Each step launches about a hundred kernels of a few
microseconds, so a tracer's cost per launch shows in the loop's wall time.
Prints the wall time of STEPS timed steps alone (after warm-up, synchronized): the median of CHUNKS
such timings in the one process, so that a passing hiccup of a shared machine does not decide it;
then every chunk's wall time and the CPU time of the thread that launches (what a tracer's cost per
launch adds to), and the user-space instructions that thread retired (perf_event_open; a count that,
unlike time, a shared machine's other work and the core's changing clock leave alone), or why they
could not be counted.
  usage: python3 bench/torch_launch_bound.py [STEPS] [WARMUP] [CHUNKS] [--profiler]
--profiler: the timed steps run inside torch.profiler with CUDA activities only (Kineto), to
compare with.
--switch=SET|SET|...: under the CUPTI probe with RPL_PROBE=subscribe,switch, each of CHUNKS
rounds times one chunk of STEPS steps per SET of activity kinds (none, or kernel, memcpy, memset
joined by commas), switched on in the one process (rotating the order each round); prints each
set's median, its ratio to the first set's, the median of the ratios paired within a round, and
the records a chunk gave (which shows the kinds were on).
--switch=paused|on: the same under the tracer (librpl_cupti_trace.so as CUDA_INJECTION64_PATH),
paused and resumed between chunks (rpl_trace_pause).
--switch=off|profiler: the same without a tracer, torch.profiler (CUDA activities) started before
a chunk's settling steps and stopped after its timing.
Each switching run also prints, per set, the 95 % confidence interval of the paired median (from
the order statistics of the ratios, so no distribution is assumed)."""
import signal
import statistics
import sys
import time

import torch

signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # piped into head: end quietly, as a shell tool does

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


def instruction_counter():
    """A counter of the user-space instructions this thread retires: (read function, None), or
    (None, why not)."""
    import ctypes
    import os
    import struct
    libc = ctypes.CDLL(None, use_errno=True)
    attr = bytearray(128)  # struct perf_event_attr, the fields not set here zero
    struct.pack_into("<IIQ", attr, 0, 0, len(attr), 1)  # PERF_TYPE_HARDWARE, size, PERF_COUNT_HW_INSTRUCTIONS
    struct.pack_into("<Q", attr, 40, (1 << 5) | (1 << 6))  # exclude_kernel, exclude_hv
    buf = (ctypes.c_char * len(attr)).from_buffer(attr)
    fd = libc.syscall(298, buf, 0, -1, -1, 8)  # perf_event_open(attr, this thread, any CPU, no group, CLOEXEC)
    if fd < 0:
        return None, os.strerror(ctypes.get_errno())
    return (lambda: struct.unpack("<Q", os.read(fd, 8))[0]), None


read_instructions, no_instructions = instruction_counter()  # on this thread, the one that launches


def timed():
    times, cpu_times, instructions = [], [], []
    for _ in range(chunks):
        torch.cuda.synchronize()
        start, cpu_start = time.perf_counter(), time.thread_time()
        count_start = read_instructions() if read_instructions else 0
        for _ in range(steps):
            loss = step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.thread_time() - cpu_start)
        if read_instructions:
            instructions.append(read_instructions() - count_start)
    return times, cpu_times, instructions, loss


def switcher(sets):
    """The function that puts the process into one set's state and returns the records made since
    the last switch (None where the switching library does not count them)."""
    import ctypes
    import os
    if sets[-1] == "profiler":
        from torch.profiler import ProfilerActivity, profile
        running = []

        def switch_to(s):
            if running and s == "profiler":
                return None  # already on: the call after a chunk's timing
            while running:
                running.pop().stop()
            if s == "profiler":
                running.append(profile(activities=[ProfilerActivity.CUDA]))
                running[0].start()
            return None
        return switch_to
    injected = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"])  # already loaded by the driver
    if sets[-1] == "on":
        injected.rpl_trace_pause.argtypes = [ctypes.c_int]
        return lambda s: None if injected.rpl_trace_pause(int(s == "paused")) == 0 else sys.exit("the tracer cannot pause")
    injected.rpl_probe_switch.argtypes = [ctypes.c_char_p]
    injected.rpl_probe_switch.restype = ctypes.c_long
    return lambda s: injected.rpl_probe_switch(s.encode())


def median_interval(ratios):
    """The 95 % confidence interval of the median of ratios, from their order statistics."""
    r = sorted(ratios)
    half = 0.98 * len(r) ** 0.5  # 1.96 standard deviations of a Binomial(n, 1/2), halved
    lo, hi = int(len(r) / 2 - half), int(len(r) / 2 + half)
    return r[max(lo, 0)], r[min(hi, len(r) - 1)]


def timed_switching(sets):
    switch_to = switcher(sets)
    times = {s: [] for s in sets}
    records = {s: [] for s in sets}
    for r in range(chunks):
        for s in sets[r % len(sets):] + sets[:r % len(sets)]:
            switch_to(s)
            for _ in range(3):  # the kinds settle in
                step()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(steps):
                step()
            torch.cuda.synchronize()
            times[s].append(time.perf_counter() - start)
            records[s].append(switch_to(s))
    switch_to(sets[0])
    first = sets[0]
    for s in sets:
        ratios = [t / f for t, f in zip(times[s], times[first])]
        lo, hi = median_interval(ratios)
        counted = [n for n in records[s] if n is not None]
        print(f"switch {s:24s} seconds {statistics.median(times[s]):.6f} ratio {statistics.median(times[s]) / statistics.median(times[first]):.3f}"
              f" paired {statistics.median(ratios):.3f} ci95 {lo:.3f} {hi:.3f} chunks {len(ratios)}"
              + (f" records_per_chunk {statistics.median(counted):.0f}" if counted else ""))


for _ in range(warmup):
    step()
switch = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--switch=")]
if switch:
    timed_switching(switch[0].split("|"))
    sys.exit(0)
if "--profiler" in sys.argv:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]):
        times, cpu_times, instructions, loss = timed()
else:
    times, cpu_times, instructions, loss = timed()
print(f"loop_seconds {statistics.median(times):.6f} steps {steps} loss {loss.item():.4f}")
print("chunk_seconds " + " ".join(f"{t:.6f}" for t in times))
print("chunk_cpu_seconds " + " ".join(f"{t:.6f}" for t in cpu_times))
if instructions:
    print("chunk_instructions " + " ".join(str(n) for n in instructions))
else:
    print(f"chunk_instructions unavailable: {no_instructions}")
