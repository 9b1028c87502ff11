#!/usr/bin/env bash
# §2's 100 MB transfers and §7's 1 GiB stream (Docs/Benchmarks.md) as medians of 5 processes: a
# NetLoad server pinned to core 1; each client in a process of its own pinned to core 0, which
# makes one transfer to warm up and times the next (`NetLoad transfer`, the calls package-benchmark's
# benchmarks make, through the same four clients). Five rounds, each running every client once per
# workload, the clients' order turned by one each round (every client goes first once and last
# once), so that whatever the machine does meanwhile falls on every client alike.
#
#     bash Benchmarks/transfers.sh            # about 2 minutes on the 2-vCPU VM, once NetLoad is built
#
# Prints each process's line as it ends, then per workload and client the median of the 5
# processes' wall clock, CPU and peak resident memory, with min–max (Benchmarks/medians.py).
# A process that fails stops the run, its output and errors on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
lines=$(mktemp)
errors=$(mktemp)
remove_on_exit+=("$lines" "$errors")

clients=(raw-urlsession net-urlsession-client raw-ahc net-ahc-client)
for ((round = 0; round < ${NETLOAD_ROUNDS:-5}; round++)); do  # NETLOAD_ROUNDS=N: N rounds (odd, for a median)
    for workload in get100mb dlfile100mb up100mb upfile100mb stream1g; do
        for turn in 0 1 2 3; do
            client=${clients[(round + turn) % 4]}
            if ! out=$(taskset -c 0 "$netload" transfer "$client" "$workload" "$url" 1 2>"$errors"); then
                echo "transfers.sh: $client $workload failed in round $((round + 1)):" >&2
                cat "$errors" >&2
                exit 1
            fi
            echo "[round $((round + 1))] $(tail -1 <<<"$out")" | tee -a "$lines"
        done
    done
done
echo
python3 Benchmarks/medians.py <"$lines"
