# tools/bench pipeline: PostgreSQL pipelines, luabench against pgbench -M prepared, on the sandbox
# server directly (0 ms) and through a Toxiproxy latency proxy (tools/sandbox-db latency) at 1, 5
# and 20 ms of round trip. At each round trip, alternating runs of:
#   pipelined   one connection, DEPTH point selects per pipeline: luabench con:pipeline() vs
#               pgbench \startpipeline ... \endpipeline (the same statements, prepared)
#   one by one  one connection, the same DEPTH selects one round trip each (the baseline)
#   --users     luabench --users=USERS --threads=1 (USERS connections, one by one) vs pgbench
#               -c USERS -j 1: hiding the round trip with connections instead of pipelines
# q/s counts statements (pgbench's tps x DEPTH); client CPU per query is the client process's
# user+system time (GNU time) over its queries; the proxy's own CPU is in neither.
#
#   tools/bench pipeline [--runs=N] [--time=S] [--depth=10] [--users=10] [--rtt=0,1,5,20]

peers="pgbench ($(pkg_version postgresql)), Toxiproxy for the round trips"

bench_pipeline() {
  local depth=10 users=10 rtts=0,1,5,20 size=100000 a
  for a in "$@"; do
    case $a in
      --depth=*) depth=${a#*=} ;;
      --users=*) users=${a#*=} ;;
      --rtt=*) rtts=${a#*=} ;;
    esac
  done
  ./tools/sandbox-db start pgsql >/dev/null
  # The latency proxy is built before the first round that needs it (its first build takes
  # ~20 s: a round must not time out waiting for it).
  if [[ ,$rtts, =~ ,[1-9] ]]; then
    if [[ $install == 1 ]]; then
      ./tools/install-toxiproxy >/dev/null || { echo "bench pipeline: cannot build the latency proxy (tools/install-toxiproxy)" >&2; return 1; }
    fi
    ./tools/install-toxiproxy --check >/dev/null || { echo "bench pipeline: the latency proxy (Toxiproxy) is not built: run tools/bench pipeline --install, or tools/install-toxiproxy" >&2; return 1; }
  fi
  local direct
  direct=$(./tools/sandbox-db env pgsql)
  "$LB" oltp_read_only $direct --tables=1 --table-size=$size cleanup >/dev/null
  "$LB" oltp_read_only $direct --tables=1 --table-size=$size prepare >/dev/null
  pipeline_scripts "$depth" "$size"
  local rtt
  for rtt in ${rtts//,/ }; do
    if [[ $rtt == 0 ]]; then
      pipeline_round "$rtt" "$direct" "$depth" "$users"
    else
      ./tools/sandbox-latency pgsql "$rtt" >"$work/proxy.opts" 2>"$work/proxy.err" &
      local proxy=$! i
      # until it prints its options, or exits (it says why); 60 s at most
      for i in $(seq 1200); do
        [[ -s $work/proxy.opts ]] && break
        kill -0 $proxy 2>/dev/null || break
        sleep 0.05
      done
      [[ -s $work/proxy.opts ]] || { echo "bench: the latency proxy did not start: $(cat "$work/proxy.err")" >&2; kill $proxy 2>/dev/null; return 1; }
      pipeline_round "$rtt" "$(cat "$work/proxy.opts")" "$depth" "$users"
      kill $proxy
      wait $proxy 2>/dev/null || true
      : >"$work/proxy.opts"
    fi
  done
  "$LB" oltp_read_only $direct --tables=1 cleanup >/dev/null
  echo
  echo "| case | luabench (median) | pgbench (median) | ratio | all runs: luabench / pgbench |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}

# The luabench script (both modes) and pgbench's two scripts, DEPTH selects each.
pipeline_scripts() {
  local depth=$1 size=$2 i
  cat >"$work/pl.lua" <<LUA
sysbench.cmdline.options = { pipelined = { "one pipeline per event", true } }
local con, sel, id
function thread_init()
  con = sysbench.sql.driver():connect()
  sel = con:prepare("SELECT c FROM sbtest1 WHERE id = ?")
  id = sel:bind_create(sysbench.sql.type.INT)
  sel:bind_param(id)
end
local default = sysbench.rand.default
function event()
  if sysbench.opt.pipelined then
    local p = con:pipeline()
    for _ = 1, $depth do id:set(default(1, $size)) p:execute(sel) end
    p:run()
  else
    for _ = 1, $depth do id:set(default(1, $size)) sel:execute() end
  end
end
LUA
  : >"$work/pgb_pipe.sql"
  : >"$work/pgb_plain.sql"
  for ((i = 1; i <= depth; i++)); do
    echo "\\set id$i random(1, $size)" | tee -a "$work/pgb_pipe.sql" >>"$work/pgb_plain.sql"
  done
  echo '\startpipeline' >>"$work/pgb_pipe.sql"
  for ((i = 1; i <= depth; i++)); do
    echo "SELECT c FROM sbtest1 WHERE id = :id$i;" | tee -a "$work/pgb_pipe.sql" >>"$work/pgb_plain.sql"
  done
  echo '\endpipeline' >>"$work/pgb_pipe.sql"
}

# us of client CPU per query from "<q/s> <cpu s>"
per_query_us() { awk -v c="$2" -v q="$1" -v s="$secs" 'BEGIN {printf "%.2f", (q > 0 ? c / (q * s) * 1e6 : 0)}'; }

# pipeline_pair NAME "LUABENCH ARGS" "PGBENCH ARGS" DEPTH
pipeline_pair() {
  local name=$1 lb_args=$2 pgb_args=$3 depth=$4 i q c
  local a=() b=() ca=() cb=()
  local port
  port=$(sed -n 's/.*--pgsql-port=\([0-9]*\).*/\1/p' <<<"$lb_args")
  for ((i = 0; i < runs; i++)); do
    read -r q c <<<"$(with_cpu qps "$LB" "$work/pl.lua" $lb_args --time=$secs run)"
    a+=("$q"); ca+=("$(per_query_us "$q" "$c")")
    read -r q c <<<"$(PGPASSWORD=sbtest-secret with_cpu pgbench_qps pgbench -n -M prepared $pgb_args \
      -h 127.0.0.1 -p "$port" -U sbtest -T "$secs" sbtest)"
    q=$(awk -v t="$q" -v d="$depth" 'BEGIN {printf "%.2f", t * d}')
    b+=("$q"); cb+=("$(per_query_us "$q" "$c")")
  done
  report_pair "$name (q/s)" 1 "${a[*]}" "${b[*]}"
  report_pair "$name (client CPU us/q)" 0 "${ca[*]}" "${cb[*]}"
}

pipeline_round() {
  local rtt=$1 db=$2 depth=$3 users=$4
  pipeline_pair "${rtt} ms, pipelined x$depth, 1 conn" "$db --pipelined=on --threads=1" \
    "-f $work/pgb_pipe.sql -c 1 -j 1" "$depth"
  pipeline_pair "${rtt} ms, one by one, 1 conn" "$db --pipelined=off --threads=1" \
    "-f $work/pgb_plain.sql -c 1 -j 1" "$depth"
  pipeline_pair "${rtt} ms, one by one, $users conns (--users / -c)" \
    "$db --pipelined=off --users=$users --threads=1" "-f $work/pgb_plain.sql -c $users -j 1" "$depth"
}
