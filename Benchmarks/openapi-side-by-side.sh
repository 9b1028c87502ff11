#!/usr/bin/env bash
# The OpenAPI comparison (Docs/Benchmarks.md §11): the generated client of
# Tests/NetOpenAPITests/OpenAPI/openapi.yaml on Net's transports (through NetOpenAPITransport) and
# on the two published OpenAPI transports, a NetLoad server pinned to core 1, each client in 5
# processes of its own pinned to core 0, each making one warm-up run and one timed run; the clients
# alternated in 5 rounds, in an order that changes each round (Benchmarks/rounds.sh). Prints each
# process's line as it ends, then each figure's median across the 5 processes with min–max
# (Benchmarks/medians.py). NETLOAD_ROUNDS=N runs N rounds instead (odd, for a median).
#
#     bash Benchmarks/openapi-side-by-side.sh
#     NETLOAD_POLL_IDLE=1 bash Benchmarks/openapi-side-by-side.sh  # idle vCPUs poll (Benchmarks/poll-idle.sh)
#     OPENAPI_WORKLOADS=download OPENAPI_DOWNLOAD_RUNS=11 bash Benchmarks/openapi-side-by-side.sh
#
# OPENAPI_WORKLOADS picks workloads (all three by default); OPENAPI_DOWNLOAD_RUNS times that many
# 100 MB downloads in each process (1 by default) and reports their median: one takes 17 to 55 ms
# on AsyncHTTPClient, too short for one process's figure to mean much.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
source Benchmarks/poll-idle.sh  # NETLOAD_POLL_IDLE=1: idle vCPUs poll

source Benchmarks/rounds.sh  # $rounds, ordered, record, summarise
for ((round = 1; round <= rounds; round++)); do
    for workload in ${OPENAPI_WORKLOADS:-seq par64 download}; do
        amount=20000                           # calls
        runs=1
        [ "$workload" = seq ] && amount=10000
        [ "$workload" = download ] && amount=100 && runs=${OPENAPI_DOWNLOAD_RUNS:-1}  # amount in MB
        for client in $(ordered "$round" openapi-ahc net-ahc openapi-urlsession net-urlsession); do
            record "$round" "" taskset -c 0 "$netload" openapi "$client" "$workload" "$url" "$amount" "$runs"
        done
    done
done
summarise
