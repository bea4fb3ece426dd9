# tools/bench duckdb-composite: examples/composite.lua on DuckDB (one SELECT DISTINCT over the
# table, 50 UPDATEs in one transaction, one LIMIT/OFFSET page per event; 100,000 rows) against
# DuckDB's own CLI running the same statements as text (tools/bench.d/composite_statements.lua,
# the values a run would bind), on copies of one database file, alternating:
#   luabench   `examples/composite.lua --threads=1 --time=0 --events=N run`: events per second
#              of the run (the report's total time)
#   duckdb     DuckDB's shell reading the N events' statements with `.timer on`: N over the sum
#              of every statement's real seconds
# DuckDB's threads are its default on both sides (every CPU the process may use). Medians of
# --runs, and luabench / CLI (1.0 = as fast as DuckDB's own shell).
#
#   tools/bench duckdb-composite [--events=200] [--runs=5]

peers="DuckDB's own CLI (duckdb-cli from PyPI, tools/install-duckdb --bench)"

bench_duckdb_composite() {
  local events=200 a
  for a in "$@"; do
    case $a in
      --events=*) events=${a#*=} ;;
    esac
  done
  local cli=${LB_OPT_DIR:-/opt/luabench}/venv/bin/duckdb
  [[ -x $cli ]] || { echo "bench: run tools/install-duckdb --bench (duckdb CLI)" >&2; return 1; }
  need luajit luajit
  local base=$work/composite.duckdb ex=examples/composite.lua
  "$LB" "$ex" --db-driver=duckdb --duckdb-db="$base" prepare >/dev/null
  { echo ".timer on"; luajit tools/bench.d/composite_statements.lua "$events"; } >"$work/comp.sql"
  local r l=() c=()
  for ((r = 0; r < runs; r++)); do
    rm -f "$work/run.duckdb" "$work/run.duckdb.wal" && cp "$base" "$work/run.duckdb"
    l+=("$("$LB" "$ex" --db-driver=duckdb --duckdb-db="$work/run.duckdb" --threads=1 --time=0 \
      --events="$events" run 2>/dev/null | eps)")
    rm -f "$work/run.duckdb" "$work/run.duckdb.wal" && cp "$base" "$work/run.duckdb"
    c+=("$("$cli" "$work/run.duckdb" <"$work/comp.sql" 2>&1 |
      sed -n 's/^Run Time (s): real \([0-9.]*\).*/\1/p' |
      awk -v n="$events" '{t += $1} END {printf "%.0f\n", (t > 0 ? n / t : 0)}')")
    echo "run $((r + 1)): luabench ${l[-1]} events/s, duckdb CLI ${c[-1]} events/s" >&2
  done
  local ml mc
  ml=$(printf '%s\n' "${l[@]}" | median)
  mc=$(printf '%s\n' "${c[@]}" | median)
  echo
  echo "examples/composite.lua on DuckDB, $events events (100,000 rows, 50 UPDATEs), medians of $runs runs"
  echo "| events/s | luabench | duckdb CLI | luabench / CLI | all runs: luabench / CLI |"
  echo "|---|---|---|---|---|"
  printf '| composite | %s | %s | %.2f | %s / %s |\n' "$ml" "$mc" \
    "$(awk -v a="$ml" -v b="$mc" 'BEGIN {print (b > 0 ? a / b : 0)}')" "${l[*]}" "${c[*]}"
}
