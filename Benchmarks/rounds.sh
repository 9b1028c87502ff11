# Sourced by the benchmark scripts that run each client in several processes, after
# netload-server.sh: $rounds (5, or NETLOAD_ROUNDS, which must be odd for a median); `record ROUND
# TAG COMMAND…`, which runs one process and keeps its last line; `summarise`, which prints the
# medians of the lines kept; and `ordered ROUND ITEMS…`, which prints the items
# in the order ROUND (1, 2, …) runs them: round N starts with item N - 1 (counting from 0, around),
# forwards in odd rounds and backwards in even ones, so that the first and the last place go round
# the items and each item follows its neighbours on both sides in turn: whatever a process leaves
# behind (a warm page cache, a busy core) does not always fall on the same next one.
rounds=${NETLOAD_ROUNDS:-5}
[[ "$rounds" =~ ^[0-9]+$ ]] && (( rounds % 2 == 1 )) || { echo "$0: NETLOAD_ROUNDS must be odd (a median of processes), not $rounds" >&2; exit 1; }
ordered() {
    local round=$1
    shift
    local items=("$@") count=$# i
    for ((i = 0; i < count; i++)); do
        if (( round % 2 == 1 )); then
            echo "${items[(round - 1 + i) % count]}"           # from item round - 1 on
        else
            echo "${items[(round + count - 1 - i) % count]}"   # backwards, from item round - 1
        fi
    done
}

lines=$(mktemp)
errors=$(mktemp)
remove_on_exit+=("$lines" "$errors")

# Runs COMMAND (one process) and prints its last line as `[round ROUND] TAG…`, keeping it for
# `summarise`; a process that fails stops the script, its output and errors on stderr.
record() {
    local round=$1 tag=$2 out
    shift 2
    if ! out=$("$@" 2>"$errors"); then
        echo "$0: $* failed in round $round:" >&2
        echo "$out" >&2
        cat "$errors" >&2
        exit 1
    fi
    echo "[round $round] $tag$(tail -1 <<<"$out")" | tee -a "$lines"
}

# Each figure's median across the processes recorded, with min–max (Benchmarks/medians.py).
summarise() {
    echo
    python3 Benchmarks/medians.py <"$lines"
}
