package bg

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"testing"
)

// leaves lists every 32-bit leaf of v (a pointer to a struct) by the name
// the hash gives it, independently of the wire tables: nested structs
// dotted, arrays element by element.
func leaves(v reflect.Value, prefix string, out map[string]reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := v.Field(i)
		name := prefix + t.Field(i).Name
		switch f.Kind() {
		case reflect.Struct:
			leaves(f, name+".", out)
		case reflect.Array:
			for j := 0; j < f.Len(); j++ {
				out[fmt.Sprintf("%s[%d]", name, j)] = f.Index(j)
			}
		default:
			out[name] = f
		}
	}
}

func samplePlayerState() PlayerState {
	ps := PlayerState{
		CommandTime: 123456, PmType: PMNormal, PmFlags: PMFOnGround, Origin: Vec{Px(100), Px(-40)},
		Velocity: Vec{-300, 12}, GroundEntity: EntityNumWorld, Aim: 16384, Weapon: WPRailgun,
		WeaponTime: -7, EFlags: EFFiring, ClientNum: 3, EventSequence: 9, ExternalEvent: 4,
		DamageEvent: 2, DamageCount: 25, DamageDir: 1000,
	}
	ps.Events[1] = 5
	ps.EventParms[0] = -2
	ps.Stats[StatHealth] = 87
	ps.Persistant[PersKiller] = -1
	ps.Ammo[WPMachinegun] = 50
	ps.Powerups[PWQuad] = 99000
	return ps
}

func sampleEntityState() EntityState {
	return EntityState{
		Number: 70, EType: ETMissile, EFlags: EFBounceHalf,
		Pos: Trajectory{Type: TrGravity, Time: 5000, Duration: 30, Base: Vec{Px(50), Px(60)}, Delta: Vec{800, -900}},
		Aim: 300, Origin2: Vec{1, 2}, OtherEntity: 4, ClientNum: 4, ModelIndex: 2, Weapon: WPGrenadeLauncher,
		Powerups: 1, Event: 7, EventParm: -3,
	}
}

// fnvOf is the reference definition, written out: FNV-1a/64 with the
// offset basis and prime of hash/fnv, one 32-bit word at a step.
func fnvOf(words []uint32) uint64 {
	const basis, prime = 14695981039346656037, 1099511628211
	h := uint64(basis)
	for _, w := range words {
		h ^= uint64(w)
		h *= prime
	}
	return h
}

func TestStateHashIsFNV1aInTableOrder(t *testing.T) {
	ps := samplePlayerState()
	psLeaves := map[string]reflect.Value{}
	leaves(reflect.ValueOf(&ps).Elem(), "", psLeaves)
	var psWords []uint32
	for _, f := range PlayerStateTable.Stats(nil) {
		if f.Array {
			for j := 0; ; j++ {
				v, ok := psLeaves[fmt.Sprintf("%s[%d]", f.Name, j)]
				if !ok {
					break
				}
				psWords = append(psWords, uint32(v.Int()))
			}
			continue
		}
		psWords = append(psWords, uint32(psLeaves[f.Name].Int()))
	}
	if got, want := HashPlayerState(&ps), fnvOf(psWords); got != want {
		t.Errorf("HashPlayerState = %#x, word-wise FNV-1a of the table-order words = %#x", got, want)
	}

	es := sampleEntityState()
	esLeaves := map[string]reflect.Value{}
	leaves(reflect.ValueOf(&es).Elem(), "", esLeaves)
	esWords := []uint32{uint32(es.Number)}
	for _, f := range EntityStateTable.Fields() {
		esWords = append(esWords, uint32(esLeaves[f.Name].Int()))
	}
	if got, want := HashEntityState(&es), fnvOf(esWords); got != want {
		t.Errorf("HashEntityState = %#x, FNV-1a of Number then the table-order words = %#x", got, want)
	}
}

// TestStateHashCoversEveryField changes each leaf field of the structs in
// turn: the hash must change and the Diff must name that field. A field
// added to a struct but not to the hash fails here.
func TestStateHashCoversEveryField(t *testing.T) {
	t.Run("PlayerState", func(t *testing.T) {
		base := samplePlayerState()
		all := map[string]reflect.Value{}
		leaves(reflect.ValueOf(&base).Elem(), "", all)
		for name := range all {
			mod := base
			m := map[string]reflect.Value{}
			leaves(reflect.ValueOf(&mod).Elem(), "", m)
			m[name].SetInt(m[name].Int() ^ 0x100)
			if HashPlayerState(&mod) == HashPlayerState(&base) {
				t.Errorf("changing %s leaves the hash unchanged", name)
			}
			if f, d := DiffPlayerState(&base, &mod); !d || f != name {
				t.Errorf("changing %s: DiffPlayerState = %q, %v", name, f, d)
			}
			if v, ok := PlayerStateField(&mod, name); !ok || v != int32(m[name].Int()) {
				t.Errorf("PlayerStateField(%s) = %d, %v; want %d", name, v, ok, m[name].Int())
			}
		}
		if f, d := DiffPlayerState(&base, &base); d || f != "" {
			t.Errorf("DiffPlayerState of equal states = %q, %v", f, d)
		}
		if len(psHashFields) != len(all) {
			t.Errorf("%d hashed words, PlayerState has %d", len(psHashFields), len(all))
		}
	})
	t.Run("EntityState", func(t *testing.T) {
		base := sampleEntityState()
		all := map[string]reflect.Value{}
		leaves(reflect.ValueOf(&base).Elem(), "", all)
		for name := range all {
			mod := base
			m := map[string]reflect.Value{}
			leaves(reflect.ValueOf(&mod).Elem(), "", m)
			m[name].SetInt(m[name].Int() ^ 0x100)
			if HashEntityState(&mod) == HashEntityState(&base) {
				t.Errorf("changing %s leaves the hash unchanged", name)
			}
			if f, d := DiffEntityState(&base, &mod); !d || f != name {
				t.Errorf("changing %s: DiffEntityState = %q, %v", name, f, d)
			}
			if v, ok := EntityStateField(&mod, name); !ok || v != int32(m[name].Int()) {
				t.Errorf("EntityStateField(%s) = %d, %v; want %d", name, v, ok, m[name].Int())
			}
		}
		if len(esHashFields) != len(all) {
			t.Errorf("%d hashed words, EntityState has %d", len(esHashFields), len(all))
		}
	})
}

// TestDiffNamesFirstInTableOrder: with two fields changed, the one
// earlier in the wire table is named.
func TestDiffNamesFirstInTableOrder(t *testing.T) {
	a := samplePlayerState()
	b := a
	b.ClientNum++ // last scalar of the table
	b.Origin.X++  // second scalar
	if f, _ := DiffPlayerState(&a, &b); f != "Origin.X" {
		t.Errorf("DiffPlayerState = %q, want Origin.X", f)
	}
	e := sampleEntityState()
	g := e
	g.Pos.Duration++
	g.Aim++
	if f, _ := DiffEntityState(&e, &g); f != "Aim" {
		t.Errorf("DiffEntityState = %q, want Aim", f)
	}
	g.Number++
	if f, _ := DiffEntityState(&e, &g); f != "Number" {
		t.Errorf("DiffEntityState = %q, want Number", f)
	}
}

// TestStateHashPinned pins two values so that a change of the function
// (order, seed, mixing) is a deliberate one: hashes travel on the wire and
// live in journals and demos.
func TestStateHashPinned(t *testing.T) {
	var ps PlayerState
	var es EntityState
	// The zero states: as many zero words as fields.
	if got, want := HashPlayerState(&ps), fnvOf(make([]uint32, len(psHashFields))); got != want {
		t.Errorf("zero PlayerState hash = %#x, want %#x", got, want)
	}
	if got, want := HashEntityState(&es), fnvOf(make([]uint32, len(esHashFields))); got != want {
		t.Errorf("zero EntityState hash = %#x, want %#x", got, want)
	}
	// Golden: FNV-1a/64 of one zero byte, which one zero word equals
	// (hash/fnv's New64a of []byte{0}).
	f := fnv.New64a()
	f.Write([]byte{0})
	if got, want := HashAdd(HashInit, 0), f.Sum64(); got != want || got != 0xaf63bd4c8601b7df {
		t.Errorf("HashAdd(HashInit, 0) = %#x, want %#x (hash/fnv) = 0xaf63bd4c8601b7df", got, want)
	}
	if got, want := HashAdd64(HashInit, 0x0102030405060708), fnvOf([]uint32{0x05060708, 0x01020304}); got != want {
		t.Errorf("HashAdd64 = %#x, want %#x", got, want)
	}
}

func TestStateHashAllocatesNothing(t *testing.T) {
	ps := samplePlayerState()
	es := sampleEntityState()
	ps2, es2 := ps, es
	ps2.Ammo[1]++
	es2.EventParm++
	var sink uint64
	n := testing.AllocsPerRun(100, func() {
		sink += HashPlayerState(&ps) + HashEntityState(&es)
		if _, d := DiffPlayerState(&ps, &ps2); d {
			sink++
		}
		if _, d := DiffEntityState(&es, &es2); d {
			sink++
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per hash and diff", n)
	}
	_ = sink
}

func BenchmarkHashPlayerState(b *testing.B) {
	ps := samplePlayerState()
	var sink uint64
	for b.Loop() {
		sink += HashPlayerState(&ps)
	}
	_ = sink
}

func BenchmarkHashEntityState(b *testing.B) {
	es := sampleEntityState()
	var sink uint64
	for b.Loop() {
		sink += HashEntityState(&es)
	}
	_ = sink
}
