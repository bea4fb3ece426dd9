# tools/bench redis: examples/redis_kv.lua against redis-benchmark (issue 33), 50 connections on
# one client thread each, on a private redis-server started here (no persistence; stopped at the
# end): luabench --users=50 --threads=1 --get-pct=50 against redis-benchmark -c 50 -t set,get,
# 100-byte values, 10,000 keys, the same number of operations (--ops, default 200,000: half GETs,
# half SETs). Rounds alternate the cases; medians of operations/s (wall clock) and of client CPU
# per operation (user + system seconds of the client process / its operations, which a busy
# machine changes far less than rates), and luabench / redis-benchmark. Goal: CPU per operation
# at most 1.0x redis-benchmark's.
#
#   tools/bench redis [--runs=3] [--ops=200000] [--before-script=PATH [--before=BINARY]]
#                     [--syscalls] [--callgrind]
#
# --before-script=PATH adds the case of another version of the example (e.g. `git show
# REV:examples/redis_kv.lua >old.lua`), run by --before=BINARY (a build of REV) or else by the
# binary measured. --syscalls adds system calls per operation (perf's syscall tracepoint, or
# strace -f -c without perf; one run of --ops/10 per case); --callgrind user-space instructions per
# operation: (Ir of 12,000 operations - Ir of 2,000) / 10,000, so start-up, connects and prepare
# cancel out; the load changes it only through how often a reply is there before the client
# waits (valgrind slows the client, not the server: a few % between runs).

redis_ex=$PWD/examples/redis_kv.lua

# redis_cmd CASE OPS: the command line of one case.
redis_cmd() {
  case $1 in
    redis-benchmark) echo "redis-benchmark -p $redis_port -c 50 -n $(($2 / 2)) -t set,get -d 100 -r 10000 -q" ;;
    luabench) echo "$LB $redis_ex --redis-port=$redis_port --keys=10000 --value-size=100 --users=50 --threads=1 --get-pct=50 --events=$2 --time=0 run" ;;
    before) echo "$redis_before_lb $redis_before --redis-port=$redis_port --keys=10000 --value-size=100 --users=50 --threads=1 --get-pct=50 --events=$2 --time=0 run" ;;
  esac
}

# redis_run CASE: one timed run; appends its ops/s and CPU us/op to the case's lists.
redis_run() {
  local out e c ops=$redis_ops
  # shellcheck disable=SC2046
  out=$( { /usr/bin/time -f 'LB_CPU %e %U %S' $(redis_cmd "$1" "$ops") >/dev/null; } 2>&1)
  read -r e c <<<"$(echo "$out" | awk '/^LB_CPU/ {print $2, $3 + $4}')"
  local q us
  q=$(awk -v e="$e" -v n="$ops" 'BEGIN {printf "%.0f", (e > 0 ? n / e : 0)}')
  us=$(awk -v c="$c" -v n="$ops" 'BEGIN {printf "%.2f", c / n * 1e6}')
  redis_q[$1]+="$q "
  redis_c[$1]+="$us "
  echo "redis: $1: $q ops/s, $us us of client CPU per operation (load $(cut -d' ' -f1 /proc/loadavg))" >&2
}

# redis_syscalls CASE: system calls per operation over --ops/10 operations, counted by the
# kernel's tracepoint (perf stat -e raw_syscalls:sys_enter, which does not slow the client) where
# perf may read it, else by strace -f -c (which does: the server then answers before the client
# reads more often than it would, and a reply that is there saves the client a wait).
redis_syscalls() {
  local n=$((redis_ops / 10)) v
  # shellcheck disable=SC2046
  v=$(perf stat -x, -e raw_syscalls:sys_enter $(redis_cmd "$1" "$n") 2>&1 >/dev/null |
    awk -F, -v n="$n" '$3 ~ /sys_enter/ && $1 ~ /^[0-9]+$/ {printf "%.2f", $1 / n}' || true)
  if [[ -z $v ]]; then
    # shellcheck disable=SC2046
    strace -f -c -o "$work/strace.txt" $(redis_cmd "$1" "$n") >/dev/null 2>&1
    v="$(awk -v n="$n" '$NF == "total" {printf "%.2f", $(NF - 2) / n}' "$work/strace.txt") (strace)"
  fi
  echo "$v"
}

# redis_ir CASE: user-space instructions per operation under callgrind.
redis_ir() {
  local n ir2000=0 ir12000=0
  for n in 2000 12000; do
    # shellcheck disable=SC2046
    valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file="$work/cg.$n" \
      $(redis_cmd "$1" $n) >/dev/null 2>&1
    eval "ir$n=$(awk '/^summary:/ {print $2}' "$work/cg.$n")"
  done
  echo $(((ir12000 - ir2000) / 10000))
}

bench_redis() {
  need redis-server redis-server
  need redis-benchmark redis-tools
  local a syscalls=0 callgrind=0 c i
  redis_ops=200000 redis_before="" redis_before_lb=$LB
  for a in "$@"; do
    case $a in
      --ops=*) redis_ops=${a#*=} ;;
      --before-script=*) redis_before=$(realpath "${a#*=}") ;;
      --before=*) redis_before_lb=$(realpath "${a#*=}") ;;
      --syscalls) syscalls=1 ;;
      --callgrind) callgrind=1 ;;
    esac
  done
  [[ $syscalls == 0 ]] || need strace strace
  [[ $callgrind == 0 ]] || need valgrind valgrind
  redis_port=$((26400 + $$ % 500))
  redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
    --daemonize yes --pidfile "$work/redis.pid" --logfile "$work/redis.log"
  trap 'redis-cli -p $redis_port shutdown nosave >/dev/null 2>&1; rm -rf "$work"' EXIT
  for i in $(seq 100); do redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
  "$LB" "$redis_ex" --redis-port="$redis_port" --keys=10000 --value-size=100 prepare >/dev/null
  local cases=(luabench redis-benchmark)
  [[ -z $redis_before ]] || cases=(luabench before redis-benchmark)
  declare -gA redis_q=() redis_c=()
  for ((i = 0; i < runs; i++)); do
    for c in "${cases[@]}"; do redis_run "$c"; done
  done
  local rq rc
  rq=$(printf '%s\n' ${redis_q[redis-benchmark]} | median)
  rc=$(printf '%s\n' ${redis_c[redis-benchmark]} | median)
  echo
  echo "| case | ops/s (median) | client CPU us/op (median) | CPU vs redis-benchmark | syscalls/op | instructions/op | all runs: ops/s; us/op |"
  echo "|---|---|---|---|---|---|---|"
  for c in "${cases[@]}"; do
    local q u s="" ir=""
    q=$(printf '%s\n' ${redis_q[$c]} | median)
    u=$(printf '%s\n' ${redis_c[$c]} | median)
    [[ $syscalls == 0 ]] || s=$(redis_syscalls "$c")
    [[ $callgrind == 0 ]] || ir=$(redis_ir "$c")
    printf '| %s | %s | %s | %s | %s | %s | %s; %s |\n' "$c" "$q" "$u" \
      "$(awk -v u="$u" -v r="$rc" 'BEGIN {printf "%.2fx", (r > 0 ? u / r : 0)}')" "$s" "$ir" "${redis_q[$c]% }" "${redis_c[$c]% }"
  done
  echo "(redis-benchmark median: $rq ops/s)" >&2
}

[[ " $* " == *" --runs="* ]] || runs=3
peers="$(pkg_version redis-tools) (redis-benchmark), $(pkg_version redis-server)"
