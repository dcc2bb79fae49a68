package inspect_test

import (
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tremor/bg"
	"tremor/client"
	"tremor/internal/inspect"
	"tremor/net/netsim"
	"tremor/net/oob"
	"tremor/server"
)

// record is what one end said it sent or received, kept by its hooks.
type record struct {
	// Built by the server for our client, by message number.
	built map[int32]builtSnap
	// Decoded by the client (valid ones), in order.
	decoded []decodedSnap
	// Server commands the client executed, by sequence: one, or several
	// that shared a reliable command slot (a server may batch them,
	// separated by '\x1e'), in order.
	serverCmds map[int32][]string
	// Usercmds the client made, by server time (several share the time
	// 0, made before the first snapshot).
	cmds map[int32][]bg.UserCmd
	// Messages the inspector decoded, in order.
	msgs []inspect.Message
}

type builtSnap struct {
	ps   bg.PlayerState
	ents []bg.EntityState
}

type decodedSnap struct {
	info client.SnapshotInfo
	ps   bg.PlayerState
	ents []bg.EntityState
}

// simConn is one end's socket on the simulated network of
// TestInspectorMatchesBothEnds: what the end writes is kept for the test
// to route; a reading end (the client's reader goroutine) is handed
// packets one at a time by deliver, which returns once the reader has
// queued the packet, so that the next Frame sees exactly the packets
// delivered before it.
type simConn struct {
	local netip.AddrPort
	mu    sync.Mutex
	sent  []datagram
	ready chan struct{} // the reader is waiting in ReadFrom
	in    chan datagram
	done  chan struct{}
	once  sync.Once
}

type datagram struct {
	at       time.Duration // when it arrives
	from, to netip.AddrPort
	data     []byte
}

func newSimConn(addr string) *simConn {
	return &simConn{local: netip.MustParseAddrPort(addr), ready: make(chan struct{}), in: make(chan datagram), done: make(chan struct{})}
}

func (c *simConn) WriteTo(p []byte, to netip.AddrPort) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, datagram{from: c.local, to: to, data: slices.Clone(p)})
	return nil
}

func (c *simConn) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	select {
	case c.ready <- struct{}{}:
	case <-c.done:
		return 0, netip.AddrPort{}, net.ErrClosed
	}
	select {
	case d := <-c.in:
		return copy(p, d.data), d.from, nil
	case <-c.done:
		return 0, netip.AddrPort{}, net.ErrClosed
	}
}

func (c *simConn) LocalAddr() netip.AddrPort       { return c.local }
func (c *simConn) SetReadDeadline(time.Time) error { return nil }
func (c *simConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// take returns what was written since the last take.
func (c *simConn) take() []datagram {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sent
	c.sent = nil
	return s
}

// deliver hands d to the reader and waits until it has queued it (it
// is back in ReadFrom). The reader must be waiting: call waitReader
// once before the first deliver.
func (c *simConn) deliver(d datagram) {
	c.in <- d
	<-c.ready
}

func (c *simConn) waitReader() { <-c.ready }

// TestInspectorMatchesBothEnds runs a dedicated server (two bots,
// sv_scramble on), a client and the packet inspector between them on a
// simulated network, in one goroutine on a virtual clock, so that each
// seed is one exact run: the client loses 10% of what it sends (before
// the inspector), the way down loses 10% after the inspector, and the
// links add what each scenario says (latency, none, jitter with
// reordering and duplicates, a tap that hides packets from the
// inspector). It checks that what the inspector decodes is
// what the two ends sent and received: every snapshot the server built
// and every one the client decoded (message number, server time, base,
// flags, player state, entities), every reliable command both ways, and
// every usercmd (values, through the usercmd key, and the count the
// server executed). A map_restart halfway sends a second gamestate,
// which the client may lose while it goes on sending under the first.
// A message the inspector cannot decode, because it did not see what
// keys it, must say so (ErrCannotDecode), never show wrong values.
func TestInspectorMatchesBothEnds(t *testing.T) {
	for _, sc := range scenarios {
		var undecodable, stale atomic.Int64
		t.Run(sc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
					t.Parallel()
					n := runInspected(t, sc, seed)
					undecodable.Add(int64(n.undecodable))
					stale.Add(int64(n.staleCmds))
				})
			}
		})
		// What the scenario is for happened in some run.
		if sc.tap > 0 && undecodable.Load() == 0 {
			t.Errorf("%s: the inspector missed packets but could decode every message: the test does not test what it cannot know", sc.name)
		}
		if sc.stale && stale.Load() == 0 {
			t.Errorf("%s: no usercmds written under the old server id after the restart: the test does not test them", sc.name)
		}
	}
}

// counts are what compare counted that a scenario is about.
type counts struct {
	undecodable int // messages the inspector said it cannot decode
	staleCmds   int // usercmds decoded from messages under an old server id
}

const ms = time.Millisecond

// scenario is a network for TestInspectorMatchesBothEnds.
type scenario struct {
	name string
	// The links: up after the client's own 10% loss (which comes
	// before the inspector), down after the inspector.
	up, down netsim.Config
	// tap is the share of the connection's packets the inspector
	// misses, though the ends exchange them (a lossy mirror port); it
	// sees the handshake.
	tap float64
	// stale: the client surely sends usercmds under the first
	// gamestate's server id after the restart (the latency is longer
	// than its packet interval).
	stale bool
}

var scenarios = []scenario{
	{name: "latency", up: netsim.Config{Delay: 30 * ms}, down: netsim.Config{Delay: 30 * ms, Loss: 0.10}, stale: true},
	{name: "instant", down: netsim.Config{Loss: 0.10}},
	{name: "jitter",
		up:   netsim.Config{Delay: 20 * ms, Jitter: 15 * ms, Reorder: 0.05, Duplicate: 0.05},
		down: netsim.Config{Delay: 40 * ms, Jitter: 15 * ms, Loss: 0.10, Reorder: 0.05, Duplicate: 0.05}},
	{name: "tap", up: netsim.Config{Delay: 30 * ms}, down: netsim.Config{Delay: 30 * ms, Loss: 0.10}, tap: 0.15},
}

func runInspected(t *testing.T, sc scenario, seed uint64) counts {
	rec := &record{built: map[int32]builtSnap{}, serverCmds: map[int32][]string{}, cmds: map[int32][]bg.UserCmd{}}
	msec := func(d time.Duration) int32 { return int32(d / time.Millisecond) }

	// The server.
	sconn := newSimConn("10.0.0.1:27960")
	cfg := server.DefaultConfig()
	cfg.Seed = seed
	if !cfg.Scramble {
		t.Fatal("sv_scramble is off by default; the test wants it on")
	}
	srv, err := server.New(sconn, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	human := -1 // the slot of our client, once known
	srv.OnSnapshot = func(cl int, messageNum int32, ps *bg.PlayerState, ents []bg.EntityState) {
		if human < 0 || cl != human {
			return
		}
		b := builtSnap{ps: *ps, ents: slices.Clone(ents)}
		// What goes on the wire is what the field widths carry.
		bg.PlayerStateTable.Truncate(&b.ps)
		for i := range b.ents {
			bg.EntityStateTable.Truncate(&b.ents[i])
		}
		rec.built[messageNum] = b
	}
	if err := srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 2")

	// The client, losing 10% of what it sends.
	cconn := newSimConn("10.0.0.2:5000")
	cl := client.New(cconn, client.Config{Name: "Inspected", PacketLoss: 10, Seed: seed})
	defer cl.Close()
	cconn.waitReader()
	cl.Hooks.Snapshot = func(info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
		if !info.Valid {
			return
		}
		rec.decoded = append(rec.decoded, decodedSnap{info: info, ps: *ps, ents: slices.Clone(ents)})
	}
	cl.Hooks.ServerCommand = func(seq int32, text string) { rec.serverCmds[seq] = append(rec.serverCmds[seq], text) }
	cl.Connect(sconn.local)

	// The links: 30 ms each way, 10% loss on the way down after the
	// inspector.
	in := inspect.New()
	up := netsim.NewLink(sc.up, seed)
	down := netsim.NewLink(sc.down, seed+1000)
	tap := rand.New(rand.NewPCG(seed, 2000))
	inspectPacket := func(dir inspect.Dir, d datagram, now time.Duration) {
		if oob.IsConnectionless(d.data) || tap.Float64() >= sc.tap {
			rec.msgs = append(rec.msgs, in.Feed(dir, d.from, d.to, d.data, now)...)
		}
	}
	var toServer, toClient []datagram
	route := func(now time.Duration) {
		for _, d := range cconn.take() {
			for _, at := range up.Send(now, len(d.data)) {
				d.at = at
				toServer = append(toServer, d)
			}
		}
		for _, d := range sconn.take() {
			inspectPacket(inspect.ServerToClient, d, now)
			for _, at := range down.Send(now, len(d.data)) {
				d.at = at
				toClient = append(toClient, d)
			}
		}
	}
	// due removes and returns the packets of q that have arrived by now,
	// in the order they arrive.
	due := func(q *[]datagram, now time.Duration) []datagram {
		slices.SortStableFunc(*q, func(a, b datagram) int { return cmp.Compare(a.at, b.at) })
		n := 0
		for n < len(*q) && (*q)[n].at <= now {
			n++
		}
		d := slices.Clone((*q)[:n])
		*q = (*q)[n:]
		return d
	}
	toServerNow := func(now time.Duration) {
		for _, d := range due(&toServer, now) {
			inspectPacket(inspect.ClientToServer, d, now)
			srv.Packet(msec(now), d.from, d.data)
		}
	}

	// Play: frames every 8 ms, a chat line every 300 ms once in the game,
	// for 4 s in the game, then until every command is acknowledged.
	const frame = 8 * time.Millisecond
	var now time.Duration
	var said []string
	var lastCmd int32
	var inGameAt, nextSay time.Duration = -1, 0
	restarted := false
	for i := 0; ; i++ {
		now += frame
		toServerNow(now)
		srv.Frame(msec(now))
		route(now)
		for _, d := range due(&toClient, now) {
			cconn.deliver(d)
		}
		in := bg.UserCmd{Aim: int32(i * 37 % 65536), RightMove: int32(i/25%3-1) * 127, Buttons: int32(i / 40 % 2)}
		if i%60 < 10 {
			in.UpMove = 127
		}
		cl.Frame(now, in)
		route(now)
		if cl.CurrentCmdNumber() < lastCmd {
			lastCmd = 0 // a new gamestate starts the commands over
		}
		for n := lastCmd + 1; n <= cl.CurrentCmdNumber(); n++ {
			var c bg.UserCmd
			if cl.GetUserCmd(n, &c) {
				rec.cmds[c.ServerTime] = append(rec.cmds[c.ServerTime], c)
			}
		}
		lastCmd = cl.CurrentCmdNumber()
		if cl.State() == client.Active {
			if inGameAt < 0 {
				inGameAt = now
				human = int(cl.ClientNum())
			}
			if !restarted && now-inGameAt > 2*time.Second {
				// A new gamestate mid-game: sent scrambled with the old
				// one's setting, new server id, snapshots start over.
				srv.Exec("map_restart")
				restarted = true
			}
			if now-inGameAt < 4*time.Second && now >= nextSay {
				text := fmt.Sprintf("say inspected line %d", len(said))
				if cl.AddReliableCommand(text) == nil {
					said = append(said, text)
				}
				nextSay = now + 300*time.Millisecond
			}
			if now-inGameAt > 4*time.Second && cl.ReliablePending() == 0 {
				break
			}
		}
		if now > 20*time.Second {
			t.Fatalf("client never got in the game and settled: state %v, pending %d, last error %v",
				cl.State(), cl.ReliablePending(), cl.LastError())
		}
	}
	// The client is silent from now on; let the last packets land, then
	// read the server's side of it.
	for end := now + 200*time.Millisecond; now < end; {
		now += frame
		toServerNow(now)
		srv.Frame(msec(now))
		sconn.take()
	}
	ci := srv.Client(int(cl.ClientNum()))
	return compare(t, sc, rec, ci, said, cl.Stats())
}

// compare checks what the inspector decoded against what the ends did.
// With sc.tap the inspector missed some packets the ends exchanged, so
// it must not decode everything, but what it decodes must be right and
// what it cannot decode it must say so; otherwise it saw every packet
// the server sent and received, and must decode all of it.
func compare(t *testing.T, sc scenario, rec *record, ci server.ClientInfo, said []string, cs client.Stats) counts {
	t.Helper()
	// Index what the inspector decoded.
	snaps := map[int32]*inspect.Snapshot{}
	var serverCmdSeqs, clientCmdSeqs []int32
	serverCmdText := map[int32]string{}
	clientCmdText := map[int32]string{}
	var movesNew, cmdsSeen, upLost, undecodable, staleCmds int
	var scrambledDown, scrambledUp, gamestates int
	var serverID int32 // of the last gamestate decoded
	kinds := map[inspect.Kind]int{}
	for i := range rec.msgs {
		m := &rec.msgs[i]
		kinds[m.Kind]++
		if m.Kind == inspect.KindMalformed {
			t.Errorf("malformed packet: %s", m.Summary())
		}
		if m.Kind != inspect.KindMessage {
			continue
		}
		if m.CannotDecode {
			undecodable++
			if sc.tap == 0 {
				t.Errorf("the inspector saw every packet, yet: %s", m.Summary())
			}
			continue
		}
		if m.Err != "" {
			t.Errorf("decode error: %s", m.Summary())
			continue
		}
		if m.Dir == inspect.ServerToClient {
			if m.Scrambled {
				scrambledDown++
			}
		} else {
			upLost += int(m.Dropped)
			if m.Scrambled {
				scrambledUp++
			}
		}
		stale := false // a client message under an older gamestate's server id
		for j := range m.Ops {
			o := &m.Ops[j]
			switch {
			case o.Header != nil:
				stale = o.Header.ServerID != serverID && o.Header.ServerID != 0
			case o.Snapshot != nil:
				if o.Snapshot.MessageNum != int32(m.Sequence) {
					t.Errorf("snapshot in message %d says message %d", m.Sequence, o.Snapshot.MessageNum)
				}
				snaps[o.Snapshot.MessageNum] = o.Snapshot
			case o.Gamestate != nil:
				gamestates++
				serverID = o.Gamestate.ServerID
			case o.Command != nil && o.Command.New:
				if m.Dir == inspect.ServerToClient {
					serverCmdSeqs = append(serverCmdSeqs, o.Command.Sequence)
					serverCmdText[o.Command.Sequence] = o.Command.Text
				} else {
					clientCmdSeqs = append(clientCmdSeqs, o.Command.Sequence)
					clientCmdText[o.Command.Sequence] = o.Command.Text
				}
			case o.Move != nil:
				movesNew += o.Move.New
				for _, c := range o.Move.Cmds {
					cmdsSeen++
					if stale {
						staleCmds++
					}
					if want, ok := rec.cmds[c.ServerTime]; !ok {
						t.Errorf("usercmd at %d decoded, but the client made none at that time", c.ServerTime)
					} else if !slices.Contains(want, c) {
						t.Errorf("usercmd at %d decoded as %+v, the client made %+v", c.ServerTime, c, want)
					}
				}
			}
		}
	}
	t.Logf("inspector: %d packets %v; %d snapshots, %d gamestates, %d+%d scrambled messages down/up, %d server and %d client commands, %d usercmds (%d new, %d under an old server id), %d lost on the way up, %d it cannot decode",
		len(rec.msgs), kinds, len(snaps), gamestates, scrambledDown, scrambledUp, len(serverCmdSeqs), len(clientCmdSeqs), cmdsSeen, movesNew, staleCmds, upLost, undecodable)
	t.Logf("client: %d snapshots decoded, %d lost on the way down; server: %d built for it, %d usercmds executed (%d clamped), last client command %d",
		len(rec.decoded), cs.SnapshotsDropped, len(rec.built), ci.Usercmds, ci.UsercmdsClamped, ci.LastClientCommand)

	if len(rec.decoded) < 40 {
		t.Errorf("the client decoded only %d snapshots", len(rec.decoded))
	}

	// Every snapshot the inspector could decode is the one the server
	// built and, if the client decoded it, the client's.
	clientSnaps := map[int32]*decodedSnap{}
	for i := range rec.decoded {
		clientSnaps[rec.decoded[i].info.MessageNum] = &rec.decoded[i]
	}
	for n, s := range snaps {
		b, ok := rec.built[n]
		if !s.Valid || !ok {
			continue
		}
		if s.PS != b.ps || !slices.Equal(s.Entities, b.ents) {
			t.Errorf("message %d: the inspector's snapshot differs from the server's", n)
		}
		d := clientSnaps[n]
		switch {
		case d == nil:
		case s.ServerTime != d.info.ServerTime || s.Base != d.info.DeltaNum || int32(s.Flags) != d.info.Flags:
			t.Errorf("message %d: inspector time %d base %d flags %d, client time %d base %d flags %d",
				n, s.ServerTime, s.Base, s.Flags, d.info.ServerTime, d.info.DeltaNum, d.info.Flags)
		case s.PS != d.ps:
			t.Errorf("message %d: player states differ:\ninspector %+v\nclient    %+v", n, s.PS, d.ps)
		case !slices.Equal(s.Entities, d.ents):
			t.Errorf("message %d: entities differ: inspector %d, client %d", n, len(s.Entities), len(d.ents))
		}
	}
	// Server commands: the texts the client executed.
	for seq, got := range serverCmdText {
		texts, ok := rec.serverCmds[seq]
		if want := strings.Join(texts, "\x1e"); ok && got != want {
			t.Errorf("server command %d: client executed %q, inspector decoded %q", seq, want, got)
		}
	}
	// Client commands: the lines said in order, between the client's
	// other commands (userinfo).
	var sayings []string
	for _, s := range clientCmdSeqs {
		if text := clientCmdText[s]; strings.HasPrefix(text, "say ") {
			sayings = append(sayings, text)
		}
	}
	for _, s := range sayings {
		if !slices.Contains(said, s) {
			t.Errorf("the inspector decoded the line %q, the client said %q", s, said)
		}
	}
	if sc.tap > 0 {
		return counts{undecodable, staleCmds}
	}

	// Having seen every packet, the inspector decoded everything: two
	// gamestates (map_restart), usercmds written under the first
	// gamestate's server id after the restart, every snapshot the
	// client decoded, every one the server built up to the last message
	// the inspector saw (later ones were still in flight).
	if gamestates < 2 {
		t.Errorf("want two gamestates (map_restart), got %d", gamestates)
	}
	if scrambledDown == 0 || scrambledUp == 0 {
		t.Errorf("want scrambled messages both ways: %d/%d scrambled", scrambledDown, scrambledUp)
	}
	if upLost == 0 || cs.SnapshotsDropped == 0 {
		t.Errorf("no loss seen (%d up, %d down): the test does not test loss", upLost, cs.SnapshotsDropped)
	}
	for _, d := range rec.decoded {
		if s := snaps[d.info.MessageNum]; s == nil || !s.Valid {
			t.Errorf("client decoded a snapshot in message %d; the inspector has none: %+v", d.info.MessageNum, s)
		}
	}
	var lastSeen int32
	for n := range snaps {
		lastSeen = max(lastSeen, n)
	}
	for n := range rec.built {
		if s := snaps[n]; n <= lastSeen && (s == nil || !s.Valid) {
			t.Errorf("server built a snapshot for message %d; the inspector has none: %+v", n, s)
		}
	}

	// Reliable commands: each sequence once, in order, no gaps, both ways;
	// every one the client executed; every line the client said.
	checkSeqs(t, "server command", serverCmdSeqs)
	checkSeqs(t, "client command", clientCmdSeqs)
	for seq := range rec.serverCmds {
		if _, ok := serverCmdText[seq]; !ok {
			t.Errorf("server command %d: client executed it, the inspector never decoded it", seq)
		}
	}
	if len(clientCmdSeqs) == 0 || clientCmdSeqs[len(clientCmdSeqs)-1] != ci.LastClientCommand {
		t.Errorf("inspector's client commands end at %v, the server's at %d", clientCmdSeqs[max(len(clientCmdSeqs)-1, 0):], ci.LastClientCommand)
	}
	if !slices.Equal(sayings, said) {
		t.Errorf("the inspector decoded the lines %q, the client said %q", sayings, said)
	}

	// Usercmds: the inspector's new ones are the ones the server executed.
	if ci.UsercmdsClamped == 0 && movesNew != ci.Usercmds {
		t.Errorf("inspector decoded %d new usercmds, the server executed %d", movesNew, ci.Usercmds)
	}
	if movesNew < ci.Usercmds-ci.UsercmdsClamped || movesNew == 0 {
		t.Errorf("inspector decoded %d new usercmds, the server executed %d", movesNew, ci.Usercmds)
	}
	return counts{undecodable, staleCmds}
}

// checkSeqs checks that the new commands the inspector saw run 1, 2, 3...
func checkSeqs(t *testing.T, what string, seqs []int32) {
	t.Helper()
	if len(seqs) == 0 {
		t.Errorf("no %ss decoded", what)
		return
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Errorf("%ss: %d follows %d", what, seqs[i], seqs[i-1])
			return
		}
	}
}
