# tools/bench net: the net workload against the Debian peers on the same work, between two
# network namespaces joined by a veth pair (created here, removed at the end, also on failure).
# The servers run in namespace B, the clients in A, one client thread, alternating runs:
#   tcp_rr 64/64       luabench net --mode=tcp_rr        vs sockperf ping-pong --tcp --full-rtt
#   udp_rr 64/64       luabench net --mode=udp_rr        vs sockperf ping-pong (UDP) --full-rtt
#   tcp_stream 64K     luabench net --mode=tcp_stream    vs iperf3 -c (one stream)
#   tcp_crr 4K/1K      luabench net --mode=tcp_crr       (no peer in Debian measures it: alone)
# Medians of transactions/s (MiB/s for the stream), the average round trip (us), the client CPU
# per transaction (us; per MiB for the stream: user + system of the client process) and the
# ratios luabench / peer. Goals (issue 28): within a few percent, at no more client CPU.
#
#   tools/bench net [--runs=N] [--time=S]
# Needs root (ip netns), sockperf and iperf3 (tools/install-deps --bench).

net_ns_up() {
  NA=lbbA$$ NB=lbbB$$
  ip netns add "$NA"
  ip netns add "$NB"
  ip link add va$$ netns "$NA" type veth peer name vb$$ netns "$NB"
  ip -n "$NA" addr add 10.253.0.1/24 dev va$$
  ip -n "$NB" addr add 10.253.0.2/24 dev vb$$
  ip -n "$NA" link set va$$ up
  ip -n "$NB" link set vb$$ up
  ip -n "$NA" link set lo up
  ip -n "$NB" link set lo up
}

net_ns_down() {
  [[ -n ${NB_PIDS:-} ]] && kill $NB_PIDS 2>/dev/null
  ip netns del "$NA" 2>/dev/null || true
  ip netns del "$NB" 2>/dev/null || true
}

# Client CPU seconds and output of a command run in namespace A.
net_in_a() { /usr/bin/time -f "LB_CPU %U %S" ip netns exec "$NA" "$@" 2>&1; }

net_cpu() { awk '/^LB_CPU/ {print $2 + $3}'; }

net_lb() { # MODE REQ RESP -> "trans/s avg_us cpu_s MiB/s_sent"
  local out
  out=$(net_in_a "$LB" net --mode="$1" --host=10.253.0.2 --port=12866 --request-size="$2" \
    --response-size="$3" --threads=1 --time="$secs" --system-stats=off --output="$work/net.json" run)
  echo "$(jq -r '[.workload_stats.transactions_per_second, .latency_ms.avg * 1000] | join(" ")' "$work/net.json") \
$(echo "$out" | net_cpu) $(jq -r '.workload_stats.mib_per_second_sent' "$work/net.json")"
}

net_sockperf() { # tcp|udp SIZE -> "trans/s avg_us cpu_s"
  local out
  out=$(net_in_a sockperf ping-pong -i 10.253.0.2 -p 11111 $([[ $1 == tcp ]] && echo --tcp) \
    -m "$2" -t "$secs" --full-rtt)
  echo "$(echo "$out" | sed -n 's/.*ReceivedMessages=\([0-9]*\).*/\1/p' | head -1 | awk -v s="$secs" '{print $1 / s}') \
$(echo "$out" | sed -n 's/.*Summary: Round trip is \([0-9.]*\) usec.*/\1/p') $(echo "$out" | net_cpu)"
}

net_iperf() { # -> "MiB/s cpu_s"
  local out
  out=$(net_in_a iperf3 -c 10.253.0.2 -p 5201 -t "$secs" -l 64K -J)
  echo "$(echo "$out" | jq '.end.sum_sent.bytes / 1048576 / .end.sum_sent.seconds' 2>/dev/null) $(echo "$out" | net_cpu)"
}

net_row() { # NAME "lb values" "peer values" UNIT
  local ml mp
  ml=$(printf '%s\n' $2 | median | awk '{printf "%.2f", $1}')
  mp=$(printf '%s\n' $3 | median | awk '{printf "%.2f", $1}')
  results+=("$(printf '| %-34s | %12s | %12s | %6s |' "$1" "$ml" "$mp" \
    "$(awk -v l="$ml" -v p="$mp" 'BEGIN {printf "%.2fx", (p > 0 ? l / p : 0)}')")")
  echo "${results[-1]}" >&2
}

peers="$(pkg_version sockperf) (round trips), $(pkg_version iperf3) (stream)"

bench_net() {
  need sockperf sockperf
  need iperf3 iperf3
  results=()
  net_ns_up
  trap 'net_ns_down; rm -rf "$work"' EXIT
  ip netns exec "$NB" "$LB" net-server --port=12866 --threads=2 >/dev/null &
  NB_PIDS="$!"
  ip netns exec "$NB" sockperf server -i 10.253.0.2 -p 11111 >/dev/null 2>&1 &
  NB_PIDS+=" $!"
  ip netns exec "$NB" sockperf server -i 10.253.0.2 -p 11111 --tcp >/dev/null 2>&1 &
  NB_PIDS+=" $!"
  ip netns exec "$NB" iperf3 -s -p 5201 >/dev/null 2>&1 &
  NB_PIDS+=" $!"
  sleep 1
  local i l p lt pt lc pc ll pl
  for kind in tcp udp; do
    lt="" pt="" ll="" pl="" lc="" pc=""
    for ((i = 0; i < runs; i++)); do
      read -r l1 l2 l3 _ <<<"$(net_lb "${kind}_rr" 64 64)"
      read -r p1 p2 p3 <<<"$(net_sockperf "$kind" 64)"
      lt+=" $l1" pt+=" $p1" ll+=" $l2" pl+=" $p2"
      lc+=" $(awk -v c="$l3" -v n="$l1" -v s="$secs" 'BEGIN {printf "%.2f", c / (n * s) * 1e6}')"
      pc+=" $(awk -v c="$p3" -v n="$p1" -v s="$secs" 'BEGIN {printf "%.2f", c / (n * s) * 1e6}')"
    done
    net_row "${kind}_rr 64/64 trans/s (sockperf)" "$lt" "$pt"
    net_row "${kind}_rr 64/64 avg RTT us (lower)" "$ll" "$pl"
    net_row "${kind}_rr client CPU us/trans (lower)" "$lc" "$pc"
  done
  lt="" pt="" lc="" pc=""
  for ((i = 0; i < runs; i++)); do
    read -r _ _ l3 l4 <<<"$(net_lb tcp_stream 64K 0)"
    read -r p1 p3 <<<"$(net_iperf)"
    lt+=" $l4" pt+=" $p1"
    lc+=" $(awk -v c="$l3" -v m="$l4" -v s="$secs" 'BEGIN {printf "%.2f", c / (m * s) * 1e3}')"
    pc+=" $(awk -v c="$p3" -v m="$p1" -v s="$secs" 'BEGIN {printf "%.2f", c / (m * s) * 1e3}')"
  done
  net_row "tcp_stream 64K MiB/s (iperf3)" "$lt" "$pt"
  net_row "tcp_stream client CPU ms/MiB (lower)" "$lc" "$pc"
  lt="" lc=""
  for ((i = 0; i < runs; i++)); do
    read -r l1 _ l3 _ <<<"$(net_lb tcp_crr 4K 1K)"
    lt+=" $l1"
    lc+=" $(awk -v c="$l3" -v n="$l1" -v s="$secs" 'BEGIN {printf "%.2f", c / (n * s) * 1e6}')"
  done
  net_row "tcp_crr 4K/1K trans/s (alone)" "$lt" ""
  net_row "tcp_crr client CPU us/trans (lower)" "$lc" ""
  echo
  echo "| case | luabench | peer | ratio |"
  echo "|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
