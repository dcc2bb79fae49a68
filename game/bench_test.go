package game_test

import (
	"strings"
	"testing"

	"tremor/bg"
	"tremor/bg/tilemap"
	"tremor/game"
	"tremor/game/gametest"
)

// loadMap is a wide arena for load tests: 128×24 tiles, three floors of
// platforms with gaps above the ground, 84 spawn points.
func loadMap(tb testing.TB) *tilemap.Map {
	const w, hgt = 128, 24
	rows := make([]string, hgt)
	for y := range rows {
		r := []byte(strings.Repeat(".", w))
		switch {
		case y == 5 || y == 11 || y == 17:
			for x := range r {
				if x%16 > 1 {
					r[x] = '='
				}
			}
		case y == 4 || y == 10 || y == 16 || y == 22:
			for x := 3; x < w; x += 6 {
				r[x] = 'S'
			}
		}
		rows[y] = string(r)
	}
	return gametest.ParseMap(tb, "", rows...)
}

// load is a running game with players scripted clients that run, turn
// and jump, and projectiles missiles kept in flight: every frame, the
// players take turns launching rockets and grenades in all directions
// until that many are flying.
type load struct {
	h        *gametest.Harness
	clients  []*gametest.Client
	missiles int
	next     int
	aim      int32
}

func newLoad(tb testing.TB, players, missiles int) *load {
	cfg := game.DefaultConfig()
	cfg.FragLimit, cfg.TimeLimit = 0, 0
	l := &load{h: gametest.NewMap(tb, loadMap(tb), 1, cfg), missiles: missiles}
	for i := 0; i < players; i++ {
		c := l.h.AddClient("p" + itoa(i))
		c.Script = run
		l.clients = append(l.clients, c)
	}
	return l
}

// run is the scripted clients' input: run one way, turn every two
// seconds, jump now and then.
func run(h *gametest.Harness, c *gametest.Client) {
	t := h.Time()
	c.Cmd.RightMove = 127
	if (t/2000+int32(c.Num))%2 == 0 {
		c.Cmd.RightMove = -127
	}
	c.Cmd.UpMove = 0
	if (t/gametest.FrameMsec+int32(c.Num))%20 == 0 {
		c.Cmd.UpMove = 127
	}
	c.Cmd.Aim = int32(c.Num) * 1024
}

// frame tops the missiles up and runs one server frame.
func (l *load) frame() {
	h := l.h
	n := 0
	for i := 0; i < h.Game.NumEntities(); i++ {
		if h.Game.EntityInUse(i) && h.Entity(i).S.EType == bg.ETMissile {
			n++
		}
	}
	for tries := 0; n < l.missiles && tries < len(l.clients); tries++ {
		c := l.clients[l.next%len(l.clients)]
		l.next++
		if h.PS(c.Num).PmType != bg.PMNormal {
			continue
		}
		w := int32(bg.WPRocketLauncher)
		if l.next%2 == 0 {
			w = bg.WPGrenadeLauncher
		}
		l.aim += 6007
		h.Game.FireForTest(c.Num, w, l.aim&0xffff)
		n++
	}
	h.Frame()
}

func benchmarkRunFrame(b *testing.B, players int) {
	l := newLoad(b, players, 100)
	for i := 0; i < 200; i++ { // ten seconds to reach a steady state
		l.frame()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l.frame()
	}
}

// BenchmarkRunFrame16 is one server frame (every client's command and
// RunFrame) with 16 moving players and 100 missiles in flight.
func BenchmarkRunFrame16(b *testing.B) { benchmarkRunFrame(b, 16) }

// BenchmarkRunFrame64 is BenchmarkRunFrame16 with 64 players.
func BenchmarkRunFrame64(b *testing.B) { benchmarkRunFrame(b, 64) }

// TestFrameAllocs checks that a loaded frame allocates nothing once the
// game is running.
func TestFrameAllocs(t *testing.T) {
	l := newLoad(t, 16, 100)
	for i := 0; i < 200; i++ {
		l.frame()
	}
	if a := testing.AllocsPerRun(100, l.frame); a != 0 {
		t.Errorf("%.2f allocations per frame, want 0", a)
	}
}
