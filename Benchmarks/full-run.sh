#!/usr/bin/env bash
# Every figure Docs/Benchmarks.md publishes, in one sitting (about 34 minutes on the 2-vCPU VM, 1.5 of them building):
#
#     bash Benchmarks/full-run.sh /tmp/net-run        # as root; writes one log per part into /tmp/net-run
#
# Root, because holding idle vCPUs polling (Benchmarks/poll-idle.sh) and the reachability
# benchmark (a network namespace of its own) need it. The output directory must be new or empty.
#
# The parts, in this order, each logged with its start time and command in run.log (and on stdout):
#   side-by-side.txt, side-by-side-polling.txt   §0: small GETs, raw clients against Net (Benchmarks/side-by-side.sh,
#                                                as the VM boots, then with idle vCPUs polling)
#   openapi.txt, openapi-polling.txt             §11: the generated OpenAPI client (Benchmarks/openapi-side-by-side.sh)
#   transfers.txt                                §2, §7: 100 MB transfers and the 1 GiB stream (Benchmarks/transfers.sh)
#   memory-over-time.txt                         §5: memory over 100,000 calls (Benchmarks/memory-over-time.sh)
#   ordo.txt                                     §1, §3, §4, §6, §9, §10 (and §2, §7 in one process each): package-benchmark, every benchmark, against a NetLoad
#                                                server on core 1 (NET_BENCH_SERVER), the benchmarks on core 0
#   sse-latency.txt                              §8: event latency on each transport (NetLoad sse-latency)
#   sse-parse.txt                                §8: parse rate against mattt/EventSource (Tests/EventSourcePeer)
# §0, §11, §2, §5 and §7 run each client in 5 processes, alternated in 5 rounds; their logs hold one line
# per process, then the medians across processes (Benchmarks/medians.py). Their tables in
# Docs/Benchmarks.md come from the logs by `python3 Benchmarks/render-tables.py OUTPUT-DIRECTORY
# --write Docs/Benchmarks.md`, which prints the figures the prose around them needs.
#
# Nothing else should run on the machine meanwhile: the clients share core 0 with anything else.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bash Benchmarks/full-run.sh OUTPUT-DIRECTORY}
[ "$(id -u)" = 0 ] || { echo "full-run.sh: run it as root (idle polling, the reachability benchmark)" >&2; exit 1; }
mkdir -p "$out"
[ -z "$(ls -A "$out")" ] || { echo "full-run.sh: $out is not empty; give a new directory" >&2; exit 1; }
exec 4>>"$out/run.log"
note() {
    local line
    line="$(date -u +%FT%TZ) $*"
    echo "$line"
    echo "$line" >&4
}
# Anything that makes the figures, not only the library: a change there is named in the log.
changes=$(git status --porcelain -- Package.swift Sources Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Benchmarks \
    Benchmarks/*.sh Benchmarks/*.py Tests/EventSourcePeer/Package.swift Tests/EventSourcePeer/Sources)
note "library $(git rev-parse --short HEAD)${changes:+ with uncommitted changes:
$changes}"

note "build: NetLoad, the package-benchmark targets (from clean module folders), SSEParseRate"
bash Benchmarks/ordo-clean.sh list >/dev/null  # before NetLoad: it removes NetLoad's module folder too
swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
Tests/EventSourcePeer/fetch >/dev/null
swift build -c release --package-path Tests/EventSourcePeer --product SSEParseRate >/dev/null
netload=Benchmarks/.build/release/NetLoad

note "bash Benchmarks/side-by-side.sh"
bash Benchmarks/side-by-side.sh >"$out/side-by-side.txt"
note "NETLOAD_POLL_IDLE=1 bash Benchmarks/side-by-side.sh"
NETLOAD_POLL_IDLE=1 bash Benchmarks/side-by-side.sh >"$out/side-by-side-polling.txt"
note "bash Benchmarks/openapi-side-by-side.sh"
bash Benchmarks/openapi-side-by-side.sh >"$out/openapi.txt"
note "NETLOAD_POLL_IDLE=1 bash Benchmarks/openapi-side-by-side.sh"
NETLOAD_POLL_IDLE=1 bash Benchmarks/openapi-side-by-side.sh >"$out/openapi-polling.txt"
note "bash Benchmarks/transfers.sh"
bash Benchmarks/transfers.sh >"$out/transfers.txt"
note "bash Benchmarks/memory-over-time.sh"
bash Benchmarks/memory-over-time.sh >"$out/memory-over-time.txt"

source Benchmarks/netload-server.sh  # $server on core 1, $url

note "NET_BENCH_SERVER=$url taskset -c 0 swift package --package-path Benchmarks benchmark --no-progress"
NET_BENCH_SERVER=$url taskset -c 0 swift package --package-path Benchmarks benchmark --no-progress >"$out/ordo.txt" 2>&1
for transport in net-ahc net-urlsession; do
    note "taskset -c 0 $netload sse-latency $transport $url 1000 5"
    taskset -c 0 "$netload" sse-latency "$transport" "$url" 1000 5 >>"$out/sse-latency.txt"
done
note "taskset -c 0 Tests/EventSourcePeer/.build/release/SSEParseRate --mib 100 --peer-mib 100 --runs 5"
taskset -c 0 Tests/EventSourcePeer/.build/release/SSEParseRate --mib 100 --peer-mib 100 --runs 5 >"$out/sse-parse.txt"
note "done"
