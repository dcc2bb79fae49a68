#!/bin/sh
# net.sh N: set up lesson 4, 5 or 6 over a real UDP link on this one
# machine: a dedicated server on UDP port 27970 (its settings in
# lessons/lessonN-server.cfg), the packet inspector on port 27971 in front
# of it, and the game window (lessons/lessonN.cfg) joining through the
# inspector in lessons 5 and 6, directly in lesson 4. PORT=27980
# lessons/net.sh N moves the server to 27980 and the inspector to 27981,
# if something else holds the default ports.
#
# While the window is open, this terminal is the server's console: type
# server commands here (sv_packetloss 0, map_restart, status). The
# inspector writes every packet it decodes to
# $TMPDIR/tremor-lessons/inspect.txt (default /tmp/tremor-lessons).
# Closing the window stops the server and the inspector.
#
# Run it from anywhere: it changes to the repository root, where the
# config files are. Arguments after N go to the client (for example
# +set fs_homepath DIR, or +wait 600 +screenshot FILE.png +quit).
set -eu
n=${1:-}
case $n in
4 | 5 | 6) shift ;;
*)
	echo "usage: lessons/net.sh 4|5|6 [client arguments]" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
port=${PORT:-27970}
dir=${TMPDIR:-/tmp}/tremor-lessons
mkdir -p "$dir"
echo "building the server, the inspector and the client into $dir ..."
go build -o "$dir/" ./cmd/server ./cmd/inspect ./cmd/client

# The server reads its console from this terminal. A background command's
# standard input is /dev/null before its own redirections, so the
# terminal goes to it through a copy on descriptor 3.
exec 3<&0
"$dir/server" +set net_port "$port" +exec "lessons/lesson$n-server" <&3 3<&- &
server=$!
"$dir/inspect" -listen "127.0.0.1:$((port + 1))" -server "127.0.0.1:$port" >"$dir/inspect.txt" 2>&1 &
inspect=$!
# On the way out, stop both and wait for them, so that their ports are
# free for the next lesson.
trap 'kill "$server" "$inspect" 2>/dev/null || true; wait' EXIT
sleep 1
if ! kill -0 "$server" 2>/dev/null; then
	echo "the server did not start (is port $port taken? another lesson still running? try PORT=27980)" >&2
	exit 1
fi
if ! kill -0 "$inspect" 2>/dev/null; then
	cat "$dir/inspect.txt" >&2
	echo "the inspector did not start (is port $((port + 1)) taken? another lesson still running? try PORT=27980)" >&2
	exit 1
fi
echo "lesson $n: type server commands here; the inspector writes to $dir/inspect.txt"
echo "(watch it live in another terminal: tail -f $dir/inspect.txt)"
# Lesson 4 joins the server itself, 5 and 6 the inspector in front of it.
join=$((port + 1))
[ "$n" = 4 ] && join=$port
"$dir/client" +set net_port -1 +exec "lessons/lesson$n" +connect "127.0.0.1:$join" "$@" >"$dir/client.txt" 2>&1 || true
echo "the window closed: stopping the server and the inspector"
