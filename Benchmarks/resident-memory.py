#!/usr/bin/env python3
"""Where one client's resident memory exceeds another's, mapping by mapping and module by module.

    python3 Benchmarks/resident-memory.py BINARY PEER_SMAPS NET_SMAPS

Each SMAPS file is what NetLoad writes when NETLOAD_SMAPS names it (its /proc/self/smaps at the
end of the run), with SMAPS.pages beside it (which pages of the binary's code were in the
process's page table). Prints the resident KiB of each mapping that differs (by file name and
permissions), then the binary's resident code attributed to modules: each resident page is shared
among the symbols on it (`nm -n -S` of BINARY) in proportion to their bytes there, a symbol's
module being the one its Swift mangling names ("swift-other" for Swift symbols of the standard
library's or no module's prefix, "C/other" for the rest, "no symbol" for read-only data).
"""
import bisect
import collections
import re
import subprocess
import sys


def mappings(path):
    resident = collections.Counter()
    current = None
    for line in open(path, errors="replace"):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            fields = line.split()
            name = fields[5].split("/")[-1] if len(fields) > 5 else "[anon]"
            current = (name, fields[1])
        elif line.startswith("Rss:"):
            resident[current] += int(line.split()[1])
    return resident


def symbols(binary):
    listing = subprocess.run(["nm", "-n", "-S", "-t", "x", binary], capture_output=True, text=True).stdout
    found = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[2] not in ("t", "T"):
            continue
        match = re.match(r"\$s(\d+)([A-Za-z_]\w*)", fields[3])
        if match:
            module = match.group(2)[: int(match.group(1))]
        else:
            module = "swift-other" if fields[3].startswith("$s") else "C/other"
        found.append((int(fields[0], 16), int(fields[1], 16), module))
    return found


def code_by_module(pages_path, found):
    starts = [start for start, _, _ in found]
    lines = open(pages_path).read().split("\n")
    # The first mapping: the binary's code, from file offset 0 (addresses in nm are offsets).
    header, bits = lines[0].split(), lines[1]
    if header[1] != "00000000":
        sys.exit(f"{pages_path}: the code mapping does not start at file offset 0")
    resident = collections.Counter()
    for page, bit in enumerate(bits):
        if bit != "1":
            continue
        low, high = page * 4096, page * 4096 + 4096
        shares = collections.Counter()
        i = max(bisect.bisect_right(starts, low) - 1, 0)
        while i < len(found) and found[i][0] < high:
            start, size, module = found[i]
            overlap = min(high, start + size) - max(low, start)
            if overlap > 0:
                shares[module] += overlap
            i += 1
        total = sum(shares.values())
        if total == 0:
            resident["no symbol"] += 4
        for module, share in shares.items():
            resident[module] += 4 * share / total
    return resident


def differences(peer, net, limit):
    print(f"  total: {sum(peer.values()):.0f} against {sum(net.values()):.0f} KiB, {sum(net.values()) - sum(peer.values()):+.0f}")
    keys = sorted(set(peer) | set(net), key=lambda key: -abs(net[key] - peer[key]))
    for key in keys[:limit]:
        if round(net[key] - peer[key]):
            print(f"  {net[key] - peer[key]:+7.0f}  {peer[key]:7.0f} {net[key]:7.0f}  {key}")


binary, peer_smaps, net_smaps = sys.argv[1:4]
print("resident KiB by mapping (peer, Net):")
differences(mappings(peer_smaps), mappings(net_smaps), 8)
found = symbols(binary)
print("the binary's resident code, KiB by module (peer, Net):")
differences(code_by_module(peer_smaps + ".pages", found), code_by_module(net_smaps + ".pages", found), 10)
