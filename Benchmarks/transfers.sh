#!/usr/bin/env bash
# §2's 100 MB transfers and §7's 1 GiB stream (Docs/Benchmarks.md) as medians of 5 processes: a
# NetLoad server pinned to core 1; each client in a process of its own pinned to core 0, which
# makes one transfer to warm up and times the next (`NetLoad transfer`, the calls package-benchmark's
# benchmarks make, through the same four clients). Five rounds, each running every client once per
# workload in turn, so that whatever the machine does meanwhile falls on every client alike.
#
#     bash Benchmarks/transfers.sh            # about 3 minutes on the 2-vCPU VM
#
# Prints each process's line as it ends, then per workload and client the median of the 5
# processes' wall clock, CPU and peak resident memory, with min–max (Benchmarks/transfers-summary.py).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
lines=$(mktemp)
trap 'kill $server 2>/dev/null; rm -f "$log" "$lines"' EXIT

for round in 1 2 3 4 5; do
    for workload in get100mb dlfile100mb up100mb upfile100mb stream1g; do
        for client in raw-urlsession net-urlsession raw-ahc net-ahc; do
            # Assigned first, so that a client that fails stops the run.
            out=$(taskset -c 0 "$netload" transfer "$client" "$workload" "$url" 1)
            echo "[round $round] $(tail -1 <<<"$out")" | tee -a "$lines"
        done
    done
done
echo
python3 Benchmarks/transfers-summary.py <"$lines"
