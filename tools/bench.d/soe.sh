# tools/bench soe: the soe load against each server's own bulk-load ceiling, and what short
# connections cost (--logon=per-transaction against --logon=once).
#
#   tools/bench soe [--scale=0.1,1] [--runs=3] [--threads=2] [--drivers=pgsql,mysql]
#                   [--users=50] [--time=30] [--run-scale=0.1] [--callgrind=1]
#
# Load: for each scale and server, alternating runs of
#   luabench  `soe prepare`: its data phase ("Data loaded in Xs": generation in LuaJIT and
#             sending through COPY / LOAD DATA LOCAL, into the tables with their primary keys,
#             before the secondary indexes) is compared with
#   ceiling   the same rows, generated once to files (`soe generate`), loaded by the server's
#             own client (psql \copy, mysql LOAD DATA LOCAL INFILE) into empty tables of the
#             same definition (primary keys, no secondary index), one client per file and
#             --threads at a time.
# Sessions: on each server at scale 0.1 (--run-scale), alternating runs of `soe run` with
# --users over 2 threads, --logon=once then --logon=per-transaction: transactions per second
# and the client's CPU per transaction (user + system of the luabench process, us).
# --callgrind=1: also the client's instructions per transaction in each mode (valgrind; one run
# of SOE_CG_FEW (100) and one of SOE_CG_MANY (300) transactions on one thread, the difference
# divided by theirs: the start-up is left out), which does not depend on how busy the machine is.
# The sandbox servers must be running (tools/sandbox-db start). Tables use the prefixes
# bench_lb_ and bench_c_ and are dropped at the end.

SOE_TABLES="customers addresses card_details warehouses inventories product_information product_descriptions orders order_items logon"

soe_sql() { # DRIVER SQL
  if [[ $1 == pgsql ]]; then
    PGOPTIONS=--client-min-messages=warning PGPASSWORD=$SOE_PW psql -X -q -At -h 127.0.0.1 -p "$LB_SANDBOX_PG_PORT" -U sbtest sbtest -c "$2"
  else
    MYSQL_PWD=$SOE_PW mysql -N -B -h 127.0.0.1 -P "$LB_SANDBOX_MY_PORT" -u sbtest sbtest -e "$2"
  fi
}

soe_load_file() { # DRIVER FILE
  local t
  t=$(basename "$2"); t=${t%%.*}
  if [[ $1 == pgsql ]]; then
    PGPASSWORD=$SOE_PW psql -X -q -h 127.0.0.1 -p "$LB_SANDBOX_PG_PORT" -U sbtest sbtest -c "\\copy bench_c_$t FROM '$2'"
  else
    MYSQL_PWD=$SOE_PW mysql --local-infile=1 -h 127.0.0.1 -P "$LB_SANDBOX_MY_PORT" -u sbtest sbtest \
      -e "LOAD DATA LOCAL INFILE '$2' INTO TABLE bench_c_$t"
  fi
}
export -f soe_load_file

# Empty tables of soe's definition under bench_c_: created by prepare at the smallest scale,
# emptied, their secondary indexes dropped (as luabench's data phase finds them).
soe_ceiling_tables() { # DRIVER DB
  "$LB" soe $2 --table-prefix=bench_c_ cleanup >/dev/null
  "$LB" soe $2 --table-prefix=bench_c_ --scale=0.00001 prepare >/dev/null
  local t ix
  for t in $SOE_TABLES; do soe_sql "$1" "DELETE FROM bench_c_$t"; done
  for ix in $(awk -F'"' '/^  \{ "[a-z_]+", "[a-z_]+_ix"/ {print $2 ":" $4}' workloads/soe/schema.lua); do
    if [[ $1 == pgsql ]]; then
      soe_sql "$1" "DROP INDEX bench_c_${ix#*:}"
    else
      soe_sql "$1" "ALTER TABLE bench_c_${ix%%:*} DROP INDEX bench_c_${ix#*:}"
    fi
  done
}

soe_tps() { awk '/transactions per second \(TPS\):/ {print $NF}'; }

# Instructions per transaction of the client in one --logon mode (valgrind, one thread).
soe_callgrind() { # DB LOGON
  local n i=()
  for n in $SOE_CG_FEW $SOE_CG_MANY; do
    valgrind --tool=callgrind --callgrind-out-file="$work/soe_cg.out" "$LB" soe $1 --table-prefix=bench_lb_ \
      --threads=1 --events=$n --time=0 --rand-seed=7 --logon="$2" run >/dev/null 2>"$work/soe_cg.err" || true
    i+=("$(sed -n 's/^summary: //p' "$work/soe_cg.out")")
  done
  awk -v a="${i[0]}" -v b="${i[1]}" -v n="$((SOE_CG_MANY - SOE_CG_FEW))" 'BEGIN {printf "%.0f", (b - a) / n}'
}
SOE_CG_FEW=${SOE_CG_FEW:-100} SOE_CG_MANY=${SOE_CG_MANY:-300}

bench_soe() {
  local scales=0.1,1 nruns=3 threads=2 drivers=pgsql,mysql users=50 secs=30 run_scale=0.1 callgrind=0 a
  for a in "$@"; do
    case $a in
      --scale=*) scales=${a#*=} ;;
      --runs=*) nruns=${a#*=} ;;
      --threads=*) threads=${a#*=} ;;
      --drivers=*) drivers=${a#*=} ;;
      --users=*) users=${a#*=} ;;
      --time=*) secs=${a#*=} ;;
      --run-scale=*) run_scale=${a#*=} ;;
      --callgrind=*) callgrind=${a#*=} ;;
    esac
  done
  export LB_SANDBOX_PG_PORT=${LB_SANDBOX_PG_PORT:-15432} LB_SANDBOX_MY_PORT=${LB_SANDBOX_MY_PORT:-13306}
  export SOE_PW=sbtest-secret
  local driver scale r db
  echo "soe load: data phase (generate + send) against the server's own bulk load of the same rows"
  echo "threads: $threads; runs: $nruns alternating"
  printf '%-7s %-6s %12s %12s %12s %12s %8s\n' server scale "luabench s" "rows/s" "ceiling s" "rows/s" ratio
  for scale in ${scales//,/ }; do
    local gdir="$work/soe-gen-$scale"
    mkdir -p "$gdir"
    "$LB" soe --scale="$scale" --threads="$threads" --generate-dir="$gdir" generate >/dev/null
    local rows
    rows=$(cat "$gdir"/*.tsv | wc -l)
    for driver in ${drivers//,/ }; do
      db=$(./tools/sandbox-db env "$driver") || { echo "bench: start the sandbox first (tools/sandbox-db start)" >&2; return 1; }
      local lb_s=() c_s=()
      for ((r = 1; r <= nruns; r++)); do
        "$LB" soe $db --table-prefix=bench_lb_ cleanup >/dev/null
        local out
        out=$("$LB" soe $db --table-prefix=bench_lb_ --scale="$scale" --threads="$threads" prepare)
        lb_s+=("$(sed -n 's/^Data loaded in \([0-9.]*\)s.*/\1/p' <<<"$out")")
        soe_ceiling_tables "$driver" "$db"
        local t0 t1 got
        t0=$(date +%s.%N)
        ls -S "$gdir"/*.tsv | xargs -P "$threads" -I{} bash -c 'soe_load_file "$0" "$1"' "$driver" {}
        t1=$(date +%s.%N)
        c_s+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')")
        got=0
        for a in $SOE_TABLES; do got=$((got + $(soe_sql "$driver" "SELECT COUNT(*) FROM bench_c_$a"))); done
        [[ $got == "$rows" ]] || echo "bench: the ceiling load has $got rows, the files $rows" >&2
      done
      local lm cm
      lm=$(printf '%s\n' "${lb_s[@]}" | median)
      cm=$(printf '%s\n' "${c_s[@]}" | median)
      printf '%-7s %-6s %12s %12.0f %12s %12.0f %8.2f   (luabench %s; ceiling %s)\n' "$driver" "$scale" "$lm" \
        "$(awk -v n="$rows" -v s="$lm" 'BEGIN {print n / s}')" "$cm" "$(awk -v n="$rows" -v s="$cm" 'BEGIN {print n / s}')" \
        "$(awk -v a="$lm" -v b="$cm" 'BEGIN {print a / b}')" "${lb_s[*]}" "${c_s[*]}"
      "$LB" soe $db --table-prefix=bench_c_ cleanup >/dev/null
    done
    rm -rf "$gdir"
  done

  echo
  echo "soe sessions at scale $run_scale: $users users on 2 threads, $secs s, --logon=once against per-transaction; medians of $nruns runs"
  printf '%-7s %-16s %10s %18s %s\n' server logon "TPS" "client CPU us/txn" "(each run: TPS/us)"
  for driver in ${drivers//,/ }; do
    db=$(./tools/sandbox-db env "$driver")
    "$LB" soe $db --table-prefix=bench_lb_ cleanup >/dev/null
    "$LB" soe $db --table-prefix=bench_lb_ --scale="$run_scale" --threads="$threads" prepare >/dev/null
    local -A tps=() cpu=() each=()
    local mode
    for ((r = 1; r <= nruns; r++)); do
      for mode in once per-transaction; do
        local t c
        read -r t c <<<"$(with_cpu soe_tps "$LB" soe $db --table-prefix=bench_lb_ --users="$users" --threads=2 \
          --time="$secs" --logon=$mode run)"
        tps[$mode]+="$t "
        cpu[$mode]+="$(awk -v c="$c" -v t="$t" -v s="$secs" 'BEGIN {printf "%.0f", c / (t * s) * 1e6}') "
        each[$mode]+="$(printf '%.0f/%s' "$t" "$(awk -v c="$c" -v t="$t" -v s="$secs" 'BEGIN {printf "%.0f", c / (t * s) * 1e6}')") "
      done
    done
    for mode in once per-transaction; do
      printf '%-7s %-16s %10.1f %18.0f %s\n' "$driver" "$mode" "$(printf '%s\n' ${tps[$mode]} | median)" \
        "$(printf '%s\n' ${cpu[$mode]} | median)" "(${each[$mode]% })"
    done
    if ((callgrind)); then
      printf '%-7s instructions per transaction (callgrind, client): once %s, per-transaction %s\n' "$driver" \
        "$(soe_callgrind "$db" once)" "$(soe_callgrind "$db" per-transaction)"
    fi
    "$LB" soe $db --table-prefix=bench_lb_ cleanup >/dev/null
  done
}
