package client

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cgame"
	"tremor/common/demo"
	"tremor/common/proto"
	"tremor/net/msg"
)

// testDemo is a demo recorded by client/headless's
// TestDemoRecordPlayback (go test ./client/headless -run
// TestDemoRecordPlayback -update-demo $PWD/client/testdata/e2e.tdm).
const testDemo = "testdata/e2e.tdm"

func readTestDemo(t testing.TB) []byte {
	data, err := os.ReadFile(testDemo)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// unindexed returns data cut before its index: a recording that was
// never closed.
func unindexed(t testing.TB, data []byte) []byte {
	at := binary.LittleEndian.Uint64(data[len(data)-demo.TrailerLen:])
	if at == 0 || int(at) >= len(data) {
		t.Fatal("the test demo has no trailer")
	}
	return data[:at]
}

// shown is one usable snapshot of a straight playback.
type shown struct {
	num, time int32
	ps        bg.PlayerState
	ents      []bg.EntityState
	cs        string // the serverinfo configstring then
}

// straight plays data from start to end and returns the snapshots that
// became the client's newest, in order.
func straight(t testing.TB, data []byte) []shown {
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var out []shown
	c := p.Client()
	add := func() {
		if c.active.snap.valid && (len(out) == 0 || out[len(out)-1].num != c.active.snap.messageNum) {
			out = append(out, shown{num: c.active.snap.messageNum, time: c.active.snap.serverTime, ps: c.active.snap.ps,
				ents: slices.Clone(c.entities(&c.active.snap)), cs: c.Configstring(bg.CSServerInfo)})
		}
	}
	add()
	for !p.ended {
		p.step()
		add()
	}
	if p.err != nil {
		t.Logf("straight playback ended with %v", p.err)
	}
	return out
}

// landedOn checks that p shows want, with the same state.
func landedOn(t *testing.T, p *Playback, name string, want shown) {
	t.Helper()
	num, tm := p.Current()
	var s cgame.Snapshot
	if num != want.num || tm != want.time || !p.Client().GetSnapshot(num, &s) {
		t.Errorf("%s: at message %d time %d, want %d time %d", name, num, tm, want.num, want.time)
		return
	}
	if s.PS != want.ps || !slices.Equal(s.Entities, want.ents) || p.Client().Configstring(bg.CSServerInfo) != want.cs {
		t.Errorf("%s: state at message %d differs from the straight playback's", name, num)
	}
}

func firstAt(list []shown, tm int32) shown {
	for _, s := range list {
		if s.time >= tm {
			return s
		}
	}
	return list[len(list)-1]
}

func TestDemoSeek(t *testing.T) {
	full := readTestDemo(t)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"indexed", full},
		{"unindexed", unindexed(t, full)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := straight(t, tc.data)
			if len(list) < 100 {
				t.Fatalf("%d snapshots", len(list))
			}
			p, err := NewPlayback(bytes.NewReader(tc.data), int64(len(tc.data)), PlaybackConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.SetPaused(true)
			p.Frame(0)
			first, last := list[0].time, list[len(list)-1].time
			for _, tm := range []int32{first + (last-first)/2, first, first - 5000, last, last + 5000,
				first + 7000, first + 6990, first + 300, first + 5001, last - 1} {
				if err := p.SeekTime(tm); err != nil {
					t.Fatal(err)
				}
				landedOn(t, p, "seek", firstAt(list, tm))
				p.Frame(time.Duration(tm) * time.Millisecond)
			}
			for _, pct := range []float64{0, 25, 100, 60} {
				if err := p.SeekPercent(pct); err != nil {
					t.Fatal(err)
				}
				landedOn(t, p, "percent", firstAt(list, first+int32(float64(last-first)*pct/100+0.5)))
			}
			// Step back across a key frame and more than a checkpoint.
			i := slices.IndexFunc(list, func(s shown) bool { return s.time >= first+5200 })
			if err := p.SeekTime(list[i].time); err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= 30; k++ {
				if err := p.StepBack(); err != nil {
					t.Fatal(err)
				}
				landedOn(t, p, "step back", list[i-k])
			}
			for k := 1; k <= 40; k++ {
				p.StepForward()
				landedOn(t, p, "step forward", list[i-30+k])
			}
			if err := p.SeekTime(first); err != nil {
				t.Fatal(err)
			}
			if err := p.StepBack(); err != nil {
				t.Fatal(err)
			}
			landedOn(t, p, "step back at the start", list[0])

			// Frags.
			s, err := p.Summary()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range s.Frags {
				if ok, err := p.NextFrag(); !ok || err != nil {
					t.Fatalf("next frag: %v %v", ok, err)
				}
				landedOn(t, p, "next frag", firstAt(list, f.ServerTime))
			}
			if ok, _ := p.NextFrag(); ok {
				t.Error("a frag after the last")
			}
			if len(s.Frags) > 0 {
				if err := p.SeekTime(last); err != nil {
					t.Fatal(err)
				}
				if ok, err := p.PrevFrag(); !ok || err != nil {
					t.Fatalf("previous frag: %v %v", ok, err)
				}
				landedOn(t, p, "previous frag", firstAt(list, s.Frags[len(s.Frags)-1].ServerTime))
			}
		})
	}
}

func TestDemoControls(t *testing.T) {
	data := readTestDemo(t)
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Frame(0)
	start := p.Time()
	p.SetTimescale(0.5)
	p.Frame(time.Second)
	if got := p.Time() - start; got != 500 {
		t.Errorf("half speed: %d ms of demo in a second", got)
	}
	p.SetTimescale(100)
	if p.Timescale() != MaxTimescale {
		t.Errorf("timescale %v", p.Timescale())
	}
	p.SetPaused(true)
	before := p.Time()
	p.Frame(3 * time.Second)
	if p.Time() != before {
		t.Error("the clock ran while paused")
	}
	cg := p.CGame()
	if cg == nil || cg.Snap == nil {
		t.Fatal("no cgame")
	}
	if cg.Time != p.Client().ServerTime() {
		t.Errorf("cgame time %d, client %d", cg.Time, p.Client().ServerTime())
	}
}

// TestDemoOfOlderProtocol: a demo recorded before protocol 4 (the file
// kept in testdata from then) is refused with an error that names both
// versions, not played as noise.
func TestDemoOfOlderProtocol(t *testing.T) {
	data, err := os.ReadFile("testdata/e2e-protocol3.tdm")
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{})
	if !errors.Is(err, demo.ErrProtocol) {
		t.Fatalf("got %v, want %v", err, demo.ErrProtocol)
	}
	if want := fmt.Sprintf("3, this client speaks %d", proto.Version); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

func TestDemoBadFiles(t *testing.T) {
	data := readTestDemo(t)
	wrongProto := bytes.Clone(data)
	wrongProto[6] = 99
	wrongVersion := bytes.Clone(data)
	wrongVersion[4] = 2
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"wrong protocol", wrongProto, demo.ErrProtocol},
		{"wrong version", wrongVersion, demo.ErrVersion},
		{"not a demo", []byte("GIF89a........................"), demo.ErrNotDemo},
		{"header only", data[:30], demo.ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPlayback(bytes.NewReader(tc.data), int64(len(tc.data)), PlaybackConfig{})
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	// Cut anywhere: an error at open, or a playback that ends with one.
	for cut := 31; cut < len(data); cut += 503 {
		d := data[:cut]
		p, err := NewPlayback(bytes.NewReader(d), int64(len(d)), PlaybackConfig{})
		if err != nil {
			continue
		}
		res := p.TimeDemo(50*time.Millisecond, nil)
		if res.Err == nil || !errors.Is(res.Err, demo.ErrTruncated) {
			t.Errorf("cut at %d: ended with %v", cut, res.Err)
		}
		p.Close()
	}
	// Flipped bytes: never a panic or a hang.
	for i := 40; i < len(data); i += 211 {
		d := bytes.Clone(data)
		d[i] ^= 0x5a
		playHostile(d)
	}
}

// playHostile plays, seeks and summarises a demo that may be anything.
func playHostile(d []byte) {
	p, err := NewPlayback(bytes.NewReader(d), int64(len(d)), PlaybackConfig{})
	if err != nil {
		return
	}
	defer p.Close()
	for i := 0; i < 400 && !p.ended; i++ {
		p.Frame(time.Duration(i) * 100 * time.Millisecond)
	}
	p.SeekPercent(30)
	p.StepBack()
	p.StepForward()
	p.NextFrag()
	p.Frame(time.Hour)
}

// longDemo synthesises a demo of n messages 50 ms apart by recording a
// client fed with snapshots that move every entity.
func longDemo(t testing.TB, n int) []byte {
	data := readTestDemo(t)
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Frame(0)
	c := p.Client()
	c.playback, c.conn.scramble = false, false
	var out memDemo
	if err := c.StartRecording(&out, "long"); err != nil {
		t.Fatal(err)
	}
	prevPS := c.active.snap.ps
	prevEnts := slices.Clone(c.entities(&c.active.snap))
	ps, ents := prevPS, slices.Clone(prevEnts)
	tm, seq := c.active.snap.serverTime, c.conn.serverMessageSequence
	buf := make([]byte, demo.MaxMessageLen)
	var w msg.Writer
	for i := range n {
		seq++
		tm += 50
		ps.CommandTime = tm
		ps.Origin.X = int32(i % 2000)
		for k := range ents {
			ents[k].Pos.Base.X = int32((i + k*37) % 3000)
		}
		w.Reset(buf, msg.Huffman)
		proto.WriteReliableAck(&w, 0)
		proto.WriteSnapshot(&w, proto.SnapshotHeader{ServerTime: tm, DeltaNum: 1, BaseTime: tm - 50}, &prevPS, &ps, prevEnts, ents, &c.conn.gs.Baselines)
		w.WriteUint8(proto.SvcEOF)
		c.conn.serverMessageSequence = seq
		c.parseServerMessage(w.Bytes(), uint32(seq))
		prevPS = ps
		prevEnts = append(prevEnts[:0], ents...)
	}
	if _, err := c.StopRecording(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

type memDemo struct{ bytes.Buffer }

func (*memDemo) Close() error { return nil }

func TestLongDemoSeek(t *testing.T) {
	data := longDemo(t, 2000) // 100 s
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x := p.r.Index()
	if x == nil || len(x.Entries) < 20 {
		t.Fatalf("index %+v", x)
	}
	for _, pct := range []float64{90, 10, 55.5, 100} {
		if err := p.SeekPercent(pct); err != nil {
			t.Fatal(err)
		}
		want := x.FirstTime + int32(float64(x.LastTime-x.FirstTime)*pct/100+0.5)
		want = (want-x.FirstTime+49)/50*50 + x.FirstTime // snapshots every 50 ms
		if _, tm := p.Current(); tm != min(want, x.LastTime) {
			t.Errorf("%v%%: at %d, want %d", pct, tm, want)
		}
	}
}

// BenchmarkDemoSeek measures a seek anywhere in a ten-minute demo.
func BenchmarkDemoSeek(b *testing.B) {
	data := longDemo(b, 12000)
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	i := 0
	for b.Loop() {
		i++
		if err := p.SeekPercent(float64(i*37%100) + 0.5); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDemoRecord measures what recording adds to the parsing of one
// server message, key frames included.
func BenchmarkDemoRecord(b *testing.B) {
	for _, rec := range []bool{false, true} {
		name := "parse"
		if rec {
			name = "parse+record"
		}
		b.Run(name, func(b *testing.B) {
			data := readTestDemo(b)
			p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			p.Frame(0)
			c := p.Client()
			c.playback, c.conn.scramble = false, false
			if rec {
				if err := c.StartRecording(nopCloser{io.Discard}, "bench"); err != nil {
					b.Fatal(err)
				}
				defer c.StopRecording()
			}
			ps := c.active.snap.ps
			ents := slices.Clone(c.entities(&c.active.snap))
			prevPS, prevEnts := ps, slices.Clone(ents)
			tm, seq := c.active.snap.serverTime, c.conn.serverMessageSequence
			buf := make([]byte, demo.MaxMessageLen)
			var w msg.Writer
			b.ReportAllocs()
			for b.Loop() {
				seq++
				tm += 50
				ps.CommandTime = tm
				ps.Origin.X++
				w.Reset(buf, msg.Huffman)
				proto.WriteReliableAck(&w, 0)
				proto.WriteSnapshot(&w, proto.SnapshotHeader{ServerTime: tm, DeltaNum: 1, BaseTime: tm - 50}, &prevPS, &ps, prevEnts, ents, &c.conn.gs.Baselines)
				w.WriteUint8(proto.SvcEOF)
				c.conn.serverMessageSequence = seq
				c.parseServerMessage(w.Bytes(), uint32(seq))
				prevPS = ps
			}
		})
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
