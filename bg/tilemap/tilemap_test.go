package tilemap

import (
	"errors"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// sample is a small valid map that uses every feature of the format.
const sample = `# a test arena
name "Test Box"   # display name
author "Tremor"
players 2 4
teleport 1 1 2
teleport 2 5 1
pad 6 4 100 -950
grid
############
#S..  ....2#
#.........1#
#==.+*aARGL#
#..^..^LMrg#
#.~~l..m.QS#
############
end
# trailing comment
`

func mustParse(t testing.TB, name, src string) *Map {
	t.Helper()
	m, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseSample(t *testing.T) {
	m := mustParse(t, "test.map", sample)
	if m.Name != "Test Box" || m.Author != "Tremor" || m.MinPlayers != 2 || m.MaxPlayers != 4 {
		t.Errorf("header = %q %q %d %d", m.Name, m.Author, m.MinPlayers, m.MaxPlayers)
	}
	if m.Width != 12 || m.Height != 7 {
		t.Errorf("size = %dx%d, want 12x7", m.Width, m.Height)
	}
	if want := []Point{{1, 1}, {10, 5}}; !reflect.DeepEqual(m.Spawns, want) {
		t.Errorf("Spawns = %v, want %v", m.Spawns, want)
	}
	wantItems := []ItemSpawn{
		{"item_health", Point{4, 3}}, {"item_health_mega", Point{5, 3}},
		{"item_armor_shard", Point{6, 3}}, {"item_armor_body", Point{7, 3}},
		{"weapon_rocketlauncher", Point{8, 3}}, {"weapon_grenadelauncher", Point{9, 3}},
		{"weapon_railgun", Point{10, 3}},
		{"weapon_railgun", Point{7, 4}}, {"weapon_machinegun", Point{8, 4}},
		{"ammo_rockets", Point{9, 4}}, {"ammo_grenades", Point{10, 4}},
		{"ammo_slugs", Point{4, 5}}, {"ammo_bullets", Point{7, 5}}, {"item_quad", Point{9, 5}},
	}
	if !reflect.DeepEqual(m.Items, wantItems) {
		t.Errorf("Items = %v\nwant %v", m.Items, wantItems)
	}
	if want := []JumpPad{{Point{3, 4}, 0, -900}, {Point{6, 4}, 100, -950}}; !reflect.DeepEqual(m.Pads, want) {
		t.Errorf("Pads = %v, want %v", m.Pads, want)
	}
	wantTele := []Teleporter{{Point{10, 1}, 2, Point{5, 1}}, {Point{10, 2}, 1, Point{1, 2}}}
	if !reflect.DeepEqual(m.Teleporters, wantTele) {
		t.Errorf("Teleporters = %v, want %v", m.Teleporters, wantTele)
	}
	tests := []struct {
		x, y int
		want Tile
	}{
		{0, 0, Solid}, {1, 1, Empty}, {4, 1, Empty}, {1, 3, Platform}, {2, 5, Lava},
		{3, 4, Empty}, {10, 2, Empty}, {4, 3, Empty}, {10, 5, Empty},
		{-1, 0, Solid}, {0, -1, Solid}, {12, 1, Solid}, {1, 7, Solid}, {-1 << 40, 3, Solid}, {3, 1 << 40, Solid},
	}
	for _, tt := range tests {
		if got := m.At(tt.x, tt.y); got != tt.want {
			t.Errorf("At(%d, %d) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

func TestPadAndTeleporterAt(t *testing.T) {
	m := mustParse(t, "test.map", sample)
	for _, p := range m.Pads {
		got, ok := m.PadAt(p.At.X, p.At.Y)
		if !ok || got != p {
			t.Errorf("PadAt(%v) = %v, %v; want %v", p.At, got, ok, p)
		}
	}
	for _, tp := range m.Teleporters {
		got, ok := m.TeleporterAt(tp.At.X, tp.At.Y)
		if !ok || got != tp {
			t.Errorf("TeleporterAt(%v) = %v, %v; want %v", tp.At, got, ok, tp)
		}
	}
	pads, teles := 0, 0
	for y := -2; y < m.Height+2; y++ {
		for x := -2; x < m.Width+2; x++ {
			if _, ok := m.PadAt(x, y); ok {
				pads++
			}
			if _, ok := m.TeleporterAt(x, y); ok {
				teles++
			}
		}
	}
	if pads != len(m.Pads) || teles != len(m.Teleporters) {
		t.Errorf("found %d pads and %d teleporters by tile, want %d and %d", pads, teles, len(m.Pads), len(m.Teleporters))
	}
}

func TestParseErrors(t *testing.T) {
	const ok = "grid\n.SS.\nend\n" // a minimal grid after a name line
	long := strings.Repeat("x", MaxLineLen+1)
	tests := []struct {
		name, src, want string
	}{
		{"missing name", ok, "t.map: missing name directive"},
		{"empty name", "name \"\"\n" + ok, "t.map:1: empty name"},
		{"blank name", "name \"  \"\n" + ok, "t.map:1: empty name"},
		{"no grid", "name \"x\"\n", "t.map: no grid"},
		{"empty file", "", "t.map: no grid"},
		{"no end", "name \"x\"\ngrid\n.SS.\n", "t.map:3: grid not closed"},
		{"empty grid", "name \"x\"\ngrid\nend\n", "t.map:3: empty grid"},
		{"ragged short", "name \"x\"\ngrid\n.SS.\n.S.\nend\n", "t.map:4: ragged grid: row is 3 tiles wide, first row 4"},
		{"ragged long", "name \"x\"\ngrid\n.SS.\n.S...\nend\n", "t.map:4: ragged grid"},
		{"blank line in grid", "name \"x\"\ngrid\n.SS.\n\n.SS.\nend\n", "t.map:4: blank line in grid"},
		{"too wide", "name \"x\"\ngrid\nSS" + strings.Repeat(".", MaxWidth-1) + "\nend\n", "t.map:3: grid wider than 512 tiles"},
		{"too tall", "name \"x\"\ngrid\n" + strings.Repeat(".SS.\n", MaxHeight+1) + "end\n", "t.map:259: grid taller than 256 tiles"},
		{"unknown tile", "name \"x\"\ngrid\n.SS.\n.SSx\nend\n", "t.map:4:4: unknown tile 'x'"},
		{"unknown tile tab", "name \"x\"\ngrid\n\t.SS\nend\n", `t.map:3:1: unknown tile '\t'`},
		{"unknown tile digit 0", "name \"x\"\ngrid\n0.SS\nend\n", "t.map:3:1: unknown tile '0'"},
		{"unknown tile utf8", "name \"x\"\ngrid\n.SSé\nend\n", "t.map:3:4: unknown tile 'é'"},
		{"unknown tile bad byte", "name \"x\"\ngrid\n.S\xffS\nend\n", "t.map:3:3: unknown tile byte 0xff"},
		{"no spawn", "name \"x\"\ngrid\n....\nend\n", "t.map: 0 spawn points ('S'), need at least 2"},
		{"one spawn", "name \"x\"\ngrid\n..S.\nend\n", "t.map: 1 spawn points"},
		{"teleport without entrance", "name \"x\"\nteleport 1 0 0\n" + ok, "t.map:2: teleport 1 has no entrance '1' in the grid"},
		{"entrance without teleport", "name \"x\"\nteleport 1 0 0\ngrid\n1SS3\nend\n", "t.map:4:4: teleporter entrance '3' has no teleport directive"},
		{"teleport out of grid x", "name \"x\"\nteleport 1 4 0\ngrid\n1SS.\nend\n", "t.map:2: teleport 1 destination (4,0) outside the 4x1 grid"},
		{"teleport out of grid y", "name \"x\"\nteleport 1 0 1\ngrid\n1SS.\nend\n", "t.map:2: teleport 1 destination (0,1) outside"},
		{"teleport into solid", "name \"x\"\nteleport 1 3 0\ngrid\n1SS#\nend\n", "t.map:2: teleport 1 destination (3,0) is solid, not empty"},
		{"teleport into platform", "name \"x\"\nteleport 1 3 0\ngrid\n1SS=\nend\n", "is platform, not empty"},
		{"teleport into lava", "name \"x\"\nteleport 1 3 0\ngrid\n1SS~\nend\n", "is lava, not empty"},
		{"teleport into entrance", "name \"x\"\nteleport 1 0 0\ngrid\n1SS.\nend\n", "t.map:2: teleport 1 destination (0,0) is a teleporter entrance"},
		{"teleport channel 0", "name \"x\"\nteleport 0 1 0\n" + ok, "t.map:2: number 0 out of range [1, 9]"},
		{"teleport channel 10", "name \"x\"\nteleport 10 1 0\n" + ok, "t.map:2: number 10 out of range [1, 9]"},
		{"teleport negative", "name \"x\"\nteleport 1 -1 0\n" + ok, "t.map:2: number -1 out of range"},
		{"duplicate teleport", "name \"x\"\nteleport 1 1 0\nteleport 1 2 0\ngrid\n1SS.\nend\n", "t.map:3: duplicate teleport directive for channel 1 (first on line 2)"},
		{"pad not on pad", "name \"x\"\npad 1 0 0 -500\ngrid\n^SS.\nend\n", "t.map:2: pad (1,0) is not on a '^' tile"},
		{"pad outside grid", "name \"x\"\npad 9 9 0 -500\ngrid\n^SS.\nend\n", "t.map:2: pad (9,9) is not on a '^' tile"},
		{"pad too fast", "name \"x\"\npad 0 0 0 -10001\ngrid\n^SS.\nend\n", "t.map:2: number -10001 out of range [-10000, 10000]"},
		{"duplicate pad", "name \"x\"\npad 0 0 0 -500\npad 0 0 0 -600\ngrid\n^SS.\nend\n", "t.map:3: duplicate pad directive for tile (0,0) (first on line 2)"},
		{"duplicate name", "name \"x\"\nname \"y\"\n" + ok, "t.map:2: duplicate name directive (first on line 1)"},
		{"duplicate author", "name \"x\"\nauthor a\nauthor b\n" + ok, "t.map:3: duplicate author directive (first on line 2)"},
		{"duplicate players", "name \"x\"\nplayers 2 4\nplayers 2 4\n" + ok, "t.map:3: duplicate players directive"},
		{"players not a number", "name \"x\"\nplayers two 4\n" + ok, `t.map:2: bad number "two"`},
		{"players reversed", "name \"x\"\nplayers 4 2\n" + ok, "t.map:2: number 2 out of range [4, 64]"},
		{"players zero", "name \"x\"\nplayers 0 2\n" + ok, "t.map:2: number 0 out of range [1, 64]"},
		{"players too many", "name \"x\"\nplayers 2 65\n" + ok, "t.map:2: number 65 out of range"},
		{"number overflow", "name \"x\"\npad 0 0 0 99999999999999999999\n" + ok, `bad number "99999999999999999999"`},
		{"number float", "name \"x\"\npad 0 0 0 -9.5\n" + ok, `bad number "-9.5"`},
		{"too few arguments", "name \"x\"\nplayers 2\n" + ok, "t.map:2: players takes 2 arguments, have 1"},
		{"too many arguments", "name \"x\" \"y\"\n" + ok, "t.map:1: name takes 1 arguments, have 2"},
		{"grid with argument", "name \"x\"\ngrid 4\n.SS.\nend\n", "t.map:2: grid takes 0 arguments"},
		{"unknown directive", "name \"x\"\ncolour red\n" + ok, `t.map:2: unknown directive "colour"`},
		{"unterminated string", "name \"abc\n" + ok, "t.map:1:6: unterminated string"},
		{"text after quote", "name \"abc\"d\n" + ok, "t.map:1:11: text after closing quote"},
		{"control character", "name \"a\tb\"\n" + ok, "t.map:1: control character in name"},
		{"invalid utf8 name", "name \"a\xffb\"\n" + ok, "t.map:1: name is not valid UTF-8"},
		{"long comment line", "#" + long + "\nname \"x\"\n" + ok, "t.map:1: line longer than 4096 bytes"},
		{"long grid line", "name \"x\"\ngrid\n" + long + "\nend\n", "t.map:3: line longer than 4096 bytes"},
		{"text after end", "name \"x\"\n" + ok + "\n# fine\nmore\n", "t.map:7: text after end"},
		{"file too large", "name \"x\"\n" + ok + strings.Repeat("#\n", MaxFileSize/2), "t.map: file larger than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse("t.map", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded (%dx%d), want error %q", m.Width, m.Height, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "tilemap: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{"bare name", "name Arena\ngrid\n.SS.\nend\n"},
		{"no trailing newline", "name \"x\"\ngrid\n.SS.\nend"},
		{"byte order mark", "\uFEFFname \"x\"\ngrid\n.SS.\nend\n"},
		{"crlf", "name \"x\"\r\ngrid\r\n.SS.\r\nend\r\n"},
		{"spaces are empty", "name \"x\"\ngrid\n S S \nend\n"},
		{"comment glued to quote", "name \"a # b\"# comment\ngrid\n.SS.\nend\n"},
		{"indented directives", "  name\t\"x\"  \n\tgrid\n.SS.\n  end  \n"},
		{"largest grid", "name \"x\"\ngrid\nSS" + strings.Repeat(".", MaxWidth-2) + "\n" + strings.Repeat(strings.Repeat("#", MaxWidth)+"\n", MaxHeight-1) + "end\n"},
		{"longest line", "#" + strings.Repeat("x", MaxLineLen-1) + "\nname \"x\"\ngrid\n.SS.\nend\n"},
		{"all channels", "name \"x\"\nteleport 1 0 1\nteleport 2 0 1\nteleport 3 0 1\nteleport 4 0 1\nteleport 5 0 1\nteleport 6 0 1\nteleport 7 0 1\nteleport 8 0 1\nteleport 9 0 1\ngrid\n123456789\nSS.......\nend\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse("t.map", []byte(tt.src)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	m := mustParse(t, "t.map", "name Arena\ngrid\n^SS.\nend\n")
	if m.Name != "Arena" || m.Author != "" || m.MinPlayers != 0 || m.MaxPlayers != 0 {
		t.Errorf("header = %q %q %d %d", m.Name, m.Author, m.MinPlayers, m.MaxPlayers)
	}
	if p, ok := m.PadAt(0, 0); !ok || p.VX != DefaultPadVX || p.VY != DefaultPadVY {
		t.Errorf("PadAt(0, 0) = %v, %v; want the default velocity", p, ok)
	}
	if m.Items != nil || m.Teleporters != nil {
		t.Errorf("Items = %v, Teleporters = %v, want none", m.Items, m.Teleporters)
	}
}

// sameMap reports whether a and b are equal except for Checksum.
func sameMap(a, b *Map) bool {
	x, y := *a, *b
	x.Checksum, y.Checksum = 0, 0
	return reflect.DeepEqual(x, y)
}

func TestStringRoundTrip(t *testing.T) {
	tests := []struct{ name, src string }{
		{"sample", sample},
		{"defaults", "name Arena\ngrid\n^SS.\nend\n"},
		{"default pad given", "name \"x\"\npad 0 0 0 -900\ngrid\n^SS.\nend\n"},
		{"spaces", "name \" spaced # name \"\nauthor \"\"\ngrid\n S S \n  ~= \nend\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustParse(t, "a.map", tt.src)
			s := m.String()
			m2, err := Parse("b.map", []byte(s))
			if err != nil {
				t.Fatalf("Parse(String()): %v\n%s", err, s)
			}
			if !sameMap(m, m2) {
				t.Errorf("Parse(String()) differs:\n%+v\n%+v", m, m2)
			}
			if s2 := m2.String(); s2 != s {
				t.Errorf("String not canonical:\n%s\n%s", s, s2)
			}
		})
	}
}

func TestStringSample(t *testing.T) {
	const want = `name "Test Box"
author "Tremor"
players 2 4
teleport 1 1 2
teleport 2 5 1
pad 6 4 100 -950
grid
############
#S........2#
#.........1#
#==.+*aARGL#
#..^..^LMrg#
#.~~l..m.QS#
############
end
`
	if got := mustParse(t, "test.map", sample).String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestChecksum(t *testing.T) {
	base := mustParse(t, "t.map", sample)
	crlf := mustParse(t, "t.map", strings.ReplaceAll(sample, "\n", "\r\n"))
	if base.Checksum != crlf.Checksum {
		t.Errorf("checksum changed with CRLF line endings: %08x vs %08x", base.Checksum, crlf.Checksum)
	}
	if !sameMap(base, crlf) {
		t.Error("CRLF file parses to a different map")
	}
	edited := mustParse(t, "t.map", strings.Replace(sample, "#.........1#", "#....#....1#", 1))
	if edited.At(5, 2) != Solid || base.Checksum == edited.Checksum {
		t.Errorf("checksum unchanged (%08x) when a tile changed", base.Checksum)
	}
	commented := mustParse(t, "t.map", sample+"# another comment\n")
	if base.Checksum == commented.Checksum {
		t.Error("checksum unchanged when the file changed")
	}
	if got := checksum([]byte("a\r\nb\rc\r\n\r\n")); got != checksum([]byte("a\nb\rc\n\n")) {
		t.Errorf("checksum does not normalise CRLF only: %08x", got)
	}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"box.map":  {Data: []byte(sample)},
		"huge.map": {Data: make([]byte, MaxFileSize+100)},
	}
	m, err := Load(fsys, "box")
	if err != nil || m.Name != "Test Box" {
		t.Fatalf("Load(box) = %v, %v", m, err)
	}
	if _, err := Load(fsys, "missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) error = %v, want fs.ErrNotExist", err)
	}
	if _, err := Load(fsys, "huge"); err == nil || !strings.Contains(err.Error(), "huge.map: file larger than") {
		t.Errorf("Load(huge) error = %v", err)
	}
	if _, err := Load(fsys, "../box"); err == nil {
		t.Error("Load(../box) succeeded")
	}
}

func TestAtAllocs(t *testing.T) {
	m := mustParse(t, "test.map", sample)
	var sink Tile
	allocs := testing.AllocsPerRun(100, func() {
		for y := -1; y <= m.Height; y++ {
			for x := -1; x <= m.Width; x++ {
				sink ^= m.At(x, y)
				if _, ok := m.PadAt(x, y); ok {
					sink++
				}
				if _, ok := m.TeleporterAt(x, y); ok {
					sink++
				}
			}
		}
	})
	if allocs != 0 {
		t.Errorf("At/PadAt/TeleporterAt allocate %v times per run, want 0", allocs)
	}
	_ = sink
}

func BenchmarkAt(b *testing.B) {
	m := mustParse(b, "test.map", sample)
	b.ReportAllocs()
	var sink Tile
	for i := 0; b.Loop(); i++ {
		sink ^= m.At(i%(m.Width+2)-1, (i/7)%(m.Height+2)-1)
	}
	_ = sink
}

func BenchmarkParse(b *testing.B) {
	data := []byte(sample)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("test.map", data); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte(strings.ReplaceAll(sample, "\n", "\r\n")))
	f.Add([]byte("name Arena\ngrid\n^SS.\nend\n"))
	f.Add([]byte("name \"x\"\nteleport 1 0 1\ngrid\n1SS\n...\nend\n"))
	f.Add([]byte("name \"x\"\npad 0 0 -5 -700\nplayers 1 64\ngrid\n^S\nS~\n=#\nend\n# c\n"))
	f.Add([]byte("name \"\"\ngrid\nend\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("fuzz.map", data)
		if err != nil {
			if m != nil {
				t.Fatal("Parse returned a map and an error")
			}
			return
		}
		if m.Width < 1 || m.Width > MaxWidth || m.Height < 1 || m.Height > MaxHeight || len(m.Spawns) < MinSpawns {
			t.Fatalf("accepted %dx%d map with %d spawns", m.Width, m.Height, len(m.Spawns))
		}
		s := m.String()
		m2, err := Parse("fuzz.map", []byte(s))
		if err != nil {
			t.Fatalf("Parse(String()): %v\n%s", err, s)
		}
		if !sameMap(m, m2) {
			t.Fatalf("Parse(String()) differs:\n%+v\n%+v", m, m2)
		}
		if s2 := m2.String(); s2 != s {
			t.Fatalf("String not canonical:\n%s\n%s", s, s2)
		}
	})
}

func TestVerifyChecksum(t *testing.T) {
	m, err := Parse("v.map", []byte("name \"V\"\ngrid\n#####\n#S.S#\n#####\nend\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.VerifyChecksum(strconv.FormatUint(uint64(m.Checksum), 10)); err != nil {
		t.Fatalf("own checksum refused: %v", err)
	}
	for _, bad := range []string{strconv.FormatUint(uint64(m.Checksum^1), 10), "", "x", "-1", "99999999999"} {
		err := m.VerifyChecksum(bad)
		if err == nil || !strings.Contains(err.Error(), "V") {
			t.Errorf("announced %q: err %v, want a refusal naming the map", bad, err)
		}
	}
}
