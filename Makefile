# Tremor: build, test and run. `make help` lists the targets.
#
# Recipes are bash scripts (one shell per recipe, stop at the first error).
# Variables you can override: PKGS, FUZZTIME, BENCHTIME, ARGS, TEST_TIMEOUT, SOAK, FSSOAK, CROWD, DISTDIR.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.ONESHELL:
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Find Go in its standard install location even when it is not on PATH.
export PATH := $(PATH):/usr/local/go/bin
# apt must never wait for an answer (CI has no stdin).
export DEBIAN_FRONTEND := noninteractive

# Packages the targets act on (go list patterns), e.g. PKGS=./net/...
PKGS ?= ./...
# How long each fuzz target runs: `make fuzz` uses 10s, `make test` 5s.
FUZZTIME ?= 10s
TEST_FUZZTIME := $(if $(filter file,$(origin FUZZTIME)),5s,$(FUZZTIME))
# -benchtime for `make bench`.
BENCHTIME ?= 1s
# -timeout for each test binary in `make test`.
TEST_TIMEOUT ?= 5m
# How long `make soak` runs.
SOAK ?= 10m
# How long `make framesync-soak` runs.
FSSOAK ?= 5m
# How long the 64 clients of `make crowd` play.
CROWD ?= 10m
# Arguments for `make run`, `make server` and `make master`.
ARGS ?=
# Extra flags for the container builds of `make images`.
IMAGE_FLAGS ?=
# The browser build: the folder `make web` fills, and the address and
# port `make web-serve` serves it on (WEBHOST=0.0.0.0: the whole room).
WEBDIR ?= build/web
WEBHOST ?= localhost
WEBPORT ?= 8080
# `make webtest WEBQUERY=...` opens only that page address query (the
# client's command line) instead of the classroom view and the local game.
WEBQUERY ?=
# Where `make dist` writes the release archives (docs/deploy.md).
DISTDIR ?= dist

# Debian packages: a C toolchain (cgo, -race), Ebitengine's cgo headers on
# Linux, a virtual display for running the client without a screen, and
# Chromium for the browser build's test (make webtest, part of make test).
# mesa-utils is for glxinfo: Ebitengine runs it to choose GLX over EGL, and
# under software OpenGL (Xvfb, machines without a GPU driver) GLX hands
# each frame to the X server through shared memory where EGL copies it
# through the X socket: 30 frames a second become 90 (docs/PERFORMANCE.md).
DEB_PACKAGES := gcc libc6-dev \
	libx11-dev libxrandr-dev libxcursor-dev libxinerama-dev libxi-dev \
	libxxf86vm-dev libgl1-mesa-dev libasound2-dev mesa-utils \
	xvfb xauth qstat chromium
STATICCHECK_VERSION := v0.8.2
# Commands that must build with CGO_ENABLED=0.
NOCGO_CMDS := cmd/server cmd/master cmd/headless cmd/inspect cmd/hostile

.PHONY: help deps test fuzz bench soak framesync-soak hostile crowd bandwidth carriers netmodels servercpu build dist web web-serve webtest run classroom server master images clean

help: ## list the targets
	@echo "usage: make <target> [PKGS=./...] [FUZZTIME=10s] [BENCHTIME=1s] [ARGS=...]"
	echo
	awk 'BEGIN { FS = ":.*## " } /^[a-z][a-z-]*:.*## / { printf "  %-7s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

deps: ## install what is missing: Debian packages (apt), staticcheck, Go modules
	@command -v go >/dev/null || { echo "deps: go not found; install Go 1.26 from https://go.dev/dl/ into /usr/local/go" >&2; exit 1; }
	echo "==> deps: Debian packages"
	if ! command -v dpkg-query >/dev/null; then
		echo "deps: no dpkg here; install these yourself: $(DEB_PACKAGES)"
	else
		missing=()
		for p in $(DEB_PACKAGES); do
			[ "$$(dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$$p")
		done
		if [ $${#missing[@]} -eq 0 ]; then
			echo "deps: all $(words $(DEB_PACKAGES)) Debian packages present, nothing to install"
		else
			sudo=()
			if [ "$$(id -u)" -ne 0 ]; then
				command -v sudo >/dev/null || { echo "deps: not root and no sudo; as root run: apt-get install $${missing[*]}" >&2; exit 1; }
				sudo=(sudo env DEBIAN_FRONTEND=noninteractive)
			fi
			echo "deps: missing: $${missing[*]}"
			echo "deps: $${sudo[*]:+$${sudo[*]} }apt-get update"
			"$${sudo[@]}" apt-get update -q
			echo "deps: $${sudo[*]:+$${sudo[*]} }apt-get install -y --no-install-recommends $${missing[*]}"
			"$${sudo[@]}" apt-get install -y -q --no-install-recommends "$${missing[@]}"
		fi
	fi
	echo "==> deps: staticcheck $(STATICCHECK_VERSION)"
	bin="$$(go env GOPATH | cut -d: -f1)/bin"
	# Reinstall when the version differs, or when it was built by another Go.
	info="$$(go version -m "$$bin/staticcheck" 2>/dev/null || true)"
	have="$$(awk '$$1 == "mod" && $$2 == "honnef.co/go/tools" { print $$3 }' <<<"$$info")"
	built="$$(awk 'NR == 1 { print $$2 }' <<<"$$info")"
	if [ "$$have" = "$(STATICCHECK_VERSION)" ] && [ "$$built" = "$$(go env GOVERSION)" ]; then
		echo "deps: $$bin/staticcheck is $$have ($$built), nothing to install"
	else
		echo "deps: GOBIN=$$bin go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) (found: $${have:-none} $$built)"
		GOBIN="$$bin" go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	fi
	echo "==> deps: go mod download"
	go mod download

test: deps ## gofmt check, go vet, staticcheck, go test -race, then fuzz for FUZZTIME (5s here)
	@step() {
		local name=$$1 start=$$(date +%s%N) rc=0; shift
		printf '\n==> %s\n' "$$name"
		"$$@" || rc=$$?
		local secs=$$(awk -v ns=$$(( $$(date +%s%N) - start )) 'BEGIN { printf "%.1f", ns / 1e9 }')
		if [ $$rc -ne 0 ]; then printf '<== %s: FAILED (%ss)\n' "$$name" "$$secs" >&2; exit $$rc; fi
		printf '<== %s: ok (%ss)\n' "$$name" "$$secs"
	}
	gofmt_check() {
		local files bad rc=0
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			files=$$(git ls-files --cached --others --exclude-standard -- $(patsubst %/...,%,$(PKGS)))
		else
			files=$$(find $(patsubst %/...,%,$(PKGS)) -type f)
		fi
		files=$$(grep -E '\.go$$' <<<"$$files" | grep -Ev '(^|/)testdata/' | while read -r f; do [ -f "$$f" ] && echo "$$f"; done || true)
		if [ -z "$$files" ]; then echo "gofmt: no Go files"; return 0; fi
		bad=$$(gofmt -l $$files) || rc=$$?
		if [ -n "$$bad" ]; then
			echo "gofmt: these files are not formatted (fix: gofmt -w FILE):" >&2
			sed 's/^/  /' <<<"$$bad" >&2
			return 1
		fi
		if [ $$rc -ne 0 ]; then echo "gofmt: could not parse the files above" >&2; return 1; fi
		echo "gofmt: $$(wc -l <<<"$$files") files, all formatted"
	}
	# The Windows client and server, and the browser build, must compile and
	# pass vet too: nobody here can run them, so CI is where they break.
	# For js only the browser build's packages: server-side ones (the
	# WebRTC server's pion) need not build for js.
	cross_vet() {
		echo "GOOS=windows GOARCH=amd64 go vet $(PKGS)"
		GOOS=windows GOARCH=amd64 go vet $(PKGS)
		local web
		web=$$(comm -12 <(GOOS=js GOARCH=wasm go list -e -deps ./cmd/client | sort) <(GOOS=js GOARCH=wasm go list -e $(PKGS) 2>/dev/null | sort))
		if [ -z "$$web" ]; then echo "no package of PKGS is in the browser build"; return 0; fi
		echo "GOOS=js GOARCH=wasm go vet: the $$(wc -w <<<"$$web") packages of PKGS in the browser build (go list -deps ./cmd/client)"
		GOOS=js GOARCH=wasm go vet $$web
	}
	total=$$(date +%s)
	step "gofmt -l" gofmt_check
	step "go vet $(PKGS)" go vet $(PKGS)
	step "go vet, GOOS=windows and GOOS=js GOARCH=wasm" cross_vet
	if [ "$(PKGS)" = "./..." ]; then
		step "cross-compile the release binaries (make dist without the archives)" bash .ci/dist.sh check "$$(mktemp -d)"
	else
		printf '\n==> cross-compile the release binaries: skipped (PKGS=%s)\n' "$(PKGS)"
	fi
	step "staticcheck $(PKGS)" "$$(go env GOPATH | cut -d: -f1)/bin/staticcheck" $(PKGS)
	step "go test -race -count=1 $(PKGS)" go test -race -count=1 -timeout $(TEST_TIMEOUT) $(PKGS)
	step "fuzz (FUZZTIME=$(TEST_FUZZTIME) per target)" env FUZZTIME=$(TEST_FUZZTIME) PKGS="$(PKGS)" bash .ci/fuzz.sh
	printf '\n==> make test: all steps passed (%ss)\n' "$$(( $$(date +%s) - total ))"

fuzz: ## run every FuzzXxx target in PKGS for FUZZTIME each (default 10s)
	@FUZZTIME=$(FUZZTIME) PKGS="$(PKGS)" bash .ci/fuzz.sh

bench: ## run the benchmarks with -benchmem for BENCHTIME each (default 1s)
	@go test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

soak: ## long soak: 8 headless clients on a terrible network (SOAK, default 10m), a 2 s blackout every 30 s
	@go test -race -count=1 -run TestSoak -timeout 0 ./client/headless -args -soak=$(SOAK)

# Without -race: the stalls and rollbacks it reports depend on the time
# each client's frames take; the 20 s version runs under -race in make test.
framesync-soak: ## frame sync: 4 headless clients and 4 bots, 5 % loss and 40 ms jitter each way (FSSOAK, default 5m); 0 hash mismatches, per-client rollbacks, stalls, resyncs
	@go test -count=1 -v -run '^TestFrameSyncSoak$$' -timeout 0 ./client/headless -args -framesync.soak=$(FSSOAK)

hostile: ## attacks and a 64-client crowd against the real server, and a hostile server against the real headless client, over UDP
	@go test -count=1 -v -run '^(TestHostileBinaries|TestHostileServer|TestHostileServerText)$$' -timeout 5m ./internal/e2e/hostile

crowd: ## long run: 64 headless clients on one server for CROWD (default 10m), real binaries over UDP
	@go test -count=1 -v -run '^TestCrowd$$' -timeout 0 ./internal/e2e/hostile -args -crowd=$(CROWD)

bandwidth: ## bytes on the wire per map vs ioquake3, real binaries over UDP, mean and spread (RUNS=3 DURATION=40 MAPS PLAYERS; ~8 min)
	@.ci/bandwidth.sh

carriers: ## the two carriers of reliable commands (q3 rings, acks) side by side at 0/10/30 % loss and 50/200 ms RTT: chat delay p50/p99, bytes each way, real binaries over UDP (RUNS=2 DURATION=40; ~10 min)
	@.ci/carriers.sh

netmodels: ## the two net models (snapshots, framesync) side by side on arena2 with 8 players at 0/5 % loss, 40 ms each way: bytes each way, ping, rollbacks, stalls, CPU; real binaries over UDP (RUNS=2 DURATION=30 LOSSES DELAYS JITTER MAXPRED MODELS; ~5 min)
	@.ci/netmodels.sh

servercpu: ## the dedicated server's CPU with 8, 16, 32, 64 headless clients, real binaries over UDP (COUNTS, DURATION=30; ~3 min)
	@.ci/servercpu.sh

protodoc: ## rewrite docs/protocol.md's field tables and docs/vectors from the code (go test ./internal/protospec -update), then check them
	@go test -count=1 ./internal/protospec -update
	go test -count=1 ./internal/protospec

.PHONY: protodoc

build: ## compile every package; build bin/client, and the NOCGO_CMDS (server, master, headless, inspect, hostile) with CGO_ENABLED=0
	@echo "==> go build $(PKGS)"
	go build $(PKGS)
	echo "==> go build -o bin/ ./cmd/client"
	go build -o bin/ ./cmd/client
	echo "==> CGO_ENABLED=0 go build -o bin/ $(addprefix ./,$(NOCGO_CMDS))"
	CGO_ENABLED=0 go build -o bin/ $(addprefix ./,$(NOCGO_CMDS))

dist: ## release archives in DISTDIR (dist/): Windows client and server (.zip), Linux client, Linux server and master for amd64 and arm64 (.tar.gz), the web page (.zip), READMEs, SHA256SUMS
	@bash .ci/dist.sh package "$(DISTDIR)"

web: ## build the client to WebAssembly in WEBDIR (build/web): tremor.wasm (and .gz), index.html, wasm_exec.js; docs/web.md
	@echo "==> GOOS=js GOARCH=wasm go build -o $(WEBDIR)/tremor.wasm ./cmd/client"
	mkdir -p "$(WEBDIR)"
	GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o "$(WEBDIR)/tremor.wasm" ./cmd/client
	root="$$(go env GOROOT)"
	exec_js="$$root/lib/wasm/wasm_exec.js"
	[ -f "$$exec_js" ] || exec_js="$$root/misc/wasm/wasm_exec.js" # Go before 1.24
	cp "$$exec_js" web/index.html "$(WEBDIR)/"
	gzip -9 -k -f "$(WEBDIR)/tremor.wasm"
	echo "web: $(WEBDIR)/tremor.wasm $$(stat -c %s "$(WEBDIR)/tremor.wasm") bytes, gzip -9 $$(stat -c %s "$(WEBDIR)/tremor.wasm.gz") bytes"

web-serve: web ## serve WEBDIR on http://WEBHOST:WEBPORT/ (localhost:8080) with cmd/webserve; add ?+classroom or ?+set name Alice to the address
	@go run ./cmd/webserve -dir "$(WEBDIR)" -host "$(WEBHOST)" -port $(WEBPORT)

webtest: deps web ## the browser build in headless Chromium: the classroom view and the local game (or WEBQUERY), screenshots in build/webtest-*.png; fail on a blank page, a panic or a console error
	@go test -count=1 -v -run '^TestBrowser' ./internal/e2e/web -args -web "$(abspath $(WEBDIR))" -shots "$(abspath build)"$(if $(WEBQUERY), -query '$(WEBQUERY)')

run: deps ## start the game client (go run ./cmd/client $(ARGS))
	@go run ./cmd/client $(ARGS)

classroom: deps ## open the classroom view: the server and two players side by side, their packets in flight (docs/classroom.md; ARGS="+p1 lag 200" adds commands)
	@go run ./cmd/client +classroom $(ARGS)

server: ## start a dedicated server (go run ./cmd/server $(ARGS))
	@go run ./cmd/server $(ARGS)

master: ## start a master server on UDP 27950 (go run ./cmd/master $(ARGS))
	@go run ./cmd/master $(ARGS)

images: ## build the tremor-server and tremor-master container images (docker, else podman; deploy/Dockerfile)
	@if command -v docker >/dev/null && docker info >/dev/null 2>&1; then build=(docker build)
	elif command -v podman >/dev/null; then build=(podman build --ignorefile deploy/Dockerfile.dockerignore)
	else echo "images: neither docker (with a daemon) nor podman found" >&2; exit 1; fi
	for t in server master; do
		"$${build[@]}" $(IMAGE_FLAGS) -f deploy/Dockerfile --target $$t -t tremor-$$t .
	done

clean: ## remove bin/ and stray test binaries and profiles
	@rm -rf bin
	find . -type f \( -name '*.test' -o -name '*.out' -o -name '*.prof' \) -not -path './.git/*' -print -delete
