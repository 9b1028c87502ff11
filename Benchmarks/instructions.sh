#!/usr/bin/env bash
# Instructions per call, counted by valgrind's callgrind (Benchmarks/NOTEBOOK.md, "instruction
# counts"): a measure that does not move with the VM's wake-up charges and neighbours, for changes
# too small to see in the timed runs' spread. Each client runs twice under callgrind, against a
# NetLoad server pinned to core 1 (outside valgrind): `run CLIENT WORKLOAD URL N 1` and with 2N
# (each a warm-up and one timed run, so 2N and 4N calls); the difference, divided by the 2N calls
# it adds, is the cost of one call without the process's start. Prints that total per client,
# then, with two or more clients, where each differs from the first: by module, and the functions
# that differ most (Benchmarks/callgrind-per-call.py). The output files stay in $OUT.
#
#     bash Benchmarks/instructions.sh                                  # raw-ahc and net-ahc-client, par64
#     NETLOAD=/tmp/NetLoad-before bash Benchmarks/instructions.sh net-ahc-client   # another build
#     WORKLOAD=seq CALLS=2000 bash Benchmarks/instructions.sh raw-ahc net-ahc-client net-ahc-exchange
#
# With NETLOAD the server is that build too (its code rarely changes between builds).
#
# Needs valgrind 3.24 or later: Debian 12's 3.19 cannot read Swift 6.3's DWARF 5 debug information.
# Debian 13's package runs here unpacked, without installing it (its tools are static binaries):
#     echo 'deb http://deb.debian.org/debian trixie main' > /etc/apt/sources.list.d/trixie.list
#     apt-get update && (cd /tmp && apt-get download -t trixie valgrind)
#     rm /etc/apt/sources.list.d/trixie.list && apt-get update
#     mkdir -p /opt/vg && dpkg-deb -x /tmp/valgrind_*.deb /opt/vg
# then VALGRIND=/opt/vg/usr/bin/valgrind VALGRIND_LIB=/opt/vg/usr/libexec/valgrind (the defaults
# here when /opt/vg exists). NetLoad runs with NETLOAD_MAIN_WAITS=1: with its main thread in
# `dispatchMain`, callgrind stops with SIGSEGV as the first task's thread starts.
set -euo pipefail
# Paths given relative to where the script is run from, before it moves to the repository's root.
[ -n "${NETLOAD:-}" ] && NETLOAD=$(realpath "$NETLOAD")
[ -n "${OUT:-}" ] && OUT=$(realpath -m "$OUT")
cd "$(dirname "$0")/.."
if [ -x /opt/vg/usr/bin/valgrind ]; then
    : "${VALGRIND:=/opt/vg/usr/bin/valgrind}"
    export VALGRIND_LIB=${VALGRIND_LIB:-/opt/vg/usr/libexec/valgrind}
fi
valgrind=${VALGRIND:-valgrind}
workload=${WORKLOAD:-par64}
calls=${CALLS:-3000}
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(raw-ahc net-ahc-client)
if [ -z "${NETLOAD:-}" ]; then
    swift build -c release --package-path Benchmarks --product NetLoad >/dev/null
    netload=Benchmarks/.build/release/NetLoad
else
    netload=$NETLOAD
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
echo "callgrind's files and logs: $out"
trap 'echo "$0: a run failed; its log is in $out" >&2' ERR
source Benchmarks/netload-server.sh  # $server on core 1, $url
export NETLOAD_MAIN_WAITS=1 NETLOAD_HEAP=0
files=()
for client in "${clients[@]}"; do
    for n in "$calls" $((2 * calls)); do
        taskset -c 0 "$valgrind" --tool=callgrind --callgrind-out-file="$out/$client.$n.out" \
            "$netload" run "$client" "$workload" "$url" "$n" 1 >/dev/null 2>"$out/$client.$n.log"
    done
    files+=("$client" "$out/$client.$calls.out" "$out/$client.$((2 * calls)).out")
done
python3 Benchmarks/callgrind-per-call.py $((2 * calls)) "${files[@]}"
