#!/usr/bin/env python3
"""Samples of a `perf record` file grouped by Swift module, for Docs/Benchmarks.md §12.

    perf record -F 4999 -o net.data -- taskset -c 0 Benchmarks/.build/release/NetLoad run net-ahc-client par64 URL 20000 5
    python3 Benchmarks/perf-by-module.py net.data [COUNT]

A Swift symbol counts for the module its mangled name starts with ($s<length><module>…); the
kernel's samples count as one group; any other symbol (the Swift runtime, libc) counts on its own.
"""
import collections
import re
import subprocess
import sys

report = subprocess.run(
    ["perf", "report", "-i", sys.argv[1], "--no-children", "--sort", "sym", "-n", "-g", "none", "-q",
     "--percent-limit", "0"],
    capture_output=True, text=True, check=True).stdout
groups = collections.Counter()
for line in report.splitlines():
    match = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[(.)\]\s+(.*)$", line)
    if not match:
        continue
    samples, space, symbol = int(match.group(1)), match.group(2), match.group(3).strip()
    if space == "k":
        groups["kernel"] += samples
        continue
    swift = re.match(r"\$s(\d+)([A-Za-z_]\w*)", symbol)
    groups[swift.group(2)[:int(swift.group(1))] if swift else "other:" + symbol.split("(")[0][:40]] += samples
print("total", sum(groups.values()))
for group, samples in groups.most_common(int(sys.argv[2]) if len(sys.argv) > 2 else 25):
    print(f"{samples:7d} {group}")
