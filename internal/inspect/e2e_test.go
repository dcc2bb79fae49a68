package inspect_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"tremor/bg"
	"tremor/internal/client"
	"tremor/internal/inspect"
	"tremor/internal/server"
	"tremor/net/netchan"
	"tremor/net/netsim"
)

// record is what one end said it sent or received, kept by its hooks.
type record struct {
	mu sync.Mutex
	// Built by the server for our client, by message number.
	built map[int32]builtSnap
	// Decoded by the client (valid ones), in order.
	decoded []decodedSnap
	// Server commands the client executed.
	serverCmds map[int32]string
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

// TestInspectorMatchesBothEnds runs the packet inspector's proxy between
// a dedicated server (real UDP on 127.0.0.1, two bots, sv_scramble on)
// and a client, with 10% loss on the way up (before the proxy) and 10%
// on the way down (after it), and checks that what it decodes is what
// the two ends sent and received: every snapshot the server built and
// every one the client decoded (message number, server time, base,
// flags, player state, entities), every reliable command both ways, and
// every usercmd (values, through the usercmd key, and the count the
// server executed). A map_restart halfway sends a second gamestate.
func TestInspectorMatchesBothEnds(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s of real time")
	}
	rec := &record{built: map[int32]builtSnap{}, serverCmds: map[int32]string{}, cmds: map[int32][]bg.UserCmd{}}

	// The server.
	sconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.DefaultConfig()
	cfg.Seed = 17
	if !cfg.Scramble {
		t.Fatal("sv_scramble is off by default; the test wants it on")
	}
	srv, err := server.New(sconn, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var humanMu sync.Mutex
	human := -1 // the slot of our client, once known
	srv.OnSnapshot = func(cl int, messageNum int32, ps *bg.PlayerState, ents []bg.EntityState) {
		humanMu.Lock()
		h := human
		humanMu.Unlock()
		if h >= 0 && cl != h {
			return
		}
		b := builtSnap{ps: *ps, ents: slices.Clone(ents)}
		// What goes on the wire is what the field widths carry.
		bg.PlayerStateTable.Truncate(&b.ps)
		for i := range b.ents {
			bg.EntityStateTable.Truncate(&b.ents[i])
		}
		rec.mu.Lock()
		rec.built[messageNum] = b
		rec.mu.Unlock()
	}
	if err := srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 2")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Run(ctx) }()

	// The proxy, losing 10% of what it forwards to the client.
	lconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lossy := netsim.Wrap(lconn, netsim.Config{Loss: 0.10}, 3)
	defer lossy.Close()
	proxy := inspect.NewProxy(lossy, srv.Addr())
	proxy.Dial = func() (netchan.Conn, error) { return netchan.ListenUDP("127.0.0.1:0") }
	proxy.OnMessage = func(m inspect.Message) {
		rec.mu.Lock()
		rec.msgs = append(rec.msgs, m)
		rec.mu.Unlock()
	}
	proxyDone := make(chan error, 1)
	pctx, pcancel := context.WithCancel(context.Background())
	go func() { proxyDone <- proxy.Run(pctx) }()

	// The client, losing 10% of what it sends.
	cconn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(cconn, client.Config{Name: "Inspected", PacketLoss: 10, Seed: 5})
	defer cl.Close()
	cl.Hooks.Snapshot = func(info client.SnapshotInfo, ps *bg.PlayerState, ents []bg.EntityState) {
		if !info.Valid {
			return
		}
		rec.mu.Lock()
		rec.decoded = append(rec.decoded, decodedSnap{info: info, ps: *ps, ents: slices.Clone(ents)})
		rec.mu.Unlock()
	}
	cl.Hooks.ServerCommand = func(seq int32, text string) {
		rec.mu.Lock()
		rec.serverCmds[seq] = text
		rec.mu.Unlock()
	}
	cl.Connect(lconn.LocalAddr())

	// Play: frames every 8 ms, a chat line every 300 ms once in the game,
	// for 4 s in the game, then until every command is acknowledged.
	start := time.Now()
	var said []string
	var lastCmd int32
	var inGameAt time.Time
	var nextSay time.Time
	restarted := false
	for i := 0; ; i++ {
		now := time.Since(start)
		in := bg.UserCmd{Aim: int32(i * 37 % 65536), RightMove: int32(i/25%3-1) * 127, Buttons: int32(i / 40 % 2)}
		if i%60 < 10 {
			in.UpMove = 127
		}
		cl.Frame(now, in)
		if cl.CurrentCmdNumber() < lastCmd {
			lastCmd = 0 // a new gamestate starts the commands over
		}
		for n := lastCmd + 1; n <= cl.CurrentCmdNumber(); n++ {
			var c bg.UserCmd
			if cl.GetUserCmd(n, &c) {
				rec.mu.Lock()
				rec.cmds[c.ServerTime] = append(rec.cmds[c.ServerTime], c)
				rec.mu.Unlock()
			}
		}
		lastCmd = cl.CurrentCmdNumber()
		if cl.State() == client.Active {
			if inGameAt.IsZero() {
				inGameAt = time.Now()
				humanMu.Lock()
				human = int(cl.ClientNum())
				humanMu.Unlock()
			}
			if !restarted && time.Since(inGameAt) > 2*time.Second {
				// A new gamestate mid-game: sent scrambled with the old
				// one's setting, new server id, snapshots start over.
				srv.Exec("map_restart")
				restarted = true
			}
			if time.Since(inGameAt) < 4*time.Second && time.Now().After(nextSay) {
				text := fmt.Sprintf("say inspected line %d", len(said))
				if cl.AddReliableCommand(text) == nil {
					said = append(said, text)
				}
				nextSay = time.Now().Add(300 * time.Millisecond)
			}
			if time.Since(inGameAt) > 4*time.Second && cl.ReliablePending() == 0 {
				break
			}
		}
		if time.Since(start) > 12*time.Second {
			t.Fatalf("client never got in the game and settled: state %v, pending %d, last error %v",
				cl.State(), cl.ReliablePending(), cl.LastError())
		}
		time.Sleep(8 * time.Millisecond)
	}
	// The client is silent from now on; let the last packets land, then
	// read the server's side of it.
	time.Sleep(300 * time.Millisecond)
	var ci server.ClientInfo
	srv.Do(context.Background(), func() { ci = srv.Client(int(cl.ClientNum())) })
	pcancel()
	if err := <-proxyDone; err != nil {
		t.Fatal(err)
	}
	cancel()
	<-srvDone

	rec.mu.Lock()
	defer rec.mu.Unlock()
	compare(t, rec, ci, said, cl.Stats())
}

func compare(t *testing.T, rec *record, ci server.ClientInfo, said []string, cs client.Stats) {
	t.Helper()
	// Index what the inspector decoded.
	snaps := map[int32]*inspect.Snapshot{}
	var serverCmdSeqs, clientCmdSeqs []int32
	serverCmdText := map[int32]string{}
	clientCmdText := map[int32]string{}
	var movesNew, cmdsSeen, upLost int
	var scrambledDown, scrambledUp, gamestates int
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
		for j := range m.Ops {
			o := &m.Ops[j]
			switch {
			case o.Snapshot != nil:
				if o.Snapshot.MessageNum != int32(m.Sequence) {
					t.Errorf("snapshot in message %d says message %d", m.Sequence, o.Snapshot.MessageNum)
				}
				snaps[o.Snapshot.MessageNum] = o.Snapshot
			case o.Gamestate != nil:
				gamestates++
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
					if want, ok := rec.cmds[c.ServerTime]; !ok {
						t.Errorf("usercmd at %d decoded, but the client made none at that time", c.ServerTime)
					} else if !slices.Contains(want, c) {
						t.Errorf("usercmd at %d decoded as %+v, the client made %+v", c.ServerTime, c, want)
					}
				}
			}
		}
	}
	t.Logf("inspector: %d packets %v; %d snapshots, %d gamestates, %d+%d scrambled messages down/up, %d server and %d client commands, %d usercmds (%d new), %d lost on the way up",
		len(rec.msgs), kinds, len(snaps), gamestates, scrambledDown, scrambledUp, len(serverCmdSeqs), len(clientCmdSeqs), cmdsSeen, movesNew, upLost)
	t.Logf("client: %d snapshots decoded, %d lost on the way down; server: %d built for it, %d usercmds executed (%d clamped), last client command %d",
		len(rec.decoded), cs.SnapshotsDropped, len(rec.built), ci.Usercmds, ci.UsercmdsClamped, ci.LastClientCommand)

	if gamestates < 2 || scrambledDown == 0 || scrambledUp == 0 {
		t.Errorf("want two gamestates (map_restart) and scrambled messages both ways: %d gamestates, %d/%d scrambled", gamestates, scrambledDown, scrambledUp)
	}
	if upLost == 0 || cs.SnapshotsDropped == 0 {
		t.Errorf("no loss seen (%d up, %d down): the test does not test loss", upLost, cs.SnapshotsDropped)
	}

	// Every snapshot the client decoded, as the inspector decoded it.
	if len(rec.decoded) < 40 {
		t.Errorf("the client decoded only %d snapshots", len(rec.decoded))
	}
	for _, d := range rec.decoded {
		s := snaps[d.info.MessageNum]
		switch {
		case s == nil:
			t.Errorf("client decoded a snapshot in message %d; the inspector has none", d.info.MessageNum)
		case !s.Valid:
			t.Errorf("message %d: the client decoded it, the inspector had no base %d", d.info.MessageNum, s.Base)
		case s.ServerTime != d.info.ServerTime || s.Base != d.info.DeltaNum || int32(s.Flags) != d.info.Flags:
			t.Errorf("message %d: inspector time %d base %d flags %d, client time %d base %d flags %d",
				d.info.MessageNum, s.ServerTime, s.Base, s.Flags, d.info.ServerTime, d.info.DeltaNum, d.info.Flags)
		case s.PS != d.ps:
			t.Errorf("message %d: player states differ:\ninspector %+v\nclient    %+v", d.info.MessageNum, s.PS, d.ps)
		case !slices.Equal(s.Entities, d.ents):
			t.Errorf("message %d: entities differ: inspector %d, client %d", d.info.MessageNum, len(s.Entities), len(d.ents))
		}
	}

	// Every snapshot the server built, up to the last message the
	// inspector saw (later ones were still in flight).
	var lastSeen int32
	for n := range snaps {
		lastSeen = max(lastSeen, n)
	}
	matched := 0
	for n, b := range rec.built {
		if n > lastSeen {
			continue
		}
		s := snaps[n]
		switch {
		case s == nil:
			t.Errorf("server built a snapshot for message %d; the inspector has none", n)
		case !s.Valid:
			t.Errorf("message %d: the inspector had no base %d", n, s.Base)
		case s.PS != b.ps || !slices.Equal(s.Entities, b.ents):
			t.Errorf("message %d: the inspector's snapshot differs from the server's", n)
		default:
			matched++
		}
	}
	if matched < len(rec.decoded) {
		t.Errorf("only %d of the server's snapshots matched, fewer than the client decoded (%d)", matched, len(rec.decoded))
	}

	// Reliable commands: each sequence once, in order, no gaps, both ways;
	// the same texts the ends had.
	checkSeqs(t, "server command", serverCmdSeqs)
	checkSeqs(t, "client command", clientCmdSeqs)
	for seq, text := range rec.serverCmds {
		if got, ok := serverCmdText[seq]; !ok || got != text {
			t.Errorf("server command %d: client executed %q, inspector decoded %q", seq, text, got)
		}
	}
	if len(clientCmdSeqs) == 0 || clientCmdSeqs[len(clientCmdSeqs)-1] != ci.LastClientCommand {
		t.Errorf("inspector's client commands end at %v, the server's at %d", clientCmdSeqs[max(len(clientCmdSeqs)-1, 0):], ci.LastClientCommand)
	}
	var texts []string
	for _, s := range clientCmdSeqs {
		texts = append(texts, clientCmdText[s])
	}
	for _, s := range said {
		if !slices.Contains(texts, s) {
			t.Errorf("client said %q; the inspector never decoded it", s)
		}
	}

	// Usercmds: the inspector's new ones are the ones the server executed.
	if ci.UsercmdsClamped == 0 && movesNew != ci.Usercmds {
		t.Errorf("inspector decoded %d new usercmds, the server executed %d", movesNew, ci.Usercmds)
	}
	if movesNew < ci.Usercmds-ci.UsercmdsClamped || movesNew == 0 {
		t.Errorf("inspector decoded %d new usercmds, the server executed %d", movesNew, ci.Usercmds)
	}
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
