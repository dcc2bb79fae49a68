#!/bin/sh
# net.sh N: set up lesson 4, 5 or 6 over a real UDP link on this one
# machine: a dedicated server on port 27970 (its settings in
# lessons/lessonN-server.cfg), the packet inspector on port 27971 in front
# of it, and the game window joining (lessons/lessonN.cfg: through the
# inspector in lessons 5 and 6, directly in lesson 4).
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
dir=${TMPDIR:-/tmp}/tremor-lessons
mkdir -p "$dir"
echo "building the server, the inspector and the client into $dir ..."
go build -o "$dir/" ./cmd/server ./cmd/inspect ./cmd/client

# The server reads its console from this terminal (<&0: a background
# command's input would otherwise be /dev/null).
"$dir/server" +set net_port 27970 +exec "lessons/lesson$n-server" <&0 &
server=$!
"$dir/inspect" -listen 127.0.0.1:27971 -server 127.0.0.1:27970 >"$dir/inspect.txt" 2>&1 &
inspect=$!
trap 'kill "$server" "$inspect" 2>/dev/null || true' EXIT
echo "lesson $n: type server commands here; the inspector writes to $dir/inspect.txt"
echo "(watch it live in another terminal: tail -f $dir/inspect.txt)"
sleep 1
"$dir/client" +set net_port -1 +exec "lessons/lesson$n" "$@" >"$dir/client.txt" 2>&1 || true
echo "the window closed: stopping the server and the inspector"
