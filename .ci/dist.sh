#!/usr/bin/env bash
# dist.sh builds Tremor for every machine it ships to (docs/deploy.md,
# "Release archives").
#
#   bash .ci/dist.sh check OUT   cross-compile every release binary and the
#                                browser build into OUT, and check that the
#                                Windows client is a GUI-subsystem program
#                                (make test: a change that breaks Windows or
#                                the Raspberry Pi fails CI)
#   bash .ci/dist.sh package OUT the same, then the archives in OUT, each
#                                with its README, and OUT/SHA256SUMS
#                                (make dist)
#
# Every binary is built with -trimpath -ldflags "-s -w", and -buildvcs=auto
# (over a GOFLAGS=-buildvcs=false): the Go toolchain stamps each with the
# commit it was built from, which go version -m FILE shows (vcs.revision,
# vcs.modified). The archives are named after `git describe`.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
out=${2:-}
if [[ $mode != check && $mode != package ]] || [[ -z $out ]]; then
	echo "usage: bash .ci/dist.sh check|package OUT" >&2
	exit 2
fi

# GOOS GOARCH CGO_ENABLED PACKAGE FILE [extra -ldflags]. The Windows
# client is a GUI-subsystem program (-H=windowsgui): double-clicked, it
# opens no console window; its Quake-style console is in the game. Only
# the Linux client needs cgo (Ebitengine's X11 and OpenGL); Windows needs
# none, and the servers and the master never do.
targets=(
	"windows amd64 0 ./cmd/client tremor.exe -H=windowsgui"
	"windows amd64 0 ./cmd/server tremor-server.exe"
	"linux amd64 1 ./cmd/client tremor"
	"linux amd64 0 ./cmd/server tremor-server"
	"linux amd64 0 ./cmd/master tremor-master"
	"linux arm64 0 ./cmd/server tremor-server"
	"linux arm64 0 ./cmd/master tremor-master"
)

# The version and time of the archives, read before building: in a tree
# others commit to, the binaries' stamp is the commit they were built from.
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
mtime=$(git log -1 --format=%ct 2>/dev/null || date +%s)

bin=$out/bin
rm -rf "$bin"
mkdir -p "$bin"
# cmd/dist packs the archives and reads the .exe headers (standard library
# only: no zip package needed).
tool=$bin/dist-tool
go build -o "$tool" ./cmd/dist
for t in "${targets[@]}"; do
	read -r goos goarch cgo pkg file extra <<<"$t"
	dir=$bin/$goos-$goarch
	mkdir -p "$dir"
	printf 'dist: GOOS=%s GOARCH=%s CGO_ENABLED=%s go build -o %s %s\n' "$goos" "$goarch" "$cgo" "$dir/$file" "$pkg"
	GOOS=$goos GOARCH=$goarch CGO_ENABLED=$cgo \
		go build -trimpath -buildvcs=auto -ldflags "-s -w${extra:+ $extra}" -o "$dir/$file" "$pkg"
done
echo "dist: make web WEBDIR=$bin/web"
make --no-print-directory web WEBDIR="$bin/web" >/dev/null
"$tool" subsystem -want gui "$bin/windows-amd64/tremor.exe"
"$tool" subsystem -want console "$bin/windows-amd64/tremor-server.exe"

if [[ $mode == check ]]; then
	# The binaries' sizes, so that a jump shows in CI's log; then they
	# are removed (they are large and CI does not ship them).
	(cd "$bin" && find . -type f -name 'tremor*' -printf '%s\t%P\n' | sort -k2 | awk '{ printf "dist: %6.1f MB  %s\n", $1 / 1e6, $2 }')
	rm -rf "$bin"
	rmdir "$out" 2>/dev/null || true
	exit 0
fi

stage=$out/stage
rm -rf "$stage" "$out"/*.zip "$out"/*.tar.gz "$out"/SHA256SUMS

# readme NAME DIR writes deploy/dist/NAME into DIR/README.txt with the
# version filled in, with CRLF line ends for the Windows archives so that
# Notepad shows its lines.
readme() {
	local text
	text=$(sed "s/@VERSION@/$version/g" "deploy/dist/$1")
	if [[ $1 == *windows* ]]; then
		printf '%s\n' "$text" | sed 's/$/\r/' >"$2/README.txt"
	else
		printf '%s\n' "$text" >"$2/README.txt"
	fi
}

# with_web DIR puts the browser page in DIR/web: the dedicated server and
# the game's embedded server serve a web folder beside the program on their
# web port (sv_webPort, sv_webDir empty), so that students' browsers open
# http://SERVER:27960/ and join. tremor.wasm.gz is kept there: that server
# sends it to browsers that take gzip, 4.4 MB instead of 19.
with_web() {
	mkdir -p "$1/web"
	cp "$bin"/web/* "$1/web/"
	chmod 0644 "$1"/web/*
}

# pack NAME.zip|NAME.tar.gz packs $stage/NAME into $out.
pack() {
	local name=${1%.zip}
	name=${name%.tar.gz}
	"$tool" archive -mtime "$mtime" "$out/$1" "$stage/$name"
}

# The browser page: what make web builds, served by any web server that
# sends .wasm as application/wasm (docs/web.md). tremor.wasm.gz is left
# out: it would add as much again to the archive, and the README says how
# to make it.
web=tremor-web-$version
mkdir -p "$stage/$web"
cp "$bin"/web/* "$stage/$web/"
chmod 0644 "$stage/$web"/*
rm -f "$stage/$web/tremor.wasm.gz"
readme README-web.txt "$stage/$web"
pack "$web.zip"

# The Windows client.
d=tremor-$version-windows-amd64
mkdir -p "$stage/$d"
cp "$bin/windows-amd64/tremor.exe" "$stage/$d/"
with_web "$stage/$d"
readme README-windows.txt "$stage/$d"
pack "$d.zip"

# The Linux client.
d=tremor-$version-linux-amd64
mkdir -p "$stage/$d"
cp "$bin/linux-amd64/tremor" "$stage/$d/"
with_web "$stage/$d"
readme README-linux.txt "$stage/$d"
pack "$d.tar.gz"

# The servers: the dedicated server (and on Linux the master), with the
# browser page and the example map that is not built in (maps/NAME.map beside the server is
# found by +map NAME and downloaded by players who lack it).
server() { # goos goarch archive-extension
	local d=tremor-server-$version-$1-$2
	mkdir -p "$stage/$d/maps"
	cp "$bin/$1-$2"/tremor-server* "$stage/$d/"
	[[ $1 == windows ]] || cp "$bin/$1-$2/tremor-master" "$stage/$d/"
	cp maps/examples/*.map "$stage/$d/maps/"
	with_web "$stage/$d"
	readme "README-server-$1.txt" "$stage/$d"
	pack "$d.$3"
}
server windows amd64 zip
server linux amd64 tar.gz
server linux arm64 tar.gz

"$tool" sums "$out"
rm -rf "$stage" "$bin"
echo "dist: $out (version $version):"
ls -l "$out"
