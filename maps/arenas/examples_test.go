package arenas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tremor/bg/tilemap"
)

// TestExampleMaps holds the maps of maps/examples, which are not
// embedded (a server serves them from sv_mapdir, and clients download
// them), to the rules of the shipped arenas: they parse, are not built
// in, and are playable.
func TestExampleMaps(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "*.map"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no example map in maps/examples")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".map")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := tilemap.Parse(name+".map", data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Load(name); err == nil {
				t.Errorf("%s is embedded: an example must not be built in", name)
			}
			if m.MinPlayers < 2 || len(m.Spawns) < m.MaxPlayers {
				t.Errorf("players %d-%d with %d spawns", m.MinPlayers, m.MaxPlayers, len(m.Spawns))
			}
			checkPlayable(t, m)
			l, err := LoadFrom(filepath.Dir(f), name)
			if err != nil || l.Checksum != m.Checksum {
				t.Errorf("LoadFrom(%s): checksum %v, error %v; the file's checksum %d", filepath.Dir(f), l, err, m.Checksum)
			}
		})
	}
}
