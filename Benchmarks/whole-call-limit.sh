#!/usr/bin/env bash
# Raw AsyncHTTPClient with the limit Net's calls have, side by side (Docs/Benchmarks.md §12,
# "A limit on the whole call"): `raw-ahc` (its async API: `execute(_:timeout:)`, whose limit ends
# when the head arrives), `raw-ahc-whole-call` (its EventLoopFuture API: `execute(request:deadline:)`,
# whose limit covers the body too, as a `requestData` call's 60 s does) and `net-ahc-client`,
# small GETs one after another and 64 in flight. As side-by-side.sh: a NetLoad server on core 1,
# each client in 5 processes on core 0, alternated in rounds (Benchmarks/rounds.sh), then the
# medians with min–max.
#
#     bash Benchmarks/whole-call-limit.sh
#     NETLOAD_POLL_IDLE=1 bash Benchmarks/whole-call-limit.sh   # idle vCPUs polling
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
source Benchmarks/poll-idle.sh        # NETLOAD_POLL_IDLE=1: idle vCPUs poll
source Benchmarks/rounds.sh           # $rounds, ordered, record, summarise
for ((round = 1; round <= rounds; round++)); do
    for workload in seq par64; do
        requests=20000
        [ "$workload" = seq ] && requests=10000
        for client in $(ordered "$round" raw-ahc raw-ahc-whole-call net-ahc-client); do
            record "$round" "" taskset -c 0 "$netload" run "$client" "$workload" "$url" "$requests" 1
        done
    done
done
summarise
