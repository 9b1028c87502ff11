#!/usr/bin/env bash
# The OpenAPI comparison (Docs/Benchmarks.md §11): the generated client of
# Tests/NetOpenAPITests/OpenAPI/openapi.yaml on Net's transports (through NetOpenAPITransport) and
# on the two published OpenAPI transports, a NetLoad server pinned to core 1, each client in a
# process of its own pinned to core 0, 5 runs each after a warm-up (median, min–max, peak RSS).
#
#     bash Benchmarks/openapi-side-by-side.sh
#     NETLOAD_POLL_IDLE=1 bash Benchmarks/openapi-side-by-side.sh  # idle vCPUs poll (Benchmarks/poll-idle.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
source Benchmarks/poll-idle.sh  # NETLOAD_POLL_IDLE=1: idle vCPUs poll

for workload in seq par64 download; do
    amount=20000                           # calls
    [ "$workload" = seq ] && amount=10000
    [ "$workload" = download ] && amount=100  # MB
    for client in openapi-ahc net-ahc openapi-urlsession net-urlsession; do
        out=$(taskset -c 0 "$netload" openapi "$client" "$workload" "$url" "$amount" 5)  # a failure stops the run
        tail -1 <<<"$out"
    done
done
