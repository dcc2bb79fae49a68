package tilemap

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"unicode/utf8"
)

// itemClasses maps a grid byte to the classname of the item it spawns.
var itemClasses = [256]string{
	'+': "item_health",
	'*': "item_health_mega",
	'a': "item_armor_shard",
	'A': "item_armor_body",
	'R': "weapon_rocketlauncher",
	'G': "weapon_grenadelauncher",
	'L': "weapon_railgun",
	'M': "weapon_machinegun",
	'r': "ammo_rockets",
	'g': "ammo_grenades",
	'l': "ammo_slugs",
	'm': "ammo_bullets",
	'Q': "item_quad",
}

// itemByte returns the grid byte of an item classname, 0 if it has none.
func itemByte(class string) byte {
	for b, c := range itemClasses {
		if c == class && c != "" {
			return byte(b)
		}
	}
	return 0
}

// validTile reports whether b may appear in a grid row.
func validTile(b byte) bool {
	switch {
	case b == '.', b == ' ', b == '#', b == '=', b == '~', b == 'S', b == '^':
		return true
	case b >= '1' && b <= '0'+MaxChannel:
		return true
	}
	return itemClasses[b] != ""
}

// checksum returns the CRC-32 (IEEE) of data with every CRLF read as LF.
func checksum(data []byte) uint32 {
	var crc uint32
	for {
		i := bytes.Index(data, []byte("\r\n"))
		if i < 0 {
			return crc32.Update(crc, crc32.IEEETable, data)
		}
		crc = crc32.Update(crc, crc32.IEEETable, data[:i])
		data = data[i+1:] // keep the '\n'
	}
}

// parser holds the state of one Parse call.
type parser struct {
	file string
	m    *Map

	nameLine, authorLine, playersLine int
	teleports                         [MaxChannel + 1]directive // by channel; line 0 = absent
	pads                              []directive
}

// directive is a teleport or pad directive, checked once the grid is known.
type directive struct {
	line     int
	at       Point // teleport destination or pad tile
	vx, vy   int   // pad velocity
	hasEntry bool  // teleport: the grid has an entrance for the channel
}

func (p *parser) errorf(line, col int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	switch {
	case line > 0 && col > 0:
		return fmt.Errorf("tilemap: %s:%d:%d: %s", p.file, line, col, msg)
	case line > 0:
		return fmt.Errorf("tilemap: %s:%d: %s", p.file, line, msg)
	}
	return fmt.Errorf("tilemap: %s: %s", p.file, msg)
}

// Parse parses the map file data. name is the file name used in error
// messages, for example "arena1.map". Errors name the line and, where it
// helps, the column: "tilemap: arena1.map:12:7: unknown tile 'x'".
func Parse(name string, data []byte) (*Map, error) {
	p := &parser{file: name, m: &Map{}}
	if len(data) > MaxFileSize {
		return nil, p.errorf(0, 0, "file larger than %d bytes", MaxFileSize)
	}
	p.m.Checksum = checksum(data)
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a byte order mark some editors write

	const (
		inHeader = iota
		inGrid
		afterGrid
	)
	state := inHeader
	var rows [][]byte // sub-slices of data
	gridLine := 0     // line number of the first row
	line := 0
	for rest := data; len(rest) > 0; {
		line++
		var text []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			text, rest = rest[:i], rest[i+1:]
		} else {
			text, rest = rest, nil
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		if len(text) > MaxLineLen {
			return nil, p.errorf(line, 0, "line longer than %d bytes", MaxLineLen)
		}
		switch state {
		case inHeader:
			isGrid, err := p.directive(line, string(text))
			if err != nil {
				return nil, err
			}
			if isGrid {
				state = inGrid
				gridLine = line + 1
			}
		case inGrid:
			if string(bytes.TrimSpace(text)) == "end" {
				if len(rows) == 0 {
					return nil, p.errorf(line, 0, "empty grid")
				}
				state = afterGrid
				continue
			}
			if err := p.row(line, text, rows); err != nil {
				return nil, err
			}
			rows = append(rows, text)
		case afterGrid:
			if t := bytes.TrimSpace(text); len(t) > 0 && t[0] != '#' {
				return nil, p.errorf(line, 0, "text after end")
			}
		}
	}
	switch state {
	case inHeader:
		return nil, p.errorf(0, 0, "no grid (a line \"grid\" must follow the directives)")
	case inGrid:
		return nil, p.errorf(line, 0, "grid not closed by a line \"end\"")
	}
	if p.nameLine == 0 {
		return nil, p.errorf(0, 0, "missing name directive")
	}
	if err := p.build(rows, gridLine); err != nil {
		return nil, err
	}
	return p.m, nil
}

// row checks one grid row against the rows before it.
func (p *parser) row(line int, text []byte, rows [][]byte) error {
	if len(text) == 0 {
		return p.errorf(line, 0, "blank line in grid")
	}
	if len(rows) == 0 {
		if len(text) > MaxWidth {
			return p.errorf(line, 0, "grid wider than %d tiles", MaxWidth)
		}
	} else if len(text) != len(rows[0]) {
		return p.errorf(line, 0, "ragged grid: row is %d tiles wide, first row %d", len(text), len(rows[0]))
	}
	if len(rows) == MaxHeight {
		return p.errorf(line, 0, "grid taller than %d tiles", MaxHeight)
	}
	for i, b := range text {
		if !validTile(b) {
			return p.errorf(line, i+1, "unknown tile %s", quoteByte(text[i:]))
		}
	}
	return nil
}

// quoteByte quotes the character starting at s[0] for an error message.
func quoteByte(s []byte) string {
	if s[0] < utf8.RuneSelf {
		return strconv.QuoteRune(rune(s[0]))
	}
	if r, _ := utf8.DecodeRune(s); r != utf8.RuneError {
		return strconv.QuoteRune(r)
	}
	return fmt.Sprintf("byte 0x%02x", s[0])
}

// directive parses one header line. It reports whether the line is "grid".
func (p *parser) directive(line int, text string) (bool, error) {
	args, err := p.fields(line, text)
	if err != nil || len(args) == 0 {
		return false, err
	}
	kw, args := args[0], args[1:]
	nargs := func(n int) error {
		if len(args) != n {
			return p.errorf(line, 0, "%s takes %d arguments, have %d", kw, n, len(args))
		}
		return nil
	}
	dup := func(first int) error {
		if first != 0 {
			return p.errorf(line, 0, "duplicate %s directive (first on line %d)", kw, first)
		}
		return nil
	}
	switch kw {
	case "grid":
		return true, nargs(0)
	case "name", "author":
		first := &p.nameLine
		if kw == "author" {
			first = &p.authorLine
		}
		if err := dup(*first); err != nil {
			return false, err
		}
		if err := nargs(1); err != nil {
			return false, err
		}
		*first = line
		s := args[0]
		if kw == "name" && strings.TrimSpace(s) == "" {
			return false, p.errorf(line, 0, "empty name")
		}
		if !utf8.ValidString(s) {
			return false, p.errorf(line, 0, "%s is not valid UTF-8", kw)
		}
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return false, p.errorf(line, 0, "control character in %s", kw)
		}
		if kw == "name" {
			p.m.Name = s
		} else {
			p.m.Author = s
		}
	case "players":
		if err := dup(p.playersLine); err != nil {
			return false, err
		}
		if err := nargs(2); err != nil {
			return false, err
		}
		p.playersLine = line
		lo, err := p.number(line, args[0], 1, MaxPlayerCount)
		if err != nil {
			return false, err
		}
		hi, err := p.number(line, args[1], lo, MaxPlayerCount)
		if err != nil {
			return false, err
		}
		p.m.MinPlayers, p.m.MaxPlayers = lo, hi
	case "teleport":
		if err := nargs(3); err != nil {
			return false, err
		}
		ch, err := p.number(line, args[0], 1, MaxChannel)
		if err != nil {
			return false, err
		}
		if first := p.teleports[ch].line; first != 0 {
			return false, p.errorf(line, 0, "duplicate teleport directive for channel %d (first on line %d)", ch, first)
		}
		at, err := p.point(line, args[1], args[2])
		if err != nil {
			return false, err
		}
		p.teleports[ch] = directive{line: line, at: at}
	case "pad":
		if err := nargs(4); err != nil {
			return false, err
		}
		at, err := p.point(line, args[0], args[1])
		if err != nil {
			return false, err
		}
		for _, d := range p.pads {
			if d.at == at {
				return false, p.errorf(line, 0, "duplicate pad directive for tile (%d,%d) (first on line %d)", at.X, at.Y, d.line)
			}
		}
		vx, err := p.number(line, args[2], -MaxPadSpeed, MaxPadSpeed)
		if err != nil {
			return false, err
		}
		vy, err := p.number(line, args[3], -MaxPadSpeed, MaxPadSpeed)
		if err != nil {
			return false, err
		}
		p.pads = append(p.pads, directive{line: line, at: at, vx: vx, vy: vy})
	default:
		return false, p.errorf(line, 0, "unknown directive %q", kw)
	}
	return false, nil
}

// fields splits a header line into words and "quoted strings" (without
// escapes), dropping a '#' comment that starts outside quotes.
func (p *parser) fields(line int, text string) ([]string, error) {
	var out []string
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '#':
			return out, nil
		case c == '"':
			j := strings.IndexByte(text[i+1:], '"')
			if j < 0 {
				return nil, p.errorf(line, i+1, "unterminated string")
			}
			out = append(out, text[i+1:i+1+j])
			i += j + 2
			if i < len(text) && text[i] != ' ' && text[i] != '\t' && text[i] != '#' {
				return nil, p.errorf(line, i+1, "text after closing quote")
			}
		default:
			j := i
			for j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != '#' && text[j] != '"' {
				j++
			}
			out = append(out, text[i:j])
			i = j
		}
	}
	return out, nil
}

// number parses a decimal integer in [lo, hi].
func (p *parser) number(line int, s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, p.errorf(line, 0, "bad number %q", s)
	}
	if n < lo || n > hi {
		return 0, p.errorf(line, 0, "number %d out of range [%d, %d]", n, lo, hi)
	}
	return n, nil
}

// point parses a tile coordinate; the grid bounds are checked later.
func (p *parser) point(line int, xs, ys string) (Point, error) {
	x, err := p.number(line, xs, 0, MaxWidth-1)
	if err != nil {
		return Point{}, err
	}
	y, err := p.number(line, ys, 0, MaxHeight-1)
	if err != nil {
		return Point{}, err
	}
	return Point{x, y}, nil
}

// build fills the map from the checked grid rows and applies the teleport
// and pad directives.
func (p *parser) build(rows [][]byte, gridLine int) error {
	m := p.m
	m.Width, m.Height = len(rows[0]), len(rows)
	m.tiles = make([]Tile, m.Width*m.Height)
	m.links = make([]int32, m.Width*m.Height)
	for y, row := range rows {
		for x, b := range row {
			at := Point{x, y}
			i := y*m.Width + x
			switch {
			case b == '#':
				m.tiles[i] = Solid
			case b == '=':
				m.tiles[i] = Platform
			case b == '~':
				m.tiles[i] = Lava
			case b == 'S':
				m.Spawns = append(m.Spawns, at)
			case b == '^':
				m.Pads = append(m.Pads, JumpPad{At: at, VX: DefaultPadVX, VY: DefaultPadVY})
				m.links[i] = int32(len(m.Pads))
			case b >= '1' && b <= '9':
				ch := int(b - '0')
				d := &p.teleports[ch]
				if d.line == 0 {
					return p.errorf(gridLine+y, x+1, "teleporter entrance '%c' has no teleport directive", b)
				}
				d.hasEntry = true
				m.Teleporters = append(m.Teleporters, Teleporter{At: at, Channel: ch})
				m.links[i] = -int32(len(m.Teleporters))
			case itemClasses[b] != "":
				m.Items = append(m.Items, ItemSpawn{Class: itemClasses[b], At: at})
			}
		}
	}
	for ch := 1; ch <= MaxChannel; ch++ {
		d := p.teleports[ch]
		switch {
		case d.line == 0:
			continue
		case !d.hasEntry:
			return p.errorf(d.line, 0, "teleport %d has no entrance '%d' in the grid", ch, ch)
		case d.at.X >= m.Width || d.at.Y >= m.Height:
			return p.errorf(d.line, 0, "teleport %d destination (%d,%d) outside the %dx%d grid", ch, d.at.X, d.at.Y, m.Width, m.Height)
		case m.At(d.at.X, d.at.Y) != Empty:
			return p.errorf(d.line, 0, "teleport %d destination (%d,%d) is %s, not empty", ch, d.at.X, d.at.Y, m.At(d.at.X, d.at.Y))
		}
		if _, ok := m.TeleporterAt(d.at.X, d.at.Y); ok {
			return p.errorf(d.line, 0, "teleport %d destination (%d,%d) is a teleporter entrance", ch, d.at.X, d.at.Y)
		}
	}
	for i := range m.Teleporters {
		m.Teleporters[i].Dest = p.teleports[m.Teleporters[i].Channel].at
	}
	for _, d := range p.pads {
		if m.link(d.at.X, d.at.Y) <= 0 {
			return p.errorf(d.line, 0, "pad (%d,%d) is not on a '^' tile", d.at.X, d.at.Y)
		}
		pad := &m.Pads[m.links[d.at.Y*m.Width+d.at.X]-1]
		pad.VX, pad.VY = d.vx, d.vy
	}
	if len(m.Spawns) < MinSpawns {
		return p.errorf(0, 0, "%d spawn points ('S'), need at least %d", len(m.Spawns), MinSpawns)
	}
	return nil
}
