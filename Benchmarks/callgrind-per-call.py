#!/usr/bin/env python3
"""Instructions per call from pairs of callgrind files, for Benchmarks/instructions.sh.

    python3 Benchmarks/callgrind-per-call.py CALLS NAME SHORT.out LONG.out [NAME SHORT.out LONG.out ...]

Each client's two files come from runs that differ by CALLS calls; a function's cost per call is
its self cost (instructions in its own code, not in what it calls) in the longer run less that in
the shorter, divided by CALLS. The first client is the baseline: for each other one, the difference
by module (a Swift symbol counts for the module its mangled name starts with, $s<length><module>;
anything else for the library it is in), then the functions that differ most.
"""
import collections
import re
import sys


def self_costs(path):
    """Self cost per function name, and the object each function is in."""
    names, objects = {}, {}
    costs, object_of = collections.Counter(), {}
    function = current_object = None
    skip_next = False
    for line in open(path, errors="replace"):
        if line.startswith(("ob=", "cob=")):
            match = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.strip())
            if match and match.group(2):
                objects[match.group(1)] = match.group(2)
            if line.startswith("ob=") and match:
                current_object = objects.get(match.group(1))
            continue
        if line.startswith(("fn=", "cfn=")):
            match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.strip())
            if match and match.group(2):
                names[match.group(1)] = match.group(2)
            if line.startswith("fn=") and match:
                function = names[match.group(1)]
                object_of.setdefault(function, current_object)
            continue
        if line.startswith("calls="):
            skip_next = True  # the next cost line is the call's inclusive cost
            continue
        if line[:1].isdigit() or line[:1] in "+-*":
            if skip_next:
                skip_next = False
                continue
            fields = line.split()
            if len(fields) >= 2:
                costs[function] += int(fields[1])
    return costs, object_of


def module(function, path):
    swift = re.match(r"\$s(\d+)([A-Za-z_]\w*)", function or "")
    if swift:
        return swift.group(2)[:int(swift.group(1))]
    return (path or "?").rsplit("/", 1)[-1]


calls = int(sys.argv[1])
clients = []
for index in range(2, len(sys.argv), 3):
    name, short, long = sys.argv[index:index + 3]
    (a, _), (b, objects) = self_costs(short), self_costs(long)
    per_call = {f: (b[f] - a[f]) / calls for f in set(a) | set(b)}
    clients.append((name, per_call, objects))
    print(f"{name}: {sum(per_call.values()):,.0f} instructions per call")
base_name, base, base_objects = clients[0]
for name, per_call, objects in clients[1:]:
    print(f"\n{name} against {base_name}, by module (per call):")
    by_module = collections.Counter()
    for f in set(base) | set(per_call):
        by_module[module(f, objects.get(f) or base_objects.get(f))] += per_call.get(f, 0) - base.get(f, 0)
    for group, difference in sorted(by_module.items(), key=lambda item: -abs(item[1]))[:15]:
        print(f"{difference:+9,.0f}  {group}")
    print(f"\n{name} against {base_name}, the functions that differ most (per call: {base_name}, {name}, difference):")
    rows = sorted(set(base) | set(per_call), key=lambda f: -abs(per_call.get(f, 0) - base.get(f, 0)))
    for f in rows[:25]:
        print(f"{base.get(f, 0):8,.0f} {per_call.get(f, 0):8,.0f} {per_call.get(f, 0) - base.get(f, 0):+8,.0f}  {f[:110]}")
