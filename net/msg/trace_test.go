package msg

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// traceLine formats an event for comparison.
func traceLine(ev FieldEvent) string {
	switch {
	case ev.Field == "" && ev.Removed:
		return ev.Table + " start removed"
	case ev.Field == "":
		return ev.Table + " start"
	case ev.Index >= 0:
		return fmt.Sprintf("%s %s[%d]=%d", ev.Table, ev.Field, ev.Index, int32(ev.Value))
	case ev.Bits == 0:
		return fmt.Sprintf("%s %s=%g", ev.Table, ev.Field, math.Float32frombits(ev.Value))
	}
	return fmt.Sprintf("%s %s=%d", ev.Table, ev.Field, int32(ev.Value))
}

func TestFieldTrace(t *testing.T) {
	ps0 := testPlayer{CommandTime: 1000, X: 10}
	ps1 := ps0
	ps1.CommandTime, ps1.X, ps1.WeaponTime = 1050, 12.5, -3
	ps1.Stats[2], ps1.Ammo[7] = 90, 5
	e0 := testEntity{X: 1, Event: 4}
	e1 := e0
	e1.Y, e1.Event = 64, 0

	for _, tc := range []struct {
		name  string
		write func(w *Writer)
		read  func(r *Reader)
		want  []string
	}{
		{"player state", func(w *Writer) { playerTable.WriteDeltaPlayerState(w, &ps0, &ps1) },
			func(r *Reader) {
				var got testPlayer
				playerTable.ReadDeltaPlayerState(r, &ps0, &got)
			},
			[]string{"testPlayer start", "testPlayer CommandTime=1050", "testPlayer X=12.5",
				"testPlayer WeaponTime=-3", "testPlayer Stats[2]=90", "testPlayer Ammo[7]=5"}},
		{"entity changed", func(w *Writer) { entityTable.WriteDeltaEntity(w, &e0, &e1, 7, false) },
			func(r *Reader) {
				var got testEntity
				r.ReadBits(EntityNumBits)
				entityTable.ReadDeltaEntity(r, &e0, &got)
			},
			[]string{"testEntity start", "testEntity Y=64", "testEntity Event=0"}},
		{"entity unchanged", func(w *Writer) { entityTable.WriteDeltaEntity(w, &e0, &e0, 7, true) },
			func(r *Reader) {
				var got testEntity
				r.ReadBits(EntityNumBits)
				entityTable.ReadDeltaEntity(r, &e0, &got)
			},
			[]string{"testEntity start"}},
		{"entity removed", func(w *Writer) { entityTable.WriteDeltaEntity(w, &e0, nil, 7, true) },
			func(r *Reader) {
				var got testEntity
				r.ReadBits(EntityNumBits)
				entityTable.ReadDeltaEntity(r, &e0, &got)
			},
			[]string{"testEntity start removed"}},
		{"usercmd", func(w *Writer) {
			cmdTable.WriteDeltaUsercmd(w, 99, &testCmd{ServerTime: 500}, &testCmd{ServerTime: 520, Forward: -127})
		},
			func(r *Reader) {
				var got testCmd
				cmdTable.ReadDeltaUsercmd(r, 99, &testCmd{ServerTime: 500}, &got)
			},
			[]string{"testCmd start", "testCmd ServerTime=520", "testCmd Forward=-127"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, 1024)
			w := NewWriter(buf, Huffman)
			tc.write(w)
			var got []string
			r := NewReader(w.Bytes(), Huffman)
			r.SetFieldTrace(func(ev FieldEvent) { got = append(got, traceLine(ev)) })
			r.Reset(w.Bytes(), Huffman) // the trace survives Reset
			tc.read(r)
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			got = nil
			r.SetFieldTrace(nil)
			r.Reset(w.Bytes(), Huffman)
			tc.read(r)
			if len(got) != 0 {
				t.Fatalf("%d events with the trace off", len(got))
			}
		})
	}
}

// BenchmarkReadSnapshotTraceOff reads a player state and 32 entity
// deltas with no field trace, the cost every client pays (its fields
// counted in the engine's FieldStats).
func BenchmarkReadSnapshotTraceOff(b *testing.B) {
	ps0, ps1, from, to := snapshotBatch()
	buf := make([]byte, 8192)
	w := NewWriter(buf, Huffman)
	playerTable.WriteDeltaPlayerState(w, &ps0, &ps1)
	for i := range to {
		entityTable.WriteDeltaEntity(w, &from[i], &to[i], to[i].Number, false)
	}
	var r Reader
	var stats FieldStats
	r.SetFieldStats(&stats)
	var gotPS testPlayer
	var got [32]testEntity
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(w.Bytes(), Huffman)
		playerTable.ReadDeltaPlayerState(&r, &ps0, &gotPS)
		for i := range got {
			r.ReadBits(EntityNumBits)
			entityTable.ReadDeltaEntity(&r, &from[i], &got[i])
		}
	}
}
