#!/usr/bin/env python3
"""Where one client's resident memory exceeds another's: by kind, by mapping, and module by module.

    python3 Benchmarks/resident-memory.py BINARY PEER_SMAPS NET_SMAPS

Each SMAPS file is what NetLoad writes when NETLOAD_SMAPS names it (its /proc/self/smaps at the
end of the run), with SMAPS.pages beside it (which pages of the binary's code were in the
process's page table). Prints, peer then Net then the difference, in KiB:
- resident memory by kind: the binary's code (its executable mapping), the binary's other
  mappings, shared libraries, and anonymous memory (unnamed mappings, [heap], [stack]);
- the mappings that differ most (by file name and permissions);
- the binary's resident code by module: each resident page is shared among the text symbols on it
  (`nm -n -S` of BINARY) in proportion to their bytes there, a symbol's module being the one its
  Swift mangling names first (so a specialization of NIO's code made in Net's module counts as
  NIO's; "swift-other" for Swift symbols of no module prefix, "C/other" for the rest, "no symbol"
  for pages without a text symbol, such as read-only data), beside each module's text symbol bytes.
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
            fields = line.split(maxsplit=5)
            name = fields[5].strip().split("/")[-1] if len(fields) > 5 else "[anon]"
            current = (name, fields[1])
        elif line.startswith("Rss:"):
            resident[current] += int(line.split()[1])
    return resident


def kinds(resident, binary_name):
    totals = collections.Counter()
    for (name, permissions), kib in resident.items():
        if name == binary_name:
            totals["the binary's code" if "x" in permissions else "the binary's other mappings"] += kib
        elif name.startswith("[") or name == "":
            totals["anonymous ([anon], [heap], [stack])"] += kib
        else:
            totals["shared libraries and other files"] += kib
    return totals


def symbols(binary):
    listing = subprocess.run(["nm", "-n", "-S", "-t", "x", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[2] not in ("t", "T", "W", "w", "i"):
            continue
        match = re.match(r"\$s(\d+)([A-Za-z_]\w*)", fields[3])
        if match:
            module = match.group(2)[: int(match.group(1))]
        else:
            module = "swift-other" if fields[3].startswith("$s") else "C/other"
        found.append((int(fields[0], 16), int(fields[1], 16), module))
    return found


def code_segment_starts_at_zero(binary):
    """nm's addresses are offsets in the code mapping only if the first LOAD segment maps file
    offset 0 at address 0."""
    headers = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    first = next(line.split() for line in headers.splitlines() if line.strip().startswith("LOAD"))
    return int(first[1], 16) == 0 and int(first[2], 16) == 0


def code_by_module(pages_path, found):
    starts = [start for start, _, _ in found]
    lines = open(pages_path).read().split("\n")
    if len(lines) < 2 or not lines[1]:
        sys.exit(f"{pages_path}: no code pages saved")
    header, bits = lines[0].split(), lines[1]
    if header[1] != "00000000":
        sys.exit(f"{pages_path}: the code mapping does not start at file offset 0")
    page_size = int(header[2])
    resident = collections.Counter()
    for page, bit in enumerate(bits):
        if bit != "1":
            continue
        low, high = page * page_size, (page + 1) * page_size
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
            resident["no symbol"] += page_size / 1024
        for module, share in shares.items():
            resident[module] += page_size / 1024 * share / total
    return resident


def differences(peer, net, limit, extra=None):
    print(f"  total: {sum(peer.values()):.0f} against {sum(net.values()):.0f} KiB, {sum(net.values()) - sum(peer.values()):+.0f}")
    keys = sorted(set(peer) | set(net), key=lambda key: -abs(net[key] - peer[key]))
    for key in keys[:limit]:
        if round(net[key] - peer[key]):
            note = f"  (text symbols: {extra[key] / 1024:.0f} KiB)" if extra is not None else ""
            print(f"  {net[key] - peer[key]:+7.0f}  {peer[key]:7.0f} {net[key]:7.0f}  {key}{note}")


binary, peer_smaps, net_smaps = sys.argv[1:4]
if not code_segment_starts_at_zero(binary):
    sys.exit(f"{binary}: its first LOAD segment does not map offset 0 at address 0; the code attribution would be wrong")
binary_name = binary.split("/")[-1]
peer_mappings, net_mappings = mappings(peer_smaps), mappings(net_smaps)
print("resident KiB by kind (peer, Net):")
differences(kinds(peer_mappings, binary_name), kinds(net_mappings, binary_name), 4)
print("resident KiB by mapping (peer, Net), the eight largest differences:")
differences(peer_mappings, net_mappings, 8)
found = symbols(binary)
text = collections.Counter()
for _, size, module in found:
    text[module] += size
print("the binary's resident code, KiB by module (peer, Net), the ten largest differences:")
differences(code_by_module(peer_smaps + ".pages", found), code_by_module(net_smaps + ".pages", found), 10, text)
