#!/usr/bin/env bash
# carriers.sh measures the two carriers of reliable commands side by
# side, with the real binaries over UDP on 127.0.0.1: Quake III's rings
# (cl_reliable q3) and seed 001's messages by id over packet acks
# (cl_reliable acks). It runs `make carriers`; docs/netcode.md and
# docs/PERFORMANCE.md quote it.
#
# For every link (LOSSES × RTTS) it starts one server with sv_packetloss
# LOSS and sv_packetdelay RTT/2, and two headless processes at once on
# it, each of 2 clients with cl_packetloss LOSS and cl_packetdelay
# RTT/2 (so LOSS % and RTT/2 each way), one on each carrier, every client
# chatting every CHAT_EVERY for DURATION seconds. Per carrier it reports:
#
#   chat p50/p99   delivery delay of the other client's lines, from the
#                  moment the sender queued the line to the moment the
#                  receiver ran the server's chat command (same process,
#                  one clock), ms; frames are 16.7 ms apart (com_maxfps 60);
#   cmds up/down   bytes of the reliable commands per client per second:
#                  every copy in every message (rings: each unacknowledged
#                  command in every message; acks: the message blocks),
#                  coded, counted as written, before the link's losses; up
#                  from the headless report, down from the server's
#                  "reliable client=" line as each client leaves;
#   acks up/down   the acks carrier's packet acks (ClcAck, SvcAck), bytes
#                  per client per second;
#   total up/down  every UDP payload byte per client per second (netchan
#                  headers included, IP/UDP not), as sent;
#   up B/line      bytes of client commands up per chat line sent (the
#                  clients' chat windows differ: each process starts
#                  chatting once both its clients are in);
#   lines, lost    chat lines received, and those missing, duplicated or
#                  out of order (0 on both carriers on any link).
#
# With RUNS > 1 every figure is the mean and (min–max) over the runs.
#
# Environment:
#   LOSSES      percent lost each way (default "0 10 30")
#   RTTS        round trips in ms (default "50 200")
#   RUNS        runs per link (default 2)
#   DURATION    seconds each headless process plays (default 40)
#   CHAT_EVERY  interval of each client's chat lines (default 300ms)
#   PORT        server UDP port (default 27991)
#
# At the defaults it takes about 10 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
losses=${LOSSES:-0 10 30}
rtts=${RTTS:-50 200}
runs=${RUNS:-2}
dur=${DURATION:-40}
chat=${CHAT_EVERY:-300ms}
port=${PORT:-27991}
bin=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/server" ./cmd/server
CGO_ENABLED=0 go build -o "$bin/headless" ./cmd/headless

# row.py LOSS RTT RUN SERVERLOG Q3JSON ACKSJSON: one line per carrier,
# "loss rtt run carrier p50 p99 cmdsup cmdsdown acksup acksdown totup
# totdown lines lost upperline".
cat >"$bin/row.py" <<'PY'
import json, re, sys
loss, rtt, run, slog = sys.argv[1:5]
down = {}
for line in open(slog):
    m = re.search(r' reliable client=\d+ carrier=(\S+) commands_bytes=(\d+) ack_bytes=(\d+) bytes_out=(\d+) packets_out=\d+ name=(".*")$', line)
    if m:
        down[json.loads(m.group(5))] = (m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))
for carrier, path in zip(("q3", "acks"), sys.argv[5:7]):
    r = json.load(open(path))
    cl, t = r["clients"], r["totals"]
    secs = sum(c["duration_s"] for c in cl)
    cmds_down = acks_down = tot_down = 0
    for c in cl:
        if c["name"] not in down:
            sys.exit(f"{slog}: no reliable line for {c['name']}")
        got, cmds, acks, out = down[c["name"]]
        if got != carrier or c["reliable"] != carrier:
            sys.exit(f"{c['name']}: carrier {got} at the server, {c['reliable']} at the client, want {carrier}")
        cmds_down += cmds; acks_down += acks; tot_down += out
    lost = t["chat_missing"] + t["chat_duplicated"] + t["chat_out_of_order"]
    print(loss, rtt, run, carrier, f'{t["chat_delay_p50_ms"]:.0f}', f'{t["chat_delay_p99_ms"]:.0f}',
          f'{t["reliable_bytes_up"] / secs:.1f}', f'{cmds_down / secs:.1f}',
          f'{t["ack_bytes_up"] / secs:.1f}', f'{acks_down / secs:.1f}',
          f'{t["bytes_up"] / secs:.0f}', f'{tot_down / secs:.0f}', t["chat_received"], lost,
          f'{t["reliable_bytes_up"] / max(1, t["chat_sent"]):.1f}')
PY

# run LOSS RTT RUN: one server, the two headless processes; appends
# their rows to runs.txt.
run() {
	local loss=$1 rtt=$2 i=$3 half=$(($2 / 2))
	"$bin/server" +set net_ip 127.0.0.1 +set net_port "$port" +set sv_maxclients 8 \
		+set sv_packetloss "$loss" +set sv_packetdelay "$half" \
		+set fraglimit 0 +set timelimit 0 +map arena1 </dev/null >"$bin/server.log" 2>&1 &
	local spid=$!
	sleep 1
	local pids=()
	for carrier in q3 acks; do
		local name=Ring
		[ "$carrier" = acks ] && name=Acks
		"$bin/headless" -clients 2 -duration "${dur}s" -chat-every "$chat" -seed "$i" -json "$bin/$carrier.json" \
			+set name "$name" +set cl_reliable "$carrier" +set cl_packetloss "$loss" +set cl_packetdelay "$half" \
			+set cl_connectTries 40 +connect "127.0.0.1:$port" </dev/null >/dev/null 2>"$bin/$carrier.err" &
		pids+=($!)
	done
	local failed=0
	for p in "${pids[@]}"; do
		wait "$p" || failed=1
	done
	# The clients' disconnects reach the server RTT/2 later, with losses
	# retried; the server logs each one as it leaves.
	for _ in $(seq 1 50); do
		[ "$(grep -c ' reliable client=' "$bin/server.log" || true)" -ge 4 ] && break
		sleep 0.2
	done
	kill "$spid"
	wait "$spid" 2>/dev/null || true
	if [ "$failed" = 1 ]; then
		cat "$bin/q3.err" "$bin/acks.err" >&2
		echo "carriers: a client failed at $loss % loss, $rtt ms" >&2
		exit 1
	fi
	python3 "$bin/row.py" "$loss" "$rtt" "$i" "$bin/server.log" "$bin/q3.json" "$bin/acks.json" | tee -a "$bin/runs.txt"
}

echo "Carriers: 2 clients on q3 and 2 on acks on one server, chat every $chat, $dur s, $runs run(s) a link; $(nproc) cores"
echo "loss rtt run carrier p50 p99 cmdsup cmdsdown acksup acksdown totup totdown lines lost upperline   (load average at the run's end)"
for i in $(seq 1 "$runs"); do
	for loss in $losses; do
		for rtt in $rtts; do
			run "$loss" "$rtt" "$i" | while read -r row; do echo "$row   ($(cut -d' ' -f1-3 /proc/loadavg))"; done
		done
	done
done

echo
echo "Per link and carrier, bytes per client per second; mean (min–max) over $runs run(s)"
python3 - "$bin/runs.txt" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((int(f[0]), int(f[1]), f[3]), []).append([float(x) for x in f[4:]])
def cell(vals, fmt):
    mean = sum(vals) / len(vals)
    if len(vals) == 1 or min(vals) == max(vals):
        return f"{mean:{fmt}}"
    return f"{mean:{fmt}} ({min(vals):{fmt}}–{max(vals):{fmt}})"
print("| loss | RTT | carrier | chat p50 ms | chat p99 ms | cmds up | cmds down | acks up | acks down | total up | total down | up B/line | lines | lost |")
print("| --- " * 14 + "|")
for (loss, rtt, carrier), rs in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != "q3")):
    cols = list(zip(*rs))
    fmts = [".0f", ".0f", ".0f", ".0f", ".0f", ".0f", ".0f", ".0f"]
    cells = [cell(cols[k], f) for k, f in enumerate(fmts)]
    cells.append(cell(cols[10], ".0f"))
    print(f"| {loss} % | {rtt} ms | {carrier} | " + " | ".join(cells) + f" | {int(sum(cols[8]))} | {int(sum(cols[9]))} |")
PY
