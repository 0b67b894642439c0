"""For scripts/gpu/run_roofline_clocks.sh: per program, kernel and ncu clock control, the clock the
kernel's launches ran at (roofline.json's clock_mhz), its place and percent of the roof at that clock,
and the percent it would have against the roof at the device's maximum clock (ceilings.clock_mhz).
Usage: roofline_clocks_summary.py WORK_DIR (holding NAME.CONTROL.out/roofline.json)"""
import glob
import json
import os
import sys


def at_maximum(k, ceilings):
    """The percent of the roof at the maximum clock: the compute roof scaled back up to it."""
    if k["percent_of_roof"] is None or k["clock_mhz"] is None or not ceilings["clock_mhz"]:
        return None
    compute = k["compute_roof_flops_per_s"]
    dram = ceilings["bytes_per_s"]["dram"]
    roofs = []
    if compute:
        roofs.append(compute * ceilings["clock_mhz"] / k["clock_mhz"])
    if dram and k["operational_intensity"] is not None:
        roofs.append(k["operational_intensity"] * dram)
    if not roofs or not k["achieved_flops_per_s"]:
        return None
    if k["total_flops"] == 0:  # no arithmetic: the bandwidth alone, unchanged by the clock
        return k["percent_of_roof"]
    return 100.0 * k["achieved_flops_per_s"] / min(roofs)


def main():
    rows = []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.out", "roofline.json"))):
        name, control = os.path.basename(os.path.dirname(path))[: -len(".out")].rsplit(".", 1)
        with open(path) as f:
            r = json.load(f)
        for k in r["kernels"]:
            rows.append((name, k["short_name"][:48], control, k, r["ceilings"]))
    print("program         kernel                                            clock  MHz   position       % of roof at its clock  at max clock  time ms")
    for name, kernel, control, k, ceilings in sorted(rows, key=lambda row: (row[0], row[1], row[2])):
        clock = "{:.0f}".format(k["clock_mhz"]) if k["clock_mhz"] else "-"
        pct = "{:.1f}".format(k["percent_of_roof"]) if k["percent_of_roof"] is not None else "-"
        mx = at_maximum(k, ceilings)
        print("{:15s} {:49s} {:5s} {:>5s} {:14s} {:>22s} {:>13s} {:8.3f}".format(
            name, kernel, control, clock, k["roofline_position"] or "not placed", pct,
            "{:.1f}".format(mx) if mx is not None else "-", k["time_ms"]))


main()
