package inspect_test

import (
	"cmp"
	"io"
	"reflect"
	"slices"
	"testing"
	"time"

	"tremor/bg"
	"tremor/client"
	"tremor/common/proto"
	"tremor/game"
	"tremor/game/framesync"
	"tremor/internal/inspect"
	"tremor/maps/arenas"
	"tremor/net/netsim"
	"tremor/server"
)

// TestInspectorFrameSync runs a server in sv_netmodel framesync (two
// bots), a client and the inspector between them on a simulated network
// (30 ms each way, 10 % of the way down lost and 5 % reordered after the
// inspector), on a virtual clock, and checks what the inspector decoded
// by running it: a game loaded with the whole state it decoded, run
// through every frame it decoded, has the server's state hash at every
// frame that carries one. Every copy of a frame (frames ride until
// acknowledged) decodes the same, every message decodes, and the
// inspector sees the frame requests the client counts.
func TestInspectorFrameSync(t *testing.T) {
	const seed = 5
	msec := func(d time.Duration) int32 { return int32(d / time.Millisecond) }
	sconn := newSimConn("10.0.0.1:27960")
	cfg := server.DefaultConfig()
	cfg.Seed = seed
	cfg.NetModel = proto.NetModelFrameSync
	srv, err := server.New(sconn, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := srv.Map("arena2"); err != nil {
		t.Fatal(err)
	}
	srv.Exec("addbot 2")
	cconn := newSimConn("10.0.0.2:5000")
	cl := client.New(cconn, client.Config{Name: "Inspected", Seed: seed})
	defer cl.Close()
	cconn.waitReader()
	cl.Connect(sconn.local)

	in := inspect.New()
	var msgs []inspect.Message
	up := netsim.NewLink(netsim.Config{Delay: 30 * ms}, seed)
	down := netsim.NewLink(netsim.Config{Delay: 30 * ms, Loss: 0.10, Reorder: 0.05}, seed+1000)
	var toServer, toClient []datagram
	route := func(now time.Duration) {
		for _, d := range cconn.take() {
			for _, at := range up.Send(now, len(d.data)) {
				d.at = at
				toServer = append(toServer, d)
			}
		}
		for _, d := range sconn.take() {
			msgs = append(msgs, in.Feed(inspect.ServerToClient, d.from, d.to, d.data, now)...)
			for _, at := range down.Send(now, len(d.data)) {
				d.at = at
				toClient = append(toClient, d)
			}
		}
	}
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
	const frame = 8 * time.Millisecond
	var now, inGameAt time.Duration = 0, -1
	for i := 0; ; i++ {
		now += frame
		for _, d := range due(&toServer, now) {
			msgs = append(msgs, in.Feed(inspect.ClientToServer, d.from, d.to, d.data, now)...)
			srv.Packet(msec(now), d.from, d.data)
		}
		srv.Frame(msec(now))
		route(now)
		for _, d := range due(&toClient, now) {
			cconn.deliver(d)
		}
		cmd := bg.UserCmd{Aim: int32(i * 37 % 65536), RightMove: int32(i/25%3-1) * 127, Buttons: int32(i / 40 % 2)}
		cl.Frame(now, cmd)
		route(now)
		if cl.State() == client.Active && inGameAt < 0 {
			inGameAt = now
		}
		if inGameAt >= 0 && now-inGameAt > 4*time.Second {
			break
		}
		if now > 20*time.Second {
			t.Fatalf("the client never got in the game: state %v, last error %v", cl.State(), cl.LastError())
		}
	}
	st, ok := cl.FrameSyncStats()
	if !ok || !cl.FrameSync() {
		t.Fatal("the client is not in frame sync")
	}

	// What the inspector decoded, by frame number; every copy the same.
	frames := map[int32]*inspect.FrameInfo{}
	var wholes []*inspect.WholeState
	requests, copies, based := 0, 0, 0
	for i := range msgs {
		m := &msgs[i]
		if m.Kind == inspect.KindMessage && m.Err != "" {
			t.Fatalf("message %d: %s", i, m.Summary())
		}
		for j := range m.Ops {
			o := &m.Ops[j]
			switch {
			case o.Frames != nil:
				if o.Frames.Base != 0 {
					based++
				}
				for k := range o.Frames.Frames {
					f := &o.Frames.Frames[k]
					copies++
					if old, ok := frames[f.Number]; ok && !reflect.DeepEqual(old, f) {
						t.Fatalf("frame %d decoded twice differently: %+v and %+v", f.Number, old, f)
					}
					frames[f.Number] = f
				}
			case o.WholeState != nil:
				wholes = append(wholes, o.WholeState)
			case o.FrameRequest != nil:
				requests++
			}
		}
	}
	if len(wholes) == 0 || len(frames) < 60 || based == 0 || copies <= len(frames) {
		t.Fatalf("decoded %d whole states, %d frames (%d copies, %d messages coded from a base)", len(wholes), len(frames), copies, based)
	}
	if requests != st.Requests || len(wholes) < st.WholeStates {
		t.Errorf("the inspector saw %d frame requests and %d whole states; the client sent %d and loaded %d", requests, len(wholes), st.Requests, st.WholeStates)
	}

	// Run them: from the first whole state through every frame after it.
	ws := wholes[0]
	if ws.Players != 3 || ws.Entities < ws.Players || ws.LevelTime <= 0 {
		t.Errorf("whole state of frame %d: %d players, %d entities, level time %d", ws.Frame, ws.Players, ws.Entities, ws.LevelTime)
	}
	m, err := arenas.Load("arena2")
	if err != nil {
		t.Fatal(err)
	}
	sim := framesync.NewSim(m, game.DefaultConfig())
	sim.Load(ws.State)
	checked := 0
	var f framesync.Frame
	n := ws.Frame + 1
	for ; frames[n] != nil; n++ {
		fi := frames[n]
		f.Reset()
		f.Number, f.Time = fi.Number, fi.Time
		f.Events = append(f.Events, fi.Events...)
		f.BotSlots = append(f.BotSlots, fi.BotSlots...)
		for _, in := range fi.Inputs {
			f.Present |= 1 << in.Client
			f.Inputs[in.Client] = in.Cmd
		}
		sim.Apply(&f)
		if fi.Hash != nil {
			if h := sim.Hash(); h != *fi.Hash {
				t.Fatalf("frame %d: the decoded frames give state hash %#x, the server's is %#x", n, h, *fi.Hash)
			}
			checked++
		}
	}
	if checked < 10 || n < st.Confirmed {
		t.Errorf("ran frames %d to %d (the client confirmed %d), %d hashes checked", ws.Frame+1, n-1, st.Confirmed, checked)
	}
	t.Logf("%d frames decoded (%d copies), %d whole states, %d requests; frames %d to %d run, %d hashes equal the server's",
		len(frames), copies, len(wholes), requests, ws.Frame+1, n-1, checked)
}
