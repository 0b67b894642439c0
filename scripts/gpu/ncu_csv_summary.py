"""One line for scripts/gpu/run_ncu_csv.sh: what `rocm-perf analyze --json` made of an ncu CSV.
Usage: ncu_csv_summary.py NAME ANALYZE_JSON EXIT_STATUS"""
import json
import sys

name, path, rc = sys.argv[1:4]
try:
    with open(path) as f:
        d = json.load(f)
    k, o = d["kernel"], d.get("occupancy") or {}
    occupancy = "{:.2%} ({})".format(o["theoretical"], o["limiter"]) if o else "none"
    print("{}: exit {}, {}, {} dispatches, {:.4f} ms ({:.1%} of the GPU time), GPU {}, occupancy {}, {} warnings".format(
        name, rc, k["short_name"], k["dispatches"], k["total_ms"], k["time_fraction"],
        (d.get("gpu") or {}).get("architecture"), occupancy, len(d.get("warnings", []))))
except (OSError, ValueError, KeyError) as e:
    print("{}: exit {}, no analysis ({})".format(name, rc, e))
