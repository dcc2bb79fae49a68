package proto

import (
	"errors"
	"testing"

	"tremor/bg"
	"tremor/net/msg"
)

func hashSample() (bg.PlayerState, []bg.EntityState) {
	ps := bg.PlayerState{CommandTime: 990, Origin: bg.Vec{X: 1600, Y: 3200}, Aim: 4000, ClientNum: 2}
	ps.Stats[bg.StatHealth] = 100
	ents := []bg.EntityState{
		{Number: 0, EType: bg.ETPlayer, Pos: bg.Trajectory{Type: bg.TrInterpolate, Base: bg.Vec{X: 100, Y: 200}}},
		{Number: 5, EType: bg.ETPlayer, ClientNum: 5, Weapon: bg.WPRailgun},
		{Number: 70, EType: bg.ETMissile, Pos: bg.Trajectory{Type: bg.TrLinear, Time: 950, Delta: bg.Vec{X: 8000}}},
	}
	return ps, ents
}

func TestStateHashRoundTrip(t *testing.T) {
	ps, ents := hashSample()
	for _, detail := range []bool{false, true} {
		var sh StateHash
		sh.Compute(&ps, ents, detail)
		sh.ServerTime, sh.Game = 1000, 0xfedcba9876543210
		w := msg.NewWriter(make([]byte, 2048), msg.Huffman)
		WriteStateHash(w, &sh)
		w.WriteUint8(SvcEOF)
		r := msg.NewReader(w.Bytes(), msg.Huffman)
		if op := r.ReadUint8(); op != SvcStateHash {
			t.Fatalf("op %d", op)
		}
		var got StateHash
		got.NumPS, got.NumCols = 9, 9 // stale values must go
		ReadStateHash(r, &got)
		if r.Err() != nil || r.ReadUint8() != SvcEOF {
			t.Fatalf("detail %v: %v, or no eof after the op", detail, r.Err())
		}
		if got != sh {
			t.Errorf("detail %v: read %+v, wrote %+v", detail, got, sh)
		}
		if _, bad := CheckStateHash(&got, &ps, ents, new(StateHash)); bad {
			t.Errorf("detail %v: the same snapshot diverges", detail)
		}
	}
}

// TestCheckStateHashNames: one changed field of the decoded snapshot is
// named, entity and field, with detail; without, only the part.
func TestCheckStateHashNames(t *testing.T) {
	ps, ents := hashSample()
	var sent StateHash
	sent.Compute(&ps, ents, true)
	sent.ServerTime = 1000
	var summary StateHash
	summary.Compute(&ps, ents, false)
	summary.ServerTime = 1000
	clone := func() (bg.PlayerState, []bg.EntityState) {
		return ps, append([]bg.EntityState(nil), ents...)
	}
	tests := []struct {
		name    string
		change  func(*bg.PlayerState, *[]bg.EntityState)
		want    SnapshotMismatch
		summary SnapshotMismatch
	}{
		{"player origin", func(p *bg.PlayerState, _ *[]bg.EntityState) { p.Origin.Y++ },
			SnapshotMismatch{1000, -1, "Origin.Y", 3201}, SnapshotMismatch{1000, -1, "", 0}},
		{"player stat", func(p *bg.PlayerState, _ *[]bg.EntityState) { p.Stats[bg.StatHealth] = 7 },
			SnapshotMismatch{1000, -1, "Stats[0]", 7}, SnapshotMismatch{1000, -1, "", 0}},
		{"entity weapon", func(_ *bg.PlayerState, e *[]bg.EntityState) { (*e)[1].Weapon = bg.WPGauntlet },
			SnapshotMismatch{1000, 5, "Weapon", bg.WPGauntlet}, SnapshotMismatch{1000, -2, "", 0}},
		{"missile delta", func(_ *bg.PlayerState, e *[]bg.EntityState) { (*e)[2].Pos.Delta.X = -1 },
			SnapshotMismatch{1000, 70, "Pos.Delta.X", -1}, SnapshotMismatch{1000, -2, "", 0}},
		{"extra entity", func(_ *bg.PlayerState, e *[]bg.EntityState) {
			*e = append(*e, bg.EntityState{Number: 80})
		}, SnapshotMismatch{1000, 80, "Number", 80}, SnapshotMismatch{1000, -2, "", 0}},
		{"missing entity", func(_ *bg.PlayerState, e *[]bg.EntityState) { *e = (*e)[:2] },
			SnapshotMismatch{1000, -2, "", 0}, SnapshotMismatch{1000, -2, "", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, e := clone()
			tt.change(&p, &e)
			got, bad := CheckStateHash(&sent, &p, e, new(StateHash))
			if !bad || got != tt.want {
				t.Errorf("with detail: %v %v, want %v", bad, got, tt.want)
			}
			got, bad = CheckStateHash(&summary, &p, e, new(StateHash))
			if !bad || got != tt.summary {
				t.Errorf("summary only: %v %v, want %v", bad, got, tt.summary)
			}
		})
	}
	if got := (SnapshotMismatch{1000, 70, "Pos.Delta.X", -1}).String(); got != "server time 1000: entity 70 field Pos.Delta.X differs (client has -1)" {
		t.Errorf("String = %q", got)
	}
}

func TestReadStateHashRefuses(t *testing.T) {
	body := func(n int16, detail uint8, more func(w *msg.Writer)) []byte {
		w := msg.NewWriter(make([]byte, 256), msg.Huffman)
		for i := 0; i < 7; i++ {
			w.WriteLong(int32(i))
		}
		w.WriteShort(n)
		w.WriteUint8(detail)
		if more != nil {
			more(w)
		}
		return w.Bytes()
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"negative count", body(-1, 0, nil)},
		{"too many entities", body(MaxSnapshotEntities+1, 0, nil)},
		{"detail 2", body(1, 2, nil)},
		{"too many field hashes", body(0, 1, func(w *msg.Writer) { w.WriteUint8(MaxStateHashFields + 1) })},
		{"rows past the end", body(200, 1, func(w *msg.Writer) { w.WriteUint8(0) })},
		{"truncated", body(0, 0, nil)[:4]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := msg.NewReader(tt.data, msg.Huffman)
			var sh StateHash
			ReadStateHash(r, &sh)
			if r.Err() == nil {
				t.Fatalf("accepted: %+v", sh)
			}
			if tt.name != "truncated" && !errors.Is(r.Err(), ErrStateHash) {
				t.Errorf("error %v, want ErrStateHash", r.Err())
			}
			if sh.Detail || sh.NumPS != 0 || sh.NumCols != 0 {
				t.Errorf("a refused hash keeps detail: %+v", sh)
			}
		})
	}
}

func TestStateHashComputeAllocatesNothing(t *testing.T) {
	ps, ents := hashSample()
	var sent, mine StateHash
	sent.Compute(&ps, ents, true)
	if a := testing.AllocsPerRun(50, func() {
		sent.Compute(&ps, ents, true)
		CheckStateHash(&sent, &ps, ents, &mine)
	}); a != 0 {
		t.Errorf("%.1f allocations", a)
	}
}
