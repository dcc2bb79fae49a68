#!/usr/bin/env bash
# bandwidth.sh measures what Tremor puts on the wire, with the real
# binaries over UDP on 127.0.0.1. It runs `make bandwidth`;
# docs/PERFORMANCE.md quotes it.
#
# For every map (MAPS) it runs RUNS matches of DURATION seconds in the
# Quake III configuration: one headless client and 7 bots, sv_fps 20,
# snaps 20, rate 25000, cl_maxpackets 30, cl_packetdup 1. Per run it
# records UDP payload bytes per second per client down and up (netchan
# header included, IP/UDP headers not), changed entities per delta
# snapshot, and a least-squares fit of every delta snapshot's message
# bytes against its entities_changed: a fixed cost per snapshot plus a
# cost per changed entity. It then prints, per map, each figure as the
# mean and min–max over the runs, and two ratios to ioquake3 (OpenArena,
# same settings):
#
#   down at equal activity = (fixed + per-entity × 2.75) / 105.5, where
#       105.5 B = 45 B + 22 B × 2.75 is ioquake3's snapshot at its own
#       2.75 changed entities a snapshot;
#   up share               = up B/s / 1643 B/s.
#
# Then, unless PLAYERS is empty, one run per player count of that many
# headless clients and no bots on arena2 for PLAYERS_DURATION seconds.
#
# Environment:
#   MAPS              maps to measure (default "duel1 arena1 arena2")
#   RUNS              runs per map (default 3)
#   DURATION          seconds per map run (default 40; 20 for a quick look)
#   PLAYERS           headless-client counts of the player-count runs
#                     (default "4 8 16"; empty skips them)
#   PLAYERS_DURATION  seconds per player-count run (default 30)
#   PORT              server UDP port (default 27990)
#
# At the defaults it takes about 8 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
maps=${MAPS-duel1 arena1 arena2}
runs=${RUNS:-3}
dur=${DURATION:-40}
players=${PLAYERS-4 8 16}
pdur=${PLAYERS_DURATION:-30}
port=${PORT:-27990}
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/server" ./cmd/server
CGO_ENABLED=0 go build -o "$bin/headless" ./cmd/headless

# fit.py REPORT LOG: one line "down up changed fixed perentity misses
# snapshots" for a run, from the headless report and event log.
cat >"$bin/fit.py" <<'PY'
import json, sys
report, log = sys.argv[1:3]
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
if n == 0:
    sys.exit(f"{log}: no valid delta snapshot")
mx, my = sum(xs) / n, sum(ys) / n
sxx = sum((x - mx) ** 2 for x in xs)
slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
misses = sum(c["prediction_misses"] for c in cl)
print(f"{down:.1f} {up:.1f} {mx:.3f} {my - slope * mx:.3f} {slope:.3f} {misses} {n} {len(cl)}")
PY

# run MAP SECONDS CLIENTS BOTS: one server on MAP, CLIENTS headless
# clients; prints the fit.py line.
run() {
	local map=$1 secs=$2 clients=$3 bots=$4
	"$bin/server" +set net_port "$port" +set sv_fps 20 +set sv_maxclients 16 \
		+set fraglimit 0 +set timelimit 0 +map "$map" +addbot "$bots" </dev/null >"$bin/server.log" 2>&1 &
	local spid=$!
	sleep 1
	"$bin/headless" -clients "$clients" -duration "${secs}s" -json "$bin/run.json" -log "$bin/run.log" \
		+set snaps 20 +set rate 25000 +set cl_maxpackets 30 +set cl_packetdup 1 \
		+connect "127.0.0.1:$port" >/dev/null
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	python3 "$bin/fit.py" "$bin/run.json" "$bin/run.log"
}

echo "Quake III configuration: 1 headless client + 7 bots, $runs run(s) of $dur s per map"
printf '%-7s %-4s %8s %7s %8s %9s %10s %6s\n' map run "down B/s" "up B/s" changed "fixed B" "B/entity" misses
for map in $maps; do
	for i in $(seq 1 "$runs"); do
		line=$(run "$map" "$dur" 1 7)
		echo "$map $line" >>"$bin/runs.txt"
		read -r down up ch fixed per misses _ _ <<<"$line"
		printf '%-7s %-4s %8.0f %7.0f %8.2f %9.1f %10.1f %6s\n' "$map" "$i" "$down" "$up" "$ch" "$fixed" "$per" "$misses"
	done
done

echo
echo "Per map, mean (min–max) over the runs; ioquake3: 45 B + 22 B × 2.75 = 105.5 B a snapshot, 1643 B/s up"
python3 - "$bin/runs.txt" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    m = f[0]
    down, up, ch, fixed, per = map(float, f[1:6])
    rows.setdefault(m, []).append({
        "down B/s": down, "up B/s": up, "changed/snap": ch,
        "fixed B": fixed, "B/entity": per,
        "down vs ioq3 @2.75": (fixed + per * 2.75) / 105.5,
        "up vs ioq3": up / 1643,
        "misses": int(f[6]),
    })
def cell(vals, fmt):
    mean = sum(vals) / len(vals)
    return f"{mean:{fmt}} ({min(vals):{fmt}}–{max(vals):{fmt}})"
fmts = {"down B/s": ".0f", "up B/s": ".0f", "changed/snap": ".2f", "fixed B": ".1f",
        "B/entity": ".1f", "down vs ioq3 @2.75": ".3f", "up vs ioq3": ".3f"}
print("| map | runs | " + " | ".join(fmts) + " | misses |")
print("| --- " * (len(fmts) + 3) + "|")
for m, rs in rows.items():
    cells = [cell([r[k] for r in rs], f) for k, f in fmts.items()]
    print(f"| {m} | {len(rs)} | " + " | ".join(cells) + f" | {sum(r['misses'] for r in rs)} |")
PY

if [ -n "$players" ]; then
	echo
	echo "Player counts: headless clients, no bots, arena2, $pdur s each"
	printf '%-7s %8s %7s %8s %9s %10s %6s\n' clients "down B/s" "up B/s" changed "fixed B" "B/entity" misses
	for n in $players; do
		read -r down up ch fixed per misses _ _ <<<"$(run arena2 "$pdur" "$n" 0)"
		printf '%-7s %8.0f %7.0f %8.2f %9.1f %10.1f %6s\n' "$n" "$down" "$up" "$ch" "$fixed" "$per" "$misses"
	done
fi
