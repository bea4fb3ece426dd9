# tools/bench study: what `luabench study` and `luabench compare` cost (issue 36).
#
#   tools/bench study [--runs=3] [--time=5] [--dir=DIR]
#
# 1. A study of 2 configurations (--threads=1 and 2) x 5 workloads (cpu, memory, threads, mutex,
#    fileio rndrd on a 16 MiB file) x `runs` repeats of `time` s: the study's wall time against
#    the sum of its runs' wall times (each run's process, as the study measured it) and against
#    the sum of their measured windows (time_s). Goal: the study adds at most 5 %.
# 2. `luabench compare` and `luabench report` of 60 results (a study of 2 x 30 one-second cpu
#    runs; the results, not the runs, are timed): median wall and user CPU of 5 invocations.
#    Goal: compare under a second.

study_secs() { date +%s.%N; }

bench_study() {
  local per=3 t=5 dir a
  dir=$(mktemp -d /tmp/lb-study.XXXXXX)
  for a in "$@"; do
    case $a in
      --runs=*) per=${a#*=} ;;
      --time=*) t=${a#*=} ;;
      --dir=*) dir=${a#*=} ;;
    esac
  done
  command -v jq >/dev/null || { echo "bench study: jq is needed" >&2; return 1; }
  mkdir -p "$dir/fio"
  local SLB=$dir/luabench
  cp "$LB" "$SLB"
  (cd "$dir/fio" && "$SLB" fileio --file-total-size=16M --file-num=1 prepare >/dev/null)
  cat >"$dir/overhead.lua" <<EOF
return { dir = "$dir/overhead", repeats = $per, options = "--time=$t",
  configurations = { { label = "one", options = "--threads=1" }, { label = "two", options = "--threads=2" } },
  workloads = { { args = "cpu" }, { args = "memory" }, { args = "threads" }, { args = "mutex --mutex-locks=1000000" },
                { args = "fileio --file-dir=$dir/fio --file-total-size=16M --file-num=1 --file-test-mode=rndrd" } } }
EOF
  local t0 t1
  t0=$(study_secs)
  "$SLB" study "$dir/overhead.lua" >"$dir/overhead.out" 2>&1 || { tail -3 "$dir/overhead.out" >&2; return 1; }
  t1=$(study_secs)
  local wall runs windows
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
  runs=$(jq '[.runs[] | .wall_s] | add' "$dir/overhead/manifest.json" | awk '{printf "%.2f", $1}')
  windows=$(for f in "$dir"/overhead/runs/*.json; do jq '.time_s' "$f"; done | awk '{s += $1} END {printf "%.2f", s}')
  echo "bench study: $(jq '.runs | length' "$dir/overhead/manifest.json") runs: study $wall s, runs' processes $runs s, measured windows $windows s" >&2

  cat >"$dir/sixty.lua" <<EOF
return { dir = "$dir/sixty", repeats = 30, options = "--time=1 --report-interval=1 --percentile=50,95,99",
  configurations = { { label = "a" }, { label = "b" } }, workloads = { { args = "cpu --cpu-max-prime=2000" } } }
EOF
  "$SLB" study "$dir/sixty.lua" >"$dir/sixty.out" 2>&1 || { tail -3 "$dir/sixty.out" >&2; return 1; }
  local TIMEFORMAT='%R %U' i cw="" cu="" rw="" ru="" x
  for ((i = 0; i < 5; i++)); do
    x=$({ time "$SLB" compare "$dir/sixty" >/dev/null; } 2>&1)
    cw+=" ${x% *}" cu+=" ${x#* }"
    x=$({ time "$SLB" report "$dir/sixty" -o "$dir/sixty.html" >/dev/null 2>&1; } 2>&1)
    rw+=" ${x% *}" ru+=" ${x#* }"
  done
  echo
  echo "| what | figure |"
  echo "|---|---|"
  echo "| study of 2 x 5 x $per runs of $t s: wall time | $wall s |"
  echo "| the runs' processes (sum) | $runs s |"
  echo "| the runs' measured windows (sum of time_s) | $windows s |"
  awk -v w="$wall" -v r="$runs" -v m="$windows" 'BEGIN {
    printf "| study / runs'"'"' processes | %.4f (+%.2f %%) |\n", w / r, 100 * (w / r - 1)
    printf "| study / measured windows | %.4f (+%.2f %%) |\n", w / m, 100 * (w / m - 1) }'
  echo "| compare of 60 results: wall / user CPU (median of 5) | $(printf '%s\n' $cw | median) s / $(printf '%s\n' $cu | median) s |"
  echo "| report of 60 results: wall / user CPU (median of 5) | $(printf '%s\n' $rw | median) s / $(printf '%s\n' $ru | median) s |"
}
