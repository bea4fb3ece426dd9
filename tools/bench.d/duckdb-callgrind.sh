# tools/bench duckdb-callgrind: luabench against DuckDB's own CLI on the same database file and
# the same statements, counted by callgrind instead of timed (deterministic for given binaries
# and inputs: it can be taken on a busy machine). DuckDB runs with threads=1 on both sides, so
# that the count is the work of the statements and not how worker threads waited.
#
#   tools/bench duckdb-callgrind [--sf=0.1] [--events=20] [--cache-sim=yes] [--only=tpch|composite]
#
#   tpch       the 22 queries of dbt3's power test (tools/bench.d/duckdb_queries.lua) on dbgen's
#              rows at --sf: DuckDB's CLI reading the statement file (its default output) against
#              luabench replaying it (tools/bench.d/duckdb_replay.lua: con:query, every row gone
#              through with rs:next, as dbt3's power test; and with --text, every row made text)
#   composite  --events events of examples/composite.lua (100,000 rows, 50 UPDATEs): luabench
#              running the example (prepared statements) and replaying its statements as text,
#              against the CLI reading the same statements (tools/bench.d/composite_statements.lua)
# Each side is counted twice, with the statements and with none (start-up and opening the
# file): the difference is the statements' count. --cache-sim=yes adds callgrind's cache and branch
# simulation and an estimate of cycles, Ir + 10 x (L1 misses + mispredicted branches) + 100 x
# LL misses (KCachegrind's): it tells apart code that executes as many instructions but waits
# more (an indirect call through the PLT, a cache miss). Ratio: CLI / luabench (1.0 = luabench
# costs what DuckDB's own shell costs; above: less).

peers="DuckDB's own CLI (duckdb-cli from PyPI, tools/install-duckdb --bench), counted by callgrind"

# cg_events NAME COMMAND...: runs COMMAND under callgrind; prints "Ir L1m LLm Bm" of the whole
# process into $work/cg.NAME.
cg_events() {
  local name=$1
  shift
  local sim=()
  ((cg_sim)) && sim=(--cache-sim=yes --branch-sim=yes)
  valgrind --tool=callgrind "${sim[@]}" --callgrind-out-file="$work/cg.$name.out" "$@" \
    >"$work/cg.$name.stdout" 2>"$work/cg.$name.err" || {
    echo "bench: '$*' failed under callgrind: $(grep -v '^==' "$work/cg.$name.err" | tail -2)" >&2
    return 1
  }
  # events: Ir [Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim]
  awk '/^summary:/ {if (NF > 2) print $2, $5 + $6 + $7, $8 + $9 + $10, $12 + $14; else print $2, 0, 0, 0}' \
    "$work/cg.$name.out" >"$work/cg.$name"
}

# cg_diff A B: the events of run A less those of run B, and the estimated cycles.
cg_diff() {
  paste -d' ' "$work/cg.$1" "$work/cg.$2" |
    awk '{ir = $1 - $5; l1 = $2 - $6; ll = $3 - $7; bm = $4 - $8; print ir, l1, ll, bm, ir + 10 * (l1 + bm) + 100 * ll}'
}

# cg_row LABEL "luabench events" "cli events" [per]: one table row (millions; per = divisor).
cg_row() {
  local per=${4:-1}
  read -r lir _ _ _ lce <<<"$2"
  read -r cir _ _ _ cce <<<"$3"
  if ((cg_sim)); then
    printf '| %s | %.1f | %.1f | %.3f | %.1f | %.1f | %.3f |\n' "$1" \
      "$(awk -v v="$lir" -v p="$per" 'BEGIN {print v / p / 1e6}')" "$(awk -v v="$cir" -v p="$per" 'BEGIN {print v / p / 1e6}')" \
      "$(awk -v a="$lir" -v b="$cir" 'BEGIN {print b / a}')" \
      "$(awk -v v="$lce" -v p="$per" 'BEGIN {print v / p / 1e6}')" "$(awk -v v="$cce" -v p="$per" 'BEGIN {print v / p / 1e6}')" \
      "$(awk -v a="$lce" -v b="$cce" 'BEGIN {print b / a}')"
  else
    printf '| %s | %.1f | %.1f | %.3f |\n' "$1" \
      "$(awk -v v="$lir" -v p="$per" 'BEGIN {print v / p / 1e6}')" "$(awk -v v="$cir" -v p="$per" 'BEGIN {print v / p / 1e6}')" \
      "$(awk -v a="$lir" -v b="$cir" 'BEGIN {print b / a}')"
  fi
}

# A fresh copy of database file $1 as $2 (UPDATEs and the WAL of one run do not reach the next).
cg_copy() {
  rm -f "$2" "$2.wal"
  cp "$1" "$2"
}

bench_duckdb_callgrind() {
  local sf=0.1 events=20 only="" a
  cg_sim=0
  for a in "$@"; do
    case $a in
      --sf=*) sf=${a#*=} ;;
      --events=*) events=${a#*=} ;;
      --cache-sim=*) [[ ${a#*=} == 0 || ${a#*=} == no ]] || cg_sim=1 ;;
      --only=*) only=${a#*=} ;;
    esac
  done
  local venv=${LB_OPT_DIR:-/opt/luabench}/venv
  local cli=$venv/bin/duckdb gen=$venv/bin/tpchgen-cli
  [[ -x $cli && -x $gen ]] || { echo "bench: run tools/install-duckdb --bench (duckdb CLI, tpchgen-cli)" >&2; return 1; }
  need valgrind valgrind
  need luajit luajit
  # the CLI's own binary: the PyPI package's entry point is a Python wrapper around it
  local clibin
  clibin=$("$venv/bin/python" -c 'import duckdb_cli, os; print(os.path.join(os.path.dirname(duckdb_cli.__file__), "duckdb"))')
  [[ -x $clibin ]] || clibin=$cli
  local db=(--db-driver=duckdb --duckdb-threads=1 --thread-init-timeout=600)
  local cliset=(-cmd "SET threads = 1")
  : >"$work/empty.sql"
  local hdr='| statements | luabench (M instructions) | duckdb CLI (M) | CLI / luabench |'
  local sep='|---|---|---|---|'
  if ((cg_sim)); then
    hdr="$hdr luabench (M est. cycles) | CLI (M) | CLI / luabench |"
    sep="$sep---|---|---|"
  fi
  local rows=()

  if [[ -z $only || $only == tpch ]]; then
    local tbl=$PWD/build/bench-tpch/sf$sf
    if [[ ! -f $tbl/lineitem.tbl ]]; then
      echo "Generating SF $sf with tpchgen-cli into $tbl..." >&2
      rm -rf "$tbl.tmp" && "$gen" -s "$sf" --output-dir="$tbl.tmp" && mv "$tbl.tmp" "$tbl"
    fi
    local base=$work/tpch.duckdb
    "$LB" dbt3 --db-driver=duckdb --duckdb-db="$base" --threads=2 --dbgen-dir="$tbl" load-dbgen | grep -E '^Prepared' >&2
    "$LB" --verbosity=1 tools/bench.d/duckdb_queries.lua --sf="$sf" sql >"$work/q.sql"
    echo "TPC-H SF $sf: callgrind of the CLI and of luabench..." >&2
    cg_copy "$base" "$work/c.duckdb"
    cg_events cli_q "$clibin" "${cliset[@]}" "$work/c.duckdb" <"$work/q.sql"
    cg_events cli_0 "$clibin" "${cliset[@]}" "$work/c.duckdb" <"$work/empty.sql"
    local mode
    for mode in next text; do
      local opt=()
      [[ $mode == text ]] && opt=(--text)
      cg_copy "$base" "$work/l.duckdb"
      cg_events "lb_q_$mode" "$LB" tools/bench.d/duckdb_replay.lua "${db[@]}" --duckdb-db="$work/l.duckdb" \
        --file="$work/q.sql" "${opt[@]}" replay
    done
    cg_events lb_0 "$LB" tools/bench.d/duckdb_replay.lua "${db[@]}" --duckdb-db="$work/l.duckdb" \
      --file="$work/empty.sql" replay
    rows+=("$(cg_row "TPC-H SF $sf, 22 queries, rows gone through (rs:next)" "$(cg_diff lb_q_next lb_0)" "$(cg_diff cli_q cli_0)")")
    rows+=("$(cg_row "TPC-H SF $sf, 22 queries, rows made text (fetch_row)" "$(cg_diff lb_q_text lb_0)" "$(cg_diff cli_q cli_0)")")
    echo "0 0 0 0" >"$work/cg.none"
    rows+=("$(cg_row "start-up and opening the file" "$(cg_diff lb_0 none)" "$(cg_diff cli_0 none)")")
  fi

  if [[ -z $only || $only == composite ]]; then
    local cbase=$work/composite.duckdb ex=examples/composite.lua
    "$LB" "$ex" --db-driver=duckdb --duckdb-db="$cbase" prepare >/dev/null
    luajit tools/bench.d/composite_statements.lua "$events" >"$work/comp.sql"
    echo "composite, $events events: callgrind of the CLI and of luabench..." >&2
    cg_copy "$cbase" "$work/c.duckdb"
    cg_events cli_c "$clibin" "${cliset[@]}" "$work/c.duckdb" <"$work/comp.sql"
    cg_events cli_c0 "$clibin" "${cliset[@]}" "$work/c.duckdb" <"$work/empty.sql"
    cg_copy "$cbase" "$work/l.duckdb"
    cg_events lb_c "$LB" "$ex" "${db[@]}" --duckdb-db="$work/l.duckdb" --threads=1 --time=0 \
      --events=$((events + 1)) run
    cg_copy "$cbase" "$work/l.duckdb"
    cg_events lb_c1 "$LB" "$ex" "${db[@]}" --duckdb-db="$work/l.duckdb" --threads=1 --time=0 --events=1 run
    cg_copy "$cbase" "$work/l.duckdb"
    cg_events lb_ct "$LB" tools/bench.d/duckdb_replay.lua "${db[@]}" --duckdb-db="$work/l.duckdb" \
      --file="$work/comp.sql" replay
    cg_events lb_ct0 "$LB" tools/bench.d/duckdb_replay.lua "${db[@]}" --duckdb-db="$work/l.duckdb" \
      --file="$work/empty.sql" replay
    rows+=("$(cg_row "composite, per event: luabench's example (prepared) vs the CLI (text)" "$(cg_diff lb_c lb_c1)" "$(cg_diff cli_c cli_c0)" "$events")")
    rows+=("$(cg_row "composite, per event: the same text, replayed by luabench" "$(cg_diff lb_ct lb_ct0)" "$(cg_diff cli_c cli_c0)" "$events")")
  fi

  echo
  echo "DuckDB $("$clibin" -version 2>/dev/null | awk '{print $1}'), threads=1 on both sides; callgrind$( ((cg_sim)) && echo " with cache and branch simulation")"
  echo "$hdr"
  echo "$sep"
  printf '%s\n' "${rows[@]}"
}
