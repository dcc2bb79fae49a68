package server

import (
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// The server keeps serving its clients while it receives every kind of
// bad input: each category is sent, then the connected client must still
// be in the game and receive more snapshots.
func TestHostileInput(t *testing.T) {
	cfg := testConfig()
	cfg.RconPassword = "secret"
	u := startUDPServer(t, cfg, func(s *Server) { s.Exec("addbot 2") })
	good := udpClient(t, u.srv.Addr(), "Good")
	good.start()
	if !good.poll(10*time.Second, good.active) {
		t.Fatalf("good client not active: %q\n%s", good.oob, u.log)
	}
	// A second, malicious client that is connected too.
	mal := udpClient(t, u.srv.Addr(), "Mal")
	mal.start()
	if !mal.poll(10*time.Second, mal.active) {
		t.Fatalf("malicious client not active\n%s", u.log)
	}
	attacker, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	srvAddr := u.srv.Addr()
	send := func(p []byte) { _ = attacker.WriteTo(p, srvAddr) }
	rng := rand.New(rand.NewPCG(7, 7))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	header := func(seq uint32, qport uint16, frag bool, start, length uint16) []byte {
		return netchan.Header{Sequence: seq, HasQport: true, Qport: qport, Fragment: frag,
			FragmentStart: start, FragmentLength: length}.Append(nil)
	}

	categories := []struct {
		name string
		send func()
	}{
		{"random garbage", func() {
			for i := 0; i < 300; i++ {
				send(random(1 + rng.IntN(1500)))
			}
		}},
		{"truncated packets", func() {
			for n := 0; n < 12; n++ {
				send(random(n))
				send([]byte(oob.Marker)[:min(n, 4)])
				send(header(5, good.qport, true, 0, 100)[:min(n, netchan.MaxHeaderLen)])
			}
			send([]byte(oob.Marker + "conn"))
			send([]byte(oob.Marker + "getinfo"))
		}},
		{"forged fragment headers", func() {
			for i := 0; i < 100; i++ {
				p := header(uint32(rng.IntN(1000)), uint16(rng.Uint32()), true, uint16(rng.Uint32()), uint16(rng.Uint32()))
				send(append(p, random(rng.IntN(1400))...))
			}
			// With the good client's qport, claiming a fragment beyond any message.
			send(append(header(1<<20, good.qport, true, 60000, netchan.FragmentSize), random(netchan.FragmentSize)...))
		}},
		{"oversized lengths", func() {
			send(random(65000))
			send([]byte(oob.Marker + strings.Repeat("A", 20000)))
			send(append(header(9, good.qport, true, 0, 65535), random(100)...))
			send(append(header(9, good.qport, false, 0, 0), random(netchan.MaxMsgLen+100)...))
			send([]byte(oob.Marker + "connect \"" + strings.Repeat(`\a\b`, 400) + "\""))
		}},
		{"spoofed qport from another address", func() {
			for i := uint32(0); i < 50; i++ {
				body := random(20 + rng.IntN(200))
				send(append(header(1<<30+i, good.qport, false, 0, 0), body...))
			}
		}},
		{"connect flood", func() {
			for i := 0; i < 500; i++ {
				ui := `\name\flood` + strconv.Itoa(i) + `\protocol\1\qport\` + strconv.Itoa(i) +
					`\challenge\` + strconv.Itoa(int(rng.Int32()))
				send(oob.Packet(`connect "` + ui + `"`))
				send(oob.Packet("getchallenge"))
			}
		}},
		{"wrong rcon passwords", func() {
			for i := 0; i < 50; i++ {
				send(oob.Packet("rcon guessed-password-" + strconv.Itoa(i) + " kick Good"))
			}
		}},
		{"garbage from a connected client", func() {
			for i := 0; i < 50; i++ {
				_ = mal.ch.Transmit(random(1 + rng.IntN(300)))
			}
		}},
	}
	for _, cat := range categories {
		cat.send()
		before := len(good.snaps)
		if !good.poll(10*time.Second, func() bool { return len(good.snaps) >= before+5 }) {
			t.Fatalf("after %s: %d new snapshots\n%s", cat.name, len(good.snaps)-before, u.log)
		}
		if good.disconnected || !good.active() || len(good.errs) > 0 {
			t.Fatalf("after %s: disconnected %v active %v errors %v", cat.name, good.disconnected, good.active(), good.errs)
		}
	}
	// The attacker got "Bad rconpassword" answers only until its address
	// backed off, and the log names it.
	replies := 0
	buf := make([]byte, 1<<16)
	for {
		_ = attacker.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, _, err := attacker.ReadFrom(buf)
		if err != nil {
			break
		}
		if strings.Contains(string(buf[:n]), "Bad rconpassword") {
			replies++
		}
	}
	if replies == 0 || replies > RconFreeFailures+1 {
		t.Fatalf("%d bad rcon replies, want 1..%d", replies, RconFreeFailures+1)
	}
	if !strings.Contains(u.log.String(), "Bad rcon from 127.0.0.1:") {
		t.Fatalf("no bad rcon in the log:\n%s", u.log)
	}
	var clients []ClientInfo
	u.srv.Do(t.Context(), func() { clients = u.srv.Clients() })
	humans := 0
	for _, ci := range clients {
		if !ci.Bot && ci.State >= StateConnected {
			humans++
		}
	}
	if humans > 2 {
		t.Fatalf("%d human clients: the flood got in", humans)
	}
}

// getinfo and getstatus are answered in Quake III's format, with the
// challenge echoed; rcon with the right password returns the output.
func TestQueries(t *testing.T) {
	cfg := testConfig()
	cfg.Hostname = "Tremor Test"
	cfg.RconPassword = "secret"
	u := startUDPServer(t, cfg, func(s *Server) { s.Exec("addbot Zed; addbot Yan") })
	c := udpClient(t, u.srv.Addr(), "Ana")
	c.start()
	if !c.poll(10*time.Second, c.active) {
		t.Fatal("not active")
	}
	ask := func(text, want string) string {
		t.Helper()
		q := udpClient(t, u.srv.Addr(), "q")
		q.sendOOB(text)
		if !q.poll(5*time.Second, func() bool { return len(q.oob) > 0 }) {
			t.Fatalf("no answer to %q", text)
		}
		if oob.Command(q.oob[0]) != want {
			t.Fatalf("answer to %q: %q", text, q.oob[0])
		}
		return q.oob[0]
	}

	info, err := oob.ParseInfoResponse(ask("getinfo xyz123", oob.CmdInfoResponse))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"challenge": "xyz123", "hostname": "Tremor Test", "mapname": "arena1",
		"clients": "3", "g_humanplayers": "1", "sv_maxclients": "16", "protocol": strconv.Itoa(proto.Version), "gametype": "0"} {
		if got := infostr.ValueForKey(info, k); got != v {
			t.Errorf("infoResponse %s = %q, want %q (%s)", k, got, v, info)
		}
	}

	info, players, err := oob.ParseStatusResponse(ask("getstatus abc", oob.CmdStatusResponse))
	if err != nil {
		t.Fatal(err)
	}
	if infostr.ValueForKey(info, "challenge") != "abc" || infostr.ValueForKey(info, "sv_hostname") != "Tremor Test" ||
		infostr.ValueForKey(info, "mapname") != "arena1" {
		t.Errorf("statusResponse info %q", info)
	}
	var names []string
	for _, p := range players {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "Zed,Yan,Ana" {
		t.Errorf("players %q", got)
	}

	out := ask("rcon secret status", oob.CmdPrint)
	if !strings.Contains(out, "Ana") || !strings.Contains(out, "Zed") {
		t.Errorf("rcon status output %q", out)
	}
	if out := ask("rcon wrongpassword status", oob.CmdPrint); !strings.Contains(out, "Bad rconpassword") {
		t.Errorf("wrong password: %q", out)
	}
}

// FuzzServerPacket feeds arbitrary bytes to a server with a client in
// the game: as a packet from a stranger, as a packet from the client's
// address, and as the body of a well-formed message on the client's
// channel. The server must not panic, and a stranger's packet must not
// disturb the client.
func FuzzServerPacket(f *testing.F) {
	// Seeds: real client messages and connectionless commands.
	w := msg.NewWriter(make([]byte, 2048), msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: 1, MessageAcknowledge: 3, ReliableAcknowledge: 0})
	proto.WriteClientCommand(w, 1, "say hello")
	proto.WriteMove(w, 0, nil, nil, false)
	w.WriteUint8(proto.ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	w = msg.NewWriter(make([]byte, 2048), msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: 1, MessageAcknowledge: 3, ReliableAcknowledge: 0})
	proto.WriteMove(w, 0, &bg.UserCmd{ServerTime: 900}, []bg.UserCmd{{ServerTime: 950}, {ServerTime: 966}}, false)
	w.WriteUint8(proto.ClcEOF)
	f.Add(append([]byte(nil), w.Bytes()...))
	f.Add(oob.Packet("getinfo 1"))
	f.Add(oob.Packet("getstatus"))
	f.Add(oob.Packet("getchallenge"))
	f.Add(oob.Packet(`connect "\name\x\protocol\1\qport\5\challenge\7"`))
	f.Add(oob.Packet("rcon x status"))
	f.Add([]byte{1, 0, 0, 0, 0x10, 0x20, 1, 2, 3})
	f.Add([]byte{1, 0, 0, 0x80, 0x10, 0x20, 0, 0, 4, 0, 1, 2, 3, 4})

	// A server and its client cost about 2 ms to set up, a fuzz input
	// about 0.1 ms: one harness serves up to harnessUses inputs, and a new
	// one is made sooner when the client is gone (an input may disconnect
	// it). The properties checked hold in any state, so a failure after
	// earlier inputs is a real one; its saved input may need the earlier
	// ones to fail again (the log names the input number).
	const harnessUses = 100
	cfg := testConfig()
	cfg.Timeout = 3600
	cfg.MaxClients = 2
	var (
		h    *harness
		c    *testClient
		uses int
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > netchan.MaxPacketLen+100 {
			return // no larger packet arrives; the reassembled case is the Transmit below
		}
		if h == nil || uses >= harnessUses || c.disconnected || !c.active() {
			h = newHarness(t, cfg)
			c = h.client("Ana")
			h.connect(c)
			uses = 0
		}
		uses++
		h.t, c.t = t, t // the harness reports to this input's test
		t.Logf("input %d on this harness", uses)
		stranger := h.net.conn("10.0.7.7:7777")
		_ = stranger.WriteTo(data, netip.MustParseAddrPort(serverAddr))
		h.step(50)
		if c.disconnected || !c.active() {
			t.Fatalf("a stranger's packet disturbed the client: %q", c.disconnectReason)
		}
		_ = c.conn.WriteTo(data, netip.MustParseAddrPort(serverAddr))
		h.step(50)
		if c.ch != nil && len(data) <= netchan.MaxMsgLen-64 {
			// The operations of a message with a valid header, scrambled
			// as the client scrambles.
			w := msg.NewWriter(make([]byte, 64), msg.Huffman)
			proto.WriteClientHeader(w, proto.ClientHeader{ServerID: c.serverID, MessageAcknowledge: c.messageAck,
				ReliableAcknowledge: c.serverCmdSeq})
			body := append(append([]byte(nil), w.Bytes()...), data...)
			if c.scramble {
				proto.ScrambleClientMessage(body, uint32(c.challenge), c.serverCmds[c.serverCmdSeq&(proto.MaxReliableCommands-1)])
			}
			// A body past FragmentSize goes out in fragments, which the
			// test client never sends by itself: all of them now, or
			// its next messages would queue behind them until the
			// queue is full.
			_ = c.ch.Transmit(body)
			_ = c.ch.Flush()
		}
		h.run(200)
		if len(c.errs) > 0 {
			t.Fatalf("server sent an unreadable message: %v", c.errs)
		}
		// Whatever the packet was, the server's frames go on.
		before := h.srv.Time()
		h.step(50)
		if h.srv.Time() != before+50 {
			t.Fatalf("server time %d -> %d", before, h.srv.Time())
		}
	})
}

// TestLogEscapes: text the server logs (a player's name or chat among
// its arguments) reaches the log with its control characters escaped
// (safetext.Text), not as terminal commands.
func TestLogEscapes(t *testing.T) {
	h := newHarness(t, testConfig())
	h.srv.logf("client 0: %s", "\x1b]0;TITLE\x07\x1b[2J\x1b[6n\r\u009b")
	got := h.log.String()
	if strings.ContainsAny(got, "\x1b\x07\r\u009b") {
		t.Fatalf("log holds a control character: %q", got)
	}
	if !strings.Contains(got, `client 0: \x1b]0;TITLE\a\x1b[2J\x1b[6n\r\u009b`+"\n") {
		t.Fatalf("log %q lacks the escaped line", got)
	}
}
