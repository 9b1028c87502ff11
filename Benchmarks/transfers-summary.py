"""Medians of 5 processes for Benchmarks/transfers.sh: reads its `[round N] transfer CLIENT WORKLOAD
median: …` lines on stdin and prints, per workload and client, the median of the processes' wall
clock, CPU and peak resident memory (MiB) with min–max, and each Net client against the raw client
under it: raw ÷ Net wall clock (above 1 is Net faster), Net ÷ raw CPU. Exits with 1 on a line it
cannot read, or on a workload and client with an even number of processes (no middle one)."""
import re
import sys

LINE = re.compile(r"\[round (\d+)\] transfer (\S+) (\S+) median: ([\d.]+) ms .*?, ([\d.]+) ms CPU .*?peak RSS (\d+) KiB")
figures = {}  # (workload, client) -> [(ms, cpu ms, peak KiB)]
for line in sys.stdin:
    if not line.strip():
        continue
    match = LINE.match(line)
    if not match:
        sys.exit(f"transfers-summary.py: cannot read {line.strip()!r}")
    figures.setdefault((match[3], match[2]), []).append((float(match[4]), float(match[5]), int(match[6])))
for (workload, client), runs in figures.items():
    if len(runs) % 2 == 0:
        sys.exit(f"transfers-summary.py: {workload} {client} has {len(runs)} processes; the median needs an odd count")


def median(values):
    """The middle one of an odd count of values."""
    return sorted(values)[len(values) // 2]


def cell(values, show):
    """`median (min–max)` of `values`."""
    return f"{show(median(values))} ({show(min(values))}–{show(max(values))})"


RAW = {"net-urlsession-client": "raw-urlsession", "net-ahc-client": "raw-ahc",
       # the names NetLoad transfer gave Net's clients in the runs of f7fd0ac and before
       "net-urlsession": "raw-urlsession", "net-ahc": "raw-ahc"}
print("workload client processes: wall clock ms (min–max), CPU ms (min–max), peak RSS MiB (min–max)[, raw ÷ Net wall clock, Net ÷ raw CPU]")
for (workload, client), runs in figures.items():
    ratio = ""
    raw = figures.get((workload, RAW.get(client, "")))
    if raw:
        ratio = (f", raw ÷ Net {median([r[0] for r in raw]) / median([r[0] for r in runs]):.2f}"
                 f", Net ÷ raw CPU {median([r[1] for r in runs]) / median([r[1] for r in raw]):.2f}")
    print(f"{workload} {client} ×{len(runs)}: {cell([r[0] for r in runs], lambda v: f'{v:.0f}')} ms, "
          f"{cell([r[1] for r in runs], lambda v: f'{v:.0f}')} ms CPU, "
          f"{cell([r[2] / 1024 for r in runs], lambda v: f'{v:.0f}')} MiB{ratio}")
