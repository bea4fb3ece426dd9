# tools/bench soak: one long oltp_read_write run against a sandbox server that is restarted every
# few minutes, with a network partition between restarts. Every minute: the client's RSS, open
# descriptors and threads, the server's connections from luabench, and the last interval's tps.
# At the end: the drift of each figure and whether every fault was survived (exit code 0, as many
# reconnects as faults x threads at least, throughput back after each).
#
#   tools/bench soak [--driver=pgsql|mysql] [--minutes=30] [--threads=4]
#     --restart-every=M   minutes between server restarts (default 5)
#     --partition=S       a partition of S seconds half-way between restarts (default 20; needs
#                         root and nft; 0 = none)
# The sandbox server must be running (tools/sandbox-db start); it is restarted, never stopped.

soak_sql() { # DB-OPTIONS SQL -> the first column of the first row
  printf 'local r = sysbench.sql.driver():connect():query_row([[%s]]) print("V", r)\n' "$2" |
    "$LB" - --verbosity=1 $1 2>/dev/null | awk '$1 == "V" {print $2}'
}

bench_soak() {
  local driver=pgsql minutes=30 threads=4 every=5 part=20 a
  for a in "$@"; do
    case $a in
      --driver=*) driver=${a#*=} ;;
      --minutes=*) minutes=${a#*=} ;;
      --threads=*) threads=${a#*=} ;;
      --restart-every=*) every=${a#*=} ;;
      --partition=*) part=${a#*=} ;;
    esac
  done
  local db conns_sql
  db=$(./tools/sandbox-db env "$driver") || { echo "bench: start the sandbox first (tools/sandbox-db start)" >&2; return 1; }
  if [[ $driver == pgsql ]]; then
    conns_sql="SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'luabench'"
  else
    conns_sql="SELECT COUNT(*) FROM information_schema.processlist WHERE user = 'sbtest'"
  fi
  if [[ $part != 0 ]] && { [[ $(id -u) != 0 ]] || ! command -v nft >/dev/null; }; then
    echo "bench: partitions need root and nft; running without (--partition=0)" >&2
    part=0
  fi
  local oltp="oltp_read_write $db --tables=4 --table-size=10000"
  "$LB" $oltp cleanup >/dev/null 2>&1 || true
  "$LB" $oltp --threads=4 prepare >/dev/null
  # a little longer than the samples, so the last one finds it running
  local out=$work/soak.out secs=$((minutes * 60 + 15))
  "$LB" $oltp --threads="$threads" --time="$secs" --report-interval=10 --db-tcp-timeout=5 \
    --db-connect-timeout=2 --output="$work/soak.json" run >"$out" 2>&1 &
  local pid=$! t0 restarts=0 partitions=0 m rows=() fault
  t0=$(date +%s)
  echo "soak: $driver, $threads threads, $minutes min, restart every $every min, partition ${part}s between" >&2
  for ((m = 1; m <= minutes; m++)); do
    fault=""
    # a partition half-way to the next restart, a restart on the minute
    if [[ $part != 0 && $((m % every)) == $(((every + 1) / 2)) ]]; then
      sleep $((t0 + m * 60 - 30 - $(date +%s)))
      ./tools/sandbox-db partition "$driver" "$part" >/dev/null 2>&1 || true
      partitions=$((partitions + 1))
      fault="partition ${part}s"
    fi
    sleep $((t0 + m * 60 - $(date +%s) > 0 ? t0 + m * 60 - $(date +%s) : 0))
    kill -0 $pid 2>/dev/null || break
    local rss fds thr conns tps
    rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' /proc/$pid/status)
    fds=$(ls /proc/$pid/fd | wc -l)
    thr=$(awk '/Threads/ {print $2}' /proc/$pid/status)
    conns=$(soak_sql "$db" "$conns_sql")
    tps=$(grep -o 'tps: [0-9.]*' "$out" | tail -1 | awk '{print $2}')
    if ((m % every == 0 && m < minutes)); then
      ./tools/sandbox-db restart "$driver" >/dev/null 2>&1
      restarts=$((restarts + 1))
      fault="${fault:+$fault, }restart"
    fi
    rows+=("| $m | $rss | $fds | $thr | $conns | $tps | $fault |")
    echo "${rows[-1]}" >&2
  done
  local rc=0
  wait $pid || rc=$?
  [[ -f $work/soak.json ]] || { echo "bench: the soak run failed (exit code $rc):" >&2; tail -5 "$out" >&2; return 1; }
  local reconnects status
  reconnects=$(jq -r '.counters.reconnects' "$work/soak.json")
  status=$(jq -r '.status' "$work/soak.json")
  echo
  echo "$driver, $threads threads, $minutes min; restarts: $restarts, partitions: $partitions; exit code $rc, status $status, reconnects $reconnects"
  echo "| minute | client RSS (MiB) | open fds | threads | server connections (incl. the sampler's) | tps (last 10 s) | faults: partition at :30, restart after the sample |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  # memory after the first two minutes (warm caches) against the end
  printf '%s\n' "${rows[@]}" | awk -F'|' 'NR == 2 {a = $3} {b = $3; f[NR] = $4}
    END {printf "RSS minute 2 -> last: %.1f -> %.1f MiB (%+.1f %%)\n", a, b, (b - a) / a * 100}'
  grep -E 'reconnects:|transactions:' "$out" | sed 's/^ */  /'
}
