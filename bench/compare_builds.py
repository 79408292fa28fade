"""The table of bench/compare_builds.sh: per workload, the median time of each build over the
rounds (each round's fastest of its repetitions) and the median and range of new/old."""
import glob
import json
import os
import re
import statistics
import sys

times = {}  # workload -> round -> side -> fastest time
units = {}  # workload -> Google Benchmark's time unit
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    side, round_ = re.match(r"(old|new)_(\d+)\.json", os.path.basename(path)).groups()
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        name = b["run_name"].replace("/process_time", "")
        units[name] = b["time_unit"]
        slot = times.setdefault(name, {}).setdefault(int(round_), {})
        slot[side] = min(slot.get(side, float("inf")), b["cpu_time"])

print(f"{'workload':28s} {'old':>9s} {'new':>9s} unit {'new/old':>8s}  range")
for name, rounds in times.items():
    both = [r for r in rounds.values() if "old" in r and "new" in r]
    ratios = [r["new"] / r["old"] for r in both]
    old = statistics.median(r["old"] for r in both)
    new = statistics.median(r["new"] for r in both)
    print(f"{name:28s} {old:9.3f} {new:9.3f} {units[name]:>4s} {statistics.median(ratios):8.3f}  "
          f"{min(ratios):.3f}-{max(ratios):.3f} ({len(ratios)} rounds)")
