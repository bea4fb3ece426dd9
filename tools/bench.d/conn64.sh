# tools/bench conn64: client CPU per query at 64 connections (issue 33). oltp_point_select on
# the sandbox PostgreSQL (4 tables of 100,000 rows, over TCP with the TLS libpq negotiates),
# rounds alternating
#   luabench --users=64 --threads=2   64 emulated users on 2 threads, one connection each
#   luabench --threads=64             sysbench's model: a thread and a connection each
#   sysbench --threads=64
# (and both luabench cases of --before=PATH, a build from before a change, when given): q/s and
# client CPU per query (user + system seconds of the client process / its queries), medians, and
# each case's ratio to sysbench (q/s: luabench / sysbench; CPU: luabench / sysbench, lower is
# better). The goal: users mode at most 0.5x sysbench's CPU per query, threads mode at most 0.9x,
# without fewer q/s.
#
#   tools/bench conn64 [--runs=3] [--time=8] [--before=PATH]
# The client and the server share this machine's CPUs: time it on a quiet machine.

conn64_metric() { awk '/queries:/ && /per sec/ {gsub(/[()]/, "", $3); print $2, $3}'; }

# conn64_run NAME BINARY ARGS...: one run; appends its q/s and CPU per query to NAME's lists.
conn64_run() {
  local name=$1 total q c
  shift
  read -r total q c <<<"$(with_cpu conn64_metric "$@")"
  local us
  us=$(awk -v c="$c" -v n="$total" 'BEGIN {printf "%.2f", (n > 0 ? c / n * 1e6 : 0)}')
  conn64_q[$name]+="${q:-0} "
  conn64_c[$name]+="$us "
  echo "conn64: $name: ${q:-0} q/s, $us us of client CPU per query" >&2
}

# conn64_setup ARGS...: --before=PATH into the caller's `before`, and the tables prepared; the
# caller's `base` gets the workload and its options (declare both local first). (Also cg64's.)
conn64_setup() {
  local a pg
  before=""
  for a in "$@"; do
    case $a in
      --before=*) before=${a#*=} ;;
    esac
  done
  if [[ -n $before && ! -x $before ]]; then
    echo "bench: --before=$before is not an executable" >&2
    return 1
  fi
  ./tools/sandbox-db start pgsql >/dev/null
  read -r -a pg <<<"$(./tools/sandbox-db env pgsql)"
  base=(oltp_point_select "${pg[@]}" --tables=4 --table-size=100000)
  "$LB" "${base[@]}" cleanup >/dev/null
  "$LB" "${base[@]}" --threads=2 prepare >/dev/null
}

bench_conn64() {
  local before base a
  conn64_setup "$@" || return 1
  declare -gA conn64_q=() conn64_c=()
  local cases=("luabench --users=64 --threads=2" "luabench --threads=64" "sysbench --threads=64")
  [[ -n $before ]] && cases+=("before --users=64 --threads=2" "before --threads=64")
  local i name bin
  for ((i = 0; i < runs; i++)); do
    for name in "${cases[@]}"; do
      case $name in
        luabench*) bin=$LB ;;
        sysbench*) bin=$SB ;;
        before*) bin=$before ;;
      esac
      read -r -a a <<<"${name#* }"
      conn64_run "$name" "$bin" "${base[@]}" "${a[@]}" --time="$secs" run
    done
  done
  "$LB" "${base[@]}" cleanup >/dev/null
  local sq sc
  sq=$(printf '%s\n' ${conn64_q["sysbench --threads=64"]} | median)
  sc=$(printf '%s\n' ${conn64_c["sysbench --threads=64"]} | median)
  echo
  echo "| case | q/s (median) | q/s vs sysbench | client CPU us/query (median) | CPU vs sysbench | all runs: q/s; CPU |"
  echo "|---|---|---|---|---|---|"
  for name in "${cases[@]}"; do
    local mq mc
    mq=$(printf '%s\n' ${conn64_q[$name]} | median)
    mc=$(printf '%s\n' ${conn64_c[$name]} | median)
    printf '| %s | %s | %s | %s | %s | %s; %s |\n' "$name" "$mq" \
      "$(awk -v x="$mq" -v y="$sq" 'BEGIN {printf "%.2fx", (y > 0 ? x / y : 0)}')" "$mc" \
      "$(awk -v x="$mc" -v y="$sc" 'BEGIN {printf "%.2fx", (y > 0 ? x / y : 0)}')" \
      "${conn64_q[$name]% }" "${conn64_c[$name]% }"
  done
}
