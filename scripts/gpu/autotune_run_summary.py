#!/usr/bin/env python3
"""One line on a live autotune run, for the summary.txt of the scripts/gpu/run_*.sh that compare runs:
the exit status, the best, the centre of the space (bayes), how many configurations were measured and
the seconds they took (what a replayed time budget spends), and every configuration in the order
measured (phase:values:time).
  usage: autotune_run_summary.py NAME EXIT_STATUS AUTOTUNE_JSON MEASUREMENTS_CSV"""
import csv
import json
import sys

NOT_PARAMETERS = {"order", "phase", "cached", "failure", "value", "cv", "samples", "runs", "seconds", "build_seconds", "detail"}


def main(name, rc, document, measurements):
    try:
        d = json.load(open(document))
        rows = sorted(csv.DictReader(open(measurements)), key=lambda r: int(r["order"]))
        order = " ".join(f"{r['phase']}:" + ",".join(v for k, v in r.items() if k not in NOT_PARAMETERS) + f":{r['value']}"
                         for r in rows)
        centre = (d.get("model") or {}).get("centre")  # null where the strategy has no model
        print(f"{name}: exit {rc}; best {d['best']['value']} ms at {json.dumps(d['best']['configuration'])}; "
              f"centre {json.dumps(centre)}; {len(rows)} measured in {sum(float(r['seconds']) for r in rows):.1f} s; "
              f"measured {order}")
    except (OSError, ValueError, KeyError, TypeError) as e:  # no file, no JSON, no best (all failed)
        print(f"{name}: exit {rc}; no result ({e})")


if __name__ == "__main__":
    main(*sys.argv[1:5])
