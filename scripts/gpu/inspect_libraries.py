"""On the GPU machine: rocm-perf inspect against cuobjdump --dump-resource-usage on real CUDA
libraries (PyTorch's, cuBLASLt, cuDNN's precompiled engines), side by side in one run: wall time,
peak memory (each tool in its own child process), and per-kernel registers.
  usage: python3 scripts/gpu/inspect_libraries.py ROCM_PERF OUT_JSON"""
import glob
import json
import os
import re
import subprocess
import sys
import time

rocm_perf, out_path = sys.argv[1], sys.argv[2]


def find(patterns):
    roots = [p for p in sys.path if p.endswith("site-packages") or p.endswith("dist-packages")] + ["/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu"]
    for pattern in patterns:
        for root in roots:
            hits = sorted(glob.glob(os.path.join(root, pattern)))
            if hits:
                return hits[0]
    return None


libraries = {
    "libtorch_cuda.so": find(["torch/lib/libtorch_cuda.so"]),
    "libcublasLt.so.13": find(["nvidia/cu13/lib/libcublasLt.so.13", "nvidia/cublas/lib/libcublasLt.so.13", "libcublasLt.so.13"]),
    "cudnn_engines_precompiled": find(["nvidia/cudnn/lib/libcudnn_engines_precompiled.so.*", "nvidia/cu13/lib/libcudnn_engines_precompiled.so.*",
                                        "libcudnn_engines_precompiled.so.*"]),
}


def measure(argv):
    """Wall seconds of one child, and its stdout."""
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return wall, proc.stdout.decode(errors="replace")


def cuobjdump_registers(text):
    regs, arch, function = {}, None, None
    for line in text.splitlines():
        m = re.match(r"\s*arch = (sm_\w+)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.match(r"\s*Function (\S+):\s*$", line)
        if m:
            function = m.group(1)
            continue
        m = re.search(r"REG:(\d+)", line)
        if m and function:
            regs.setdefault((arch, function), set()).add(int(m.group(1)))
            function = None
    return regs


results = {}
for name, path in libraries.items():
    if not path:
        results[name] = {"error": "not found on this machine"}
        print(f"{name}: not found", flush=True)
        continue
    row = {"path": path, "bytes": os.path.getsize(path), "runs": []}
    # Alternate the two tools, twice; the faster run of each counts.
    for tool in ("inspect", "cuobjdump", "inspect", "cuobjdump"):
        argv = [rocm_perf, "inspect", "--json", path] if tool == "inspect" else ["cuobjdump", "--dump-resource-usage", path]
        wall, out = measure(argv)
        row["runs"].append({"tool": tool, "wall_s": round(wall, 3)})
        if tool == "inspect":
            doc = json.loads(out)
            ours = {}
            for k in doc["kernels"]:
                ours.setdefault((k["arch"], k["mangled_name"]), set()).add(k["resources"]["vgpr_per_thread"])
        else:
            theirs = cuobjdump_registers(out)
    # Peak memory: each tool alone under a fresh Python whose only child it is.
    for tool in ("inspect", "cuobjdump"):
        argv = [rocm_perf, "inspect", "--json", path] if tool == "inspect" else ["cuobjdump", "--dump-resource-usage", path]
        wrapper = ["python3", "-c", "import resource,subprocess,sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
                   "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"] + argv
        row[f"{tool}_peak_mib"] = round(int(subprocess.check_output(wrapper).decode().split()[-1]) / 1024.0, 1)
    agree = sum(1 for key, regs in ours.items() if key in theirs and regs == theirs[key])
    row.update({"kernels_inspect": len(ours), "kernels_cuobjdump": len(theirs), "registers_agree": agree,
                "only_inspect": len(set(ours) - set(theirs)), "only_cuobjdump": len(set(theirs) - set(ours)),
                "differ": sorted(f"{a} {k} ours={sorted(ours[(a, k)])} cuobjdump={sorted(theirs[(a, k)])}"
                                 for (a, k) in set(ours) & set(theirs) if ours[(a, k)] != theirs[(a, k)])[:20],
                "arches_inspect": sorted({a for a, _ in ours}), "arches_cuobjdump": sorted({a for a, _ in theirs})})
    walls = {t: sorted(r["wall_s"] for r in row["runs"] if r["tool"] == t) for t in ("inspect", "cuobjdump")}
    row["inspect_wall_s"], row["cuobjdump_wall_s"] = walls["inspect"][0], walls["cuobjdump"][0]
    row["wall_ratio_inspect_over_cuobjdump"] = round(walls["inspect"][0] / walls["cuobjdump"][0], 3)
    results[name] = row
    print(f"{name}: {row['bytes'] / 2**20:.0f} MB; inspect {row['inspect_wall_s']} s, {row['inspect_peak_mib']} MiB; "
          f"cuobjdump {row['cuobjdump_wall_s']} s, {row['cuobjdump_peak_mib']} MiB; ratio {row['wall_ratio_inspect_over_cuobjdump']}; "
          f"kernels {row['kernels_inspect']}/{row['kernels_cuobjdump']}, registers agree on {agree}, "
          f"only ours {row['only_inspect']}, only cuobjdump {row['only_cuobjdump']}", flush=True)
    for d in row["differ"][:5]:
        print("   differs:", d, flush=True)

with open(out_path, "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
