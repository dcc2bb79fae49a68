package arenas

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tremor/bg/tilemap"
)

// shipped describes what each shipped arena promises.
var shipped = []struct {
	name              string
	minW, maxW        int
	minH, maxH        int
	minSpawns         int
	pads, teleporters int // at least
	classes           []string
}{
	{"duel1", 36, 44, 20, 24, 4, 2, 2, []string{"weapon_rocketlauncher", "item_health", "item_armor_body"}},
	{"arena1", 56, 72, 30, 38, 8, 2, 2, []string{
		"weapon_machinegun", "weapon_rocketlauncher", "weapon_grenadelauncher", "weapon_railgun",
		"ammo_bullets", "ammo_rockets", "ammo_grenades", "ammo_slugs",
		"item_health", "item_health_mega", "item_armor_shard", "item_armor_body", "item_quad"}},
	{"arena2", 90, 110, 42, 54, 16, 4, 4, []string{
		"weapon_machinegun", "weapon_rocketlauncher", "weapon_grenadelauncher", "weapon_railgun",
		"ammo_bullets", "ammo_rockets", "ammo_grenades", "ammo_slugs",
		"item_health", "item_health_mega", "item_armor_shard", "item_armor_body", "item_quad"}},
}

// gravities (px/s²) the connectivity of every arena is checked under: the
// default pad rises about 10, 8 and 6 tiles.
var gravities = []float64{1280, 1600, 2000}

func TestNames(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	for _, s := range shipped {
		if !slices.Contains(names, s.name) {
			t.Errorf("Names() = %v, missing %s", names, s.name)
		}
	}
}

func TestShippedArenas(t *testing.T) {
	for _, s := range shipped {
		t.Run(s.name, func(t *testing.T) {
			m, err := Load(s.name)
			if err != nil {
				t.Fatal(err)
			}
			if m.Width < s.minW || m.Width > s.maxW || m.Height < s.minH || m.Height > s.maxH {
				t.Errorf("size %dx%d, want %d..%d x %d..%d", m.Width, m.Height, s.minW, s.maxW, s.minH, s.maxH)
			}
			if m.MinPlayers < 2 || m.MaxPlayers < m.MinPlayers {
				t.Errorf("players %d %d", m.MinPlayers, m.MaxPlayers)
			}
			if len(m.Spawns) < max(s.minSpawns, m.MinPlayers) {
				t.Errorf("%d spawns, want at least %d and the %d min players", len(m.Spawns), s.minSpawns, m.MinPlayers)
			}
			if len(m.Pads) < s.pads {
				t.Errorf("%d jump pads, want at least %d", len(m.Pads), s.pads)
			}
			if len(m.Teleporters) < s.teleporters {
				t.Errorf("%d teleporter tiles, want at least %d", len(m.Teleporters), s.teleporters)
			}
			for _, c := range s.classes {
				if !slices.ContainsFunc(m.Items, func(it tilemap.ItemSpawn) bool { return it.Class == c }) {
					t.Errorf("no %s", c)
				}
			}
			checkPlayable(t, m)
		})
	}
}

// checkPlayable checks the design rules docs/maps.md lists on m: spawns
// with floor and headroom, teleporter destinations one can stand in,
// three tiles of headroom above every floor, and everything connected
// under every gravity of gravities.
func checkPlayable(t *testing.T, m *tilemap.Map) {
	t.Helper()
	for _, p := range m.Spawns {
		if f := m.At(p.X, p.Y+1); p.Y+1 >= m.Height || (f != tilemap.Solid && f != tilemap.Platform) {
			t.Errorf("spawn %v has no floor below", p)
		}
		if m.At(p.X, p.Y-1) != tilemap.Empty {
			t.Errorf("spawn %v has no headroom", p)
		}
	}
	for _, tp := range m.Teleporters {
		d := tp.Dest
		if m.At(d.X, d.Y) != tilemap.Empty || m.At(d.X, d.Y-1) != tilemap.Empty {
			t.Errorf("teleporter %d destination %v is not two empty tiles", tp.Channel, d)
		}
		floor := false
		for y := d.Y + 1; y < m.Height; y++ {
			if f := m.At(d.X, y); f == tilemap.Solid || f == tilemap.Platform {
				floor = true
				break
			}
		}
		if !floor {
			t.Errorf("teleporter %d destination %v has no floor below it", tp.Channel, d)
		}
	}
	// Headroom: above every floor surface, three tiles a player can
	// walk into.
	for y := 0; y < m.Height; y++ {
		for x := 0; x < m.Width; x++ {
			if f := m.At(x, y); (f != tilemap.Solid && f != tilemap.Platform) || m.At(x, y-1) != tilemap.Empty {
				continue
			}
			if m.At(x, y-2) != tilemap.Empty || m.At(x, y-3) != tilemap.Empty {
				t.Errorf("floor at (%d,%d) has less than 3 tiles of headroom", x, y)
			}
		}
	}
	for _, g := range gravities {
		r := newReach(m, newModel(g))
		if p := r.problems(); len(p) > 0 {
			t.Errorf("gravity %v px/s²: %d problems:\n%s\n%s", g, len(p), strings.Join(p, "\n"), r.dump())
		}
	}
}

func TestChecksumMatchesFile(t *testing.T) {
	for _, name := range Names() {
		data, err := os.ReadFile(name + ".map")
		if err != nil {
			t.Fatal(err)
		}
		m, err := tilemap.Parse(name+".map", data)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if e.Checksum != m.Checksum {
			t.Errorf("%s: embedded checksum %08x, file %08x", name, e.Checksum, m.Checksum)
		}
	}
}

func TestLoadFrom(t *testing.T) {
	dir := t.TempDir()
	const custom = "name \"Custom Duel\"\ngrid\n.SS.\n####\nend\n"
	if err := os.WriteFile(filepath.Join(dir, "duel1.map"), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.map"), []byte(custom), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.map"), []byte("name \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	embedded, err := Load("arena1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, name, want, err string
	}{
		{dir, "duel1", "Custom Duel", ""},                     // the directory wins
		{dir, "mine", "Custom Duel", ""},                      // a new map
		{dir, "arena1", embedded.Name, ""},                    // falls back to the embedded set
		{"", "duel1", "Duel Pit", ""},                         // no directory
		{filepath.Join(dir, "nope"), "duel1", "Duel Pit", ""}, // missing directory
		{dir, "broken", "", "broken.map: no grid"},            // a broken file is an error
		{dir, "nothing", "", "file does not exist"},           // in neither
		{dir, "../duel1", "", "invalid map name"},
		{dir, "a/b", "", "invalid map name"},
		{dir, "", "", "invalid map name"},
		{dir, ".hidden", "", "invalid map name"},
	}
	for _, tt := range tests {
		t.Run(tt.dir+"|"+tt.name, func(t *testing.T) {
			m, err := LoadFrom(tt.dir, tt.name)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("LoadFrom error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != tt.want {
				t.Errorf("loaded %q, want %q", m.Name, tt.want)
			}
		})
	}
}

// TestDump prints every arena with the places reached from spawn 0, when
// TREMOR_MAPDUMP is set (a map maker's aid).
func TestDump(t *testing.T) {
	if os.Getenv("TREMOR_MAPDUMP") == "" {
		t.Skip("set TREMOR_MAPDUMP=1 to print the arenas")
	}
	for _, name := range Names() {
		m, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", name, newReach(m, newModel(1600)).dump())
	}
}

// TestReachModel checks the movement model used for connectivity on small
// maps with known answers, so that a pass on the shipped arenas means
// something.
func TestReachModel(t *testing.T) {
	tests := []struct {
		name  string
		extra string // directives
		grid  string
		reach bool // spawn 0 can reach spawn 1
	}{
		{"flat", "", `
..........
..........
..........
S.......S.
##########`, true},
		{"gap 4", "", `
...............
...............
...............
S.........S....
#####....######
#####....######`, true},
		{"gap 7", "", `
..................
..................
..................
S............S....
#####.......######
#####.......######`, false},
		{"step up 2", "", `
..........
..........
..........
.......S..
S...######
##########`, true},
		{"step up 4", "", `
..........
..........
..........
.......S..
.....#####
.....#####
S....#####
##########`, false},
		{"lava in the way", "", `
..............
..............
..............
S..~~~~~~~~.S.
##############`, false},
		{"platform 4 up", "", `
..........
..........
..........
.....S....
...=====..
..........
..........
S.........
##########`, false},
		{"pad through platform", "", `
..........
..........
..........
.....S....
...=====..
..........
..........
S...^.....
##########`, true},
		{"weak pad", "pad 4 7 0 -500", `
..........
..........
..........
.....S....
...=====..
..........
..........
S...^.....
##########`, false},
		{"wall", "", `
.....#....
.....#....
.....#....
.....#....
S....#..S.
##########`, false},
		{"teleporter", "teleport 1 7 4", `
.....#....
.....#....
.....#....
.....#....
S..1.#..S.
##########`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "name t\n" + tt.extra + "\ngrid" + tt.grid + "\nend\n"
			m, err := tilemap.Parse("t.map", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range gravities {
				r := newReach(m, newModel(g))
				s0, s1 := m.Spawns[0], m.Spawns[1]
				if s0.X != 0 {
					s0, s1 = s1, s0
				}
				got := r.from(s0.Y*m.Width + s0.X)[s1.Y*m.Width+s1.X]
				if got != tt.reach {
					t.Errorf("gravity %v: reach = %v, want %v\n%s", g, got, tt.reach, r.dump())
				}
			}
		})
	}
}
