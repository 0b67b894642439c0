"""One line for scripts/gpu/run_ncu_report_pages.sh: the verdict `rocm-perf analyze --out` gave a
report, how many of ncu's rules it read, whether stalls were read, its instruction mix, and what
the raw page holds.
Usage: ncu_report_summary.py ANALYSIS_JSON RAW_PAGE_CSV"""
import json
import sys

try:
    with open(sys.argv[1]) as f:
        a = json.load(f)
    c = a["classification"]
    print("bottleneck {} ({:.2f}); {} ncu findings; stalls {}".format(
        c["bottleneck"], c["confidence"], len(a.get("tool_findings") or []), "read" if a.get("stalls") else "none"))
    mix = (a.get("stalls") or {}).get("instruction_mix") or {}
    print("instruction mix: " + (" ".join("{} {:.3f}".format(k, v) for k, v in sorted(mix.items())) or "none"))
except (OSError, ValueError, KeyError) as e:
    print("no analysis.json ({})".format(e))
with open(sys.argv[2]) as f:
    header = next((line for line in f if line.startswith('"ID"')), "")
print("raw page: {} columns, {} warp-state metrics".format(header.count('","') + 1, header.count("issue_stalled")))
