"""Summarizes bench/tracer_overhead_torch.sh's CHUNKS_RAW file: lines "CONFIG MEASURE V V ...",
a line per measure per process, in the order the processes ran (configurations alternating within a
round). For each configuration and each measure (wall: seconds of a chunk; cpu: the launching
thread's CPU seconds in it; instructions: the user-space instructions that thread retired in it,
where the machine could count them), against the first configuration (untraced):
  median   the median of every chunk of every process, and its ratio;
  min      the fastest chunk, and its ratio (a shared machine's other work only ever adds time, so
           the minimum is the estimate least moved by it);
  paired   the median over rounds of (this process's median chunk / the same round's untraced
           process's median chunk).
  usage: python3 bench/overhead_chunks.py CHUNKS_RAW"""
import statistics
import sys

MEASURES = {"wall": "{:9.4f}", "cpu": "{:9.4f}", "instructions": "{:9.4g}"}


def main(path):
    runs = {}  # (config, measure) -> [[chunk seconds of one process], ...]
    order = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) < 3 or words[1] not in MEASURES or not words[2][0].isdigit():
                continue
            if words[0] not in order:
                order.append(words[0])
            runs.setdefault((words[0], words[1]), []).append([float(w) for w in words[2:]])
    if not order:
        sys.exit(f"{path}: no chunk lines")
    base = order[0]
    for measure, number in MEASURES.items():
        if (base, measure) not in runs:
            continue
        print(f"{measure:12s} {'configuration':24s} {'rounds':>6s} {'median':>9s} {'ratio':>6s} {'min':>9s} {'ratio':>6s} {'paired':>6s}")
        base_runs = runs[(base, measure)]
        base_median = statistics.median(c for r in base_runs for c in r)
        base_min = min(c for r in base_runs for c in r)
        for config in order:
            procs = runs.get((config, measure), [])
            chunks = [c for r in procs for c in r]
            if not chunks:
                continue
            pairs = [statistics.median(r) / statistics.median(b) for r, b in zip(procs, base_runs)]
            median = statistics.median(chunks)
            print(f"{measure:12s} {config:24s} {len(procs):6d} {number.format(median)} {median / base_median:6.3f}"
                  f" {number.format(min(chunks))} {min(chunks) / base_min:6.3f} {statistics.median(pairs):6.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
