#!/usr/bin/env bash
# Where Net's peak memory above its peer's lies (Docs/Benchmarks.md §12): each pair of clients in
# processes of their own (pinned to core 0, a NetLoad server on core 1), alternated for
# NETLOAD_ROUNDS rounds (3 by default), each process saving its /proc/self/smaps and which pages
# of the binary's code it has in its page table (NETLOAD_SMAPS); then, per round and pair,
# Benchmarks/resident-memory.py's comparison: resident KiB by mapping, and the binary's resident
# code by module.
#
#     bash Benchmarks/resident-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
saved=$(mktemp -d)
remove_on_exit+=("$saved")  # removed, with the server's log, when the script exits
pairs=("openapi openapi-ahc net-ahc seq $url 5000 1"
       "openapi openapi-ahc net-ahc download $url 100 5"
       "transfer raw-urlsession net-urlsession-client dlfile100mb $url 1")
for ((round = 1; round <= ${NETLOAD_ROUNDS:-3}; round++)); do
    for pair in "${pairs[@]}"; do
        read -r mode peer net workload rest <<<"$pair"
        order=("$peer" "$net")
        (( round % 2 == 0 )) && order=("$net" "$peer")
        for client in "${order[@]}"; do
            if [ "$mode" = transfer ]; then args=(transfer "$client" "$workload" $rest)
            else args=(openapi "$client" "$workload" $rest); fi
            rm -f "$saved/$client-$workload" "$saved/$client-$workload.pages"  # no older round's files to compare
            line=$(NETLOAD_SMAPS="$saved/$client-$workload" taskset -c 0 "$netload" "${args[@]}" | tail -n1)  # fails the script if NetLoad fails
            echo "[round $round] $line"
        done
        echo "[round $round] $workload: $peer (peer) against $net (Net)"
        python3 Benchmarks/resident-memory.py "$netload" "$saved/$peer-$workload" "$saved/$net-$workload"
    done
done
