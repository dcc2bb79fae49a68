package classroom

import (
	"testing"
	"time"

	"tremor/bg"
	"tremor/internal/inspect"
	"tremor/net/msg"
)

// fieldKey is one field of one table.
type fieldKey struct{ table, field string }

// fieldSums are the changes and bits per field that the packet
// inspector decoded from one direction of one player's link.
type fieldSums map[fieldKey][2]uint64

// add sums the delta fields of op and the ops inside it. The usercmd's
// server time is left out: it is always sent, and no counter counts it.
func (s fieldSums) add(op *inspect.Op) {
	table := map[string]string{
		inspect.OpPlayerState: bg.PlayerStateTable.Name(),
		inspect.OpEntity:      bg.EntityStateTable.Name(),
		inspect.OpBaseline:    bg.EntityStateTable.Name(),
		inspect.OpUsercmd:     bg.UserCmdTable.Name(),
	}[op.Name]
	for _, f := range op.Fields {
		if table == "" || table == bg.UserCmdTable.Name() && f.Name == "ServerTime" {
			continue
		}
		k := fieldKey{table, f.Name}
		v := s[k]
		s[k] = [2]uint64{v[0] + 1, v[1] + uint64(f.Bits)}
	}
	for i := range op.Sub {
		s.add(&op.Sub[i])
	}
}

// statTable is a bg delta table as the test reads its counters.
type statTable interface {
	Name() string
	Stats(*msg.FieldStats) []msg.FieldStat
}

// checkEnd compares what one end of player p's connection counted (an
// engine's FieldStats) with what the inspector decoded from the link:
// the sent counters of the tables in sent with out, the received ones
// of the tables in recv with in; every other counter must be zero.
func checkEnd(t *testing.T, end string, fs *msg.FieldStats, sent, recv []statTable, out, in fieldSums) {
	t.Helper()
	for _, tc := range []struct {
		tables []statTable
		want   fieldSums
		dir    string
	}{{sent, out, "sent"}, {recv, in, "received"}} {
		for _, tbl := range []statTable{bg.PlayerStateTable, bg.EntityStateTable, bg.UserCmdTable} {
			want := fieldSums{}
			for _, u := range tc.tables {
				if u == tbl {
					want = tc.want
				}
			}
			for _, s := range tbl.Stats(fs) {
				got := [2]uint64{s.SentChanges, s.SentBits}
				if tc.dir == "received" {
					got = [2]uint64{s.RecvChanges, s.RecvBits}
				}
				if w := want[fieldKey{tbl.Name(), s.Name}]; got != w {
					t.Errorf("%s %s %s.%s: %d changes in %d bits, the link carried %d in %d", end, tc.dir, tbl.Name(), s.Name, got[0], got[1], w[0], w[1])
				}
			}
		}
	}
}

// total sums the bits of sums.
func (s fieldSums) total() (bits uint64) {
	for _, v := range s {
		bits += v[1]
	}
	return bits
}

// TestFieldCountersBelongToOneConnection runs a server and two client
// engines in one process (the classroom: one goroutine, in-memory
// links) and checks that each engine counts only the delta fields of
// its own connection: each client's received states and sent usercmds
// equal what the packet inspector decoded on that player's link, and so
// do the server's counters for that connection, while every direction
// an end does not code stays at zero. P1 runs about and P2 stands
// still, so the two connections' figures differ.
func TestFieldCountersBelongToOneConnection(t *testing.T) {
	m, err := New(Config{Map: "duel1", Bots: 1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)

	var sums [2][2]fieldSums // player, Up/Down
	for i := range sums {
		sums[i] = [2]fieldSums{{}, {}}
	}
	next := uint64(1)
	collect := func() {
		for ; ; next++ {
			e, ok := m.Event(next)
			if !ok {
				if next < m.nextID {
					t.Fatalf("packet %d left the log before it was read", next)
				}
				return
			}
			if !e.Netchan {
				continue
			}
			if next+KeepDecoded <= m.nextID || e.Msg.Err != "" || e.Msg.CannotDecode {
				t.Fatalf("packet %d not decoded: %q", next, e.Msg.Err)
			}
			for k := range e.Msg.Ops {
				sums[e.Player][e.Dir].add(&e.Msg.Ops[k])
			}
		}
	}
	for i := range 80 { // 4 s in steps the log keeps decoded
		// P1 runs left and right, jumps and fires; P2 stands still.
		m.Player(0).In = Input{Left: i%2 == 0, Right: i%2 == 1, Jump: i%4 == 0, Attack: i%3 == 0}
		m.Run(50 * time.Millisecond)
		collect()
	}
	// Stop where nothing is on the way, so that both ends have coded
	// the same messages.
	quiet := func() bool {
		for i := range 2 {
			for _, d := range []Dir{Up, Down} {
				if c := m.Counts(i, d); c.Sent != c.Delivered || c.Lost != 0 {
					return false
				}
			}
		}
		return true
	}
	for n := 0; !quiet(); n++ {
		if n == 200 {
			t.Fatal("packets always in flight")
		}
		m.Run(Step)
		collect()
	}

	states := []statTable{bg.PlayerStateTable, bg.EntityStateTable}
	cmds := []statTable{bg.UserCmdTable}
	for i := range 2 {
		p := m.Player(i)
		up, down := sums[i][Up], sums[i][Down]
		if down.total() == 0 || up.total() == 0 && i == 0 {
			t.Fatalf("P%d: the link carried %d bits of state fields and %d of usercmd fields", i+1, down.total(), up.total())
		}
		checkEnd(t, "P"+string(rune('1'+i))+"'s client", p.C.FieldStats(), cmds, states, up, down)
		checkEnd(t, "the server's connection to P"+string(rune('1'+i)), m.Server().FieldStats(int(p.C.ClientNum())), states, cmds, down, up)
	}

	// The classroom's own figures, a second of each connection: P1's
	// usercmds change, P2's do not.
	for i := range 2 {
		for _, d := range []Dir{Up, Down} {
			if _, ok := m.FieldBits(i, d); !ok {
				t.Fatalf("P%d %v: no field figures after %v", i+1, d, m.Now())
			}
		}
	}
	moving, _ := m.FieldBits(0, Up)
	idle, _ := m.FieldBits(1, Up)
	if down, _ := m.FieldBits(1, Down); moving <= 2*idle || down == 0 {
		t.Errorf("usercmd fields a second: P1 (moving) %d bits, P2 (idle) %d; P2's snapshots %d", moving, idle, down)
	}
}
