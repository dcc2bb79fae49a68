package input

import (
	"strings"
	"testing"

	"tremor/bg"
	"tremor/common/console"
	"tremor/ui/keys"
)

// newTable returns a table with the input commands of s and the default
// bindings, printing into out.
func newTable(s *State, out *strings.Builder) (*console.Table, *keys.Binds) {
	t := console.NewTable()
	t.SetOutput(out)
	s.AddCommands(t)
	b := keys.NewBinds(t)
	b.SetDefaults()
	return t, b
}

// key looks a key up by name or fails the test.
func key(t *testing.T, name string) keys.KeyNum {
	t.Helper()
	k, ok := keys.Lookup(name)
	if !ok {
		t.Fatalf("no key %q", name)
	}
	return k
}

func TestKeyState(t *testing.T) {
	// Each case runs one frame (100, 200] after a frame that ended at 100.
	type ev struct {
		key  int32
		down bool
		at   int32
	}
	tests := []struct {
		name   string
		before []ev // before the frame ending at 100
		events []ev
		want   float64
	}{
		{"up", nil, nil, 0},
		{"held", []ev{{1, true, 50}}, nil, 1},
		{"pressed at a quarter", nil, []ev{{1, true, 125}}, 0.75},
		{"released half-way", []ev{{1, true, 50}}, []ev{{1, false, 150}}, 0.5},
		{"tap inside the frame", nil, []ev{{1, true, 120}, {1, false, 130}}, 0.1},
		{"two taps", nil, []ev{{1, true, 110}, {1, false, 120}, {1, true, 180}}, 0.3},
		{"second key keeps it down", []ev{{1, true, 50}}, []ev{{2, true, 120}, {1, false, 150}}, 1},
		{"both keys up", []ev{{1, true, 50}, {2, true, 60}}, []ev{{1, false, 120}, {2, false, 150}}, 0.5},
		{"repeat does not restart", []ev{{1, true, 50}}, []ev{{1, true, 150}}, 1},
		{"release by a key not holding it", []ev{{1, true, 50}}, []ev{{2, false, 150}}, 1},
		{"console release frees all", []ev{{1, true, 50}, {2, true, 60}}, []ev{{0, false, 140}}, 0.4},
		{"pressed before the frame", nil, []ev{{1, true, 40}}, 1},
		{"release before press", nil, []ev{{1, true, 150}, {1, false, 140}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b Button
			for _, e := range tt.before {
				if e.down {
					b.Down(e.key, e.at)
				} else {
					b.Up(e.key, e.at)
				}
			}
			b.KeyState(100, 100)
			for _, e := range tt.events {
				if e.down {
					b.Down(e.key, e.at)
				} else {
					b.Up(e.key, e.at)
				}
			}
			if got := b.KeyState(200, 100); got != tt.want {
				t.Errorf("KeyState = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestThreeKeys(t *testing.T) {
	var b Button
	if !b.Down(1, 0) || !b.Down(2, 0) {
		t.Fatal("two keys refused")
	}
	if b.Down(3, 0) {
		t.Fatal("third key accepted")
	}
	b.Up(3, 10) // not holding: nothing
	b.Up(1, 10)
	if !b.Active() {
		t.Fatal("up with key 2 still down")
	}
	b.Up(2, 10)
	if b.Active() {
		t.Fatal("down after both keys let go")
	}
}

// frame is one frame of key events, by key name, then a usercmd.
type frame struct {
	events []string // "+a@125" presses a at 125, "-a@150" releases it
	now    int32
	aimX   float64
	aimY   float64
}

func runFrames(t *testing.T, s *State, ps *bg.PlayerState, frames []frame) bg.UserCmd {
	t.Helper()
	var out strings.Builder
	tbl, b := newTable(s, &out)
	var cmd bg.UserCmd
	for _, f := range frames {
		for _, e := range f.events {
			name, at, _ := strings.Cut(e[1:], "@")
			var ms int32
			for _, c := range at {
				ms = ms*10 + int32(c-'0')
			}
			b.KeyEvent(key(t, name), e[0] == '+', ms)
		}
		tbl.Execute()
		cmd = s.CreateCmd(f.now, f.aimX, f.aimY, ps)
	}
	if out.Len() > 0 {
		t.Errorf("console printed %q", out.String())
	}
	return cmd
}

func TestCreateCmd(t *testing.T) {
	owned := int32(1<<bg.WPGauntlet | 1<<bg.WPMachinegun | 1<<bg.WPRailgun)
	ps := &bg.PlayerState{Weapon: bg.WPMachinegun}
	ps.Stats[bg.StatWeapons] = owned
	start := frame{now: 100}
	tests := []struct {
		name   string
		frames []frame
		want   bg.UserCmd
	}{
		{"idle", nil, bg.UserCmd{}},
		{"right held", []frame{{events: []string{"+d@90"}, now: 100}, {now: 200}}, bg.UserCmd{RightMove: 127}},
		{"left held", []frame{{events: []string{"+a@90"}, now: 100}, {now: 200}}, bg.UserCmd{RightMove: -127}},
		{"both cancel", []frame{{events: []string{"+a@90", "+rightarrow@90"}, now: 100}, {now: 200}}, bg.UserCmd{}},
		{"right from a quarter", []frame{{events: []string{"+d@125"}, now: 200}}, bg.UserCmd{RightMove: 95}},
		{"left released half-way", []frame{{events: []string{"+a@90"}, now: 100}, {events: []string{"-a@150"}, now: 200}},
			bg.UserCmd{RightMove: -63}},
		{"left and right held, right let go", []frame{{events: []string{"+a@90", "+d@90"}, now: 100}, {events: []string{"-d@125"}, now: 200}},
			bg.UserCmd{RightMove: -95}},
		{"jump", []frame{{events: []string{"+space@100"}, now: 200}}, bg.UserCmd{UpMove: 127}},
		{"drop", []frame{{events: []string{"+s@100"}, now: 200}}, bg.UserCmd{UpMove: -127}},
		{"jump key and arrow", []frame{{events: []string{"+w@100", "+uparrow@120", "-w@150"}, now: 200}}, bg.UserCmd{UpMove: 127}},
		{"fire held", []frame{{events: []string{"+mouse1@190"}, now: 200}}, bg.UserCmd{Buttons: bg.ButtonAttack}},
		{"tap shorter than a frame fires", []frame{{events: []string{"+mouse1@120", "-mouse1@121"}, now: 200}},
			bg.UserCmd{Buttons: bg.ButtonAttack}},
		{"tap fires once", []frame{{events: []string{"+mouse1@120", "-mouse1@121"}, now: 200}, {now: 300}}, bg.UserCmd{}},
		{"aim down", []frame{{aimY: 10, now: 200}}, bg.UserCmd{Aim: 16384}},
		{"aim kept on the player", []frame{{aimX: -3, now: 200}, {now: 300}}, bg.UserCmd{Aim: 32768}},
		{"weapon key", []frame{{events: []string{"+4@150"}, now: 200}}, bg.UserCmd{Weapon: 4}},
		{"weapon kept", []frame{{events: []string{"+4@150", "-4@160"}, now: 200}, {now: 300}}, bg.UserCmd{Weapon: 4}},
		{"wheel down skips unowned", []frame{{events: []string{"+mwheeldown@150", "-mwheeldown@150"}, now: 200}},
			bg.UserCmd{Weapon: bg.WPRailgun}},
		{"wheel up", []frame{{events: []string{"+mwheelup@150", "-mwheelup@150"}, now: 200}}, bg.UserCmd{Weapon: bg.WPGauntlet}},
		{"two wheel steps", []frame{{events: []string{"+mwheeldown@150", "-mwheeldown@150", "+mwheeldown@160", "-mwheeldown@160"}, now: 200}},
			bg.UserCmd{Weapon: bg.WPGauntlet}},
		{"wheel from the chosen weapon", []frame{{events: []string{"+5@150"}, now: 200},
			{events: []string{"+mwheeldown@250", "-mwheeldown@250"}, now: 300}}, bg.UserCmd{Weapon: bg.WPGauntlet}},
		{"wheel from an unowned choice", []frame{{events: []string{"+4@150"}, now: 200},
			{events: []string{"+mwheelup@250", "-mwheelup@250"}, now: 300}}, bg.UserCmd{Weapon: bg.WPGauntlet}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			got := runFrames(t, &s, ps, append([]frame{start}, tt.frames...))
			if got != tt.want {
				t.Errorf("usercmd %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWheelBeforeGameDropped(t *testing.T) {
	var s State
	got := runFrames(t, &s, nil, []frame{{events: []string{"+mwheelup@10", "-mwheelup@10"}, now: 20}})
	if got.Weapon != 0 {
		t.Fatalf("weapon %d without a player state", got.Weapon)
	}
}

func TestHeldKeyDoesNotRepeat(t *testing.T) {
	var s State
	var out strings.Builder
	tbl, b := newTable(&s, &out)
	a := key(t, "a")
	s.CreateCmd(100, 0, 0, nil)
	b.KeyEvent(a, true, 110)
	b.KeyEvent(a, true, 150) // auto-repeat
	b.KeyEvent(a, true, 190)
	tbl.Execute()
	if cmd := s.CreateCmd(200, 0, 0, nil); cmd.RightMove != -114 {
		t.Fatalf("RightMove %d, want -114 (held from 110)", cmd.RightMove)
	}
	b.KeyEvent(a, false, 250)
	tbl.Execute()
	if cmd := s.CreateCmd(300, 0, 0, nil); cmd.RightMove != -63 {
		t.Fatalf("RightMove %d after release at 250, want -63", cmd.RightMove)
	}
	if s.MoveLeft.Active() {
		t.Fatal("a repeat left the button down")
	}
}

func TestScoresAndTalk(t *testing.T) {
	var s State
	var out strings.Builder
	tbl, b := newTable(&s, &out)
	b.KeyEvent(keys.KeyTab, true, 10)
	tbl.Execute()
	if !s.ShowScores() {
		t.Fatal("tab held: no scores")
	}
	b.KeyEvent(keys.KeyTab, false, 20)
	tbl.Execute()
	if s.ShowScores() {
		t.Fatal("tab let go: scores")
	}
	s.Talk = true
	if cmd := s.CreateCmd(30, 0, 0, nil); cmd.Buttons != bg.ButtonTalk {
		t.Fatalf("buttons %#x while talking", cmd.Buttons)
	}
}

func TestConsoleCommands(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  bg.UserCmd
		print string
	}{
		{"typed +attack holds", "+attack", bg.UserCmd{Buttons: bg.ButtonAttack}, ""},
		{"typed -attack unsticks", "+attack 5 50; +attack 6 60; -attack", bg.UserCmd{Buttons: bg.ButtonAttack}, ""},
		{"button1", "+button1 7 50", bg.UserCmd{Buttons: bg.ButtonTalk}, ""},
		{"button2", "+button2 7 50", bg.UserCmd{Buttons: bg.ButtonWalk}, ""},
		{"third key", "+moveup 1 50; +moveup 2 50; +moveup 3 50", bg.UserCmd{UpMove: 127}, "three keys down for +moveup\n"},
		{"weapon", "weapon 3", bg.UserCmd{Weapon: 3}, ""},
		{"weapon out of range", "weapon 9", bg.UserCmd{}, "usage: weapon <1-5>\n"},
		{"weapon not a number", "weapon x", bg.UserCmd{}, "usage: weapon <1-5>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			var out strings.Builder
			tbl := console.NewTable()
			tbl.SetOutput(&out)
			s.AddCommands(tbl)
			s.CreateCmd(100, 0, 0, nil)
			tbl.Append(tt.lines)
			tbl.Execute()
			got := s.CreateCmd(200, 0, 0, nil)
			// A tap from the console fires but then lets go.
			if tt.name == "typed -attack unsticks" {
				if s.Buttons[0].Active() {
					t.Error("-attack without a key left the button down")
				}
			}
			if got != tt.want {
				t.Errorf("usercmd %+v, want %+v", got, tt.want)
			}
			if out.String() != tt.print {
				t.Errorf("printed %q, want %q", out.String(), tt.print)
			}
		})
	}
}

func TestCreateCmdAllocs(t *testing.T) {
	var s State
	ps := &bg.PlayerState{Weapon: bg.WPMachinegun}
	ps.Stats[bg.StatWeapons] = 1<<bg.WPMachinegun | 1<<bg.WPRailgun
	s.MoveLeft.Down(1, 0)
	s.Buttons[0].Down(2, 0)
	now := int32(0)
	allocs := testing.AllocsPerRun(100, func() {
		now += 8
		s.weaponSteps = 1
		_ = s.CreateCmd(now, 3, 4, ps)
	})
	if allocs != 0 {
		t.Fatalf("CreateCmd allocates %v times", allocs)
	}
}

func BenchmarkCreateCmd(b *testing.B) {
	var s State
	ps := &bg.PlayerState{Weapon: bg.WPMachinegun}
	s.MoveLeft.Down(1, 0)
	b.ReportAllocs()
	now := int32(0)
	for b.Loop() {
		now += 8
		_ = s.CreateCmd(now, 3, 4, ps)
	}
}

func TestNextWeapon(t *testing.T) {
	tests := []struct {
		name       string
		owned, cur int32
		dir        int
		want       int32
	}{
		{"wraps up", 1<<1 | 1<<5, 5, 1, 1},
		{"wraps down", 1<<1 | 1<<5, 1, -1, 5},
		{"only one", 1 << 2, 2, 1, 2},
		{"none", 0, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NextWeapon(tt.owned, tt.cur, tt.dir); got != tt.want {
				t.Errorf("NextWeapon = %d, want %d", got, tt.want)
			}
		})
	}
}
