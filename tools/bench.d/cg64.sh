# tools/bench cg64: user-space instructions per query at 64 connections (issue 33), which the
# load of a shared machine does not change: callgrind on oltp_point_select against the sandbox
# PostgreSQL (4 tables of 100,000 rows, TLS as libpq negotiates it) for
#   luabench --users=64 --threads=2, luabench --threads=64, sysbench --threads=64
# (and both luabench cases of --before=PATH, a build from before a change). Each process starts
# with callgrind's instrumentation off; 30 s after its 64 sessions are connected it is switched on
# for --time seconds (default 60), so start-up and the connects stay out, and the instructions
# are divided by the calls to PQsendQueryPrepared in that window (one per query): in all, and per
# library. The sandbox server's authentication_timeout is raised for the duration (64 TLS
# handshakes under valgrind take longer than its default minute).
#
#   tools/bench cg64 [--time=S] [--before=PATH]

# cg64_count FILE: "queries instructions" and one "object instructions" line per library.
cg64_count() {
  awk '/^summary:/ {total = $2}
    /^c?fn=\(/ {
      id = $1; sub(/^c?fn=/, "", id)
      if (NF > 1) name[id] = $2
      if ($1 ~ /^cfn=/) callee = name[id]
    }
    /^calls=/ {
      if (callee == "PQsendQueryPrepared") { split($1, c, "="); n += c[2] }
      callee = ""
    }
    END {print n + 0, total + 0}' "$1"
  callgrind_annotate --threshold=100 "$1" 2>/dev/null |
    awk 'match($0, /\[[^]]*\]$/) {
      obj = substr($0, RSTART + 1, RLENGTH - 2); sub(/.*\//, "", obj)
      v = $1; gsub(/,/, "", v); sum[obj] += v
    } END {for (o in sum) print o, sum[o]}' | sort -k2,2nr
}

# cg64_case NAME BINARY ARGS...: one callgrind run; prints NAME's row.
cg64_case() {
  local name=$1 out=$work/cg64.out n=0 pid
  shift
  rm -f "$out"*
  valgrind --tool=callgrind --smc-check=all-non-file --instr-atstart=no --callgrind-out-file="$out" \
    "$@" >"$work/cg64.stdout" 2>"$work/cg64.err" &
  pid=$!
  until ((n >= 64)); do
    kill -0 $pid 2>/dev/null || { echo "bench cg64: $name ended early: $(tail -2 "$work/cg64.err")" >&2; return 1; }
    sleep 5
    n=$(./tools/sandbox-db admin pgsql "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sbtest' AND state IS NOT NULL")
  done
  sleep 30
  callgrind_control -i on $pid >/dev/null 2>&1
  sleep "$secs"
  callgrind_control -d $pid >/dev/null 2>&1
  kill -INT $pid 2>/dev/null
  sleep 5
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
  local f q total
  f=$(ls "$out".* 2>/dev/null | head -1)
  cg64_count "$f" >"$work/cg64.count"
  read -r q total <"$work/cg64.count"
  local libs
  libs=$(tail -n +2 "$work/cg64.count" | awk -v q="$q" '{printf "%s%s %.0f", (NR > 1 ? ", " : ""), $1, $2 / q}')
  results+=("$(printf '| %s | %d | %.0f | %s |' "$name" "$q" "$(awk -v t="$total" -v q="$q" 'BEGIN {print (q > 0 ? t / q : 0)}')" "$libs")")
  echo "${results[-1]}" >&2
}

bench_cg64() {
  local before base
  [[ " $* " == *" --time="* ]] || secs=60
  command -v valgrind >/dev/null || { echo "bench cg64: needs valgrind" >&2; return 1; }
  source tools/bench.d/conn64.sh
  conn64_setup "$@" || return 1
  ./tools/sandbox-db admin pgsql "ALTER SYSTEM SET authentication_timeout = '10min'" >/dev/null
  ./tools/sandbox-db admin pgsql "SELECT pg_reload_conf()" >/dev/null
  results=()
  local slow=(--db-connect-timeout=600 --thread-init-timeout=1200 --time=100000)
  cg64_case "luabench --users=64 --threads=2" "$LB" "${base[@]}" --users=64 --threads=2 "${slow[@]}" run
  cg64_case "luabench --threads=64" "$LB" "${base[@]}" --threads=64 "${slow[@]}" run
  # (sysbench's 64 KiB thread stacks overflow under valgrind)
  cg64_case "sysbench --threads=64" "$SB" "${base[@]}" --threads=64 --thread-stack-size=1M --time=100000 run
  if [[ -n $before ]]; then
    cg64_case "before --users=64 --threads=2" "$before" "${base[@]}" --users=64 --threads=2 "${slow[@]}" run
    cg64_case "before --threads=64" "$before" "${base[@]}" --threads=64 "${slow[@]}" run
  fi
  ./tools/sandbox-db admin pgsql "ALTER SYSTEM RESET authentication_timeout" >/dev/null
  ./tools/sandbox-db admin pgsql "SELECT pg_reload_conf()" >/dev/null
  "$LB" "${base[@]}" cleanup >/dev/null
  echo
  echo "| case | queries counted | instructions per query | per library |"
  echo "|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
