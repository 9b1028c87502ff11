#!/usr/bin/env bash
# Side-by-side figures (Docs/Benchmarks.md §0): a NetLoad server pinned to core 1, each client in
# a process of its own pinned to core 0, 5 runs each after a warm-up (median, min–max).
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
run() {  # label, binary, arguments…
    local label=$1 binary=$2 out
    shift 2
    # Assigned first, so that a client that fails (or a "before" binary without a workload) stops the run.
    out=$("${scheduling[@]}" taskset -c 0 "$binary" "$@")
    echo "[$label] $(tail -1 <<<"$out")"
}
for workload in seq par64; do
    requests=20000
    [ "$workload" = seq ] && requests=10000
    for client in raw-ahc net-ahc-client net-ahc raw-urlsession raw-urlsession-delegate net-urlsession-client net-urlsession; do
        if [ -n "$before" ] && [ "${client#net-}" != "$client" ]; then
            run before "$before" run "$client" "$workload" "$url" "$requests" 5
        fi
        run after "$after" run "$client" "$workload" "$url" "$requests" 5
    done
done
# A small body read as it arrives (requestStream; raw AsyncHTTPClient iterates its body).
for client in raw-ahc net-ahc-client; do
    if [ -n "$before" ] && [ "${client#net-}" != "$client" ]; then
        run before "$before" run "$client" seqstream "$url" 10000 5
    fi
    run after "$after" run "$client" seqstream "$url" 10000 5
done
for scenario in canned canned-client canned-stream stub client; do
    [ -n "$before" ] && run before "$before" session "$scenario" 100000 5
    run after "$after" session "$scenario" 100000 5
done
# The session layer alone with 64 calls in flight: what concurrency adds to its cost.
[ -n "$before" ] && run before "$before" session canned-client 100000 5 64
run after "$after" session canned-client 100000 5 64
