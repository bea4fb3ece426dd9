# tools/bench server-stats: what the server monitor costs the measured run (doc/monitoring.md
# §7). Each case runs with --server-stats=off and =on, alternating, with --report-interval=1
# (a reading every second: the worst case), and prints the medians and on/off:
#   - the empty event at 2 threads (events/s): no database, the monitor idle (the engine's cost);
#   - oltp_point_select and oltp_read_write at 2 threads (q/s) on each sandbox server.
# The goal: on/off within the runs' own spread (1.00x).
#
#   tools/bench server-stats [--runs=N] [--time=S] [--servers="pgsql mysql"] [--size=ROWS]
# The sandbox servers must be running (tools/sandbox-db start).

# ss_case NAME METRIC ARGS...: ARGS run with each setting, `runs` times, alternating.
ss_case() {
  local name=$1 metric=$2
  shift 2
  local off=() on=()
  for ((i = 0; i < runs; i++)); do
    off+=("$("$LB" "$@" --report-interval=1 --server-stats=off run 2>/dev/null | $metric)")
    on+=("$("$LB" "$@" --report-interval=1 --server-stats=on run 2>/dev/null | $metric)")
  done
  ratio_pair "$name" "${off[*]}" "${on[*]}"
}

peers="luabench itself with --server-stats=off"

bench_server_stats() {
  local servers size
  server_opts "$@"
  results=()
  ss_case "empty event, 2 threads (ev/s)" eps "$work/empty.lua" --threads=2 --time="$secs"
  for srv in $servers; do
    local opts
    read -r -a opts <<<"$(./tools/sandbox-db env "$srv")"
    local tables=(--tables=4 --table-size="$size")
    "$LB" oltp_read_write "${opts[@]}" "${tables[@]}" cleanup >/dev/null
    "$LB" oltp_read_write "${opts[@]}" "${tables[@]}" --threads=2 prepare >/dev/null
    for w in oltp_point_select oltp_read_write; do
      ss_case "$srv $w, 2 thr (q/s)" qps $w "${opts[@]}" "${tables[@]}" --threads=2 --time="$secs"
    done
    "$LB" oltp_read_write "${opts[@]}" "${tables[@]}" cleanup >/dev/null
  done
  echo
  echo "| case | --server-stats=off (median) | on (median) | on/off | all runs: off / on |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
