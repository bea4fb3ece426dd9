# tools/bench verdicts: how often compare's verdicts are wrong, measured on this machine with a
# real PostgreSQL workload on the sandbox server (issue 36).
#
#   tools/bench verdicts [--pairs=20] [--runs=3] [--time=5] [--threads=8] [--effect-runs=5] [--dir=DIR]
#                        [--only=same|effect]
#
# 1. False alarms: one study of two identical configurations, A and B, alternating, pairs x runs
#    rounds of oltp_write_only (--threads, --time s each). The rounds are cut into `pairs` label
#    sets of `runs` runs each (A's rounds 1-3 against B's rounds 1-3, then 4-6, ...) and compared:
#    how many come out `*` on throughput (and on any headline figure). The same runs regrouped
#    as 5 against 5, and as single runs judged by the within-run rule, for comparison.
# 2. A real effect: the sandbox made durable (fsync on, full_page_writes on: doc/sandbox.md), a
#    study of synchronous_commit=on against off (PGOPTIONS), --effect-runs rounds; the verdict
#    and the ratio on throughput, at effect-runs and at 3 runs. The sandbox's settings are put
#    back at the end.
# Needs jq. Uses a copy of the binary, so that a rebuild meanwhile does not fail the runs.

verdicts_count() { # FILE...: how many compare summaries say * on the throughput row / any row
  local f tps=0 any=0
  for f in "$@"; do
    [[ $(jq -r '[.summary[] | select(.metric == "transactions/s") | .significant[1]][0]' "$f") == true ]] && tps=$((tps + 1))
    [[ $(jq -r '[.summary[] | .significant[1]] | any' "$f") == true ]] && any=$((any + 1))
  done
  echo "$tps $any"
}

# the result files of configuration C's measured rounds FROM..TO of study DIR
verdicts_runs() {
  jq -r --arg c "$2" --argjson a "$3" --argjson b "$4" \
    '.runs[] | select(.configuration == $c and .status == "ok" and (.repeat // 0) >= $a and (.repeat // 0) <= $b) | .file' \
    "$1/manifest.json" | sed "s|^|$1/|"
}

# groups of N rounds from study DIR compared, A against B: the JSON files written
verdicts_groups() {
  local dir=$1 n=$2 groups=$3 out=$4 k
  for ((k = 0; k < groups; k++)); do
    # shellcheck disable=SC2046
    "$VLB" compare --format=json --label=A $(verdicts_runs "$dir" A $((k * n + 1)) $((k * n + n))) \
      --label=B $(verdicts_runs "$dir" B $((k * n + 1)) $((k * n + n))) >"$out/cmp-$n-$k.json"
    echo "$out/cmp-$n-$k.json"
  done
}

bench_verdicts() {
  local pairs=20 per=3 t=5 threads=8 effect=5 only="" dir a
  dir=$(mktemp -d /tmp/lb-verdicts.XXXXXX)
  for a in "$@"; do
    case $a in
      --pairs=*) pairs=${a#*=} ;;
      --runs=*) per=${a#*=} ;;
      --time=*) t=${a#*=} ;;
      --threads=*) threads=${a#*=} ;;
      --effect-runs=*) effect=${a#*=} ;;
      --dir=*) dir=${a#*=} ;;
      --only=*) only=${a#*=} ;;
    esac
  done
  command -v jq >/dev/null || { echo "bench verdicts: jq is needed" >&2; return 1; }
  [[ -z $only || $only == same || $only == effect ]] || { echo "bench verdicts: --only=same or --only=effect" >&2; return 1; }
  mkdir -p "$dir"
  VLB=$dir/luabench
  cp "$LB" "$VLB"
  local db
  db=$(tools/sandbox-db env pgsql) || return 1
  echo "bench verdicts: results in $dir" >&2

  if [[ $only != effect ]]; then verdicts_same; fi
  if [[ $only != same ]]; then verdicts_effect; fi
}

# 1. identical configurations
verdicts_same() {
  cat >"$dir/same.lua" <<EOF
local vars = ...
return { dir = "$dir/same", repeats = $((pairs * per)),
  options = "--time=$t --report-interval=1 --threads=$threads --percentile=95,99",
  configurations = { { label = "A" }, { label = "B" } },
  workloads = { { name = "write", args = "oltp_write_only " .. vars.db .. " --tables=4 --table-size=10000", prepare = true } } }
EOF
  "$VLB" oltp_write_only $db --tables=4 cleanup >/dev/null 2>&1 || true
  LUABENCH=$VLB "$VLB" study "$dir/same.lua" --set=db="$db" >"$dir/same.out" 2>&1 || { tail -3 "$dir/same.out" >&2; }
  "$VLB" oltp_write_only $db --tables=4 cleanup >/dev/null 2>&1 || true
  local g3 g3any g5 g5any single=0 n5=$((pairs * per / 5)) k
  # shellcheck disable=SC2046
  read -r g3 g3any <<<"$(verdicts_count $(verdicts_groups "$dir/same" "$per" "$pairs" "$dir"))"
  # shellcheck disable=SC2046
  read -r g5 g5any <<<"$(verdicts_count $(verdicts_groups "$dir/same" 5 "$n5" "$dir"))"
  for ((k = 1; k <= pairs * per; k++)); do
    "$VLB" compare --format=json --label=A $(verdicts_runs "$dir/same" A $k $k) --label=B $(verdicts_runs "$dir/same" B $k $k) >"$dir/single-$k.json"
    [[ $(jq -r '[.summary[] | select(.metric == "transactions/s") | .significant[1]][0]' "$dir/single-$k.json") == true ]] && single=$((single + 1))
  done
  local spread
  # shellcheck disable=SC2046
  spread=$(jq -r '.rates.events_per_s' $(verdicts_runs "$dir/same" A 1 $((pairs * per))) $(verdicts_runs "$dir/same" B 1 $((pairs * per))) |
    sort -g | awk '{v[NR]=$1} END {printf "%.0f..%.0f tps (median %.0f)", v[1], v[NR], v[int((NR+1)/2)]}')

  echo
  echo "| case | compared | \`*\` on throughput | \`*\` on any headline figure |"
  echo "|---|---|---|---|"
  echo "| identical configurations, $per runs against $per | $pairs pairs | $g3 | $g3any |"
  echo "| the same runs, 5 against 5 | $n5 pairs | $g5 | $g5any |"
  echo "| the same runs, 1 against 1 (within-run rule) | $((pairs * per)) pairs | $single | |"
  echo
  echo "identical configurations: $((2 * pairs * per)) runs of oltp_write_only --threads=$threads --time=$t: $spread"
}

# 2. synchronous_commit on a durable server
verdicts_effect() {
  tools/sandbox-db admin pgsql "ALTER SYSTEM SET fsync = on" >/dev/null
  tools/sandbox-db admin pgsql "ALTER SYSTEM SET full_page_writes = on" >/dev/null
  tools/sandbox-db admin pgsql "SELECT pg_reload_conf()" >/dev/null
  cat >"$dir/sync.lua" <<EOF
local vars = ...
return { dir = "$dir/sync", repeats = $effect,
  options = "--time=$t --threads=$threads --percentile=95,99",
  configurations = { { label = "on", env = { PGOPTIONS = "-c synchronous_commit=on" } },
                     { label = "off", env = { PGOPTIONS = "-c synchronous_commit=off" } } },
  workloads = { { name = "write", args = "oltp_write_only " .. vars.db .. " --tables=4 --table-size=10000", prepare = true } } }
EOF
  "$VLB" oltp_write_only $db --tables=4 cleanup >/dev/null 2>&1 || true
  LUABENCH=$VLB "$VLB" study "$dir/sync.lua" --set=db="$db" >"$dir/sync.out" 2>&1 || { tail -3 "$dir/sync.out" >&2; }
  tools/sandbox-db admin pgsql "ALTER SYSTEM RESET fsync" >/dev/null
  tools/sandbox-db admin pgsql "ALTER SYSTEM RESET full_page_writes" >/dev/null
  tools/sandbox-db admin pgsql "SELECT pg_reload_conf()" >/dev/null
  "$VLB" oltp_write_only $db --tables=4 cleanup >/dev/null 2>&1 || true
  "$VLB" compare --format=json "$dir/sync" >"$dir/sync.json"
  # shellcheck disable=SC2046
  "$VLB" compare --format=json --label=on $(verdicts_runs "$dir/sync" on 1 3) --label=off $(verdicts_runs "$dir/sync" off 1 3) >"$dir/sync3.json"
  local row='.summary[] | select(.metric == "transactions/s")'
  echo
  echo "| synchronous_commit, durable server | on (tps) | off (tps) | off/on | verdict |"
  echo "|---|---|---|---|---|"
  jq -r "$row | \"| $effect runs each | \\(.values[0] | floor) | \\(.values[1] | floor) | \\(.ratios[1] * 1000 | floor / 1000) [\\(.ratio_intervals[1][0] * 1000 | floor / 1000), \\(.ratio_intervals[1][1] * 1000 | floor / 1000)] | \\(if .significant[1] then \"*\" else \"~\" end) p=\\(.p_values[1] * 1000 | floor / 1000) |\"" "$dir/sync.json"
  jq -r "$row | \"| the first 3 runs each | \\(.values[0] | floor) | \\(.values[1] | floor) | \\(.ratios[1] * 1000 | floor / 1000) | \\(if .significant[1] then \"*\" else \"~\" end) (too few: \\(.runs[0]) against \\(.runs[1])) |\"" "$dir/sync3.json"
}
