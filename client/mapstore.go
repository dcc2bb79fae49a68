package client

import (
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"tremor/bg/tilemap"
	"tremor/maps/arenas"
)

// Downloaded maps (docs/download.md). A map downloaded from a server is
// kept apart from the player's own maps and from the built-in ones, in
// the folder DownloadDir of the map directory, under its name and
// checksum: MapDir/downloads/NAME-CHECKSUM.map (CHECKSUM in decimal, as
// the gamestate's configstring gives it). It is used only when a
// gamestate names that map with that checksum, and only when neither the
// map directory's NAME.map nor the built-in arena of that name has it.
// The local server (sv_mapdir) reads NAME.map files only, never this
// folder, so a download cannot change what +map NAME plays; and a
// download writes nothing but its own file in its own folder, so it
// never replaces a file it did not write. The folder is bounded on disk
// (MaxStoredDownloads files, MaxStoredDownloadBytes bytes): after each
// download the least recently used ones go first, so reconnecting to
// servers that name map after map cannot fill a disk.

// Limits of the downloads folder.
const (
	// DownloadDir is the folder of the map directory downloads are
	// kept in.
	DownloadDir = "downloads"
	// MaxStoredDownloads is the most maps the downloads folder keeps.
	MaxStoredDownloads = 64
	// MaxStoredDownloadBytes is the most bytes its maps may take
	// together (32 of the largest maps; about 5000 of the built-in ones).
	MaxStoredDownloadBytes = 32 << 20
	// staleTempAge is the age past which a temporary file left in the
	// folder (by a client that stopped while it saved) is removed.
	staleTempAge = time.Hour
)

// downloadFile returns the file name map name with checksum is kept
// under in the downloads folder: NAME-CHECKSUM.map. name must be a plain
// map name (arenas.CheckName).
func downloadFile(name string, checksum uint32) (string, error) {
	if err := arenas.CheckName(name); err != nil {
		return "", err
	}
	return name + "-" + strconv.FormatUint(uint64(checksum), 10) + ".map", nil
}

// parseDownloadFile is downloadFile's inverse: the map name and checksum
// of a file name it gives, and false for any other name (a file the
// client did not write, which it leaves alone).
func parseDownloadFile(file string) (name string, checksum uint32, ok bool) {
	base, found := strings.CutSuffix(file, ".map")
	if !found {
		return "", 0, false
	}
	i := strings.LastIndexByte(base, '-')
	if i < 0 {
		return "", 0, false
	}
	name, digits := base[:i], base[i+1:]
	if digits == "" || len(digits) > 1 && digits[0] == '0' || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return "", 0, false // not as FormatUint writes it
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || arenas.CheckName(name) != nil {
		return "", 0, false
	}
	return name, uint32(n), true
}

// DownloadPath returns where a client whose map directory is mapDir
// keeps map name with checksum once downloaded:
// mapDir/downloads/NAME-CHECKSUM.map. It fails for a name that is not a
// plain map name.
func DownloadPath(mapDir, name string, checksum uint32) (string, error) {
	file, err := downloadFile(name, checksum)
	if err != nil {
		return "", err
	}
	return filepath.Join(mapDir, DownloadDir, file), nil
}

// openDownloads opens the downloads folder of the map directory dir
// through an os.Root on dir (a symbolic link named downloads that leads
// out of dir is refused), creating both when create is set.
func openDownloads(dir string, create bool) (*os.Root, error) {
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if create {
		if err := root.Mkdir(DownloadDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return root.OpenRoot(DownloadDir)
}

// loadDownloaded loads map name with checksum from the downloads folder
// of the map directory dir: the file must parse and have that checksum.
// Using it makes it the most recently used.
func loadDownloaded(dir, name string, checksum uint32) (*tilemap.Map, error) {
	file, err := downloadFile(name, checksum)
	if err != nil {
		return nil, err
	}
	root, err := openDownloads(dir, false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	m, err := tilemap.Load(root.FS(), strings.TrimSuffix(file, ".map"))
	if err != nil {
		return nil, err
	}
	if m.Checksum != checksum {
		return nil, fmt.Errorf("client: %s/%s has checksum %d", DownloadDir, file, m.Checksum)
	}
	now := time.Now()
	_ = root.Chtimes(file, now, now) // least recently used goes first
	return m, nil
}

// saveDownload writes map name's data, whose checksum the caller
// checked, to the downloads folder of the map directory dir, atomically
// (a temporary file, synced, then renamed: a crash leaves no half file),
// and then trims the folder to its limits, keeping the file just saved.
// Everything goes through an os.Root on the folder. It runs on the
// client's frame, once per download (at most MaxConnectionDownloads a
// connection), while the client is out of the game: the sync is kept
// there rather than in a goroutine (BenchmarkSaveMap, ext4 on a virtual
// disk: 0.3 ms for 6 KiB, 1.0 ms for 1 MiB).
func saveDownload(dir, name string, checksum uint32, data []byte) error {
	file, err := downloadFile(name, checksum)
	if err != nil {
		return err
	}
	root, err := openDownloads(dir, true)
	if err != nil {
		return err
	}
	defer root.Close()
	var rnd [6]byte
	_, _ = crand.Read(rnd[:])
	tmp := "." + file + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Only a file of the client's own naming can be there: one
		// that did not load with this checksum (a disk error).
		err = root.Rename(tmp, file)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return err
	}
	_, err = pruneDownloads(root, file, MaxStoredDownloads, MaxStoredDownloadBytes, time.Now())
	return err
}

// storedMap is one file of the downloads folder.
type storedMap struct {
	file string
	size int64
	used time.Time
}

// pruneDownloads removes the least recently used downloads of the
// folder root until at most maxFiles files of at most maxBytes bytes
// together are left, never keep (the map just saved), and temporary
// files older than staleTempAge. Files of other names (not written by
// the client) are neither counted nor removed. It returns the files
// removed.
func pruneDownloads(root *os.Root, keep string, maxFiles int, maxBytes int64, now time.Time) ([]string, error) {
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, err
	}
	var stored []storedMap
	var removed []string
	var total int64
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp") {
			if now.Sub(info.ModTime()) > staleTempAge && root.Remove(name) == nil {
				removed = append(removed, name)
			}
			continue
		}
		if _, _, ok := parseDownloadFile(name); !ok {
			continue
		}
		stored = append(stored, storedMap{name, info.Size(), info.ModTime()})
		total += info.Size()
	}
	slices.SortFunc(stored, func(a, b storedMap) int {
		if c := a.used.Compare(b.used); c != 0 {
			return c
		}
		return strings.Compare(a.file, b.file)
	})
	n := len(stored)
	for _, s := range stored {
		if n <= maxFiles && total <= maxBytes {
			break
		}
		if s.file == keep {
			continue
		}
		if err := root.Remove(s.file); err != nil {
			return removed, err
		}
		removed = append(removed, s.file)
		n--
		total -= s.size
	}
	return removed, nil
}

// downloaded returns the downloads folder's copy of map name with the
// announced checksum, or nil when there is none (or no map directory).
func (c *Client) downloaded(name, announced string) *tilemap.Map {
	sum, err := strconv.ParseUint(announced, 10, 32)
	if c.cfg.MapDir == "" || err != nil {
		return nil
	}
	m, err := loadDownloaded(c.cfg.MapDir, name, uint32(sum))
	if err != nil {
		return nil
	}
	return m
}
