// Package master tests cmd/master with the real binaries over UDP: two
// cmd/server processes with bots heartbeat to it, the real quakestat
// lists them, a server that stops heartbeating disappears after the
// timeout, one that quits leaves the same way (its final heartbeat
// removes nothing: heartbeats can be forged), a forged
// heartbeat is never listed, and a getservers flood gets bounded bytes.
package master

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"tremor/common/proto"

	"tremor/master"
	"tremor/net/oob"
)

// logBuffer collects a process's output; safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type proc struct {
	name  string
	cmd   *exec.Cmd
	log   *logBuffer
	stdin io.WriteCloser
	done  chan struct{}
}

func start(t *testing.T, name, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(bin, args...), log: &logBuffer{}, done: make(chan struct{})}
	p.cmd.Dir = t.TempDir()
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, p.log.String())
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) kill() {
	if !p.exited() {
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// console writes a line to the process's standard input.
func (p *proc) console(line string) { _, _ = io.WriteString(p.stdin, line+"\n") }

// waitFor polls cond every 50 ms for at most d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// listenAddr waits for the line saying where p listens.
func listenAddr(t *testing.T, p *proc, re *regexp.Regexp) netip.AddrPort {
	t.Helper()
	if !waitFor(10*time.Second, func() bool { return re.MatchString(p.log.String()) }) {
		t.Fatalf("%s did not say where it listens within 10 s (exited: %v)", p.name, p.exited())
	}
	a, err := netip.ParseAddrPort(re.FindStringSubmatch(p.log.String())[1])
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var (
	masterRE = regexp.MustCompile(`Tremor master server listening on (\S+)`)
	serverRE = regexp.MustCompile(`Tremor server listening on (\S+)`)
)

func build(t *testing.T) (masterBin, serverBin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the test builds and runs the real binaries")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not on PATH")
	}
	out, err := exec.Command(goBin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	dir := t.TempDir()
	cmd := exec.Command(goBin, "build", "-o", dir+string(filepath.Separator), "./cmd/master", "./cmd/server")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/master ./cmd/server: %v\n%s", err, out)
	}
	return filepath.Join(dir, "master"), filepath.Join(dir, "server")
}

// quakestat finds the real qstat, or fails (in CI) or skips.
func quakestat(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"quakestat", "qstat"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("quakestat (Debian package qstat) is not on PATH, and CI=true: the master must be checked against it")
	}
	t.Skip("quakestat (Debian package qstat) is not on PATH: install it to run this test")
	return ""
}

// qstatServer is a server as quakestat's raw output shows it.
type qstatServer struct {
	addr, name, mapName string
	maxPlayers, players string
	playerLines         []string
}

// runQuakestat lists the master's servers with their players:
// quakestat -q3m,VERSION MASTER -P -raw , -mi 0.25. quakestat waits for its
// master retries before it queries the servers, 8 s with the default
// -mi of 2 s; -mi 0.25 makes that 1 s. (Its -timeout option makes it
// print nothing at all, so the test bounds it itself.)
func runQuakestat(t *testing.T, bin string, masterAddr netip.AddrPort) (map[string]*qstatServer, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, fmt.Sprintf("-q3m,%d", proto.Version), masterAddr.String(), "-P", "-raw", ",", "-mi", "0.25").CombinedOutput()
	if err != nil {
		t.Fatalf("quakestat: %v\n%s", err, out)
	}
	servers := map[string]*qstatServer{}
	var cur *qstatServer
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Split(line, ",")
		switch {
		case strings.HasPrefix(line, "Q3S,") && len(f) >= 6:
			cur = &qstatServer{addr: f[1], name: f[2], mapName: f[3], maxPlayers: f[4], players: f[5]}
			servers[f[1]] = cur
		case strings.HasPrefix(line, "Q3M,"):
			cur = nil
		case line != "" && cur != nil:
			cur.playerLines = append(cur.playerLines, line)
		}
	}
	return servers, string(out)
}

func TestMasterWithQuakestat(t *testing.T) {
	qstat := quakestat(t)
	masterBin, serverBin := build(t)

	const timeout = 10 // seconds: the test's master_timeout
	m := start(t, "master", masterBin, "+set", "net_ip", "127.0.0.1", "+set", "net_port", "0",
		"+set", "master_timeout", fmt.Sprint(timeout))
	maddr := listenAddr(t, m, masterRE)

	startServer := func(name string, bots int) (*proc, netip.AddrPort) {
		p := start(t, name, serverBin, "+set", "net_ip", "127.0.0.1", "+set", "net_port", "0",
			"+set", "sv_hostname", name, "+set", "sv_master1", maddr.String(),
			"+map", "arena1", "+addbot", fmt.Sprint(bots))
		return p, listenAddr(t, p, serverRE)
	}
	a, aAddr := startServer("Alpha", 2)
	b, bAddr := startServer("Bravo", 3)

	listed := func(addr netip.AddrPort) bool {
		return strings.Contains(m.log.String(), addr.String()+": listed")
	}
	if !waitFor(10*time.Second, func() bool { return listed(aAddr) && listed(bAddr) }) {
		t.Fatalf("the master did not list both servers within 10 s")
	}
	// The bots join after the map loads; wait until each server's
	// statusResponse has them all (quakestat reads players from it).
	var servers map[string]*qstatServer
	var raw string
	ok := waitFor(10*time.Second, func() bool {
		servers, raw = runQuakestat(t, qstat, maddr)
		sa, sb := servers[aAddr.String()], servers[bAddr.String()]
		return sa != nil && sb != nil && len(sa.playerLines) == 2 && len(sb.playerLines) == 3
	})
	t.Logf("quakestat -q3m,%d %s -P -raw , printed:\n%s", proto.Version, maddr, raw)
	if !ok {
		t.Fatalf("quakestat does not list both servers with their players")
	}
	for _, c := range []struct {
		addr    netip.AddrPort
		name    string
		players string
	}{{aAddr, "Alpha", "2"}, {bAddr, "Bravo", "3"}} {
		s := servers[c.addr.String()]
		if s.name != c.name || s.mapName != "arena1" || s.players != c.players || s.maxPlayers != "16" {
			t.Errorf("quakestat shows %s as %+v, want %s on arena1 with %s/16 players", c.addr, *s, c.name, c.players)
		}
	}
	if len(servers) != 2 {
		t.Errorf("quakestat lists %d servers, want 2", len(servers))
	}

	// From here on Alpha heartbeats every second (each map command sends
	// one), so it stays listed with a short timeout.
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				a.console("map arena1")
			}
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-stopped
	}()

	t.Run("ForgedHeartbeat", func(t *testing.T) { testForgedHeartbeat(t, m, maddr) })
	t.Run("GetServersFlood", func(t *testing.T) { testGetServersFlood(t, maddr) })

	// Bravo stops heartbeating without a word (killed); Alpha goes on.
	// Bravo disappears after the timeout, Alpha stays.
	b.kill()
	killed := time.Now()
	gone := waitFor(3*timeout*time.Second, func() bool {
		return strings.Contains(m.log.String(), bAddr.String()+": expired")
	})
	if !gone {
		t.Fatalf("the master did not expire the killed server within %d s", 3*timeout)
	}
	t.Logf("the killed server expired %.1f s after it was killed (timeout %d s)", time.Since(killed).Seconds(), timeout)
	if strings.Contains(m.log.String(), aAddr.String()+": expired") {
		t.Fatal("Alpha expired although it heartbeated every second")
	}
	servers, raw = runQuakestat(t, qstat, maddr)
	if len(servers) != 1 || servers[aAddr.String()] == nil {
		t.Fatalf("after Bravo expired, quakestat lists:\n%s", raw)
	}
	close(stop)
	<-stopped

	// Alpha quits: its final heartbeat makes the master ask, nobody
	// answers, and it stays listed until it times out like any server
	// that stopped heartbeating.
	a.console("quit")
	quit := time.Now()
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		t.Fatal("server did not quit")
	}
	if !strings.Contains(a.log.String(), "Sending final heartbeat") {
		t.Errorf("the server sent no final heartbeat")
	}
	if !waitFor(3*timeout*time.Second, func() bool {
		return strings.Contains(m.log.String(), aAddr.String()+": expired")
	}) {
		t.Fatalf("the master did not expire the server that quit within %d s", 3*timeout)
	}
	t.Logf("the server that quit expired %.1f s after it quit (timeout %d s)", time.Since(quit).Seconds(), timeout)
	if strings.Contains(m.log.String(), ": removed") {
		t.Errorf("the master removed a server other than by timeout:\n%s", m.log.String())
	}
	servers, raw = runQuakestat(t, qstat, maddr)
	if len(servers) != 0 {
		t.Fatalf("after both servers left, quakestat lists:\n%s", raw)
	}
}

func udp(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readAll reads packets until none comes for quiet.
func readAll(c *net.UDPConn, quiet time.Duration) [][]byte {
	var ps [][]byte
	buf := make([]byte, 65536)
	for {
		_ = c.SetReadDeadline(time.Now().Add(quiet))
		n, _, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			return ps
		}
		ps = append(ps, append([]byte(nil), buf[:n]...))
	}
}

// getServers asks the master for every server of Tremor's protocol and returns
// their addresses.
func getServers(t *testing.T, maddr netip.AddrPort) []netip.AddrPort {
	t.Helper()
	c := udp(t)
	if _, err := c.WriteToUDPAddrPort(oob.Packet(fmt.Sprintf("getservers %d empty full", proto.Version)), maddr); err != nil {
		t.Fatal(err)
	}
	var addrs []netip.AddrPort
	for _, p := range readAll(c, 500*time.Millisecond) {
		r, err := oob.ParseServersResponse(p)
		if err != nil {
			t.Fatalf("getserversResponse: %v", err)
		}
		addrs = append(addrs, r.Addrs...)
	}
	return addrs
}

// testForgedHeartbeat sends a heartbeat from a socket that ignores the
// getinfo, and an infoResponse carrying that getinfo's challenge from
// another port: neither lists anything.
func testForgedHeartbeat(t *testing.T, m *proc, maddr netip.AddrPort) {
	forger, other := udp(t), udp(t)
	forgerAddr := forger.LocalAddr().(*net.UDPAddr).AddrPort()
	hb := oob.Packet(oob.FormatHeartbeat(oob.HeartbeatQuake3))
	if _, err := forger.WriteToUDPAddrPort(hb, maddr); err != nil {
		t.Fatal(err)
	}
	got := readAll(forger, time.Second)
	if len(got) != 1 || len(got[0]) > len(hb) {
		t.Fatalf("the master answered a heartbeat of %d bytes with %d packets (%q)", len(hb), len(got), got)
	}
	text, _ := oob.Parse(got[0])
	ch, err := oob.ParseGetInfo(text)
	if err != nil || ch == "" {
		t.Fatalf("answer %q: challenge %q, %v", text, ch, err)
	}
	info := `\challenge\` + ch + `\protocol\3\gamename\Tremor\hostname\Forged\clients\1\sv_maxclients\8`
	if _, err := other.WriteToUDPAddrPort(oob.Packet(oob.FormatInfoResponse(info)), maddr); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	for _, a := range getServers(t, maddr) {
		if a.Port() == forgerAddr.Port() || a.Port() == other.LocalAddr().(*net.UDPAddr).AddrPort().Port() {
			t.Fatalf("the forged heartbeat's address %v is listed", a)
		}
	}
	if strings.Contains(m.log.String(), "Forged") || !strings.Contains(m.log.String(), "wrong or old challenge") {
		t.Errorf("master log:\n%s", m.log.String())
	}
}

// testGetServersFlood sends 300 getservers from one address as fast as
// it can: it gets the per-source burst answered, and fewer bytes back
// than it sent.
func testGetServersFlood(t *testing.T, maddr netip.AddrPort) {
	c := udp(t)
	q := oob.Packet(fmt.Sprintf("getservers %d empty full", proto.Version))
	const n = 300
	begin := time.Now()
	for range n {
		if _, err := c.WriteToUDPAddrPort(q, maddr); err != nil {
			t.Fatal(err)
		}
	}
	elapsed := time.Since(begin)
	got := readAll(c, time.Second)
	in, out, answers := n*len(q), 0, 0
	for _, p := range got {
		out += len(p)
		if r, err := oob.ParseServersResponse(p); err == nil && r.EOT {
			answers++
		}
	}
	t.Logf("%d getservers (%d bytes) in %v: %d answers, %d bytes back", n, in, elapsed, answers, out)
	maxAnswers := master.QueryBurst + int(elapsed/(master.QueryPeriod*time.Millisecond)) + 1
	if answers > maxAnswers || answers == 0 {
		t.Errorf("%d answers to %d getservers from one address in %v, want 1 to %d", answers, n, elapsed, maxAnswers)
	}
	if out >= in {
		t.Errorf("flood: %d bytes back for %d sent", out, in)
	}
}
