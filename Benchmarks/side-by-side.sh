#!/usr/bin/env bash
# Side-by-side figures (Docs/Benchmarks.md §0): a NetLoad server pinned to core 1, each client in
# 5 processes of its own pinned to core 0, each making one warm-up run and one timed run; the
# clients alternated in 5 rounds, in an order that changes each round (Benchmarks/rounds.sh).
# Prints each process's line as it ends, then each figure's median across the 5 processes with
# min–max (Benchmarks/medians.py). NETLOAD_ROUNDS=N runs N rounds instead (odd, for a median).
#
#     bash Benchmarks/side-by-side.sh                      # the current build
#     bash Benchmarks/side-by-side.sh /tmp/NetLoad-before  # alternate with another build of NetLoad
#
# With a second binary, each Net client runs with it ("before") and with the current build
# ("after") in turn, so both sets of figures come from one run on the same server. Build the
# "before" binary from the current Benchmarks sources (it must know every workload run here).
#
# NETLOAD_BATCH=1 runs every client under SCHED_BATCH (`chrt -b 0`): no wake-up preemption, so
# the client's threads (Swift's pool, SwiftNIO's event loops) stop ping-ponging on their one core.
# Raw and Net alike; the ranges get narrow enough to A/B a change of a few per cent.
#
# NETLOAD_POLL_IDLE=1 keeps idle vCPUs polling for the run (Benchmarks/poll-idle.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
after=Benchmarks/.build/release/NetLoad
before=${1:-}
netload=$after
source Benchmarks/netload-server.sh  # $server on core 1, $url

source Benchmarks/poll-idle.sh  # NETLOAD_POLL_IDLE=1: idle vCPUs poll
scheduling=()
[ -n "${NETLOAD_BATCH:-}" ] && scheduling=(chrt -b 0)
source Benchmarks/rounds.sh  # $rounds, ordered, record, summarise
run() {  # round, label, binary, arguments…: a client that fails (or a "before" binary without a workload) stops the run
    local round=$1 label=$2 binary=$3
    shift 3
    record "$round" "[$label] " "${scheduling[@]}" taskset -c 0 "$binary" "$@"
}
both() {  # round, arguments…: with a "before" binary, Net's clients and sessions run with both,
          # "before" first in odd rounds and "after" first in even ones
    local round=$1
    shift
    if [ -n "$before" ] && { [ "$1" = session ] || [ "${2#net-}" != "$2" ]; }; then
        if (( round % 2 == 1 )); then
            run "$round" before "$before" "$@"
            run "$round" after "$after" "$@"
        else
            run "$round" after "$after" "$@"
            run "$round" before "$before" "$@"
        fi
    else
        run "$round" after "$after" "$@"
    fi
}
for ((round = 1; round <= rounds; round++)); do
    for workload in seq par64; do
        requests=20000
        [ "$workload" = seq ] && requests=10000
        for client in $(ordered "$round" raw-ahc net-ahc-client net-ahc raw-urlsession raw-urlsession-delegate net-urlsession-client net-urlsession); do
            both "$round" run "$client" "$workload" "$url" "$requests" 1
        done
    done
    # A small body read as it arrives (requestStream; raw AsyncHTTPClient iterates its body).
    for client in $(ordered "$round" raw-ahc net-ahc-client); do
        both "$round" run "$client" seqstream "$url" 10000 1
    done
    for scenario in $(ordered "$round" canned canned-client canned-stream stub client); do
        both "$round" session "$scenario" 100000 1
    done
    # The session layer alone with 64 calls in flight: what concurrency adds to its cost.
    both "$round" session canned-client 100000 1 64
done
summarise
