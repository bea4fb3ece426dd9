# tools/bench duckdb: DuckDB TPC-H power at a scale factor, luabench against DuckDB's own CLI
# running the same 22 queries on the same database file.
#
#   tools/bench duckdb [--sf=1] [--runs=3] [--duckdb-threads=0] [--answers=DIR]
#
# tpchgen-cli writes dbgen's rows for the scale factor (kept in build/bench-tpch/sf<SF>);
# `dbt3 load-dbgen` loads them into a DuckDB file; with --answers (default: the published SF 1
# set in ../shared/reference/tpch-answers, at SF 1 only) `answers --qualification
# --answers-dir` checks the 22 answers under the TPC-H precision rules. Then, alternating,
#   luabench  `dbt3 --tests=power --time=0 run` (RF1, the 22 queries in stream 0's order, RF2):
#             every query's seconds from the JSON result (the query, and moving through every
#             row of its result: rs:next(), nothing made text)
#   duckdb    DuckDB's own shell (PyPI duckdb-cli, the same DuckDB version) running the same 22
#             statements (tools/bench.d/duckdb_queries.lua prints them as luabench renders them)
#             with `.timer on`: every statement's real seconds.
# Medians per query and of the 22 summed, and the ratio duckdb CLI / luabench (1.0 = no driver
# overhead). Needs tools/install-duckdb --bench (tools/bench runs install-deps --bench).

peers="DuckDB's own CLI (duckdb-cli from PyPI, tools/install-duckdb --bench)"

bench_duckdb() {
  local sf=1 nruns=3 dthreads=0 answers="" a
  for a in "$@"; do
    case $a in
      --sf=*) sf=${a#*=} ;;
      --runs=*) nruns=${a#*=} ;;
      --duckdb-threads=*) dthreads=${a#*=} ;;
      --answers=*) answers=${a#*=} ;;
    esac
  done
  local venv=${LB_OPT_DIR:-/opt/luabench}/venv
  local cli=$venv/bin/duckdb gen=$venv/bin/tpchgen-cli
  [[ -x $cli && -x $gen ]] || { echo "bench duckdb: DuckDB's CLI or tpchgen-cli is not installed in $venv: run tools/bench duckdb --install, or tools/install-duckdb --bench" >&2; return 1; }
  [[ -z $answers && $sf == 1 && -d ../shared/reference/tpch-answers ]] && answers=$(cd ../shared/reference/tpch-answers && pwd)
  local tbl=$PWD/build/bench-tpch/sf$sf
  if [[ ! -f $tbl/lineitem.tbl ]]; then
    echo "Generating SF $sf with tpchgen-cli into $tbl..."
    rm -rf "$tbl.tmp" && "$gen" -s "$sf" --output-dir="$tbl.tmp" && mv "$tbl.tmp" "$tbl"
  fi
  local file=$work/tpch.duckdb
  local db=(--db-driver=duckdb --duckdb-db="$file" --duckdb-threads="$dthreads")
  rm -f "$file" "$file.wal"
  "$LB" dbt3 "${db[@]}" --threads=2 --dbgen-dir="$tbl" load-dbgen | grep -E '^(Data loaded|Prepared)'
  if [[ -n $answers ]]; then
    "$LB" dbt3 "${db[@]}" --qualification --answers-dir="$answers" answers | grep -E '^(Compared|  differs)' || true
  fi
  "$LB" --verbosity=1 tools/bench.d/duckdb_queries.lua --sf="$sf" sql > "$work/q.sql"
  [[ $dthreads != 0 ]] && sed -i "1i SET threads = $dthreads;" "$work/q.sql"
  # the query of each statement, in order (Q15 is three statements: they add up)
  local names
  names=$(sed -n 's/^-- Q\([0-9]*\)\..*/\1/p' "$work/q.sql")
  local r q
  declare -A lbt clit
  for ((r = 1; r <= nruns; r++)); do
    local j
    j=$("$LB" dbt3 "${db[@]}" --threads=1 --tests=power --time=0 --format=json run 2>/dev/null)
    while read -r q s; do lbt[$q]+="$s "; done < <(python3 -c '
import json, sys
for e in json.load(sys.stdin)["workload_stats"]["queries"][:22]:
    print(e["name"][1:], "%.3f" % e["power_s"])' <<<"$j")
    local times
    times=$("$cli" "$file" < "$work/q.sql" 2>&1 | sed -n 's/^Run Time (s): real \([0-9.]*\).*/\1/p' | grep -v '^$')
    [[ $dthreads != 0 ]] && times=$(tail -n +2 <<<"$times")
    while read -r q s; do clit[$q]+="$s "; done < <(paste <(echo "$names") <(echo "$times") |
      awk '{t[$1] += $2} END {for (q in t) print q, t[q]}')
  done
  echo
  echo "DuckDB TPC-H power at SF $sf (dbgen's data; --duckdb-threads=$dthreads), medians of $nruns runs, seconds"
  printf '%-5s %10s %12s %8s   %s\n' query luabench "duckdb CLI" ratio "(luabench / CLI runs)"
  local lsum=() csum=()
  for ((r = 0; r < nruns; r++)); do lsum[r]=0; csum[r]=0; done
  for q in $(seq 1 22); do
    local la=(${lbt[$q]}) ca=(${clit[$q]})
    for ((r = 0; r < nruns; r++)); do
      lsum[r]=$(awk -v a="${lsum[r]}" -v b="${la[r]:-0}" 'BEGIN {print a + b}')
      csum[r]=$(awk -v a="${csum[r]}" -v b="${ca[r]:-0}" 'BEGIN {print a + b}')
    done
    local lm cm
    lm=$(printf '%s\n' "${la[@]}" | median)
    cm=$(printf '%s\n' "${ca[@]}" | median)
    printf 'Q%-4s %10.3f %12.3f %8.2f   %s/ %s\n' "$q" "$lm" "$cm" "$(awk -v a="$lm" -v b="$cm" 'BEGIN {print (a > 0 ? b / a : 0)}')" "${lbt[$q]}" "${clit[$q]}"
  done
  local lm cm
  lm=$(printf '%s\n' "${lsum[@]}" | median)
  cm=$(printf '%s\n' "${csum[@]}" | median)
  printf '%-5s %10.3f %12.3f %8.2f   %s/ %s\n' sum "$lm" "$cm" "$(awk -v a="$lm" -v b="$cm" 'BEGIN {print (a > 0 ? b / a : 0)}')" "${lsum[*]} " "${csum[*]}"
}
