package client

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tremor/common/console"
)

func TestPlaybackCommands(t *testing.T) {
	data := readTestDemo(t)
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Frame(0)
	tab := console.NewTable()
	var out bytes.Buffer
	tab.SetOutput(&out)
	var cur *Playback
	AddPlaybackCommands(tab, func() *Playback { return cur })
	tab.ExecuteString("demo_pause")
	if !strings.Contains(out.String(), "no demo playing") {
		t.Errorf("without a demo: %q", out.String())
	}
	cur = p
	s, _ := p.Summary()
	for _, tc := range []struct {
		cmd   string
		check func() bool
	}{
		{"demo_pause", func() bool { return p.Paused() }},
		{"demo_timescale 2.5", func() bool { return p.Timescale() == 2.5 }},
		{"demo_seekpct 50", func() bool { _, tm := p.Current(); return tm >= s.FirstTime+(s.LastTime-s.FirstTime)/2 }},
		{"demo_seek 2", func() bool { _, tm := p.Current(); return tm >= s.FirstTime+2000 && tm < s.FirstTime+2100 }},
		{"demo_step", func() bool { _, tm := p.Current(); return tm > s.FirstTime+2000 }},
		{"demo_stepback", func() bool { _, tm := p.Current(); return tm >= s.FirstTime+2000 && tm < s.FirstTime+2100 }},
		{"demo_nextfrag", func() bool { _, tm := p.Current(); return len(s.Frags) == 0 || tm == s.Frags[0].ServerTime }},
		{"demo_info", func() bool { return strings.Contains(out.String(), "map arena2") }},
		{"demo_pause", func() bool { return !p.Paused() }},
	} {
		tab.ExecuteString(tc.cmd)
		if !tc.check() {
			t.Errorf("%s: not done (console: %q)", tc.cmd, out.String())
		}
	}
}

// TestRecordTo records a client into a file named by date and map, then
// plays the file.
func TestRecordTo(t *testing.T) {
	dir := t.TempDir()
	data := readTestDemo(t)
	p, err := NewPlayback(bytes.NewReader(data), int64(len(data)), PlaybackConfig{NoCGame: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Frame(0)
	c := p.Client()
	if _, err := c.RecordTo(dir, ""); err != ErrNotInLevel {
		t.Errorf("recording a playback: %v", err)
	}
	c.playback = false // a live client for the recorder
	tab := console.NewTable()
	var out bytes.Buffer
	tab.SetOutput(&out)
	AddRecordCommands(tab, dir, func() *Client { return c })
	tab.ExecuteString("record")
	if _, ok := c.Recording(); !ok {
		t.Fatalf("not recording: %q", out.String())
	}
	tab.ExecuteString("record again")
	c.playback = true
	p.Frame(5 * time.Second) // five seconds of messages
	tab.ExecuteString("stoprecord")
	files, _ := filepath.Glob(filepath.Join(DemoDir(dir), "*_arena2.tdm"))
	if len(files) != 1 || !strings.Contains(out.String(), "already recording") {
		t.Fatalf("files %v, console %q", files, out.String())
	}
	s, err := ReadSummary(files[0], Config{})
	if err != nil || s.Err != nil || !s.Indexed || s.Messages < 90 || s.Header.Map != "arena2" {
		t.Fatalf("summary %v, %v", s, err)
	}
	q, err := OpenDemo(files[0], PlaybackConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res := q.TimeDemo(50*time.Millisecond, nil)
	if res.Err != nil || res.Frames < 90 {
		t.Errorf("timedemo: %s, %v", &res, res.Err)
	}
	q.Close()

	c.SetAutoRecordDemo(true, DemoDir(dir))
	if !c.autoRecordDemo || c.demoDir != DemoDir(dir) {
		t.Error("auto-recording not set")
	}
	if _, err := os.Stat(DemoDir(dir)); err != nil {
		t.Error(err)
	}
}
