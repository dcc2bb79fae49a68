#!/usr/bin/env bash
# servercpu.sh measures the dedicated server's CPU with N headless clients,
# real binaries over UDP on 127.0.0.1: the server pinned to CPU 0 and the
# clients to CPU 1 (taskset, when there are two CPUs), sv_fps 20, arena2,
# sv_maxclients 64, no bots, the clients playing (bot input) and chatting
# once a second. It prints, per client count, the server's CPU as a share
# of one core, from its utime + stime in /proc over the run, and the
# clients' report (snapshots, prediction misses), and the machine's load
# average at the end of the run (other work on a shared machine starves
# the clients, which then send and receive less). It runs `make
# servercpu`; docs/PERFORMANCE.md quotes it.
#
# Environment: COUNTS (default "8 16 32 64"), DURATION (seconds per count,
# default 30), PORT (default 27992), PROFILE (a directory: the server writes
# a CPU profile there per count, server-N.pprof, for go tool pprof; the
# profiler's own cost is then in the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${COUNTS:-8 16 32 64}
dur=${DURATION:-30}
port=${PORT:-27992}
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/server" ./cmd/server
CGO_ENABLED=0 go build -o "$bin/headless" ./cmd/headless
pin0=() pin1=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	pin0=(taskset -c 0) pin1=(taskset -c 1)
fi
hz=$(getconf CLK_TCK)
# cpu PID: the process's utime + stime, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "| headless clients | server CPU, % of one core | snapshots/s per client | prediction misses | load average (1 min) |"
echo "| --- | --- | --- | --- | --- |"
prof=()
for n in $counts; do
	if [ -n "${PROFILE:-}" ]; then
		mkdir -p "$PROFILE"
		prof=(+set cpuprofile "$(realpath "$PROFILE")/server-$n.pprof")
	fi
	"${pin0[@]}" "$bin/server" "${prof[@]}" +set net_port "$port" +set sv_fps 20 +set sv_maxclients 64 +set sv_clientsPerIP 0 \
		+set fraglimit 0 +set timelimit 0 +map arena2 </dev/null >"$bin/server.log" 2>&1 &
	spid=$!
	sleep 1
	"${pin1[@]}" "$bin/headless" -clients "$n" -duration "$((dur + 5))s" -json "$bin/$n.json" \
		+connect "127.0.0.1:$port" >/dev/null 2>&1 &
	hpid=$!
	sleep 5 # every client in the game
	c0=$(cpu "$spid") t0=$(date +%s%N)
	sleep "$dur"
	c1=$(cpu "$spid") t1=$(date +%s%N)
	wait "$hpid" || true
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	load=$(cut -d' ' -f1 /proc/loadavg)
	python3 - "$n" "$c0" "$c1" "$t0" "$t1" "$hz" "$bin/$n.json" "$load" <<'PY'
import json, sys
n, c0, c1, t0, t1, hz, report, load = sys.argv[1:9]
secs = (int(t1) - int(t0)) / 1e9
pct = 100 * (int(c1) - int(c0)) / int(hz) / secs
r = json.load(open(report))
cl = r["clients"]
snaps = sum(c["snapshots"] / c["duration_s"] for c in cl) / len(cl)
misses = sum(c.get("prediction_misses", 0) for c in cl)
print(f"| {n} | {pct:.2f} | {snaps:.1f} | {misses} | {load} |")
PY
done
