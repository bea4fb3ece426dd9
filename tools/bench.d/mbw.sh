# tools/bench mbw: memory --memory-method against mbw on the same array, one thread, its three
# methods, alternating runs: medians of mbw's AVG "Copy" MiB/s and the ratio luabench / mbw
# (goal, issue 28: within a few percent).
#
#   tools/bench mbw [--runs=N] [--mib=SIZE_MiB] [--loops=N]
#
# Each method is compared with the mbw test that runs the same code. Debian's mbw (1.2.2, like
# upstream's 1.x sources) has its first two tests the wrong way round: -t0, printed "MEMCPY",
# runs the b[i]=a[i] loop, and -t1, printed "DUMB", runs memcpy() (its worker tests type 1 for
# memcpy; its printout and usage call 0 memcpy). mbw_tests finds out which way the installed
# binary does it from the instructions each test executes (the loop executes several per 8-byte
# element, memcpy a few per 128 bytes); without perf it assumes Debian's.

mbw_copy() { sed -n 's/^AVG.*Copy: \([0-9.]*\) MiB\/s.*/\1/p' | head -1; }

# User-space instructions of one mbw test on a 16 MiB array, 4 copies (empty when perf cannot count).
mbw_instructions() {
  perf stat -x, -e instructions:u mbw -q -n 4 -t"$1" 16 2>&1 >/dev/null |
    awk -F, '$3 ~ /^instructions/ && $1 ~ /^[0-9]+$/ {print $1}'
}

# The mbw test numbers for memcpy, dumb and mcblock, and how they were found (stderr).
mbw_tests() {
  local i0 i1
  i0=$(mbw_instructions 0 || true)
  i1=$(mbw_instructions 1 || true)
  if [[ -n $i0 && -n $i1 ]] && ((i0 > i1 * 3 / 2)); then
    echo "bench mbw: mbw -t0 executes $i0 instructions, -t1 $i1: -t1 is memcpy, -t0 the element loop (Debian's 1.2.2)" >&2
    echo "1 0 2"
  elif [[ -n $i0 && -n $i1 ]] && ((i1 > i0 * 3 / 2)); then
    echo "bench mbw: mbw -t0 executes $i0 instructions, -t1 $i1: -t0 is memcpy, -t1 the element loop" >&2
    echo "0 1 2"
  else
    echo "bench mbw: perf stat did not tell mbw's tests apart (instructions: -t0 ${i0:-not counted}, -t1 ${i1:-not counted}): assuming Debian's 1.2.2 (-t1 memcpy, -t0 the element loop)" >&2
    echo "1 0 2"
  fi
}

peers=$(pkg_version mbw)

bench_mbw() {
  local mib=256 loops=10 a
  for a in "$@"; do
    case $a in
      --mib=*) mib=${a#*=} ;;
      --loops=*) loops=${a#*=} ;;
    esac
  done
  need mbw mbw
  local -a tests
  read -r -a tests <<<"$(mbw_tests)"
  results=()
  local k m t lv mv i
  for k in 0 1 2; do
    m=$(echo "memcpy dumb mcblock" | cut -d' ' -f$((k + 1)))
    t=${tests[k]}
    lv="" mv=""
    for ((i = 0; i < runs; i++)); do
      lv+=" $("$LB" memory --memory-method="$m" --memory-array-size="${mib}M" --memory-runs="$loops" \
        --threads=1 --time=0 --system-stats=off run | mbw_copy)"
      mv+=" $(mbw -q -n "$loops" -t"$t" "$mib" | mbw_copy)"
    done
    local ml mm
    ml=$(printf '%s\n' $lv | median)
    mm=$(printf '%s\n' $mv | median)
    results+=("$(printf '| %-34s | %10s | %10s | %6s |' "$m ${mib} MiB vs mbw -t$t (MiB/s)" "$ml" "$mm" \
      "$(awk -v l="$ml" -v p="$mm" 'BEGIN {printf "%.2fx", (p > 0 ? l / p : 0)}')")")
    echo "${results[-1]}" >&2
  done
  echo
  echo "| method | luabench | mbw | ratio |"
  echo "|---|---|---|---|"
  printf '%s\n' "${results[@]}"
}
