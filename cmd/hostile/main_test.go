package main

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg/tilemap"
	"tremor/common/proto"
	"tremor/maps/arenas"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

func TestParseAddrRange(t *testing.T) {
	for _, tc := range []struct {
		in          string
		first, last string
		n           int
		bad         bool
	}{
		{in: "127.0.0.2-127.0.0.250", first: "127.0.0.2", last: "127.0.0.250", n: 249},
		{in: "127.0.0.9", first: "127.0.0.9", last: "127.0.0.9", n: 1},
		{in: "10.0.0.255-10.0.1.1", first: "10.0.0.255", last: "10.0.1.1", n: 3},
		{in: "127.0.0.9-127.0.0.2", bad: true},
		{in: "127.0.0.1-::1", bad: true},
		{in: "nonsense", bad: true},
		{in: "10.0.0.0-10.1.0.0", bad: true}, // over the limit
	} {
		got, err := parseAddrRange(tc.in, 1000)
		if tc.bad {
			if err == nil {
				t.Errorf("parseAddrRange(%q) = %d addresses, want an error", tc.in, len(got))
			}
			continue
		}
		if err != nil {
			t.Errorf("parseAddrRange(%q): %v", tc.in, err)
			continue
		}
		if len(got) != tc.n || got[0].String() != tc.first || got[len(got)-1].String() != tc.last {
			t.Errorf("parseAddrRange(%q) = %d addresses %v..%v, want %d %s..%s", tc.in, len(got), got[0], got[len(got)-1], tc.n, tc.first, tc.last)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"help"}, 0},
		{[]string{"nosuch"}, 2},
		{[]string{"statusflood"}, 2}, // no -server
		{[]string{"rcon", "-server", "127.0.0.1:1", "-password", "p"}, 2}, // no command
		{[]string{"renameflood", "-server", "127.0.0.1:1", "-count", "0"}, 2},
	} {
		var out, errw bytes.Buffer
		if code := run(tc.args, &out, &errw); code != tc.code {
			t.Errorf("hostile %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, errw.String())
		}
	}
}

// TestStatusFloodCounts floods a fake server that answers every
// getstatus with a fixed reply, and checks the counts.
func TestStatusFloodCounts(t *testing.T) {
	srv, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	reply := oob.Packet(oob.FormatStatusResponse(`\sv_hostname\fake`, nil))
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := srv.ReadFrom(buf)
			if err != nil {
				return
			}
			if text, err := oob.Parse(buf[:n]); err == nil && oob.Command(text) == oob.CmdGetStatus {
				_ = srv.WriteTo(reply, from)
			}
		}
	}()
	var out, errw bytes.Buffer
	args := []string{"statusflood", "-server", srv.LocalAddr().String(), "-ports", "4", "-duration", "200ms", "-rate", "100", "-grace", "200ms"}
	if code := run(args, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	var res statusFloodResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	req := len(oob.Packet(oob.FormatGetStatus("")))
	if res.SentPackets < 10 || res.SentBytes != res.SentPackets*uint64(req) {
		t.Errorf("sent %d packets, %d bytes; want about 20 of %d bytes each", res.SentPackets, res.SentBytes, req)
	}
	if res.RecvPackets != res.SentPackets || res.RecvBytes != res.RecvPackets*uint64(len(reply)) || res.PortsAnswered != 4 {
		t.Errorf("received %d packets, %d bytes on %d ports; want %d of %d bytes on 4", res.RecvPackets, res.RecvBytes, res.PortsAnswered, res.SentPackets, len(reply))
	}
	if res.RecvByKind[oob.CmdStatusResponse] != res.RecvPackets {
		t.Errorf("replies by kind %v", res.RecvByKind)
	}
}

// TestRconNoAnswer checks that rcon reports an empty reply, not an error,
// when nothing answers.
func TestRconNoAnswer(t *testing.T) {
	quiet, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer quiet.Close()
	var out, errw bytes.Buffer
	start := time.Now()
	if code := run([]string{"rcon", "-server", quiet.LocalAddr().String(), "-password", "p", "-timeout", "100ms", "status"}, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	var res rconResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Replies != 0 || res.Command != "status" {
		t.Errorf("result %s (%v), want 0 replies to status", out.String(), err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v with a 100 ms timeout", time.Since(start))
	}
}

func TestServerUsage(t *testing.T) {
	for _, args := range [][]string{
		{"server"},                      // no -attack
		{"server", "-attack", "nosuch"}, // unknown attack
		{"server", "-attack", "timewrap", "-clients", "0"},
	} {
		var out, errw bytes.Buffer
		if code := run(args, &out, &errw); code != 2 {
			t.Errorf("hostile %s: exit %d, want 2\nstderr: %s", strings.Join(args, " "), code, errw.String())
		}
	}
}

// TestServerAttackTimes checks the clocks of the time attacks: where
// each passes the client's limit, wraps or turns back.
func TestServerAttackTimes(t *testing.T) {
	attack := func(name string) serverAttack {
		a, ok := findServerAttack(name)
		if !ok {
			t.Fatalf("no attack %s", name)
		}
		return a
	}
	first := func(a serverAttack, cond func(k int) bool) int {
		for k := range 1000 {
			if cond(k) {
				return k
			}
		}
		return -1
	}
	wrap := attack("timewrap")
	if got := wrap.time(0); got != 1<<31-3000 {
		t.Errorf("timewrap starts at %d, want 2^31-3000", got)
	}
	if k := first(wrap, func(k int) bool { return wrap.time(k) < 0 }); k != 3000/snapStep {
		t.Errorf("timewrap wraps negative at snapshot %d, want %d", k, 3000/snapStep)
	}
	limit := attack("timelimit")
	if k := first(limit, func(k int) bool { return limit.time(k) > proto.MaxServerTime }); k != 1000/snapStep+1 {
		t.Errorf("timelimit passes proto.MaxServerTime at snapshot %d, want %d", k, 1000/snapStep+1)
	}
	back := attack("timeback")
	if k := first(back, func(k int) bool { return k > 0 && back.time(k) < back.time(k-1) }); k != timebackAfter {
		t.Errorf("timeback turns back at snapshot %d, want %d", k, timebackAfter)
	}
	if d := back.time(timebackAfter+1) - back.time(timebackAfter); d != -snapStep {
		t.Errorf("timeback runs back %d ms a snapshot, want %d", d, -snapStep)
	}
}

// TestShadowMap checks that shadowmap's arena1 is a valid map that is
// not the built-in arena1.
func TestShadowMap(t *testing.T) {
	data, err := shadowMap()
	if err != nil {
		t.Fatal(err)
	}
	m, err := tilemap.Parse("arena1.map", data)
	if err != nil {
		t.Fatalf("the shadow map does not parse: %v", err)
	}
	builtin, err := arenas.Load("arena1")
	if err != nil {
		t.Fatal(err)
	}
	if m.Checksum == builtin.Checksum || len(m.Spawns) == 0 {
		t.Errorf("shadow map: checksum %d (built-in %d), %d spawns", m.Checksum, builtin.Checksum, len(m.Spawns))
	}
}

// captureConn is a netchan.Conn that keeps what is written to it.
type captureConn struct {
	addr    netip.AddrPort
	packets [][]byte
}

func (c *captureConn) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
}
func (c *captureConn) WriteTo(p []byte, _ netip.AddrPort) error {
	c.packets = append(c.packets, append([]byte(nil), p...))
	return nil
}
func (c *captureConn) LocalAddr() netip.AddrPort       { return c.addr }
func (c *captureConn) SetReadDeadline(time.Time) error { return nil }
func (c *captureConn) Close() error                    { return nil }

var (
	testServerAddr = netip.MustParseAddrPort("127.0.0.1:27960")
	testClientAddr = netip.MustParseAddrPort("127.0.0.1:40000")
)

// prepared holds a hostile server of each attack, its map read and
// parsed, for preparedServer to copy: the fuzz target makes one for
// every input.
var prepared = map[string]*hostileServer{}

// preparedServer returns a new hostile server of attack a.
func preparedServer(a serverAttack) (*hostileServer, error) {
	p, ok := prepared[a.name]
	if !ok {
		var err error
		if p, err = newHostileServer(a, time.Minute); err != nil {
			return nil, err
		}
		prepared[a.name] = p
	}
	hs := &hostileServer{attack: a, idle: p.idle, mapName: p.mapName, mapFile: p.mapFile, m: p.m,
		challenges: map[netip.AddrPort]int32{}, serverID: p.serverID, res: serverResult{Attack: a.name}}
	hs.res.Map, hs.res.MapChecksum, hs.res.MapBytes = p.res.Map, p.res.MapChecksum, p.res.MapBytes
	return hs, nil
}

// testClient is the client's side of a connection to a hostile server
// in a test: its channel frames the messages the test sends.
type testClient struct {
	ch  *netchan.Chan
	out *captureConn
}

// connectedServer returns a hostile server of attack with a client
// connected from testClientAddr (qport 5), the session, the client's side
// and what the server sent.
func connectedServer(t testing.TB, attack string) (*hostileServer, *session, *testClient, *captureConn) {
	t.Helper()
	a, ok := findServerAttack(attack)
	if !ok {
		t.Fatalf("no attack %s", attack)
	}
	hs, err := preparedServer(a)
	if err != nil {
		t.Fatal(err)
	}
	out := &captureConn{addr: testServerAddr}
	hs.conn = out
	now := time.Now()
	hs.packet(testClientAddr, oob.Packet(oob.FormatGetChallenge(77)), now)
	ui := `\name\t\protocol\` + strconv.Itoa(proto.Version) + `\qport\5\challenge\` + strconv.Itoa(int(hs.challenges[testClientAddr]))
	text, err := oob.FormatConnect(ui)
	if err != nil {
		t.Fatal(err)
	}
	hs.packet(testClientAddr, oob.Packet(text), now)
	if hs.sess == nil {
		t.Fatalf("no session after connect; errors %v", hs.res.Errors)
	}
	c := &testClient{out: &captureConn{addr: testClientAddr}}
	c.ch = netchan.New(c.out, testServerAddr, netchan.ClientSide, 5)
	return hs, hs.sess, c, out
}

// send frames body through the client's channel and hands its packets
// to hs.
func (c *testClient) send(t testing.TB, hs *hostileServer, body []byte) {
	t.Helper()
	c.out.packets = nil
	if err := c.ch.Transmit(body); err != nil {
		t.Fatal(err)
	}
	if err := c.ch.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, p := range c.out.packets {
		hs.packet(testClientAddr, p, time.Now())
	}
}

// clientMessage returns a client message body: header h and commands
// numbered from first.
func clientMessage(t testing.TB, h proto.ClientHeader, first int32, commands ...string) []byte {
	t.Helper()
	w := msg.NewWriter(make([]byte, netchan.MaxMsgLen), msg.Huffman)
	proto.WriteClientHeader(w, h)
	for i, c := range commands {
		proto.WriteClientCommand(w, first+int32(i), c)
	}
	w.WriteUint8(proto.ClcEOF)
	if w.Err() != nil {
		t.Fatal(w.Err())
	}
	return append([]byte(nil), w.Bytes()...)
}

// TestServerDownload drives the shadowmap server's download: the first
// message gets the gamestate, "download arena1" in a downloading
// client's message starts it, the blocks go out to the last, "donedl"
// brings the gamestate again and a message with the server id enters
// the client into the game.
func TestServerDownload(t *testing.T) {
	hs, s, c, out := connectedServer(t, "shadowmap")
	c.send(t, hs, clientMessage(t, proto.ClientHeader{}, 1))
	if s.rep.Gamestates != 1 {
		t.Fatalf("%d gamestates after the first message, want 1 (errors %v)", s.rep.Gamestates, hs.res.Errors)
	}
	dl := proto.ClientHeader{ServerID: proto.DownloadServerID(hs.serverID)}
	c.send(t, hs, clientMessage(t, dl, 1, "download arena1"))
	if s.dl == nil || s.rep.Downloads != 1 {
		t.Fatalf("download not started: %+v", s.rep)
	}
	blocks := proto.DownloadBlocks(int32(len(hs.mapFile)))
	for ack := int32(0); s.dl != nil && s.dl.acked <= blocks; ack++ {
		out.packets = nil
		s.tick(time.Now())
		if len(out.packets) == 0 {
			t.Fatalf("no block sent with %d acknowledged", s.dl.acked)
		}
		c.send(t, hs, clientMessage(t, dl, 2+ack, "nextdl "+strconv.Itoa(int(s.dl.xmit-1))))
	}
	if s.rep.DownloadBytes != len(hs.mapFile) {
		t.Errorf("sent %d file bytes, want %d", s.rep.DownloadBytes, len(hs.mapFile))
	}
	c.send(t, hs, clientMessage(t, dl, int32(s.rep.ClientCommands)+1, "donedl"))
	if s.dl != nil || s.rep.DownloadsDone != 1 || s.rep.Gamestates != 2 {
		t.Fatalf("after donedl: download %v, %d done, %d gamestates; want none, 1, 2", s.dl, s.rep.DownloadsDone, s.rep.Gamestates)
	}
	c.send(t, hs, clientMessage(t, proto.ClientHeader{ServerID: hs.serverID}, 1))
	if !s.entered {
		t.Errorf("a message with the server id did not enter the client")
	}
	if len(hs.res.Errors) > 0 {
		t.Errorf("errors: %v", hs.res.Errors)
	}
}

// FuzzServerPacket hands hostile bytes to a hostile server with a
// client connected (of the shadowmap attack, which downloads, or of
// escapeprint, which goes silent and sends connectionless packets), as a
// client message framed by the channel or as a raw packet, then runs its
// ticks: nothing may panic.
func FuzzServerPacket(f *testing.F) {
	f.Add([]byte{}, false, false)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 'c', 'o', 'n', 'n', 'e', 'c', 't'}, true, true)
	for _, cmds := range [][]string{{"download arena1"}, {"nextdl 99999999"}, {"nextdl -5", "donedl"}, {"disconnect"}} {
		w := msg.NewWriter(make([]byte, 1024), msg.Huffman)
		proto.WriteClientHeader(w, proto.ClientHeader{ServerID: -1})
		for i, c := range cmds {
			proto.WriteClientCommand(w, int32(i+1), c)
		}
		w.WriteUint8(proto.ClcEOF)
		f.Add(append([]byte(nil), w.Bytes()...), false, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, raw, escape bool) {
		data = data[:min(len(data), 4096)] // past a fragment or two, more bytes find nothing new
		attack := "shadowmap"
		if escape {
			attack = "escapeprint"
		}
		hs, s, c, _ := connectedServer(t, attack)
		if raw {
			hs.packet(testClientAddr, data, time.Now())
		} else {
			c.send(t, hs, data)
		}
		s.entered = true
		for range 12 {
			if s.over {
				break
			}
			s.tick(time.Now())
		}
	})
}
