#!/bin/sh
# Side-by-side 4k random O_DIRECT reads: io_engines vs fio, same file, same duration, one
# configuration at a time, each pair started only when the machine is idle (CPU busy < 10% for
# 0.5 s, waiting up to 120 s), with machine CPU busy and foreign disk I/O logged per run.
# Not a test. Usage: tools/bench.d/io_engines_vs_fio.sh build/tools/bench.d/io_engines FILE [seconds=5]
set -eu
bench=$1 file=$2 secs=${3:-5}
dev=$(lsblk -no PKNAME "$(df --output=source "$file" | tail -1)" 2>/dev/null || true)
[ -n "$dev" ] || dev=$(basename "$(df --output=source "$file" | tail -1)")

cpu() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
busy_pct() { # busy% between two "busy total" samples
	echo "$1 $2" | awk '{d = $4 - $2; print (d > 0 ? int(100 * ($3 - $1) / d) : 0)}'; }
reads() { awk -v d="$dev" '$3==d{print $4}' /proc/diskstats; }

wait_idle() {
	i=0
	while [ $i -lt 240 ]; do
		a=$(cpu); sleep 0.5; b=$(cpu)
		[ "$(busy_pct "$a" "$b")" -lt 10 ] && return 0
		i=$((i + 1))
	done
	echo "# machine never idle; running anyway"
}

measure() { # label, command...: prints the command's result line plus busy% and foreign I/O
	label=$1; shift
	a=$(cpu); r0=$(reads)
	out=$("$@")
	b=$(cpu); r1=$(reads)
	echo "$out" | sed -n "$label"
	echo "#   machine CPU busy $(busy_pct "$a" "$b")%, device reads $((r1 - r0))"
}

fio_line() {
	python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]; r = j["read"]; p = r["lat_ns"]["percentile"]
print("fio       %3s %5s %9.0f %8.1f %9.1f %8.1f %8.1f %8.1f %8.1f %6s %6.1f %6.1f" % (
    sys.argv[1], "no", r["iops"], r["bw_bytes"] / 1e6, r["lat_ns"]["mean"] / 1e3,
    p["50.000000"] / 1e3, p["99.000000"] / 1e3, p["99.900000"] / 1e3,
    r["slat_ns"]["mean"] / 1e3, "-", j["usr_cpu"], j["sys_cpu"]))' "$1"
}

run_fio() { # engine depth
	fio --name=b --filename="$file" --size="$(stat -c %s "$file")" --direct=1 --numjobs=1 \
	    --time_based --runtime="$secs" --rw=randread --bs=4k --ioengine="$1" --iodepth="$2" \
	    --lat_percentiles=1 --percentile_list=50:99:99.9 --output-format=json | fio_line "$2"
}

"$bench" "$file" 1 1024 null 1 >/dev/null # creates the file if needed
echo "engine     qd batch      IOPS     MB/s   lat avg      p50      p99    p99.9     slat  depth   usr%   sys%"
for cfg in "psync 1" "libaio 1" "io_uring 1" "libaio 32" "io_uring 32"; do
	set -- $cfg
	wait_idle
	measure 2p "$bench" "$file" "$secs" 1024 "$1" "$2" 0
	wait_idle
	measure 1p run_fio "$1" "$2"
done
