# Sourced by the benchmark scripts: starts a NetLoad server ($netload, already built) pinned to
# core 1, killed when the calling shell exits, and sets $url to its base URL once it listens.
# Files and directories the calling script adds to $remove_on_exit are removed when it exits, with
# the server's log.
log=$(mktemp)
remove_on_exit=("$log")
taskset -c 1 "$netload" server >"$log" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "${remove_on_exit[@]}"' EXIT  # files and directories
url=
for _ in $(seq 300); do  # a minute at most
    url=$(grep -m1 '^http' "$log") && break
    kill -0 "$server" 2>/dev/null || { echo "$0: the NetLoad server stopped before it listened" >&2; exit 1; }
    sleep 0.2
done
[ -n "$url" ] || { echo "$0: the NetLoad server did not listen within a minute" >&2; exit 1; }
