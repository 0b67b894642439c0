#!/usr/bin/env bash
# On the NVIDIA machine, from the repository root: a real PyTorch profiler (Kineto) trace of a small
# training step (tests/gpu/programs/torch_kineto_trace.py), and, with a carry
# (scripts/gpu/prepare_carry.sh), the same steps profiled by rocm-perf's CUPTI tracer, then both
# analyzed: the kernels they share must have the same grid, block, registers and shared memory.
#   usage: bash scripts/gpu/run_kineto.sh [CARRY]   (files under $OUT)
set -euo pipefail
out=${OUT:-/tmp/rpl-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" | tee -a "$out/gpu.txt"
python3 tests/gpu/programs/torch_kineto_trace.py "$out/torch_kineto.json"
[ -d "${1:-.devcarry}" ] || exit 0
source scripts/gpu/carry_env.sh "${1:-.devcarry}"
rp="$carry/bin/rocm-perf"
"$rp" profile --backend cuda --runs 1 --quiet-app --out "$out/ours" -- python3 tests/gpu/programs/torch_kineto_trace.py none > "$out/ours.txt"
"$rp" analyze --json "$out/ours" > "$out/ours.json"
"$rp" analyze --json "$out/torch_kineto.json" > "$out/kineto.json"
cat "$out/ours.txt"
"$rp" analyze "$out/torch_kineto.json"
python3 - "$out/ours/.rocpd_profile" "$out/torch_kineto.json" <<'PY' | tee "$out/compare.txt"
import glob, json, sqlite3, sys
# Per kernel name: the set of (grid, block, registers, shared memory) each trace saw.
def ours(folder):
    seen = {}
    for db in glob.glob(folder + "/run*.db"):
        c = sqlite3.connect(db)
        for name, gx, gy, gz, bx, by, bz, regs, lds in c.execute(
                "SELECT s.display_name, d.grid_size_x, d.grid_size_y, d.grid_size_z, d.workgroup_size_x, d.workgroup_size_y, "
                "d.workgroup_size_z, s.arch_vgpr_count, d.group_segment_size FROM rocpd_kernel_dispatch d "
                "JOIN rocpd_info_kernel_symbol s ON s.id = d.kernel_id"):
            seen.setdefault(name, set()).add(((gx // bx, gy // by, gz // bz), (bx, by, bz), regs, lds))
    return seen
def kineto(path):
    seen = {}
    for e in json.load(open(path))["traceEvents"]:
        if e.get("cat") == "kernel":
            a = e["args"]
            seen.setdefault(e["name"], set()).add((tuple(a["grid"]), tuple(a["block"]), a["registers per thread"], a["shared memory"]))
    return seen
o, k = ours(sys.argv[1]), kineto(sys.argv[2])
shared = sorted(set(o) & set(k))
print(f"kernels: ours {len(o)}, kineto {len(k)}, by the same name {len(shared)}")
same = sum(1 for n in shared if k[n] <= o[n])
print(f"kineto's launches of them all among ours (grid, block, registers, shared memory): {same} of {len(shared)}")
for n in shared:
    if not k[n] <= o[n]:
        print("differs:", n[:90], sorted(k[n])[:2], sorted(o[n])[:2])
for n in sorted(set(k) - set(o))[:5]:
    print("kineto only:", n[:100])
PY
