#!/usr/bin/env bash
# tremor-agones-sidecar: the Agones SDK calls that the Tremor server does not
# make itself, made from a second container of the game server's Pod.
#
# Every TREMOR_INTERVAL seconds it asks the server for its info string
# (connectionless `getinfo CHALLENGE` over UDP, as a LAN browser does) and,
# when a matching infoResponse comes back:
#   - the first time: POST /ready (retried: the SDK server may start later);
#   - every time:     POST /health (no answer, no ping: Agones marks the
#                     GameServer Unhealthy after health.failureThreshold
#                     missed periods and replaces it);
#   - g_humanplayers > 0 while the GameServer is Ready: POST /allocate, so
#     that the FleetAutoscaler never scales down a server people play on
#     (TREMOR_SELF_ALLOCATE=0 leaves allocation to a matchmaker);
#   - Allocated and no human for TREMOR_EMPTY_GRACE seconds: POST /shutdown,
#     then idle. Agones then deletes the Pod (the server gets SIGTERM and
#     shuts down cleanly) and the Fleet starts a fresh one. (The sidecar
#     does not exit: the Pod would restart it, and it would call Ready.)
# Bots do not count as players. The SDK's REST API is documented at
# https://agones.dev/site/docs/guides/client-sdks/rest/ ; docs/deploy.md
# describes the whole integration. Needs bash, curl, dd, timeout and tr.
set -u
export LC_ALL=C

SDK="http://localhost:${AGONES_SDK_HTTP_PORT:-9358}"
ADDR=${TREMOR_ADDR:-127.0.0.1}
PORT=${TREMOR_PORT:-27960}
INTERVAL=${TREMOR_INTERVAL:-2}
EMPTY_GRACE=${TREMOR_EMPTY_GRACE:-60}
SELF_ALLOCATE=${TREMOR_SELF_ALLOCATE:-1}

info=

log() { printf '%s tremor-sidecar: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }

# sdk POSTs {} to an SDK endpoint (ready, health, allocate, shutdown).
sdk() {
	curl -fsS --max-time 2 -H 'Content-Type: application/json' -d '{}' \
		-X POST "$SDK/$1" >/dev/null
}

# state prints the GameServer's state (Ready, Allocated, ...) from GET /gameserver.
state() {
	curl -fsS --max-time 2 "$SDK/gameserver" |
		grep -o '"state": *"[A-Za-z]*"' | head -n 1 | sed 's/.*"\([A-Za-z]*\)"$/\1/'
}

# query sends getinfo with a fresh challenge and sets info to the info
# string of the answer; it fails when no answer with that challenge comes
# within a second. One datagram is read with dd (bash's own read would
# take it a byte at a time and lose the rest).
query() {
	local ch reply fd
	ch="$RANDOM$RANDOM$RANDOM"
	{ exec {fd}<>"/dev/udp/$ADDR/$PORT"; } 2>/dev/null || return 1
	printf '\377\377\377\377getinfo %s\n' "$ch" >&"$fd"
	reply=$(timeout 1 dd bs=4096 count=1 status=none <&"$fd" 2>/dev/null | tr -d '\000')
	exec {fd}>&-
	case $reply in
	$'\377\377\377\377infoResponse\n'*) info=${reply#*$'\n'} ;;
	*) return 1 ;;
	esac
	[ "$(infoval challenge)" = "$ch" ]
}

# infoval prints the value of key $1 in info (\key\value\key\value...).
infoval() {
	local -a f
	local i
	# The separator is a backslash: split on it.
	# shellcheck disable=SC1003,SC2141
	IFS='\' read -r -a f < <(printf '%s\n' "$info")
	for ((i = 1; i + 1 < ${#f[@]}; i += 2)); do
		if [ "${f[i]}" = "$1" ]; then
			printf '%s' "${f[i + 1]}"
			return 0
		fi
	done
	return 1
}

trap 'log "stopped"; exit 0' TERM INT

log "watching $ADDR:$PORT, SDK at $SDK"
until query; do sleep 1; done
log "server answers: $info"
until sdk ready; do sleep 1; done
log "Ready"

last_busy=$SECONDS
was=
while :; do
	sleep "$INTERVAL" &
	wait $!
	if ! query; then
		log "no answer from $ADDR:$PORT: no health ping"
		continue
	fi
	sdk health || log "health ping failed"
	humans=$(infoval g_humanplayers || echo 0)
	st=$(state || true)
	if [ "$st" != "$was" ]; then
		log "state $st, $humans human(s)"
		[ "$st" = Allocated ] && last_busy=$SECONDS
		was=$st
	fi
	if [ "${humans:-0}" -gt 0 ]; then
		last_busy=$SECONDS
		if [ "$st" = Ready ] && [ "$SELF_ALLOCATE" = 1 ]; then
			sdk allocate && log "allocated: $humans human(s) joined"
		fi
	elif [ "$st" = Allocated ] && ((SECONDS - last_busy >= EMPTY_GRACE)); then
		log "empty for ${EMPTY_GRACE}s: shutdown"
		until sdk shutdown; do sleep 1; done
		while :; do
			sleep 3600 &
			wait $!
		done
	fi
done
