# tools/bench ab: two luabench binaries on the engine's hot paths, for the before/after figures a
# change to the engine, the bindings or the drivers owes BENCHMARKS.md. Alternating runs (before,
# after, before, ...), medians and the ratio after / before:
#   empty event     `function event() end`, 1 thread: events/s
#   null driver     13 statements per event (BEGIN, 10 prepared point selects, an UPDATE with
#                   literals, COMMIT) on the null driver, 1 thread: events/s
#   cpu             the cpu test, 2 threads: events/s
#   point select    oltp_point_select on the sandbox PostgreSQL, 1 thread: q/s and the client's
#                   CPU per query (us, user + system of the luabench process)
# --callgrind adds each case's instruction count (valgrind, one run each: deterministic for a
# binary and its input, so it can be taken on a busy machine when the clock cannot).
#
#   tools/bench ab --before=PATH [--after=PATH] [--runs=N] [--time=S] [--callgrind]
# --after defaults to build/luabench (or LUABENCH).

ab_null_script() {
  cat >"$work/nullsql.lua" <<'EOF'
local con, st, p
function thread_init()
  con = sysbench.sql.driver():connect()
  st = con:prepare("SELECT c FROM sbtest1 WHERE id=?")
  p = st:bind_create(sysbench.sql.type.INT)
  st:bind_param(p)
end
function event()
  con:query("BEGIN")
  for i = 1, 10 do p:set(sysbench.rand.uniform(1, 10000)); st:execute() end
  con:query(string.format("UPDATE sbtest1 SET k=k+1 WHERE id=%d", sysbench.rand.uniform(1, 10000)))
  con:query("COMMIT")
end
EOF
}

# ab_case NAME METRIC ARGS... : alternating runs of both binaries with ARGS; prints one table row.
ab_case() {
  local name=$1 metric=$2
  shift 2
  local a=() b=() i
  for ((i = 0; i < runs; i++)); do
    a+=("$($metric "$ab_before" "$@")")
    b+=("$($metric "$ab_after" "$@")")
  done
  local ma mb
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  results+=("$(printf '| %s | %s | %s | %s | %s / %s |' "$name" "$ma" "$mb" \
    "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", (a > 0 ? b / a : 0)}')" "${a[*]}" "${b[*]}")")
  echo "${results[-1]}" >&2
}

ab_eps() { "$@" 2>/dev/null | eps; }
ab_qps() { "$@" 2>/dev/null | qps; }
# client CPU per query in microseconds, both from the same run (with_cpu: tools/bench)
ab_queries() { awk '/queries:/ && /per sec/ {print $2}'; }
ab_cpu_per_query() {
  with_cpu ab_queries "$@" | awk '{printf "%.2f\n", ($1 > 0 ? $2 / $1 * 1e6 : 0)}'
}
ab_instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" >/dev/null 2>"$work/cg.err" || true
  awk '/^summary:/ {print $2}' "$work/cg.out"
}

peers="another luabench build (--before)"

bench_ab() {
  local a callgrind=0
  ab_before="" ab_after=$LB
  for a in "$@"; do
    case $a in
      --before=*) ab_before=${a#*=} ;;
      --after=*) ab_after=${a#*=} ;;
      --callgrind) callgrind=1 ;;
    esac
  done
  [[ -x $ab_before ]] || { echo "bench ab: --before=PATH must name a luabench binary" >&2; return 1; }
  [[ -x $ab_after ]] || { echo "bench ab: --after=$ab_after is not an executable" >&2; return 1; }
  ab_null_script
  ./tools/sandbox-db start pgsql >/dev/null
  local pg
  pg=$(./tools/sandbox-db env pgsql)
  "$ab_after" oltp_point_select $pg --tables=1 cleanup >/dev/null
  "$ab_after" oltp_point_select $pg --tables=1 --table-size=10000 prepare >/dev/null
  results=()
  local t="--time=$secs --rand-seed=1"
  ab_case "empty event, 1 thread (events/s)" ab_eps "$work/empty.lua" --threads=1 $t run
  ab_case "null driver, 13 statements, 1 thread (events/s)" ab_eps "$work/nullsql.lua" --db-driver=null --threads=1 $t run
  ab_case "cpu, 2 threads (events/s)" ab_eps cpu --threads=2 $t run
  ab_case "oltp_point_select, PostgreSQL, 1 thread (q/s)" ab_qps oltp_point_select $pg --tables=1 --table-size=10000 --threads=1 $t run
  ab_case "... client CPU per query (us)" ab_cpu_per_query oltp_point_select $pg --tables=1 --table-size=10000 --threads=1 $t run
  if ((callgrind)); then
    local saved=$runs
    runs=1
    ab_case "empty event, 2,000,000 events (instructions)" ab_instructions "$work/empty.lua" --events=2000000 --time=0 --rand-seed=1 run
    ab_case "null driver, 50,000 events (instructions)" ab_instructions "$work/nullsql.lua" --db-driver=null --events=50000 --time=0 --rand-seed=1 run
    ab_case "oltp_point_select, PostgreSQL, 20,000 events (instructions)" ab_instructions oltp_point_select $pg --tables=1 --table-size=10000 --events=20000 --time=0 --rand-seed=1 run
    runs=$saved
  fi
  "$ab_after" oltp_point_select $pg --tables=1 cleanup >/dev/null
  echo
  echo "before: $ab_before"
  echo "after:  $ab_after"
  echo
  echo "| case | before (median) | after (median) | after / before | all runs: before / after |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
