package hostile

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/client/headless"
	"tremor/internal/testutil"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// binaries are the paths of the built commands.
type binaries struct{ server, headless, hostile string }

// build compiles cmd/hostile, cmd/server (unless -serverbin names one)
// and cmd/headless (unless -headlessbin does) with CGO_ENABLED=0 into a
// temporary directory, or skips t when the go command is missing or
// -short asks for quick tests.
func build(t *testing.T) binaries {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the scenarios build and run the real binaries")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH: the scenarios build the real binaries")
	}
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("go env GOMOD: not inside the tremor module")
	}
	root := filepath.Dir(gomod)
	dir := t.TempDir()
	bins := binaries{
		server:   filepath.Join(dir, "server"),
		headless: filepath.Join(dir, "headless"),
		hostile:  filepath.Join(dir, "hostile"),
	}
	pkgs := []string{"./cmd/hostile"}
	for _, b := range []struct {
		flag, pkg string
		path      *string
	}{{*serverBin, "./cmd/server", &bins.server}, {*headlessBin, "./cmd/headless", &bins.headless}} {
		if b.flag == "" {
			pkgs = append(pkgs, b.pkg)
			continue
		}
		abs, err := filepath.Abs(b.flag)
		if err != nil {
			t.Fatalf("%s binary %s: %v", b.pkg, b.flag, err)
		}
		*b.path = abs
		t.Logf("%s: %s, given", b.pkg, abs)
	}
	cmd := exec.Command(goBin, append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	begin := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build %s in %s: %v\n%s", strings.Join(pkgs, " "), root, err, out)
	}
	t.Logf("built %s with CGO_ENABLED=0 in %.1f s", strings.Join(pkgs, " "), time.Since(begin).Seconds())
	return bins
}

// proc is a running binary whose output the test reads.
type proc struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdout *testutil.LockedBuffer
	stderr *testutil.LockedBuffer
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

// start runs bin with args in dir. The process is killed when the test
// ends, if it is still running.
func start(t *testing.T, dir, bin string, args ...string) *proc {
	t.Helper()
	p := newProc(t, dir, bin, args...)
	p.run()
	return p
}

// newProc prepares bin with args in dir; run starts it.
func newProc(t *testing.T, dir, bin string, args ...string) *proc {
	p := &proc{t: t, name: filepath.Base(bin), cmd: exec.Command(bin, args...),
		stdout: &testutil.LockedBuffer{}, stderr: &testutil.LockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	return p
}

// run starts the process and kills it when the test ends, if it is
// still running then.
func (p *proc) run() {
	p.t.Helper()
	if err := p.cmd.Start(); err != nil {
		p.t.Fatalf("starting %s: %v", strings.Join(p.cmd.Args, " "), err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	p.t.Cleanup(p.kill)
}

// done reports whether the process has exited.
func (p *proc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// wait waits at most d for the process to exit and reports whether it did.
func (p *proc) wait(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// kill kills the process if it still runs and waits for it.
func (p *proc) kill() {
	if p.done() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// interrupt sends SIGINT (a headless run then reports and exits).
func (p *proc) interrupt() {
	if !p.done() {
		_ = p.cmd.Process.Signal(os.Interrupt)
	}
}

// server is a running cmd/server on 127.0.0.1 with an ephemeral port.
type server struct {
	*proc
	addr  netip.AddrPort
	stdin interface{ Write([]byte) (int, error) }
}

var listeningRE = regexp.MustCompile(`Tremor server listening on (\S+)`)

// listenAddr waits up to 10 s for the line of p's output out that re
// matches and returns the address its first group names: where the
// program (what, for the failure) listens.
func listenAddr(t *testing.T, p *proc, re *regexp.Regexp, out *testutil.LockedBuffer, what string) netip.AddrPort {
	t.Helper()
	if !waitFor(10*time.Second, func() bool { return re.MatchString(out.String()) }, p.done) {
		t.Fatalf("%s did not say where it listens within 10 s (exited: %v)\n%s", what, p.done(), out.String())
	}
	m := re.FindStringSubmatch(out.String())
	addr, err := netip.ParseAddrPort(m[1])
	if err != nil {
		t.Fatalf("%s listens on %q: %v", what, m[1], err)
	}
	return addr
}

// startServer starts the server with the extra command-line arguments
// (+set lines) and +map arena1, waits until it answers getinfo, and stops
// it with quit when the test ends, printing the end of its log if the
// test failed (all of it with -serverlog).
func startServer(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	all := append([]string{"+set", "net_ip", "127.0.0.1", "+set", "net_port", "0"}, args...)
	all = append(all, "+map", "arena1")
	p := newProc(t, t.TempDir(), bin, all...)
	p.cmd.Stderr = p.stdout // one log, in order
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatalf("server stdin: %v", err)
	}
	p.run()
	s := &server{proc: p, stdin: stdin}
	t.Cleanup(func() {
		_, _ = stdin.Write([]byte("quit\n"))
		if !p.wait(5 * time.Second) {
			t.Errorf("server did not quit within 5 s of the quit command; killed")
			p.kill()
		}
		if *showLogs {
			t.Logf("server log:\n%s", p.stdout.String())
		} else if t.Failed() {
			t.Logf("server log, last 60 lines (all of it with -serverlog):\n%s", tail(p.stdout.String(), 60))
		}
	})

	s.addr = listenAddr(t, p, listeningRE, p.stdout, "server "+strings.Join(all, " "))
	if !waitFor(10*time.Second, func() bool { return strings.Contains(p.stdout.String(), "map arena1 loaded") }, p.done) {
		t.Fatalf("server did not load arena1 within 10 s (exited: %v)\n%s", p.done(), tail(p.stdout.String(), 30))
	}
	if err := s.awaitGetinfo(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return s
}

// awaitGetinfo sends getinfo every 100 ms until the server answers.
func (s *server) awaitGetinfo(d time.Duration) error {
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("socket for getinfo: %w", err)
	}
	defer conn.Close()
	buf := make([]byte, 1<<16)
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := conn.WriteTo(oob.Packet(oob.FormatGetInfo("e2e")), s.addr); err != nil {
			return fmt.Errorf("sending getinfo to %s: %w", s.addr, err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, from, err := conn.ReadFrom(buf)
		if err != nil || from != s.addr {
			continue
		}
		if text, err := oob.Parse(buf[:n]); err == nil && strings.EqualFold(oob.Command(text), oob.CmdInfoResponse) {
			return nil
		}
	}
	return fmt.Errorf("server at %s did not answer getinfo within %v", s.addr, d)
}

// console types a line on the server's console.
func (s *server) console(line string) {
	s.t.Helper()
	if _, err := s.stdin.Write([]byte(line + "\n")); err != nil {
		s.t.Fatalf("server console %q: %v", line, err)
	}
}

// log returns the server's log from byte offset from on.
func (s *server) log(from int) string {
	l := s.stdout.String()
	return l[min(from, len(l)):]
}

// logLen is the log's length so far, an offset for log.
func (s *server) logLen() int { return len(s.stdout.String()) }

var (
	enteredRE = regexp.MustCompile(`(?m) client (\d+) (\S*) entered the game$`)
	droppedRE = regexp.MustCompile(`(?m) client (\d+) (\S*) dropped: (.*)$`)
)

// entered returns the client numbers whose names start with prefix that
// entered the game in log.
func entered(log, prefix string) map[int]bool {
	out := map[int]bool{}
	for _, m := range enteredRE.FindAllStringSubmatch(log, -1) {
		if strings.HasPrefix(m[2], prefix) {
			n, _ := strconv.Atoi(m[1])
			out[n] = true
		}
	}
	return out
}

// drop is one "client N NAME dropped: REASON" line.
type drop struct {
	num          int
	name, reason string
}

// drops returns the drops in log of clients whose names start with prefix.
func drops(log, prefix string) []drop {
	var out []drop
	for _, m := range droppedRE.FindAllStringSubmatch(log, -1) {
		if strings.HasPrefix(m[2], prefix) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, drop{n, m[2], m[3]})
		}
	}
	return out
}

// unexpectedDrops counts, by reason, the drops other than a client's own
// "disconnected" at the end of its run.
func unexpectedDrops(ds []drop) map[string]int {
	out := map[string]int{}
	for _, d := range ds {
		if d.reason != "disconnected" {
			out[d.reason]++
		}
	}
	return out
}

// waitFor polls cond every 50 ms for at most d, giving up early when
// abort (if not nil) holds; it reports whether cond held.
func waitFor(d time.Duration, cond, abort func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if (abort != nil && abort()) || time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines before]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// startHeadless runs clients headless clients against s with the extra
// flags.
func startHeadless(t *testing.T, bin string, s *server, clients int, flags ...string) *proc {
	t.Helper()
	args := append([]string{"-clients", strconv.Itoa(clients)}, flags...)
	args = append(args, "+connect", s.addr.String())
	return start(t, t.TempDir(), bin, args...)
}

// headlessReport waits at most d for a headless run to end and returns
// its report (the exit status is 1 when a client failed: the report says
// which).
func headlessReport(t *testing.T, p *proc, d time.Duration) *headless.Report {
	t.Helper()
	if !p.wait(d) {
		p.interrupt()
		if !p.wait(10 * time.Second) {
			t.Fatalf("headless did not end within %v, nor 10 s after SIGINT\nstderr:\n%s", d, tail(p.stderr.String(), 30))
		}
		t.Errorf("headless did not end within %v; interrupted", d)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("headless stderr, last 20 lines:\n%s", tail(p.stderr.String(), 20))
		}
	})
	var rep headless.Report
	if err := json.Unmarshal([]byte(p.stdout.String()), &rep); err != nil {
		t.Fatalf("headless report: %v (exit: %v)\nstdout:\n%s\nstderr:\n%s", err, p.err, tail(p.stdout.String(), 20), tail(p.stderr.String(), 30))
	}
	return &rep
}

// runHostile runs cmd/hostile to the end (at most d) and decodes its JSON
// line into a T.
func runHostile[T any](t *testing.T, bin string, d time.Duration, args ...string) T {
	t.Helper()
	return hostileResult[T](t, start(t, t.TempDir(), bin, args...), d)
}

// hostileResult waits at most d for a hostile run and decodes its JSON
// line into a T.
func hostileResult[T any](t *testing.T, p *proc, d time.Duration) T {
	t.Helper()
	var v T
	if !p.wait(d) {
		p.kill()
		t.Fatalf("hostile %s did not end within %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), d, p.stderr.String())
	}
	if p.err != nil {
		t.Fatalf("hostile %s: %v\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), p.err, p.stderr.String())
	}
	line := strings.TrimSpace(p.stdout.String())
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatalf("hostile %s: reading its result: %v\n%s", strings.Join(p.cmd.Args[1:], " "), err, line)
	}
	t.Logf("hostile %s:\n%s", p.cmd.Args[1], line)
	return v
}
