#!/usr/bin/env bash
# netmodels.sh measures the two net models side by side, with the real
# binaries over UDP on 127.0.0.1: Quake III's delta snapshots
# (sv_netmodel snapshots) and seed 003's frame sync with rollback
# (sv_netmodel framesync). It runs `make netmodels`; docs/netcode.md and
# docs/PERFORMANCE.md quote it.
#
# Every cell is one server on arena2 with 4 bots (fraglimit and
# timelimit 0) and one headless process of 4 clients on it: 8 players.
# The server has sv_packetloss LOSS, sv_packetdelay DELAY and
# sv_packetjitter JITTER, the clients cl_packetloss, cl_packetdelay and
# cl_packetjitter the same, so LOSS % and DELAY ± JITTER ms each way.
# Defaults otherwise (sv_fps 20, snaps 20, cl_maxpackets 30,
# sv_frameHashEvery 5, cl_rollbackFrames 64). The clients play DURATION
# seconds. Within a run every model is measured one after the other, on
# the same machine and build. Per client:
#
#   down, up    every UDP payload byte per second (netchan headers
#               included, IP/UDP not), as sent, before the link's
#               losses: down from the server's "reliable client=... 
#               bytes_out=" line as the client leaves, up from the
#               headless report;
#   ping        the client's mean measured round trip, ms;
#   rb/s        frame sync: rollbacks per second;
#   resim       frame sync: frames run again per rollback (mean) and the
#               most in one rollback (max);
#   stalls      frame sync: client frames that could not run a game
#               frame for being cl_maxPredictionFrames ahead, per second;
#   resyncs     frame sync: whole states loaded after the first;
#   mism        frame sync: hash mismatches (must be 0);
#   hcpu        the headless process's CPU time (user + system) per
#               client frame, µs: the client engine, cgame, the bots'
#               input and the simulated network of 4 clients, over the
#               frames they ran;
#   scpu        the server process's CPU, % of one core over the cell.
#
# The summary gives each figure as the mean and (min–max) over every
# client of every run (CPU over the runs).
#
# Environment:
#   MODELS      net models, in the order run (default "snapshots framesync")
#   LOSSES      percent lost each way (default "0 5")
#   DELAYS      ms added each way (default 40)
#   JITTER      ± ms of jitter each way (default 0)
#   MAXPRED     cl_maxPredictionFrames values, frame sync only (default 8)
#   RUNS        runs (default 2)
#   DURATION    seconds the clients play (default 30)
#   CHAT_EVERY  interval of each client's chat lines (default 0: none)
#   PORT        server UDP port (default 27992)
#
# At the defaults (2 runs × 2 losses × 2 models) it takes about 5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
models=${MODELS:-snapshots framesync}
losses=${LOSSES:-0 5}
delays=${DELAYS:-40}
jitter=${JITTER:-0}
maxpreds=${MAXPRED:-8}
runs=${RUNS:-2}
dur=${DURATION:-30}
chat=${CHAT_EVERY:-0}
port=${PORT:-27992}
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/server" ./cmd/server
CGO_ENABLED=0 go build -o "$bin/headless" ./cmd/headless
tick=$(getconf CLK_TCK)

# cputicks PID: user + system clock ticks of a process so far.
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# rows.py MODEL LOSS DELAY MAXPRED RUN SERVERLOG REPORT HCPU SCPU: one
# line per client: "model loss delay maxpred run client down up ping
# rbps resim_mean resim_max stallps resyncs mism hcpu scpu".
cat >"$bin/rows.py" <<'PY'
import json, re, sys
model, loss, delay, maxpred, run, slog, report, hcpu, scpu = sys.argv[1:10]
down = {}
for line in open(slog):
    m = re.search(r' reliable client=\d+ carrier=\S+ commands_bytes=\d+ ack_bytes=\d+ bytes_out=(\d+) packets_out=\d+ name=(".*")$', line)
    if m:
        down[json.loads(m.group(2))] = int(m.group(1))
r = json.load(open(report))
frames = sum(c["frames"] for c in r["clients"])
hcpu_us = float(hcpu) * 1e6 / max(1, frames)
for c in r["clients"]:
    if c["name"] not in down:
        sys.exit(f"{slog}: no reliable line for {c['name']}")
    secs = c["duration_s"]
    fs = c.get("framesync")
    if (fs is not None) != (model == "framesync"):
        sys.exit(f"{c['name']}: frame-sync counters {'present' if fs else 'absent'} in {model}")
    if fs:
        fsf = [f'{fs["rollbacks"] / secs:.2f}', f'{fs["resim_mean"]:.2f}', str(fs["resim_max"]),
               f'{fs["stalls"] / secs:.2f}', str(fs["resyncs"]), str(fs["mismatches"])]
    else:
        fsf = ["-"] * 6
    print(model, loss, delay, maxpred, run, c["client"], f'{down[c["name"]] / secs:.0f}',
          f'{c["bytes_up"] / secs:.0f}', f'{c["ping_ms_avg"]:.0f}', *fsf, f'{hcpu_us:.1f}', f'{float(scpu):.1f}')
PY

# cell MODEL LOSS DELAY MAXPRED RUN: one server and the headless process;
# appends their rows to rows.txt.
cell() {
	local model=$1 loss=$2 delay=$3 maxpred=$4 i=$5
	"$bin/server" +set net_ip 127.0.0.1 +set net_port "$port" +set sv_maxclients 16 +set sv_netmodel "$model" \
		+set sv_packetloss "$loss" +set sv_packetdelay "$delay" +set sv_packetjitter "$jitter" \
		+set fraglimit 0 +set timelimit 0 +map arena2 +addbot 4 </dev/null >"$bin/server.log" 2>&1 &
	local spid=$!
	sleep 1
	local s0 t0
	s0=$(cputicks "$spid")
	t0=$(date +%s%N)
	local pred=()
	[ "$model" = framesync ] && pred=(+set cl_maxPredictionFrames "$maxpred")
	# The headless process's CPU: bash's times in a subshell gives its
	# waited child's user and system time.
	(
		rc=0
		"$bin/headless" -clients 4 -duration "${dur}s" -chat-every "$chat" -seed "$i" -json "$bin/run.json" \
			+set cl_packetloss "$loss" +set cl_packetdelay "$delay" +set cl_packetjitter "$jitter" "${pred[@]}" \
			+set cl_connectTries 40 +connect "127.0.0.1:$port" </dev/null >/dev/null 2>"$bin/headless.err" || rc=$?
		times >"$bin/times" # in a pipeline it would be another process's
		exit "$rc"
	) &
	local failed=0
	wait $! || failed=1
	local s1 t1
	s1=$(cputicks "$spid")
	t1=$(date +%s%N)
	# The clients' disconnects reach the server DELAY later, with losses
	# retried; the server logs each one as it leaves.
	for _ in $(seq 1 50); do
		[ "$(grep -c ' reliable client=' "$bin/server.log" || true)" -ge 4 ] && break
		sleep 0.2
	done
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	if [ "$failed" = 1 ]; then
		cat "$bin/headless.err" >&2
		echo "netmodels: a client failed: $model, $loss % loss, $delay ms, max prediction $maxpred" >&2
		exit 1
	fi
	local hcpu scpu
	# Second line, "0m1.234s 0m0.567s": the child's user and system time.
	hcpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } print s }' "$bin/times")
	scpu=$(awk -v t=$((s1 - s0)) -v hz="$tick" -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", 100 * t / hz / (ns / 1e9) }')
	python3 "$bin/rows.py" "$model" "$loss" "$delay" "$maxpred" "$i" "$bin/server.log" "$bin/run.json" "$hcpu" "$scpu" |
		tee -a "$bin/rows.txt"
}

echo "Net models on arena2: 4 headless clients and 4 bots, $dur s a cell, $runs run(s), jitter ±$jitter ms; $(nproc) cores"
echo "model loss delay maxpred run client down up ping rb/s resim max stall/s resyncs mism hcpu scpu   (load average at the cell's end)"
for i in $(seq 1 "$runs"); do
	for loss in $losses; do
		for delay in $delays; do
			for model in $models; do
				preds=-
				[ "$model" = framesync ] && preds=$maxpreds
				for p in $preds; do
					cell "$model" "$loss" "$delay" "$p" "$i" | while read -r row; do echo "$row   ($(cut -d' ' -f1-3 /proc/loadavg))"; done
				done
			done
		done
	done
done

echo
echo "Per cell, per client: mean (min–max) over every client of every run; CPU over the runs"
python3 - "$bin/rows.txt" <<'PY'
import sys
cells = {}
for line in open(sys.argv[1]):
    f = line.split()
    cells.setdefault((f[1], f[2], f[0] != "snapshots", f[0], f[3]), []).append(f)
def cell(vals, fmt):
    mean = sum(vals) / len(vals)
    if min(vals) == max(vals):
        return f"{mean:{fmt}}"
    return f"{mean:{fmt}} ({min(vals):{fmt}}–{max(vals):{fmt}})"
print("| loss | delay | model | max pred | down B/s | up B/s | ping ms | rollbacks/s | resim mean | resim max | stalls/s | resyncs | mismatches | client CPU µs/frame | server CPU % |")
print("| --- " * 15 + "|")
for (loss, delay, _, model, maxpred), rows in sorted(cells.items(), key=lambda kv: (int(kv[0][0]), int(kv[0][1]), kv[0][2], kv[0][4].zfill(3))):
    col = lambda k: [float(r[k]) for r in rows]
    runs = {}
    for r in rows:
        runs[r[4]] = (float(r[15]), float(r[16]))
    out = [cell(col(6), ".0f"), cell(col(7), ".0f"), cell(col(8), ".0f")]
    if model == "framesync":
        out += [cell(col(9), ".2f"), cell(col(10), ".2f"), str(int(max(col(11)))), cell(col(12), ".2f"),
                str(int(sum(col(13)))), str(int(sum(col(14))))]
    else:
        out += ["–"] * 6
    out += [cell([h for h, _ in runs.values()], ".1f"), cell([s for _, s in runs.values()], ".1f")]
    print(f"| {loss} % | {delay} ms | {model} | {maxpred if model == 'framesync' else '–'} | " + " | ".join(out) + " |")
PY
