package console

import (
	"fmt"
	"slices"
)

// Store keeps the archived cvars between runs. The program binds it to
// its persistent storage (gdata); tests use a map.
type Store interface {
	// Load returns the saved name/value pairs; an empty store returns an
	// empty map and no error.
	Load() (map[string]string, error)
	// Save replaces the saved pairs with kv.
	Save(kv map[string]string) error
}

// LoadArchived sets cvars from the store, as Quake III executed the seta
// lines of its q3config.cfg: each cvar loaded becomes Archive, so one that
// a player archived with seta stays archived. ReadOnly and Init cvars are
// skipped, and Cheat cvars while cheats are off; a name that is not
// declared yet becomes an Archive user cvar, which a later
// [Table.Register] adopts. Values take effect at once, Latch or not, and
// go through the range checks; a value that fails them is skipped with a
// printed note. Call it after Register and before
// [Table.ExecuteCommandLine], so that the command line wins.
func (t *Table) LoadArchived(s Store) error {
	kv, err := s.Load()
	if err != nil {
		return fmt.Errorf("console: loading archived cvars: %w", err)
	}
	names := make([]string, 0, len(kv))
	for k := range kv {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		if c := t.Get(name); c != nil {
			f := c.Flags()
			if f&(ReadOnly|Init) != 0 {
				continue
			}
			if f&Cheat != 0 && !t.Cheats() && kv[name] != c.Default() {
				continue
			}
		}
		if err := t.set(name, kv[name], fromArchive, Archive); err != nil {
			t.Printf("%v; saved value skipped\n", err)
		}
	}
	return nil
}

// SaveArchived saves the Archive cvars whose value (or latched value)
// differs from their default, so that a default changed in a later
// version reaches players who never touched it. User cvars marked Archive
// by seta are always saved.
func (t *Table) SaveArchived(s Store) error {
	kv := make(map[string]string)
	t.mu.RLock()
	for _, c := range t.all {
		f := c.Flags()
		if f&Archive == 0 {
			continue
		}
		v := c.Value()
		if c.hasLatch {
			v = c.latched
		}
		if v != c.def || f&UserCreated != 0 {
			kv[c.name] = v
		}
	}
	t.mu.RUnlock()
	if err := s.Save(kv); err != nil {
		return fmt.Errorf("console: saving archived cvars: %w", err)
	}
	return nil
}
