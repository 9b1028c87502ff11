#!/usr/bin/env python3
"""How often one function is called per call, and from where, from pairs of callgrind files
(Benchmarks/instructions.sh's output; the notebook's "header scans eight bytes at a time"):

    python3 Benchmarks/callgrind-calls.py CALLS REGEX NAME SHORT.out LONG.out [NAME SHORT.out LONG.out]

REGEX names the callee (a full match of its symbol, such as `swift_retain` or `malloc`). Each
client's count is its calls in the longer run less those in the shorter, divided by CALLS. With
two clients, the callers whose counts differ most between them follow (the second less the first).
"""
import collections
import re
import subprocess
import sys


def calls_by_caller(path, target):
    """{caller: calls of `target`} from one callgrind file."""
    names, counts = {}, collections.Counter()
    caller = callee = None
    for line in open(path, errors="replace"):
        if line.startswith(("fn=", "cfn=")):
            match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.strip())
            if match.group(2):
                names[match.group(1)] = match.group(2)
            if line.startswith("fn="):
                caller = names[match.group(1)]
            else:
                callee = names[match.group(1)]
        elif line.startswith("calls=") and re.fullmatch(target, callee or ""):
            counts[caller] += int(line.split()[0][len("calls="):])
    return counts


calls, target = int(sys.argv[1]), sys.argv[2]
clients = []
for index in range(3, len(sys.argv), 3):
    name, short, long = sys.argv[index:index + 3]
    a, b = calls_by_caller(short, target), calls_by_caller(long, target)
    per_call = {f: (b[f] - a[f]) / calls for f in set(a) | set(b)}
    clients.append((name, per_call))
    print(f"{name}: {sum(per_call.values()):,.1f} calls of {target} per call")
if len(clients) == 2:
    (first, base), (second, other) = clients
    rows = sorted(set(base) | set(other), key=lambda f: -abs(other.get(f, 0) - base.get(f, 0)))[:20]
    shown = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(rows),
                           capture_output=True, text=True).stdout.splitlines() or rows
    print(f"\ncallers that differ most (per call: {first}, {second}, difference):")
    for f, text in zip(rows, shown):
        print(f"{base.get(f, 0):8.1f} {other.get(f, 0):8.1f} {other.get(f, 0) - base.get(f, 0):+8.1f}  {text[:110]}")
