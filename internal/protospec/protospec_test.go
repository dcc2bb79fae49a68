package protospec

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"tremor/bg"
	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/netchan"
)

var update = flag.Bool("update", false, "rewrite docs/protocol.md's field tables and docs/vectors from the code")

// Where the generated text lives, from this package's directory.
const (
	docPath    = "../../docs/protocol.md"
	vectorsDir = "../../docs/vectors"
)

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d:\n  file: %q\n  code: %q", i+1, gl, wl)
		}
	}
	return "no difference"
}

// TestFieldTablesMatchDocument checks that the field tables in
// docs/protocol.md are the ones bg's msg.Tables code with: every field's
// name, width, signedness and coding, in wire order; and that its
// appendix of constants has the code's values. With -update it rewrites
// both.
func TestFieldTablesMatchDocument(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := UpdateDocument(doc)
	if err == nil {
		want, err = ReplaceBetween(want, BeginConstants, EndConstants, constantsTable())
	}
	if err != nil {
		t.Fatalf("%s: %v", docPath, err)
	}
	if bytes.Equal(doc, want) {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the field tables of %s", docPath)
		return
	}
	t.Errorf("the generated field tables or constants of docs/protocol.md differ from the code (after a deliberate change run `go test ./internal/protospec -update`), first at %s",
		firstDifference(doc, want))
}

// TestFieldTablesListEveryField checks the generated tables against the
// tables themselves: every scalar field in wire order with its width,
// and every array.
func TestFieldTablesListEveryField(t *testing.T) {
	text := FieldTables()
	for _, td := range tables() {
		sec := text[strings.Index(text, "#### "+td.name+" "):]
		if next := strings.Index(sec[1:], "#### "); next >= 0 {
			sec = sec[:next+1]
		}
		for i, f := range td.fields {
			row := fmt.Sprintf("| %d | `%s` | %d | %s |", i, f.Name, width(f.Bits), signedness(f.Bits))
			if !strings.Contains(sec, row) {
				t.Errorf("table %s: no row %q", td.name, row)
			}
		}
		for i, a := range td.arrays {
			row := fmt.Sprintf("| %d | `%s` |", i, a.Name)
			if !strings.Contains(sec, row) {
				t.Errorf("table %s: no array row %q", td.name, row)
			}
		}
	}
	if strings.Contains(text, "| 0 |") == false {
		t.Fatal("no tables generated")
	}
}

// TestUpdateDocumentNeedsMarkers checks that a document without the
// markers is refused, not rewritten.
func TestUpdateDocumentNeedsMarkers(t *testing.T) {
	for _, doc := range []string{"", "text", EndFields + "\n" + BeginFields} {
		if _, err := UpdateDocument([]byte(doc)); err != ErrNoMarkers {
			t.Errorf("UpdateDocument(%q): error %v, want ErrNoMarkers", doc, err)
		}
	}
}

// vectorFiles lists the generated files under dir (every .txt file),
// relative to it.
func vectorFiles(t *testing.T, dir string) []string {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".txt") {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return names
}

// TestVectorsMatch regenerates the test vectors from the server engine
// and the codec and checks them against docs/vectors byte for byte; no
// file there may be missing or left over. With -update it rewrites them.
func TestVectorsMatch(t *testing.T) {
	files, err := Vectors()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
		path := filepath.Join(vectorsDir, filepath.FromSlash(f.Name))
		have, err := os.ReadFile(path)
		if err == nil && bytes.Equal(have, f.Data) {
			continue
		}
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", path)
			continue
		}
		if err != nil {
			t.Errorf("docs/vectors/%s: %v (run `go test ./internal/protospec -update`)", f.Name, err)
			continue
		}
		t.Errorf("docs/vectors/%s differs from what the code sends now (after a deliberate protocol change run `go test ./internal/protospec -update`), first at %s",
			f.Name, firstDifference(have, f.Data))
	}
	for _, name := range vectorFiles(t, vectorsDir) {
		if slices.Contains(names, name) {
			continue
		}
		path := filepath.Join(vectorsDir, filepath.FromSlash(name))
		if *update {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			t.Logf("removed %s", path)
			continue
		}
		t.Errorf("docs/vectors/%s is not generated any more (run `go test ./internal/protospec -update`)", name)
	}
}

// TestVectorsAreReproducible plays the vector connection twice: the
// same seed and times must give the same bytes, or TestVectorsMatch
// would be flaky.
func TestVectorsAreReproducible(t *testing.T) {
	a, err := Vectors()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Vectors()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s: two runs differ, first at %s", a[i].Name, firstDifference(a[i].Data, b[i].Data))
		}
	}
}

// TestVectorsCoverTheIssue checks that the vectors hold what a new
// implementer needs: a fragmented gamestate, a full and a delta
// snapshot, a client message with usercmds and a reliable command, and
// scrambled messages of both directions keyed with an empty and a
// non-empty text.
func TestVectorsCoverTheIssue(t *testing.T) {
	sessions, err := vectorSessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		var fragments, full, delta, command, moves int
		texts := map[string]bool{}
		for _, r := range s.records {
			if r.scramble != nil {
				texts[fmt.Sprint(r.dir, r.scramble.text == "")] = true
			}
			for _, m := range r.msgs {
				if m.Fragment {
					fragments++
				}
				for _, op := range m.Ops {
					switch {
					case op.Snapshot != nil && op.Snapshot.Base < 0:
						full++
					case op.Snapshot != nil:
						delta++
					case op.Command != nil && op.Name == "clientCommand" && op.Command.Sequence == 1:
						command++
					case op.Move != nil:
						moves++
					}
				}
			}
		}
		if fragments < 2 || full == 0 || delta == 0 || command == 0 || moves < 2 {
			t.Errorf("sv_scramble %d: %d fragments, %d full and %d delta snapshots, %d client command 1, %d moves",
				btoi(s.scramble), fragments, full, delta, command, moves)
		}
		if s.scramble && len(texts) != 4 {
			t.Errorf("scrambled messages seen (direction, empty text): %v, want both directions with empty and non-empty texts", texts)
		}
	}
}

// TestScrambleAsSpecified checks section 4's description of scrambling
// on every scrambled message of the vectors: the body is scrambled from
// the byte where the fields its key uses end, rounded up, and the key
// stream's index i counts from that byte, so netchan.Scramble on the
// tail alone, with the key and text stated, gives the plain body.
func TestScrambleAsSpecified(t *testing.T) {
	sessions, err := vectorSessions()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range sessions {
		for i, r := range s.records {
			sc := r.scramble
			if sc == nil {
				continue
			}
			n++
			off := (sc.offsetBit + 7) / 8
			got := slices.Clone(r.body)
			netchan.Scramble(got[off:], sc.key, sc.text)
			if !bytes.Equal(got, r.plain) {
				t.Errorf("packet %d: Scramble(body[%d:], %#x, %q) is not the plain body", i+1, off, sc.key, sc.text)
			}
		}
	}
	if n == 0 {
		t.Fatal("no scrambled message in the vectors")
	}
}

// TestHuffmanConstructionAsSpecified builds the Huffman code the way
// section 2 describes it, independently of net/msg, and checks that it
// is DefaultCode bit for bit: two readers of the document build the same
// code.
func TestHuffmanConstructionAsSpecified(t *testing.T) {
	lens := specLengths(msg.DefaultFrequencies)
	codes := canonical(lens)
	for v := 0; v < 256; v++ {
		if got := msg.DefaultCode.Len(byte(v)); got != lens[v] {
			t.Fatalf("byte %#02x: length %d by the document, %d by net/msg", v, lens[v], got)
		}
		enc := msg.DefaultCode.Encode(nil, []byte{byte(v)})
		for i := 0; i < lens[v]; i++ {
			sent := enc[i/8] >> (i % 8) & 1
			want := byte(codes[v] >> (lens[v] - 1 - i) & 1) // first bit sent: the code's most significant
			if sent != want {
				t.Fatalf("byte %#02x: bit %d of its code is %d by the document, %d by net/msg", v, i, want, sent)
			}
		}
	}
}

// specLengths is section 2's construction: weights are the frequencies
// with 0 counted as 1; the leaves are nodes 0..255 (the byte values),
// the k-th merged node is node 256+k; each step merges the two nodes
// that come first by (weight, node number); a code longer than
// msg.MaxCodeLen halves every weight, rounding up, and starts again.
func specLengths(freq [256]uint32) [256]int {
	var w [256]uint64
	for i, f := range freq {
		w[i] = max(uint64(f), 1)
	}
	for {
		weight := make([]uint64, 0, 511)
		parent := make([]int, 0, 511)
		for _, x := range w {
			weight = append(weight, x)
			parent = append(parent, -1)
		}
		live := make([]int, 256)
		for i := range live {
			live[i] = i
		}
		for len(live) > 1 {
			sort.Slice(live, func(i, j int) bool {
				a, b := live[i], live[j]
				return weight[a] < weight[b] || weight[a] == weight[b] && a < b
			})
			p := len(weight)
			weight = append(weight, weight[live[0]]+weight[live[1]])
			parent = append(parent, -1)
			parent[live[0]], parent[live[1]] = p, p
			live = append(live[2:], p)
		}
		var lens [256]int
		longest := 0
		for i := range lens {
			for n := i; parent[n] >= 0; n = parent[n] {
				lens[i]++
			}
			longest = max(longest, lens[i])
		}
		if longest <= msg.MaxCodeLen {
			return lens
		}
		for i := range w {
			w[i] = (w[i] + 1) / 2
		}
	}
}

// canonical assigns canonical codes: symbols sorted by (length, value);
// the first gets 0, each next the previous plus one, shifted left by
// the growth in length.
func canonical(lens [256]int) [256]uint32 {
	syms := make([]int, 256)
	for i := range syms {
		syms[i] = i
	}
	sort.SliceStable(syms, func(i, j int) bool { return lens[syms[i]] < lens[syms[j]] })
	var codes [256]uint32
	code := uint32(0)
	for i, s := range syms {
		if i > 0 {
			code = (code + 1) << (lens[s] - lens[syms[i-1]])
		}
		codes[s] = code
	}
	return codes
}

// TestVersionInVectors checks that every vector names the protocol
// version it was made with, so that a vector file read after a version
// change says it is stale.
func TestVersionInVectors(t *testing.T) {
	files, err := Vectors()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Tremor protocol %d", proto.Version)
	for _, f := range files {
		if !bytes.Contains(f.Data[:min(len(f.Data), 200)], []byte(want)) {
			t.Errorf("%s does not start by naming %q", f.Name, want)
		}
	}
}

// specHashKey is HashKey(s, 32) as protocol.md 6.5 states it, written
// from the document alone: every byte read unsigned (0..255).
func specHashKey(s string) uint32 {
	var h uint32
	for i := 0; i < 32 && i < len(s) && s[i] != 0; i++ {
		h += uint32(s[i]) * uint32(119+i)
	}
	return h ^ h>>10 ^ h>>20
}

// signedHashKey is the hash as Quake III's C computed it, bytes read
// signed (-128..127) into a signed sum with arithmetic shifts: what
// protocol.md 6.5 says not to do.
func signedHashKey(s string) uint32 {
	var h int32
	for i := 0; i < 32 && i < len(s) && s[i] != 0; i++ {
		h += int32(int8(s[i])) * int32(119+i)
	}
	return uint32(h ^ h>>10 ^ h>>20)
}

// TestUsercmdKeyAsSpecified checks section 6.5's usercmd key on every
// client message of the vectors with usercmds: the key the packet was
// coded with, and decoded with, is checksumFeed XOR messageAcknowledge
// XOR HashKey(text, 32) as the document states HashKey. The vectors must
// hold a text with a byte above 127 for which reading bytes signed gives
// another key, so that the check tells the two readings apart.
func TestUsercmdKeyAsSpecified(t *testing.T) {
	sessions, err := vectorSessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		telling := 0
		for i, r := range s.records {
			k := r.key
			if k == nil {
				continue
			}
			want := uint32(k.checksumFeed) ^ uint32(k.messageAck) ^ specHashKey(k.text)
			if k.key != want {
				t.Errorf("sv_scramble %d packet %d: key %#08x, the document gives %#08x (text %s)", btoi(s.scramble), i+1, k.key, want, quoteBytes(k.text))
			}
			for _, m := range r.msgs {
				for _, op := range m.Ops {
					if op.Move != nil && op.Move.Key != want {
						t.Errorf("sv_scramble %d packet %d: decoded with key %#08x, the document gives %#08x", btoi(s.scramble), i+1, op.Move.Key, want)
					}
				}
			}
			if hasHighByte(k.text) && signedHashKey(k.text) != specHashKey(k.text) {
				telling++
			}
		}
		if telling == 0 {
			t.Errorf("sv_scramble %d: no message keyed with a text whose bytes above 127 tell unsigned from signed", btoi(s.scramble))
		}
	}
}

// TestTimeRunsAsSpecified checks section 6.6's time runs on every move
// of the vectors: read by the document's layout (the e_i all follow
// width, before the first usercmd), each later usercmd's time is the one
// before's plus step plus its e_i, as the usercmds decode. The vectors
// must hold runs of widths 0 to 3.
func TestTimeRunsAsSpecified(t *testing.T) {
	sessions, err := vectorSessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		widths := map[int]bool{}
		for i, r := range s.records {
			if r.key == nil {
				continue
			}
			tr, ok := readTimeRun(r.plain)
			if !ok {
				t.Errorf("sv_scramble %d packet %d: no move read by the document's layout", btoi(s.scramble), i+1)
				continue
			}
			var cmds []bg.UserCmd
			for _, m := range r.msgs {
				for _, op := range m.Ops {
					if op.Move != nil {
						cmds = op.Move.Cmds
					}
				}
			}
			if len(cmds) != tr.count {
				t.Errorf("sv_scramble %d packet %d: count %d by the document's layout, %d usercmds decoded", btoi(s.scramble), i+1, tr.count, len(cmds))
				continue
			}
			if !tr.run {
				continue
			}
			widths[tr.width] = true
			for j := 1; j < len(cmds); j++ {
				if want := cmds[j-1].ServerTime + int32(tr.step) + int32(tr.e[j-1]); cmds[j].ServerTime != want {
					t.Errorf("sv_scramble %d packet %d: usercmd %d has time %d; step %d and e_%d %d after %d give %d",
						btoi(s.scramble), i+1, j, cmds[j].ServerTime, tr.step, j, tr.e[j-1], cmds[j-1].ServerTime, want)
				}
			}
		}
		for w := 0; w < 1<<proto.TimeRunWidthBits; w++ {
			if !widths[w] {
				t.Errorf("sv_scramble %d: no time run of width %d in the vectors", btoi(s.scramble), w)
			}
		}
	}
}
