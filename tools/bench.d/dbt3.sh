# tools/bench dbt3: the dbt3 load against each server's own bulk-load ceiling, and the power and
# throughput tests.
#
#   tools/bench dbt3 [--sf=0.1,1] [--runs=3] [--threads=2] [--drivers=pgsql,mysql] [--run-sf=0.1]
#
# For each scale factor and server, alternating runs of
#   luabench  `dbt3 prepare` (generate + load through COPY / multi-row INSERT); its data phase
#             ("Data loaded in Xs"), before keys and indexes, is compared with
#   ceiling   the same rows, generated once to files (`dbt3 generate`), loaded by the server's
#             own client into empty tables of the same definition (PostgreSQL: psql \copy, no
#             keys, as luabench loads before adding them; MariaDB: mysql LOAD DATA LOCAL INFILE
#             into tables with their primary key, as luabench loads), one client per file and
#             --threads at a time.
# Medians of the data-load seconds and rows/s, and the ratio luabench / ceiling (goal: <= 1.5 at
# SF 1). Then `dbt3 run` (power, then throughput with --threads - 1 streams) at --run-sf on each
# server: medians of Power@Size, Throughput@Size and QphH@Size.
# The sandbox servers must be running (tools/sandbox-db start); SF 1 needs ~4 GB of free disk
# per server. Tables use the prefixes bench_lb_ and bench_c_ and are dropped at the end.

dbt3_now() { date +%s.%N; }

# Empty copies of the bench_lb_ tables, as luabench loads into them (see above).
dbt3_ceiling_tables() { # DRIVER
  local t
  for t in region nation part supplier partsupp customer orders lineitem; do
    if [[ $1 == pgsql ]]; then
      dbt3_sql "$1" "DROP TABLE IF EXISTS bench_c_$t; CREATE TABLE bench_c_$t (LIKE bench_lb_$t)"
    else
      dbt3_sql "$1" "DROP TABLE IF EXISTS bench_c_$t; CREATE TABLE bench_c_$t LIKE bench_lb_$t"
      # keep the primary key (clustered), drop the secondary indexes prepare adds after the load
      local ix
      for ix in $(dbt3_sql "$1" "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'bench_c_$t' AND index_name <> 'PRIMARY'"); do
        dbt3_sql "$1" "ALTER TABLE bench_c_$t DROP INDEX $ix"
      done
    fi
  done
}

dbt3_sql() { # DRIVER SQL
  if [[ $1 == pgsql ]]; then
    PGOPTIONS=--client-min-messages=warning PGPASSWORD=$DBT3_PW psql -X -q -At -h 127.0.0.1 -p "$LB_SANDBOX_PG_PORT" -U sbtest sbtest -c "$2"
  else
    MYSQL_PWD=$DBT3_PW mysql -N -B -h 127.0.0.1 -P "$LB_SANDBOX_MY_PORT" -u sbtest sbtest -e "$2"
  fi
}

dbt3_load_file() { # DRIVER FILE
  local t
  t=$(basename "$2"); t=${t%%.*}
  if [[ $1 == pgsql ]]; then
    PGPASSWORD=$DBT3_PW psql -X -q -h 127.0.0.1 -p "$LB_SANDBOX_PG_PORT" -U sbtest sbtest \
      -c "\\copy bench_c_$t FROM '$2'"
  else
    MYSQL_PWD=$DBT3_PW mysql --local-infile=1 -h 127.0.0.1 -P "$LB_SANDBOX_MY_PORT" -u sbtest sbtest \
      -e "LOAD DATA LOCAL INFILE '$2' INTO TABLE bench_c_$t"
  fi
}
export -f dbt3_load_file

peers="each server's own bulk load (psql \\copy, mysql LOAD DATA LOCAL INFILE)"

bench_dbt3() {
  local sfs=0.1,1 nruns=3 threads=2 drivers=pgsql,mysql run_sf=0.1 a
  for a in "$@"; do
    case $a in
      --sf=*) sfs=${a#*=} ;;
      --runs=*) nruns=${a#*=} ;;
      --threads=*) threads=${a#*=} ;;
      --drivers=*) drivers=${a#*=} ;;
      --run-sf=*) run_sf=${a#*=} ;;
    esac
  done
  export LB_SANDBOX_PG_PORT=${LB_SANDBOX_PG_PORT:-15432} LB_SANDBOX_MY_PORT=${LB_SANDBOX_MY_PORT:-13306}
  export DBT3_PW=sbtest-secret
  local driver sf r db
  echo "dbt3 load: data phase (generate + send) against the server's own bulk load of the same rows"
  echo "threads: $threads; runs: $nruns alternating; free disk: $(df -h "$work" | awk 'NR == 2 {print $4}')"
  printf '%-7s %-5s %12s %12s %12s %12s %8s\n' server SF "luabench s" "rows/s" "ceiling s" "rows/s" ratio
  for sf in ${sfs//,/ }; do
    local gdir="$work/dbt3-gen-$sf"
    mkdir -p "$gdir"
    "$LB" dbt3 --scale="$sf" --threads="$threads" --generate-dir="$gdir" generate >/dev/null
    local rows
    rows=$(cat "$gdir"/*.tsv | wc -l)
    for driver in ${drivers//,/ }; do
      db=$(./tools/sandbox-db env "$driver") || { echo "bench: start the sandbox first (tools/sandbox-db start)" >&2; return 1; }
      local lb_s=() c_s=()
      for ((r = 1; r <= nruns; r++)); do
        "$LB" dbt3 $db --table-prefix=bench_lb_ cleanup >/dev/null
        local out
        out=$("$LB" dbt3 $db --table-prefix=bench_lb_ --scale="$sf" --threads="$threads" prepare)
        lb_s+=("$(sed -n 's/^Data loaded in \([0-9.]*\)s.*/\1/p' <<<"$out")")
        dbt3_ceiling_tables "$driver"
        local t0 t1
        t0=$(dbt3_now)
        ls -S "$gdir"/*.tsv | xargs -P "$threads" -I{} bash -c 'dbt3_load_file "$0" "$1"' "$driver" {}
        t1=$(dbt3_now)
        c_s+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')")
        local got
        got=$(dbt3_sql "$driver" "SELECT (SELECT COUNT(*) FROM bench_c_lineitem) + (SELECT COUNT(*) FROM bench_c_orders) + (SELECT COUNT(*) FROM bench_c_partsupp) + (SELECT COUNT(*) FROM bench_c_part) + (SELECT COUNT(*) FROM bench_c_customer) + (SELECT COUNT(*) FROM bench_c_supplier) + 30")
        [[ $got == "$rows" ]] || echo "bench: the ceiling load has $got rows, the files $rows" >&2
      done
      local lm cm
      lm=$(printf '%s\n' "${lb_s[@]}" | median)
      cm=$(printf '%s\n' "${c_s[@]}" | median)
      printf '%-7s %-5s %12s %12.0f %12s %12.0f %8.2f   (luabench %s; ceiling %s)\n' "$driver" "$sf" "$lm" \
        "$(awk -v n="$rows" -v s="$lm" 'BEGIN {print n / s}')" "$cm" "$(awk -v n="$rows" -v s="$cm" 'BEGIN {print n / s}')" \
        "$(awk -v a="$lm" -v b="$cm" 'BEGIN {print a / b}')" "${lb_s[*]}" "${c_s[*]}"
      for a in region nation part supplier partsupp customer orders lineitem; do dbt3_sql "$driver" "DROP TABLE IF EXISTS bench_c_$a"; done
      "$LB" dbt3 $db --table-prefix=bench_lb_ cleanup >/dev/null
    done
    rm -rf "$gdir"
  done

  echo
  echo "dbt3 run at SF $run_sf, --threads=3: power test, then throughput test (2 query streams beside the refresh stream); medians of $nruns runs"
  printf '%-7s %12s %16s %12s   %s\n' server Power@Size Throughput@Size QphH@Size "(each run: power/throughput/qphh)"
  for driver in ${drivers//,/ }; do
    db=$(./tools/sandbox-db env "$driver")
    "$LB" dbt3 $db --table-prefix=bench_lb_ --scale="$run_sf" --threads="$threads" prepare >/dev/null
    local pw=() tp=() qp=() each=()
    for ((r = 1; r <= nruns; r++)); do
      local j
      j=$("$LB" dbt3 $db --table-prefix=bench_lb_ --threads=3 --time=0 --format=json run 2>/dev/null)
      read -r p t q < <(python3 -c 'import json,sys; w=json.load(sys.stdin)["workload_stats"]; print(w.get("power_at_size",0), w.get("throughput_at_size",0), w.get("qphh_at_size",0))' <<<"$j")
      pw+=("$p"); tp+=("$t"); qp+=("$q"); each+=("$(printf '%.0f/%.0f/%.0f' "$p" "$t" "$q")")
    done
    printf '%-7s %12.1f %16.1f %12.1f   %s\n' "$driver" "$(printf '%s\n' "${pw[@]}" | median)" \
      "$(printf '%s\n' "${tp[@]}" | median)" "$(printf '%s\n' "${qp[@]}" | median)" "${each[*]}"
    "$LB" dbt3 $db --table-prefix=bench_lb_ cleanup >/dev/null
  done
}
