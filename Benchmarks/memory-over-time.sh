#!/usr/bin/env bash
# §5 of Docs/Benchmarks.md as medians of processes: memory and open descriptors over 100,000 small
# GETs with 64 in flight, through each of §2's four clients (`NetLoad memory`: one session or
# client per process, 8 connections, read before the first call, after 10 % and 50 % and after the
# last). A NetLoad server pinned to core 1; each client in a process of its own pinned to core 0,
# in 5 rounds (NETLOAD_ROUNDS), the order changing each round (Benchmarks/rounds.sh).
#
#     bash Benchmarks/memory-over-time.sh      # about 5 minutes on the 2-vCPU VM, once NetLoad is built
#     NETLOAD_ROUNDS=N bash Benchmarks/memory-over-time.sh   # N rounds (odd, for a median)
#
# Prints each process's line as it ends, then per client the median of every reading across the
# processes, with min–max (Benchmarks/medians.py). A process with a failed call stops the run.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
source Benchmarks/rounds.sh  # $rounds, ordered, record, summarise
for ((round = 1; round <= rounds; round++)); do
    for client in $(ordered "$round" raw-urlsession net-urlsession-client raw-ahc net-ahc-client); do
        record "$round" "" taskset -c 0 "$netload" memory "$client" "$url"
    done
done
summarise
