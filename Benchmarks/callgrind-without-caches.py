#!/usr/bin/env python3
"""Instructions per call, in all and without the Swift runtime's metadata and conformance cache
lookups, from pairs of callgrind files (Benchmarks/instructions.sh's output; the notebook's
"Fewer async frames"):

    python3 Benchmarks/callgrind-without-caches.py CALLS DIR/CLIENT [DIR/CLIENT ...]

Each DIR/CLIENT names the files DIR/CLIENT.N.out and DIR/CLIENT.2N.out; CALLS is 2N, the calls
the longer run adds (each run makes a warm-up and a timed run), as instructions.sh passes it.
The lookups' probes depend on how the process's caches filled, which differs between runs of one
build, so they move a client's total by thousands of instructions; the rest is steadier. A change
that adds or removes lookups shows in their count (`callgrind-calls.py CALLS
swift_getGenericMetadata ...`), not here.
"""
import re
import sys

source = open(__file__.replace("callgrind-without-caches.py", "callgrind-per-call.py")).read()
namespace = {}
exec(source.split("calls = int(sys.argv[1])")[0], namespace)  # its self_costs, without running it

CACHES = re.compile(r"HashMapElementWrapper|MetadataCacheKey|ConcurrentReadableHashMap|LockingConcurrentMap|getCache"
                    r"|conformsToProtocol|ConformanceCandidate|_swift_getGenericMetadata|MetadataResponse")
calls = int(sys.argv[1])
for prefix in sys.argv[2:]:
    directory, client = prefix.rsplit("/", 1) if "/" in prefix else (".", prefix)
    files = sorted(
        (int(match.group(1)), f"{directory}/{name}")
        for name in __import__("os").listdir(directory)
        if (match := re.fullmatch(re.escape(client) + r"\.(\d+)\.out", name)))
    (short, _), (long, _) = namespace["self_costs"](files[0][1]), namespace["self_costs"](files[-1][1])
    per_call = {f: (long[f] - short[f]) / calls for f in set(short) | set(long)}
    total = sum(per_call.values())
    caches = sum(cost for function, cost in per_call.items() if CACHES.search(function))
    print(f"{prefix}: {total:,.0f} per call; the runtime's cache lookups {caches:,.0f}; the rest {total - caches:,.0f}")
