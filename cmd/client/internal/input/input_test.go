package input

import (
	"testing"

	"tremor/bg"
)

func TestCommand(t *testing.T) {
	owned := int32(1<<bg.WPGauntlet | 1<<bg.WPMachinegun | 1<<bg.WPRailgun)
	ps := &bg.PlayerState{Weapon: bg.WPMachinegun}
	ps.Stats[bg.StatWeapons] = owned
	tests := []struct {
		name string
		in   Input
		want bg.UserCmd
	}{
		{"idle", Input{}, bg.UserCmd{}},
		{"right", Input{Right: true}, bg.UserCmd{RightMove: 127}},
		{"left", Input{Left: true}, bg.UserCmd{RightMove: -127}},
		{"both cancel", Input{Left: true, Right: true}, bg.UserCmd{}},
		{"jump", Input{Jump: true}, bg.UserCmd{UpMove: 127}},
		{"drop", Input{Drop: true}, bg.UserCmd{UpMove: -127}},
		{"fire", Input{Fire: true}, bg.UserCmd{Buttons: bg.ButtonAttack}},
		{"aim down", Input{AimY: 10}, bg.UserCmd{Aim: 16384}},
		{"aim left", Input{AimX: -3}, bg.UserCmd{Aim: 32768}},
		{"weapon key", Input{Weapon: 4}, bg.UserCmd{Weapon: 4}},
		{"wheel up skips unowned", Input{Wheel: 1}, bg.UserCmd{Weapon: bg.WPRailgun}},
		{"wheel down", Input{Wheel: -1}, bg.UserCmd{Weapon: bg.WPGauntlet}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			if got := s.Command(tt.in, ps); got != tt.want {
				t.Errorf("command(%+v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCommandKeepsAimAndWeapon(t *testing.T) {
	var s State
	s.Command(Input{AimX: -1, Weapon: 5}, nil)
	got := s.Command(Input{}, nil)
	if got.Aim != 32768 || got.Weapon != 5 {
		t.Fatalf("second frame %+v: want the aim and weapon kept", got)
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
