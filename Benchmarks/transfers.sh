#!/usr/bin/env bash
# §2's 100 MB transfers and §7's 1 GiB stream (Docs/Benchmarks.md) as medians of processes: a
# NetLoad server pinned to core 1; each client in a process of its own pinned to core 0, which
# makes one transfer to warm up and times the next (`NetLoad transfer`, the calls package-benchmark's
# benchmarks make, through the same four clients). 5 rounds (NETLOAD_ROUNDS), each running every
# client once per workload, in an order that changes each round (Benchmarks/rounds.sh), so that
# whatever the machine does meanwhile does not fall on one client more than the others.
#
#     bash Benchmarks/transfers.sh            # about 2 minutes on the 2-vCPU VM, once NetLoad is built
#     NETLOAD_ROUNDS=N bash Benchmarks/transfers.sh   # N rounds (odd, for a median)
#     bash Benchmarks/transfers.sh [primed] [WORKLOAD…]   # only these workloads (`primed` first);
#         with `primed`, each process first makes three 100 KB transfers of the workload and
#         reports the peak's growth over the memory resident after them (`NetLoad transfer … primed`)
#
# Prints each process's line as it ends, then per workload and client the median of the
# processes' wall clock, CPU and peak resident memory, with min–max (Benchmarks/medians.py).
# A process that fails stops the run, its output and errors on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
primed=()
if [[ "${1:-}" == primed ]]; then primed=(primed); shift; fi
all_workloads=(get100mb dlfile100mb up100mb upfile100mb stream1g)
workloads=("$@")
(( ${#workloads[@]} )) || workloads=("${all_workloads[@]}")
for workload in "${workloads[@]}"; do
    [[ " ${all_workloads[*]} " == *" $workload "* ]] || {
        echo "$0: unknown workload $workload (${all_workloads[*]}; \`primed\` comes first)" >&2
        exit 2
    }
done
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
netload=Benchmarks/.build/release/NetLoad
source Benchmarks/netload-server.sh  # $server on core 1, $url
source Benchmarks/rounds.sh  # $rounds, ordered, record, summarise
for ((round = 1; round <= rounds; round++)); do
    for workload in "${workloads[@]}"; do
        for client in $(ordered "$round" raw-urlsession net-urlsession-client raw-ahc net-ahc-client); do
            record "$round" "" taskset -c 0 "$netload" transfer "$client" "$workload" "$url" 1 "${primed[@]}"
        done
    done
done
summarise
