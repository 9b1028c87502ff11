"""Docs/Benchmarks.md's side-by-side tables (§0, §2, §5, §7, §11) from a run of Benchmarks/full-run.sh:

    python3 Benchmarks/render-tables.py RUN-DIRECTORY                         # prints them
    python3 Benchmarks/render-tables.py RUN-DIRECTORY --write Docs/Benchmarks.md

Each table is the medians across processes (Benchmarks/medians.py) of the run's logs, in the
page's format: figures as medians with min–max, ratios of medians (Net ÷ raw for rates and CPU,
raw ÷ Net for times, more decimals where two would round onto a target's 0.9, 0.95 or 1.1). With
`--write`, each table in the page whose header row matches is replaced; the prose around them,
the targets table, §12 and the other pages quote the same figures and are updated by hand, with
the extra figures printed after the tables."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from medians import PEERS, PREFIXES, median, read  # noqa: E402


def load(run, name):
    """The run's log `name` as {"CLIENT WORKLOAD": [process figures]}, without the scripts' prefixes."""
    path = os.path.join(run, name)
    if not os.path.exists(path):
        sys.exit(f"render-tables.py: no {path}")
    with open(path) as log:
        processes = read(line for line in log if line.startswith("[round"))
    named = {}
    for what, figures in processes.items():
        words = [w for w in what.split(" ") if w != "[after]" and w not in PREFIXES]
        if "[before]" in words:
            continue
        if len(figures) % 2 == 0:
            sys.exit(f"render-tables.py: {what} in {name} has {len(figures)} processes; the median needs an odd count")
        named[" ".join(words)] = figures
    return named


def values(log, key, unit):
    if key not in log:
        sys.exit(f"render-tables.py: no {key!r} in the run's logs")
    return [process[unit] for process in log[key]]


def mid(log, key, unit):
    return median(values(log, key, unit))


def whole(value):
    return f"{value:,.0f}"


def two(value):
    return f"{value:.2f}"


def spread(log, key, unit, show=whole):
    found = values(log, key, unit)
    return f"{show(median(found))} ({show(min(found))}–{show(max(found))})"


# The targets ratios are read against (Docs/Benchmarks.md): 0.9× and 0.95× of a speed, 1.1× of a CPU.
SPEED_TARGETS = (0.9, 0.95)
CPU_TARGETS = (1.1,)


def ratio(value, targets=SPEED_TARGETS):
    """Two decimals, or as many more as it takes for the figure not to round onto a target and
    hide which side it is on (a value exactly on a target shows as the target)."""
    for places in range(2, 8):
        if not any(abs(round(value, places) - target) < 10 ** -(places + 1) for target in targets):
            return f"{value:.{places}f}"
    return f"{value:.2f}"  # on a target to eight places: as the target


def mib(kib):
    return kib / 1024


class Pair:
    """A part run as booted and with idle vCPUs polling: each cell is `booted / polling`."""

    def __init__(self, booted, polling):
        self.logs = (booted, polling)

    def cell(self, show):
        return " / ".join(show(log) for log in self.logs)


def section0(part):
    def rate(client, workload):
        return part.cell(lambda log: spread(log, f"{client} {workload}", "req/s"))

    def faster(net, raw, workload):
        return part.cell(lambda log: ratio(mid(log, f"{net} {workload}", "req/s") / mid(log, f"{raw} {workload}", "req/s")))

    def cpu(client, workload):
        return part.cell(lambda log: f"{two(mid(log, f'{client} {workload}', 'µs CPU/request'))} "
                                     f"({two(mid(log, f'{client} {workload}', 'context switches/request'))})")

    def costlier(net, raw, workload):
        return part.cell(lambda log: ratio(mid(log, f"{net} {workload}", "µs CPU/request") / mid(log, f"{raw} {workload}", "µs CPU/request"), CPU_TARGETS))

    def memory(client, workload):
        return part.cell(lambda log: f"{whole(mid(log, f'{client} {workload}', 'peak heap in use'))} "
                                     f"({whole(mid(log, f'{client} {workload}', 'peak RSS'))})")

    net, raw = "net-ahc-client", "raw-ahc"
    rows = [
        "| AsyncHTTPClient, small GET | raw AsyncHTTPClient | Net | Net ÷ raw |", "| --- | --- | --- | --- |",
        f"| one after another, into memory: req/s | {rate(raw, 'seq')} | {rate(net, 'seq')} | **{faster(net, raw, 'seq')}** |",
        f"| … CPU µs per call (context switches per call) | {cpu(raw, 'seq')} | {cpu(net, 'seq')} | {costlier(net, raw, 'seq')} |",
        f"| … through a session actor (`net-ahc`): req/s | | {rate('net-ahc', 'seq')} | {faster('net-ahc', raw, 'seq')} |",
        f"| one after another, read as it arrives (`seqstream`): req/s | {rate(raw, 'seqstream')} | {rate(net, 'seqstream')} | **{faster(net, raw, 'seqstream')}** |",
        f"| … CPU µs per call (context switches per call) | {cpu(raw, 'seqstream')} | {cpu(net, 'seqstream')} | {costlier(net, raw, 'seqstream')} |",
        f"| 64 in flight: req/s | {rate(raw, 'par64')} | {rate(net, 'par64')} | **{faster(net, raw, 'par64')}** |",
        f"| … CPU µs per call (context switches per call) | {cpu(raw, 'par64')} | {cpu(net, 'par64')} | {costlier(net, raw, 'par64')} |",
        f"| … peak heap in use, KiB (peak resident, KiB) | {memory(raw, 'par64')} | {memory(net, 'par64')} | |",
        f"| … through a session actor: req/s | | {rate('net-ahc', 'par64')} | {faster('net-ahc', raw, 'par64')} |",
        "",
        "| URLSession, small GET | raw URLSession | raw URLSession, delegate | Net | Net ÷ raw (÷ delegate peer) |",
        "| --- | --- | --- | --- | --- |",
    ]
    net, raw, delegate = "net-urlsession-client", "raw-urlsession", "raw-urlsession-delegate"
    for workload, label, actor in [("seq", "one after another", " (`net-urlsession`)"), ("par64", "64 in flight", "")]:
        rows += [
            f"| {label}: req/s | {rate(raw, workload)} | {rate(delegate, workload)} | {rate(net, workload)} | "
            f"**{faster(net, raw, workload)}** ({faster(net, delegate, workload)}) |",
            f"| … CPU µs per call (context switches per call) | {cpu(raw, workload)} | {cpu(delegate, workload)} | {cpu(net, workload)} | "
            f"{costlier(net, raw, workload)} ({costlier(net, delegate, workload)}) |",
            f"| … peak heap in use, KiB (peak resident, KiB) | {memory(raw, workload)} | {memory(delegate, workload)} | {memory(net, workload)} | |",
            f"| … through a session actor{actor}: req/s | | | {rate('net-urlsession', workload)} | {faster('net-urlsession', raw, workload)} |",
        ]
    rows += ["", "| Scenario | µs per call |", "| --- | --- |"]
    scenarios = [
        ("session canned-client ×1", "`canned-client`: `NetworkClient`, `requestData`"),
        ("session canned-client ×64", "… with 64 calls in flight (peak heap {heap} KiB)"),
        ("session canned-stream ×1", "`canned-stream`: `NetworkClient`, `requestStream` read to its end"),
        ("session canned ×1", "`canned`: a session of your own (the protocol's defaults)"),
        ("session stub ×1", "`stub`: the same on `StubTransport`"),
        ("session client ×1", "`client`: `NetworkClient` with `RetryPolicy` on `StubTransport`"),
    ]
    for key, label in scenarios:
        label = label.format(heap=part.cell(lambda log: whole(mid(log, key, "peak heap in use"))))
        rows.append(f"| {label} | {part.cell(lambda log: spread(log, key, 'µs CPU/request', two))} |")
    def switches(client):
        return [mid(log, f"{client} {w}", "context switches/request") for log in part.logs for w in ("seq", "seqstream")]

    rows += ["", "For the prose:",
             f"- context switches per call one after another, Net {min(switches('net-ahc-client')):.1f} to "
             f"{max(switches('net-ahc-client')):.1f}, raw AsyncHTTPClient {min(switches('raw-ahc')):.1f} to {max(switches('raw-ahc')):.1f}",
             "- 64 in flight, Net's peak heap above raw's, KiB: "
             + part.cell(lambda log: whole(mid(log, "net-ahc-client par64", "peak heap in use") - mid(log, "raw-ahc par64", "peak heap in use")))
             + "; peak resident, MiB: "
             + part.cell(lambda log: f"{mib(mid(log, 'net-ahc-client par64', 'peak RSS') - mid(log, 'raw-ahc par64', 'peak RSS')):.1f}")]
    return rows


TRANSFERS = [("get100mb", "download to memory"), ("dlfile100mb", "download to a file"),
             ("up100mb", "upload from memory (`Data`)"), ("upfile100mb", "upload from a file")]
PEER = {net: peers[0] for net, peers in PEERS.items()}  # Net's client → the raw client under it


def section2(log):
    def cell(key):
        return f"{spread(log, key, 'ms')}, {mib(mid(log, key, 'peak RSS')):.0f} MiB"

    def faster(net, workload):
        return ratio(mid(log, f"{PEER[net]} {workload}", "ms") / mid(log, f"{net} {workload}", "ms"))

    rows = ["| 100 MB: ms (min–max), peak MiB | raw URLSession | Net on URLSessionTransport | raw ÷ Net time | raw AsyncHTTPClient | Net on AsyncHTTPClientTransport | raw ÷ Net time |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for workload, label in TRANSFERS:
        rows.append(f"| {label} | {cell('raw-urlsession ' + workload)} | {cell('net-urlsession-client ' + workload)} | "
                    f"**{faster('net-urlsession-client', workload)}** | {cell('raw-ahc ' + workload)} | {cell('net-ahc-client ' + workload)} | "
                    f"**{faster('net-ahc-client', workload)}** |")
    rows += ["", "For the prose (the four workloads in turn):"]
    for client in ("raw-urlsession", "net-urlsession-client", "raw-ahc", "net-ahc-client"):
        keys = [f"{client} {workload}" for workload, _ in TRANSFERS]
        rows.append(f"- {client}: CPU ms " + ", ".join(whole(mid(log, key, "ms CPU")) for key in keys)
                    + "; peak MiB across processes " + ", ".join(f"{mib(min(values(log, key, 'peak RSS'))):.0f}–{mib(max(values(log, key, 'peak RSS'))):.0f}" for key in keys))
    return rows


def section7(log):
    rows = ["| Client | wall clock (min–max) | CPU (min–max) | peak resident (min–max) |", "| --- | --- | --- | --- |"]
    for client, label in [("raw-ahc", "raw AsyncHTTPClient"), ("net-ahc-client", "Net `requestStream` on AsyncHTTPClientTransport"),
                          ("raw-urlsession", "raw URLSession through a delegate"), ("net-urlsession-client", "Net `requestStream` on URLSessionTransport")]:
        key = f"{client} stream1g"
        peaks = [mib(v) for v in values(log, key, "peak RSS")]
        rows.append(f"| {label} | {spread(log, key, 'ms').replace(' (', ' ms (', 1)} | {spread(log, key, 'ms CPU').replace(' (', ' ms (', 1)} | "
                    f"{median(peaks):.0f} MiB ({min(peaks):.0f}–{max(peaks):.0f}) |")
    rows += ["", "For the prose:"]
    for net in ("net-ahc-client", "net-urlsession-client"):
        raw = f"{PEER[net]} stream1g"
        rows.append(f"- {net}: raw ÷ Net time {ratio(mid(log, raw, 'ms') / mid(log, f'{net} stream1g', 'ms'))}, "
                    f"Net ÷ raw CPU {ratio(mid(log, f'{net} stream1g', 'ms CPU') / mid(log, raw, 'ms CPU'), CPU_TARGETS)}, "
                    f"peak MiB {mib(mid(log, f'{net} stream1g', 'peak RSS')):.1f} against {mib(mid(log, raw, 'peak RSS')):.1f}")
    return rows


MOMENTS = ["at start", "after 10%", "after 50%", "at end"]


def section5(log):
    rows = ["| 100,000 GETs, 64 in flight | " + " | ".join(MOMENTS) + " | growth per call after 10 % | calls per second |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for client, label in [("raw-urlsession", "raw URLSession"), ("net-urlsession-client", "Net on URLSessionTransport"),
                          ("raw-ahc", "raw AsyncHTTPClient"), ("net-ahc-client", "Net on AsyncHTTPClientTransport")]:
        key = f"{client} par64"
        rows += [
            f"| {label}: resident, MiB | " + " | ".join(spread(log, key, f"MiB resident {moment}", lambda v: f"{v:.1f}") for moment in MOMENTS)
            + f" | {spread(log, key, 'KiB growth per call after 10%', two)} KiB | {spread(log, key, 'req/s')} |",
            "| … open descriptors | " + " | ".join(spread(log, key, f"descriptors {moment}") for moment in MOMENTS) + " | | |",
        ]
    rows += ["", "For the prose:"]
    for net in ("net-urlsession-client", "net-ahc-client"):
        raw = f"{PEER[net]} par64"
        rows.append(f"- {net}: growth per call after 10 % {two(mid(log, f'{net} par64', 'KiB growth per call after 10%'))} KiB "
                    f"against {two(mid(log, raw, 'KiB growth per call after 10%'))}; at end {mid(log, f'{net} par64', 'MiB resident at end'):.1f} "
                    f"MiB against {mid(log, raw, 'MiB resident at end'):.1f}; CPU µs per call {two(mid(log, f'{net} par64', 'µs CPU/request'))} "
                    f"against {two(mid(log, raw, 'µs CPU/request'))}")
    return rows


def section11(part):
    rows = []
    for peer, net, title, name in [("openapi-ahc", "net-ahc", "On AsyncHTTPClient", "swift-openapi-async-http-client"),
                                   ("openapi-urlsession", "net-urlsession", "On URLSession", "swift-openapi-urlsession")]:
        def memory(key):
            return part.cell(lambda log: f"{whole(mid(log, key, 'peak heap in use'))} ({mib(mid(log, key, 'peak RSS')):.1f})")

        def against(workload, unit):
            targets = CPU_TARGETS if "CPU" in unit else SPEED_TARGETS
            return part.cell(lambda log: ratio(mid(log, f"{net} {workload}", unit) / mid(log, f"{peer} {workload}", unit), targets))

        rows += [f"| {title} | {name} | Net (`NetOpenAPITransport`) | Net ÷ peer |", "| --- | --- | --- | --- |"]
        for workload, label in [("seq", "`listItems` one after another"), ("par64", "`listItems`, 64 in flight")]:
            rows += [
                f"| {label}: req/s | {part.cell(lambda log: spread(log, f'{peer} {workload}', 'req/s'))} | "
                f"{part.cell(lambda log: spread(log, f'{net} {workload}', 'req/s'))} | **{against(workload, 'req/s')}** |",
                f"| … CPU µs per call | {part.cell(lambda log: two(mid(log, f'{peer} {workload}', 'µs CPU/request')))} | "
                f"{part.cell(lambda log: two(mid(log, f'{net} {workload}', 'µs CPU/request')))} | {against(workload, 'µs CPU/request')} |",
                f"| … peak heap in use, KiB (peak resident, MiB) | {memory(f'{peer} {workload}')} | {memory(f'{net} {workload}')} | |",
            ]
        rows += [
            f"| 100 MB download: MB/s | {part.cell(lambda log: spread(log, f'{peer} download', 'MB/s'))} | "
            f"{part.cell(lambda log: spread(log, f'{net} download', 'MB/s'))} | **{against('download', 'MB/s')}** |",
            f"| … peak resident, MiB | {part.cell(lambda log: format(mib(mid(log, peer + ' download', 'peak RSS')), '.1f'))} | "
            f"{part.cell(lambda log: format(mib(mid(log, net + ' download', 'peak RSS')), '.1f'))} | |",
            "",
        ]
    return rows[:-1]


def tables(rows):
    """The markdown tables among `rows`, each a list of lines."""
    found, table = [], []
    for row in rows + [""]:
        if row.startswith("|"):
            table.append(row)
        elif table:
            found.append(table)
            table = []
    return found


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--write"):
        sys.exit(__doc__)
    run = sys.argv[1]
    transfers = load(run, "transfers.txt")
    rows = (section0(Pair(load(run, "side-by-side.txt"), load(run, "side-by-side-polling.txt"))) + [""]
            + section2(transfers) + [""] + section5(load(run, "memory-over-time.txt")) + [""]
            + section7(transfers) + [""]
            + section11(Pair(load(run, "openapi.txt"), load(run, "openapi-polling.txt"))))
    if len(sys.argv) == 2:
        print("\n".join(rows))
        return
    path = sys.argv[3]
    with open(path) as page:
        lines = page.read().split("\n")
    for table in tables(rows):
        starts = [i for i, line in enumerate(lines) if line == table[0]]
        if len(starts) != 1:
            sys.exit(f"render-tables.py: {len(starts)} tables in {path} with the header {table[0]!r}, not one")
        start = starts[0]
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        lines[start:end] = table
    with open(path, "w") as page:
        page.write("\n".join(lines))
    print("\n".join(row for row in rows if not row.startswith("|")).strip())


if __name__ == "__main__":
    main()
