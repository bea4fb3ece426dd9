# tools/bench sqlite: the sqlite driver against SQLite's own shell on the same database file and
# the same statements, one thread: q/s of
#   - luabench oltp_point_select / oltp_read_write (prepared statements, as they run),
#   - luabench replaying the statements of a SQL file as text queries (tools/bench.d/sqlite_replay.lua),
#   - the sqlite3 shell reading that file (`sqlite3 DB < FILE`, output to /dev/null),
# with the same pragmas (journal_mode=wal, synchronous=full, cache_size=-2000), alternating runs,
# medians and ratios to the shell. The file holds the statements of --events events, written by
# tools/bench.d/sqlite_statements.lua with sysbench's texts and uniform ids.
#
#   tools/bench sqlite [--runs=N] [--size=ROWS] [--events=N] [--synchronous=full|normal|off]
# --time is not used: every run does the same --events events (point_select: 50x as many).

sqlite_secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.6f", b - a}'; }

peers="the sqlite3 shell ($(pkg_version sqlite3))"

bench_sqlite() {
  local size=100000 events=2000 sync=full a
  for a in "$@"; do
    case $a in
      --size=*) size=${a#*=} ;;
      --events=*) events=${a#*=} ;;
      --synchronous=*) sync=${a#*=} ;;
    esac
  done
  need sqlite3 sqlite3
  local db="$work/sqlite-bench.db"
  local drv=(--db-driver=sqlite --sqlite-db="$db" --sqlite-journal-mode=wal --sqlite-synchronous="$sync"
    --sqlite-cache-size=-2000)
  local opts=("${drv[@]}" --tables=1 --table-size="$size")
  "$LB" oltp_read_write "${opts[@]}" prepare >/dev/null
  results=()
  for w in point_select read_write; do
    local n=$events
    [[ $w == point_select ]] && n=$((events * 50))
    local sql="$work/$w.sql" script="$work/$w.shell.sql"
    luajit tools/bench.d/sqlite_statements.lua "$w" "$n" "$size" >"$sql"
    local lines
    lines=$(grep -c . "$sql")
    { printf 'PRAGMA journal_mode=wal;\nPRAGMA synchronous=%s;\nPRAGMA cache_size=-2000;\n.output /dev/null\n' "$sync"
      cat "$sql"; } >"$script"
    local qa=() qr=() qs=() q t0 t1
    for ((i = 0; i < runs; i++)); do
      q=$("$LB" "oltp_$w" "${opts[@]}" --threads=1 --time=0 --events="$n" run | qps); qa+=("$q")
      q=$("$LB" tools/bench.d/sqlite_replay.lua "${drv[@]}" --file="$sql" --threads=1 --time=0 \
        --events="$n" run | qps); qr+=("$q")
      t0=$(date +%s.%N); sqlite3 "$db" <"$script" >/dev/null; t1=$(date +%s.%N)
      qs+=("$(awk -v n="$lines" -v s="$(sqlite_secs "$t0" "$t1")" 'BEGIN {printf "%.2f", n / s}')")
    done
    local ma mr ms
    ma=$(printf '%s\n' "${qa[@]}" | median); mr=$(printf '%s\n' "${qr[@]}" | median)
    ms=$(printf '%s\n' "${qs[@]}" | median)
    results+=("$(printf '| oltp_%s, 1 thr, %d statements (q/s) | %s | %s | %s | %s / %s | %s |' "$w" "$lines" \
      "$ma" "$mr" "$ms" "$(awk -v a="$ma" -v s="$ms" 'BEGIN {printf "%.2fx", (s > 0 ? a / s : 0)}')" \
      "$(awk -v a="$mr" -v s="$ms" 'BEGIN {printf "%.2fx", (s > 0 ? a / s : 0)}')" "${qa[*]} / ${qr[*]} / ${qs[*]}")")
    echo "${results[-1]}" >&2
  done
  "$LB" oltp_read_write "${opts[@]}" cleanup >/dev/null
  echo
  echo "| case | luabench prepared (median) | luabench text (median) | sqlite3 shell (median) | prepared / shell, text / shell | all runs: prepared / text / shell |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
