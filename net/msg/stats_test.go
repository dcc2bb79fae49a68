package msg

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// word returns field name of v (an array as its elements, a float as
// its bits), to compare as the codec does: bit for bit.
func word[T any](v *T, name string) any {
	f := reflect.ValueOf(v).Elem().FieldByName(name)
	if f.Kind() == reflect.Float32 {
		return math.Float32bits(float32(f.Float()))
	}
	return f.Interface()
}

// countChanges codes n deltas of c, each from the last state to a
// randomly changed one, on a Writer counting in sent and a Reader
// counting in recv. It returns how many times each field (in Stats
// order) differed from its base: what the counters must say, skipping
// fields [0, skip) (a usercmd's server time, always sent, is not
// counted as a change).
func countChanges[T any](t *testing.T, c codec[T], n int, seed uint64, sent, recv *FieldStats, skip int) []uint64 {
	t.Helper()
	stats := c.table.Stats(nil)
	want := make([]uint64, len(stats))
	rng := rand.New(rand.NewPCG(seed, 7))
	buf := make([]byte, 4096)
	w := NewWriter(buf, Huffman)
	w.SetFieldStats(sent)
	var r Reader
	r.SetFieldStats(recv)
	var from T
	for i := 0; i < n; i++ {
		to := from
		randomize(rng, &to, []float64{0, 0.1, 0.5}[i%3])
		c.norm(&to)
		for k, s := range stats[skip:] {
			if word(&from, s.Name) != word(&to, s.Name) {
				want[skip+k]++
			}
		}
		w.Reset(buf, Huffman) // keeps the FieldStats
		c.write(w, &from, &to)
		r.Reset(w.Bytes(), Huffman) // keeps it too
		var got T
		c.read(&r, &from, &got)
		if w.Err() != nil || r.Err() != nil {
			t.Fatalf("delta %d: write %v, read %v", i, w.Err(), r.Err())
		}
		from = got
	}
	return want
}

// checkCounts checks what sent and recv counted for c's table against
// want (changes per field): the writer's side counts sends only, the
// reader's receptions only, both the same changes and bits, and every
// changed field at least its changed bit and one bit of value.
func checkCounts[T any](t *testing.T, c codec[T], sent, recv *FieldStats, want []uint64) {
	t.Helper()
	out, in := c.table.Stats(sent), c.table.Stats(recv)
	for k, s := range out {
		r := in[k]
		switch {
		case s.SentChanges != want[k]:
			t.Errorf("%s: sent %d changes, want %d", s.Name, s.SentChanges, want[k])
		case s.RecvChanges != 0 || s.RecvBits != 0 || r.SentChanges != 0 || r.SentBits != 0:
			t.Errorf("%s: the writer's stats received %d, the reader's sent %d", s.Name, s.RecvChanges, r.SentChanges)
		case r.RecvChanges != s.SentChanges || r.RecvBits != s.SentBits:
			t.Errorf("%s: received %d changes in %d bits, sent %d in %d", s.Name, r.RecvChanges, r.RecvBits, s.SentChanges, s.SentBits)
		case s.SentBits < 2*s.SentChanges:
			t.Errorf("%s: %d changes in %d bits", s.Name, s.SentChanges, s.SentBits)
		}
	}
}

func TestFieldStatsCountEachDirection(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, sent, recv *FieldStats)
	}{
		{"entity", func(t *testing.T, sent, recv *FieldStats) {
			c := entityCodec()
			checkCounts(t, c, sent, recv, countChanges(t, c, 300, 1, sent, recv, 0))
		}},
		{"playerstate", func(t *testing.T, sent, recv *FieldStats) {
			c := playerCodec()
			checkCounts(t, c, sent, recv, countChanges(t, c, 300, 2, sent, recv, 0))
		}},
		{"usercmd", func(t *testing.T, sent, recv *FieldStats) {
			c := cmdCodec(0x1234)
			checkCounts(t, c, sent, recv, countChanges(t, c, 300, 3, sent, recv, 1))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent, recv FieldStats
			tc.run(t, &sent, &recv)
			sent.Reset()
			recv.Reset()
			for _, s := range append(entityTable.Stats(&sent), playerTable.Stats(&recv)...) {
				if s.SentChanges|s.SentBits|s.RecvChanges|s.RecvBits != 0 {
					t.Fatalf("Reset kept %+v", s)
				}
			}
		})
	}
}

// TestFieldStatsKeepConnectionsApart: two connections coding in one
// process, and a writer that counts nowhere, each leave the other's
// counters as they would be alone.
func TestFieldStatsKeepConnectionsApart(t *testing.T) {
	var aloneA, aloneB, aloneBRecv FieldStats
	countChanges(t, entityCodec(), 100, 4, &aloneA, nil, 0)
	countChanges(t, playerCodec(), 100, 5, &aloneB, &aloneBRecv, 0)

	var a, b, bRecv FieldStats
	// Interleaved, with a writer and reader that count nowhere between.
	for i := 0; i < 2; i++ {
		if i == 0 {
			countChanges(t, entityCodec(), 100, 4, &a, nil, 0)
		} else {
			countChanges(t, playerCodec(), 100, 5, &b, &bRecv, 0)
		}
		countChanges(t, entityCodec(), 50, 6, nil, nil, 0)
		countChanges(t, playerCodec(), 50, 7, nil, nil, 0)
	}
	for _, tc := range []struct {
		name      string
		got, want []FieldStat
	}{
		{"a entities", entityTable.Stats(&a), entityTable.Stats(&aloneA)},
		{"a player states", playerTable.Stats(&a), playerTable.Stats(nil)},
		{"b player states", playerTable.Stats(&b), playerTable.Stats(&aloneB)},
		{"b entities", entityTable.Stats(&b), entityTable.Stats(nil)},
		{"b's reader", playerTable.Stats(&bRecv), playerTable.Stats(&aloneBRecv)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", tc.got, tc.want)
			}
		})
	}
	if s := entityTable.Stats(&a); s[0].SentChanges == 0 {
		t.Fatalf("nothing counted: %+v", s)
	}
}

func TestFieldStatsReport(t *testing.T) {
	var stats FieldStats
	w := NewWriter(make([]byte, 4096), Huffman)
	w.SetFieldStats(&stats)
	if w.FieldStats() != &stats {
		t.Fatal("FieldStats does not return what SetFieldStats set")
	}
	var from testCmd
	for i := 0; i < 10; i++ {
		to := from
		to.ServerTime += 16
		to.Angle = int32(i)
		if i%5 == 0 {
			to.Weapon++
		}
		cmdTable.WriteDeltaUsercmd(w, 0, &from, &to)
		from = to
	}
	byName := map[string]FieldStat{}
	for _, s := range cmdTable.Stats(&stats) {
		byName[s.Name] = s
	}
	// Angle changes on 9 of 10 commands (i=0 keeps it 0), Weapon on 2.
	if byName["Angle"].SentChanges != 9 || byName["Weapon"].SentChanges != 2 || byName["Aim"].SentChanges != 0 {
		t.Fatalf("counters %+v", byName)
	}
	// Each changed angle costs its changed bit and 16 raw bits.
	if b := byName["Angle"].SentBits; b != 9*17 {
		t.Fatalf("angle bits %d, want %d", b, 9*17)
	}
	order := SuggestOrder(cmdTable.Stats(&stats))
	if order[0] != "Angle" || order[1] != "Weapon" {
		t.Fatalf("suggested order %v", order)
	}
	var sb strings.Builder
	if err := cmdTable.WriteReport(&sb, &stats); err != nil || !strings.Contains(sb.String(), "Angle") || !strings.Contains(sb.String(), "[Angle Weapon ") {
		t.Fatalf("report %q %v", sb.String(), err)
	}
}
