# tools/bench odbc: the odbc driver against the native driver on the same sandbox server, for
# PostgreSQL (psqlODBC vs libpq) and MariaDB (Connector/ODBC vs Connector/C): q/s and client CPU
# per query (user + system seconds of the luabench process / queries) of oltp_point_select and
# oltp_read_write at 1 and 4 threads, native and ODBC runs alternating, medians and the
# ODBC/native ratio. The goal: client CPU per query through ODBC at most 1.3x native.
#
#   tools/bench odbc [--runs=N] [--time=S] [--servers="pgsql mysql"] [--size=ROWS]
# The sandbox servers must be running (tools/sandbox-db start).

odbc_cpu_per_q() { awk -v c="$1" -v q="$2" -v s="$3" 'BEGIN {printf "%.2f", (q > 0 ? c / (q * s) * 1e6 : 0)}'; }

peers="luabench's native pgsql and mysql drivers"

bench_odbc() {
  local servers size
  server_opts "$@"
  results=()
  for srv in $servers; do
    local nat odb
    read -r -a nat <<<"$(./tools/sandbox-db env "$srv")"
    eval "odb=($(./tools/sandbox-db env "odbc-$srv"))" # a quoted connection string
    # Like for like: libpq negotiates TLS by default (sslmode=prefer), psqlODBC does not
    # (SSLmode=disable), so the native runs go without TLS too. Neither MariaDB client uses it.
    if [[ $srv == pgsql ]]; then nat+=(--pgsql-sslmode=disable); fi
    local tables=(--tables=1 --table-size="$size")
    "$LB" oltp_read_write "${nat[@]}" "${tables[@]}" cleanup >/dev/null
    "$LB" oltp_read_write "${nat[@]}" "${tables[@]}" prepare >/dev/null
    for w in oltp_point_select oltp_read_write; do
      for t in 1 4; do
        local qn=() qo=() cn=() co=() q c
        for ((i = 0; i < runs; i++)); do
          read -r q c <<<"$(with_cpu qps "$LB" $w "${nat[@]}" "${tables[@]}" --threads=$t --time="$secs" run)"
          qn+=("$q"); cn+=("$(odbc_cpu_per_q "$c" "$q" "$secs")")
          read -r q c <<<"$(with_cpu qps "$LB" $w "${odb[@]}" "${tables[@]}" --threads=$t --time="$secs" run)"
          qo+=("$q"); co+=("$(odbc_cpu_per_q "$c" "$q" "$secs")")
        done
        ratio_pair "$srv $w, $t thr (q/s)" "${qn[*]}" "${qo[*]}"
        ratio_pair "$srv $w, $t thr (client CPU us/query)" "${cn[*]}" "${co[*]}"
      done
    done
    "$LB" oltp_read_write "${nat[@]}" "${tables[@]}" cleanup >/dev/null
  done
  echo
  echo "| case | native (median) | odbc (median) | odbc/native | all runs: native / odbc |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
