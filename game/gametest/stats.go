package gametest

import (
	"fmt"
	"strings"

	"tremor/bg"
)

// Stats is what happened in a harness run, counted from the game's log
// (game.LogEntry), across map restarts. Per-client arrays are indexed by
// client number; a slot reused by a new client adds to the old counts.
type Stats struct {
	Frames  int // server frames run
	Matches int // matches started: 1 + restarts

	Frags    [bg.MaxClients]int // kills of other players credited to the client (teamkills included)
	Deaths   [bg.MaxClients]int // deaths of the client, by any means
	Suicides [bg.MaxClients]int // deaths by the client's own hand or the world's (each −1 frag)

	KillsByMOD [bg.NumMODs]int // deaths by means of death
	Hits       [bg.NumMODs]int // damaging hits by means of death (splash counts per player)
	Damage     [bg.NumMODs]int // health taken by means of death (armor excluded)
	Shots      [bg.NumWeapons]int
	Pickups    []int // by item number (index into bg.Items)
	Chat       int   // say, say_team and tell lines relayed

	Exits []string // reasons the matches ended ("Fraglimit hit."...)
}

// TotalFrags returns the kills of other players, all clients together.
func (s *Stats) TotalFrags() int { return sum(s.Frags[:]) }

// TotalDeaths returns the deaths, all clients together.
func (s *Stats) TotalDeaths() int { return sum(s.Deaths[:]) }

// TotalPickups returns the items picked up.
func (s *Stats) TotalPickups() int { return sum(s.Pickups) }

// TotalShots returns the shots fired with every weapon.
func (s *Stats) TotalShots() int { return sum(s.Shots[:]) }

// String summarises the run on a few lines, for test logs.
func (s *Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "frames %d, matches %d, frags %d, deaths %d, shots %d, pickups %d\n",
		s.Frames, s.Matches, s.TotalFrags(), s.TotalDeaths(), s.TotalShots(), s.TotalPickups())
	b.WriteString("shots:")
	for w := bg.WPGauntlet; w < bg.NumWeapons; w++ {
		fmt.Fprintf(&b, " %s %d", bg.Weapons[w].Name, s.Shots[w])
	}
	b.WriteString("\nkills:")
	for m, n := range s.KillsByMOD {
		if n > 0 {
			fmt.Fprintf(&b, " %s %d", bg.MODNames[m], n)
		}
	}
	b.WriteString("\npickups:")
	for i, n := range s.Pickups {
		if n > 0 {
			fmt.Fprintf(&b, " %s %d", bg.Items[i].Class, n)
		}
	}
	b.WriteByte('\n')
	return b.String()
}

func sum(a []int) int {
	t := 0
	for _, v := range a {
		t += v
	}
	return t
}
