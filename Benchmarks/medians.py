"""Medians of processes, for the benchmark scripts that run each client in several processes
(Benchmarks/side-by-side.sh, openapi-side-by-side.sh, transfers.sh, memory-over-time.sh). Reads their lines on stdin,
`[round N] [LABEL] WHAT median: FIGURES`, where WHAT names the client and the workload (`raw-ahc
seq`, `openapi net-ahc par64`, `transfer raw-ahc get100mb`, `memory raw-ahc par64`, `session canned ×1`) and FIGURES is one
NetLoad median line (`6716 req/s (6149–6881), 84.15 µs CPU/request (…), …, peak RSS 36116 KiB`).
Prints, per WHAT in the order first seen, the median of its processes for each figure with min–max
across them (resident memory in MiB, heap in KiB), then each Net client against the client it is
compared with in the same workload (and a build run as "after" against the same client run
"before", from side-by-side.sh's A/B mode): its speed as a multiple of the other's (above 1 is
faster) and its CPU as a multiple of the other's. Exits with 1 on a line it cannot read, on a WHAT with
an even number of processes (no middle one), or on one whose processes report different figures."""
import re
import sys

LINE = re.compile(r"\[round (\d+)\] (.+?) median: (.+)$")
FIGURE = re.compile(r"(-?[\d.]+) ([^,(]+?) \(-?[\d.]+–-?[\d.]+\)")  # a growth may be below 0
MEMORY = re.compile(r"(peak RSS|peak heap in use|primed RSS|primed RSS of files|peak RSS growth over primed) (-?\d+) KiB")
# Net's client → the clients it is compared with in the same workload (OpenAPI: the published transports).
PEERS = {
    "net-ahc": ["raw-ahc"], "net-ahc-client": ["raw-ahc"],
    "net-urlsession": ["raw-urlsession", "raw-urlsession-delegate"],
    "net-urlsession-client": ["raw-urlsession", "raw-urlsession-delegate"],
}
# Words the scripts put before CLIENT WORKLOAD in a WHAT (`openapi net-ahc par64`).
PREFIXES = ("openapi", "transfer", "memory")
OPENAPI_PEERS = {"net-ahc": ["openapi-ahc"], "net-urlsession": ["openapi-urlsession"]}

def read(lines):
    """{WHAT: [each process's {unit: value}]} from the scripts' `[round N] WHAT median: …` lines,
    in the order first seen; exits on a line it cannot read."""
    processes = {}
    for line in lines:
        if not line.strip():
            continue
        match = LINE.match(line.strip())
        if not match:
            sys.exit(f"medians.py: cannot read {line.strip()!r}")
        figures = {unit: float(value) for value, unit in FIGURE.findall(match[3])}
        if "ms/request" in figures:  # NetLoad's unit below 100 requests/s
            figures = {("req/s" if unit == "ms/request" else unit): (1000 / value if unit == "ms/request" else value)
                       for unit, value in figures.items()}
        figures.update({name: float(kib) for name, kib in MEMORY.findall(match[3])})
        if not figures:
            sys.exit(f"medians.py: no figures in {line.strip()!r}")
        processes.setdefault(match[2], []).append(figures)
    return processes


def median(values):
    """The middle one of an odd count of values."""
    return sorted(values)[len(values) // 2]


def show(value):
    return f"{value:.0f}" if value >= 100 else f"{value:.2f}"


def cell(values):
    """`median (min–max)` of `values`."""
    return f"{show(median(values))} ({show(min(values))}–{show(max(values))})"


def speed(figures):
    """The speed figure of a process and whether more is faster (a rate) or slower (a time)."""
    for unit in figures:
        if unit.endswith("/s"):
            return unit, True
        if unit == "ms":
            return unit, False
    return None, True


def peers_of(what):
    """The WHATs that `what` is compared with: for Net's clients, the clients beside them in the
    same workload; for a build run as "after" beside a "before" one, itself run "before"."""
    words = what.split(" ")
    peers = [" ".join(["[before]"] + words[1:])] if words[0] == "[after]" else []
    # [LABEL] and a prefix come before CLIENT WORKLOAD.
    index = next(i for i, word in enumerate(words) if not word.startswith("[") and word not in PREFIXES)
    if index + 1 >= len(words):
        return peers
    table = OPENAPI_PEERS if "openapi" in words[:index] else PEERS
    return peers + [" ".join(words[:index] + [peer] + words[index + 1:]) for peer in table.get(words[index], [])]


def main():
    processes = read(sys.stdin)
    for what, runs in processes.items():
        if len(runs) % 2 == 0:
            sys.exit(f"medians.py: {what} has {len(runs)} processes; the median needs an odd count")
        if any(run.keys() != runs[0].keys() for run in runs):
            sys.exit(f"medians.py: the processes of {what} do not report the same figures")
    print("what, processes: each figure's median (min–max) across the processes; resident memory (RSS) in MiB, heap in KiB")
    for what, runs in processes.items():
        parts = []
        for unit in runs[0]:
            values = [run[unit] for run in runs]
            if "RSS" in unit:
                parts.append(f"{unit} {cell([v / 1024 for v in values])} MiB")
            elif unit == "peak heap in use":
                parts.append(f"peak heap in use {cell(values)} KiB")
            else:
                parts.append(f"{cell(values)} {unit}")
        print(f"{what}, {len(runs)} processes: {', '.join(parts)}")
        unit, faster_is_more = speed(runs[0])
        for peer in peers_of(what):
            if peer not in processes or unit is None:
                continue
            ours, theirs = median([r[unit] for r in runs]), median([r[unit] for r in processes[peer]])
            ratio = ours / theirs if faster_is_more else theirs / ours
            cpu = next((u for u in runs[0] if "CPU" in u), None)
            cpu_ratio = f", CPU {median([r[cpu] for r in runs]) / median([r[cpu] for r in processes[peer]]):.2f}×" if cpu else ""
            print(f"    against {peer}: speed {ratio:.2f}×{cpu_ratio}")


if __name__ == "__main__":
    main()
