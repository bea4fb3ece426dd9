# tools/bench mbw: memory --memory-method against mbw on the same array, one thread, its three
# methods, alternating runs: medians of mbw's AVG "Copy" MiB/s and the ratio luabench / mbw
# (goal, issue 28: within a few percent).
#
#   tools/bench mbw [--runs=N] [--mib=SIZE_MiB] [--loops=N]

mbw_copy() { sed -n 's/^AVG.*Copy: \([0-9.]*\) MiB\/s.*/\1/p' | head -1; }

bench_mbw() {
  local mib=256 loops=10 a
  for a in "$@"; do
    case $a in
      --mib=*) mib=${a#*=} ;;
      --loops=*) loops=${a#*=} ;;
    esac
  done
  command -v mbw >/dev/null || { echo "bench mbw: mbw is not installed" >&2; return 1; }
  results=()
  local t m lv mv i
  for t in 0 1 2; do
    m=$(echo "memcpy dumb mcblock" | cut -d' ' -f$((t + 1)))
    lv="" mv=""
    for ((i = 0; i < runs; i++)); do
      lv+=" $("$LB" memory --memory-method="$m" --memory-array-size="${mib}M" --memory-runs="$loops" \
        --threads=1 --time=0 --system-stats=off run | mbw_copy)"
      mv+=" $(mbw -q -n "$loops" -t"$t" "$mib" | mbw_copy)"
    done
    local ml mm
    ml=$(printf '%s\n' $lv | median)
    mm=$(printf '%s\n' $mv | median)
    results+=("$(printf '| %-30s | %10s | %10s | %6s |' "$m ${mib} MiB (MiB/s)" "$ml" "$mm" \
      "$(awk -v l="$ml" -v p="$mm" 'BEGIN {printf "%.2fx", (p > 0 ? l / p : 0)}')")")
    echo "${results[-1]}" >&2
  done
  echo
  echo "| method | luabench | mbw | ratio |"
  echo "|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
