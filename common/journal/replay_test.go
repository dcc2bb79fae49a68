package journal

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"tremor/bg"
)

// fake is a Program small enough to reason about: its "server" keeps
// player 0, whose CommandTime is the frame's server time and whose
// Stats[0] counts the console lines run, and entity 5, to whose
// EventParm each server packet adds its first byte and whose Pos.Base.X
// is the last packet's source port; its "client" predicts player 3,
// whose WeaponTime is 100 while the usercmd fires and whose Origin.X
// counts the client packets' bytes.
type fake struct {
	dedicated bool          // a dedicated server: no client, a hash only when a server frame ran
	drawAt    map[int]int32 // client challenges drawn, by frame
	skew      int32         // a changed program: added to EventParm every frame
	deaf      bool          // reads no client packet
	noLines   bool          // runs no console line of a frame

	frame  int
	cvars  map[string]string
	ps     bg.PlayerState // the server's player 0
	es     bg.EntityState // the server's entity 5
	pred   bg.PlayerState // the client's prediction
	ran    bool           // a server frame ran in the last Frame
	drawn  []int32        // the challenges the last Frame's client used
	buf    [256]byte
	cvarOf []string // the order SetCvar saw
}

func newFake() *fake {
	f := &fake{cvars: map[string]string{}}
	f.es.Number, f.pred.ClientNum = 5, 3
	return f
}

func (f *fake) SetCvar(name, value string) {
	f.cvars[name] = value
	f.cvarOf = append(f.cvarOf, name)
}

func (f *fake) Console(line string) bool {
	if line == "disconnect" {
		return false
	}
	f.ps.Stats[0]++
	return true
}

func (f *fake) Frame(in *Input) {
	for {
		n, from, _, ok := in.Packet(Server, f.buf[:])
		if !ok {
			break
		}
		if n > 0 {
			f.es.EventParm += int32(f.buf[0])
		}
		f.es.Pos.Base.X = int32(from.Port())
	}
	if !f.noLines {
		for _, ok := in.Line(); ok; _, ok = in.Line() {
			f.ps.Stats[0]++
		}
	}
	f.es.EventParm += f.skew
	f.ran = !f.dedicated || in.Frame.ServerTime%100 == 0
	if f.ran {
		f.ps.CommandTime = in.Frame.ServerTime
	}
	f.drawn = f.drawn[:0]
	if v, ok := f.drawAt[f.frame]; ok {
		f.drawn = append(f.drawn, in.Challenge(v))
	}
	for !f.deaf {
		n, _, _, ok := in.Packet(Client, f.buf[:])
		if !ok {
			break
		}
		f.pred.Origin.X += int32(n)
	}
	f.pred.CommandTime = in.Cmd.ServerTime
	f.pred.WeaponTime = 0
	if in.Cmd.Buttons&bg.ButtonAttack != 0 {
		f.pred.WeaponTime = 100
	}
	f.frame++
}

func (f *fake) ServerHash() (uint64, int32, bool) {
	h := bg.HashAdd64(bg.HashPlayerState(&f.ps), bg.HashEntityState(&f.es))
	return h, f.ps.CommandTime, f.ran
}

func (f *fake) ServerState(st *ServerState) {
	st.Collect(func(player func(int, *bg.PlayerState), entity func(*bg.EntityState)) {
		player(0, &f.ps)
		entity(&f.es)
	})
}

func (f *fake) ClientState() (uint64, *bg.PlayerState, bool) {
	if f.dedicated {
		return 0, nil, false
	}
	return bg.HashPlayerState(&f.pred), &f.pred, true
}

var (
	fakeServer = netip.MustParseAddrPort("127.0.0.1:27960")
	fakeClient = netip.MustParseAddrPort("127.0.0.1:5000")
)

// fakeFrames is the recorded session: per frame, the console lines run
// before it, and its packets.
const fakeFrames = 8

// record runs a fake live, as a program that records would, and
// returns its journal: a window client's with its cvars, lines between
// frames, packets both ways and a challenge at frame 4, or a dedicated
// server's with lines inside its frames. A line that leaves the game
// ends the recording.
func record(t *testing.T, dedicated bool, linesBefore map[int]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	st := Start{ClientSeed: 1, ServerSeed: 2, Map: "arena1", ServerAddr: fakeServer, ClientAddr: fakeClient}
	p := newFake()
	p.dedicated = dedicated
	if dedicated {
		st = Start{ServerSeed: 2, ServerAddr: fakeServer}
	} else {
		p.drawAt = map[int]int32{4: 1234}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Start(st))
	for _, kv := range [][2]string{{"cl_maxpackets", "60"}, {"journal", "1"}, {"NET_PORT", "27961"}, {"sv_master1", "master.example"}, {"fs_homepath", "/home/ann"}} {
		must(w.Cvar(kv[0], kv[1]))
	}
	var in Input
	for i := range fakeFrames {
		if line, ok := linesBefore[i]; ok {
			must(w.Console(line))
			if !p.Console(line) {
				break
			}
		}
		in.reset()
		in.Frame = Frame{ClientTime: time.Duration(i) * 16 * time.Millisecond, ServerTime: int32(50 * i)}
		if dedicated {
			in.Frame.ClientTime = 0
		}
		in.Cmd = bg.UserCmd{ServerTime: int32(50 * i)}
		if i%3 == 0 {
			in.Cmd.Buttons = bg.ButtonAttack
		}
		in.addPacket(Server, fakeClient, 0, []byte{byte(10 + i), 1, 2})
		if i%2 == 1 {
			in.addPacket(Server, netip.AddrPortFrom(fakeClient.Addr(), 6000), 0, []byte{byte(i)})
		}
		if !dedicated {
			in.addPacket(Client, fakeServer, time.Duration(i)*time.Millisecond, bytes.Repeat([]byte{7}, i+1))
		} else if i == 2 {
			in.lines = append(in.lines, "addbot 2")
		}
		p.Frame(&in)

		must(w.Frame(in.Frame))
		if !dedicated {
			must(w.UserCmd(in.Cmd))
		}
		writePackets(w, &in, Server)
		for _, line := range in.lines {
			must(w.Console(line))
		}
		if h, _, ok := p.ServerHash(); ok {
			must(w.Hash(Server, h))
			var ss ServerState
			p.ServerState(&ss)
			must(w.ServerState(&ss))
		}
		writePackets(w, &in, Client)
		for _, c := range p.drawn {
			must(w.Challenge(c))
		}
		if h, ps, ok := p.ClientState(); ok {
			must(w.Hash(Client, h))
			must(w.PlayerState(ps))
		}
	}
	must(w.Flush())
	return buf.Bytes()
}

// writePackets writes the packets of side in holds, as a recording
// writes those its engine read.
func writePackets(w *Writer, in *Input, side Side) {
	for _, pk := range in.packets {
		if pk.side == side {
			_ = w.Packet(side, pk.from, pk.at, in.data[pk.off:pk.end]) // the Flush at the end reports an error
		}
	}
}

// edit returns the journal data with each record passed to keep, with
// the number of the frame it is in (-1 before the first), on its way
// from a Reader to a Writer; a record keep returns false for is left
// out.
func edit(t *testing.T, data []byte, keep func(rec *Record, frame int) bool) []byte {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	frame := -1
	for {
		var rec Record
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == KindFrame {
			frame++
		}
		if !keep(&rec, frame) {
			continue
		}
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// later returns the journal data with frame's server time ms later.
func later(t *testing.T, data []byte, frame int, ms int32) []byte {
	t.Helper()
	return edit(t, data, func(rec *Record, f int) bool {
		if rec.Kind == KindFrame && f == frame {
			rec.Frame.ServerTime += ms
		}
		return true
	})
}

// TestReplay plays journals of a fake program, as recorded and edited,
// through the one replay loop: a journal as recorded replays to its
// end; an input changed, a changed program, a challenge drawn or not, an
// input left unread, stop it at the first frame that differs, on the
// right side, naming the player or entity and its field; a line that
// left the game ends it; a file cut short or damaged gives its error.
func TestReplay(t *testing.T) {
	window := record(t, false, map[int]string{3: "say hi"})
	dedicated := record(t, true, nil)
	left := record(t, false, map[int]string{6: "disconnect"})
	type div struct {
		frame          int
		time           time.Duration
		side           Side
		player, entity int
		field          string
		detail         string // a part of it
	}
	const ms = time.Millisecond
	dedicatedFake := func(f *fake) { f.dedicated = true }
	tests := []struct {
		name    string
		data    []byte
		setup   func(f *fake) // the replaying program
		frames  int           // frames replayed as recorded
		hashes  int
		div     *div   // the divergence, if one
		errText string // another error, if one
	}{
		{name: "window client as recorded", data: window, frames: fakeFrames, hashes: fakeFrames},
		{name: "dedicated server as recorded", data: dedicated, setup: dedicatedFake, frames: fakeFrames, hashes: fakeFrames / 2},
		{name: "a line left the game", data: left, frames: 6, hashes: 6},

		// Inputs changed, and the program: named player or entity and field.
		{name: "server packet changed", data: edit(t, window, func(rec *Record, frame int) bool {
			if rec.Kind == KindPacket && rec.Side == Server && frame == 2 {
				rec.Data = append([]byte{99}, rec.Data[1:]...) // was 12
			}
			return true
		}), frames: 2, hashes: 2, // 10, then 11 and 1, then 99 where the recording had 12
			div: &div{2, 32 * ms, Server, -1, 5, "EventParm", "entity 5: field EventParm is 121, journal has 34"}},
		{name: "server packet from another port", data: edit(t, window, func(rec *Record, frame int) bool {
			if rec.Kind == KindPacket && rec.Side == Server && frame == 1 && rec.From.Port() == 6000 {
				rec.From = netip.AddrPortFrom(rec.From.Addr(), 6001)
			}
			return true
		}), frames: 1, hashes: 1,
			div: &div{1, 16 * ms, Server, -1, 5, "Pos.Base.X", "field Pos.Base.X is 6001, journal has 6000"}},
		{name: "server frame time moved", data: later(t, window, 5, 10), frames: 5, hashes: 5,
			div: &div{5, 80 * ms, Server, 0, -1, "CommandTime", "client 0's player state: field CommandTime is 260, journal has 250"}},
		{name: "usercmd changed", data: edit(t, window, func(rec *Record, frame int) bool {
			if rec.Kind == KindUserCmd && frame == 4 {
				rec.Cmd.Buttons |= bg.ButtonAttack
			}
			return true
		}), frames: 4, hashes: 5,
			div: &div{4, 64 * ms, Client, 3, -1, "WeaponTime", ": field WeaponTime is 100, journal has 0"}},
		{name: "program changed", data: window, setup: func(f *fake) { f.skew = 1 }, frames: 0, hashes: 0,
			div: &div{0, 0, Server, -1, 5, "EventParm", "field EventParm is 11, journal has 10"}},

		// The engines took another path.
		{name: "a server frame more", data: later(t, dedicated, 3, 50), setup: dedicatedFake, frames: 3, hashes: 2, // 200
			div: &div{3, 200 * ms, Server, -1, -1, "", "the replay ran a server frame (time 200) where the journal has no server hash in this frame"}},
		{name: "a server frame less", data: later(t, dedicated, 4, 50), setup: dedicatedFake, frames: 4, hashes: 2, // 250
			div: &div{4, 250 * ms, Server, -1, -1, "", "the journal has a server hash at offset"}},
		{name: "challenge not drawn", data: window, setup: func(f *fake) { f.drawAt = nil }, frames: 4, hashes: 5,
			div: &div{4, 64 * ms, Client, -1, -1, "", "the journal has a client challenge the replay did not draw"}},
		{name: "challenge drawn where none was", data: window, setup: func(f *fake) { f.drawAt = map[int]int32{4: 1, 6: 2} }, frames: 6, hashes: 7,
			div: &div{6, 96 * ms, Client, -1, -1, "", "the replay drew a client challenge the journal does not have"}},
		{name: "client packets unread", data: window, setup: func(f *fake) { f.deaf = true }, frames: 0, hashes: 1,
			div: &div{0, 0, Client, -1, -1, "", "the replay's client read 0 of the 1 packets the journal has it read in this frame"}},
		{name: "console line unread", data: dedicated, setup: func(f *fake) { f.dedicated, f.noLines = true, true }, frames: 2, hashes: 1,
			div: &div{2, 100 * ms, Server, -1, -1, "", "the replay's server ran 0 of the 1 console lines the journal has in this frame"}},

		// Damaged journals.
		{name: "cut before a hash", data: edit(t, window, func(rec *Record, frame int) bool {
			return frame < 7 || rec.Kind == KindFrame || rec.Kind == KindUserCmd || rec.Kind == KindPacket && rec.Side == Server
		}), frames: 7, hashes: 7, errText: "journal: ends inside frame 7, where a hash record is due"},
		{name: "damaged record", data: window[:len(window)-3], frames: 7, hashes: 7, errText: "playerstate record cut short"},
		{name: "state without its hash", data: edit(t, window, func(rec *Record, frame int) bool {
			return !(rec.Kind == KindHash && rec.Side == Server && frame == 1)
		}), frames: 1, hashes: 1, errText: "serverstate record inside frame 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			rp, err := NewReplay(r)
			if err != nil {
				t.Fatal(err)
			}
			p := newFake()
			if rp.Start().ClientAddr.IsValid() {
				p.drawAt = map[int]int32{4: -1} // the recording's challenge replaces it
			}
			if tt.setup != nil {
				tt.setup(p)
			}
			if _, err := rp.Begin(p); err != nil {
				t.Fatal(err)
			}
			err = rp.Run()
			if rp.Frames() != tt.frames || rp.Hashes() != tt.hashes || !rp.Done() || rp.Err() != err {
				t.Errorf("%d frames, %d hashes as recorded, done %v; want %d and %d, done: %v", rp.Frames(), rp.Hashes(), rp.Done(), tt.frames, tt.hashes, err)
			}
			if more, again := rp.Step(); more || again != err {
				t.Errorf("Step after the end: %v, %v; want false, %v", more, again, err)
			}
			var d *Divergence
			switch {
			case tt.div != nil:
				if !errors.As(err, &d) {
					t.Fatalf("replay: %v, want a divergence", err)
				}
				w := tt.div
				if d.Frame != w.frame || d.Time != w.time || d.Side != w.side || d.Player != w.player || d.Entity != w.entity || d.Field != w.field {
					t.Errorf("divergence at frame %d (time %v) on the %v, player %d, entity %d, field %q; want frame %d (time %v) on the %v, player %d, entity %d, field %q",
						d.Frame, d.Time, d.Side, d.Player, d.Entity, d.Field, w.frame, w.time, w.side, w.player, w.entity, w.field)
				}
				if !strings.Contains(d.Detail, w.detail) || !strings.HasPrefix(err.Error(), "journal: replay diverged at frame ") {
					t.Errorf("divergence %q, want it to say %q", err, w.detail)
				}
			case tt.errText != "":
				if err == nil || errors.As(err, &d) || !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("replay: %v, want an error saying %q", err, tt.errText)
				}
			case err != nil:
				t.Errorf("replay: %v", err)
			}
			// The cvars that do not replay never reach the program.
			if len(p.cvarOf) != 1 || p.cvars["cl_maxpackets"] != "60" {
				t.Errorf("the program was given the cvars %q, want cl_maxpackets only", p.cvarOf)
			}
		})
	}
}

// TestNewReplay: a journal must begin with a start record, and Step
// needs Begin.
func TestNewReplay(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	empty := append([]byte(nil), buf.Bytes()...)
	if err := errors.Join(w.Frame(Frame{}), w.Flush()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"header only", empty, "journal: offset 6: a journal begins with a start record; this one ends after its header"},
		{"frame first", buf.Bytes(), "journal: offset 6: a journal begins with a start record, not a frame record"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewReplay(r); err == nil || err.Error() != tt.want {
				t.Errorf("NewReplay: %v, want %q", err, tt.want)
			}
		})
	}
	r, err := NewReader(bytes.NewReader(record(t, true, nil)))
	if err != nil {
		t.Fatal(err)
	}
	rp, err := NewReplay(r)
	if err != nil {
		t.Fatal(err)
	}
	if more, err := rp.Step(); more || err == nil {
		t.Errorf("Step before Begin: %v, %v", more, err)
	}
}

// TestReplayed: the cvars of a program's machine — the journal's own,
// paths, sockets, masters — keep their values, in any case; the
// others replay.
func TestReplayed(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"journal", false}, {"journal_file", false}, {"fs_homepath", false},
		{"sv_mapdir", false}, {"SV_CONFIGDIR", false}, {"cpuprofile", false},
		{"net_ip", false}, {"net_port", false}, {"cl_lanPorts", false},
		{"sv_master1", false}, {"sv_master5", false}, {"cl_master3", false},
		{"cl_maxpackets", true}, {"sv_fps", true}, {"g_gametype", true},
		{"rconPassword", true}, {"cl_packetloss", true}, {"sv_master6", true},
	} {
		if got := Replayed(tt.name); got != tt.want {
			t.Errorf("Replayed(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
