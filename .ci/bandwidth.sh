#!/usr/bin/env bash
# bandwidth.sh measures what Tremor puts on the wire, with the real
# binaries over UDP on 127.0.0.1: UDP payload bytes per second per client
# down and up, mean server message bytes, and bytes per changed entity
# (least squares of message bytes against entities changed per
# snapshot). It runs `make bandwidth`; docs/PERFORMANCE.md quotes it.
#
# Environment: DURATION (seconds per run, default 120 for the Quake III
# comparison, 30 for the player-count runs), PORT (default 27990).
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${DURATION:-}
port=${PORT:-27990}
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/server" ./cmd/server
CGO_ENABLED=0 go build -o "$bin/headless" ./cmd/headless

# run NAME SECONDS CLIENTS BOTS: one server, CLIENTS headless clients.
run() {
	local name=$1 secs=$2 clients=$3 bots=$4
	"$bin/server" +set net_port "$port" +set sv_fps 20 +set sv_maxclients 16 \
		+set fraglimit 0 +set timelimit 0 +map arena2 +addbot "$bots" </dev/null >"$bin/server.log" 2>&1 &
	local spid=$!
	sleep 1
	"$bin/headless" -clients "$clients" -duration "${secs}s" -json "$bin/$name.json" -log "$bin/$name.log" \
		+set snaps 20 +set rate 25000 +set cl_maxpackets 30 +set cl_packetdup 1 \
		+connect "127.0.0.1:$port" >/dev/null
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	python3 - "$name" "$bin/$name.json" "$bin/$name.log" <<'PY'
import json, sys
name, report, log = sys.argv[1:4]
r = json.load(open(report))
cl = r["clients"]
down = sum(c["bytes_down"] / c["duration_s"] for c in cl) / len(cl)
up = sum(c["bytes_up"] / c["duration_s"] for c in cl) / len(cl)
xs, ys = [], []
for line in open(log):
    e = json.loads(line)
    if e.get("event") == "snapshot" and e.get("valid") and e.get("deltaNum", -1) >= 0:
        xs.append(e["entities_changed"]); ys.append(e["bytes"])
n = len(xs)
mx, my = sum(xs) / n, sum(ys) / n
sxx = sum((x - mx) ** 2 for x in xs)
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
print(f"{name:<28} clients {len(cl):2d}  down {down:7.0f} B/s  up {up:6.0f} B/s  "
      f"snapshot {my:5.1f} B  = {my - slope * mx:5.1f} B + {slope:4.1f} B x {mx:4.1f} changed entities  "
      f"misses {sum(c['prediction_misses'] for c in cl)}")
PY
}

run "quake3-config (1 + 7 bots)" "${dur:-120}" 1 7
for n in 4 8 16; do
	run "players $n (headless)" "${dur:-30}" "$n" 0
done
