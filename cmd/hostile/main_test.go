package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tremor/net/netchan"
	"tremor/net/oob"
)

func TestParseAddrRange(t *testing.T) {
	for _, tc := range []struct {
		in          string
		first, last string
		n           int
		bad         bool
	}{
		{in: "127.0.0.2-127.0.0.250", first: "127.0.0.2", last: "127.0.0.250", n: 249},
		{in: "127.0.0.9", first: "127.0.0.9", last: "127.0.0.9", n: 1},
		{in: "10.0.0.255-10.0.1.1", first: "10.0.0.255", last: "10.0.1.1", n: 3},
		{in: "127.0.0.9-127.0.0.2", bad: true},
		{in: "127.0.0.1-::1", bad: true},
		{in: "nonsense", bad: true},
		{in: "10.0.0.0-10.1.0.0", bad: true}, // over the limit
	} {
		got, err := parseAddrRange(tc.in, 1000)
		if tc.bad {
			if err == nil {
				t.Errorf("parseAddrRange(%q) = %d addresses, want an error", tc.in, len(got))
			}
			continue
		}
		if err != nil {
			t.Errorf("parseAddrRange(%q): %v", tc.in, err)
			continue
		}
		if len(got) != tc.n || got[0].String() != tc.first || got[len(got)-1].String() != tc.last {
			t.Errorf("parseAddrRange(%q) = %d addresses %v..%v, want %d %s..%s", tc.in, len(got), got[0], got[len(got)-1], tc.n, tc.first, tc.last)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"help"}, 0},
		{[]string{"nosuch"}, 2},
		{[]string{"statusflood"}, 2}, // no -server
		{[]string{"rcon", "-server", "127.0.0.1:1", "-password", "p"}, 2}, // no command
		{[]string{"renameflood", "-server", "127.0.0.1:1", "-count", "0"}, 2},
	} {
		var out, errw bytes.Buffer
		if code := run(tc.args, &out, &errw); code != tc.code {
			t.Errorf("hostile %s: exit %d, want %d\nstderr: %s", strings.Join(tc.args, " "), code, tc.code, errw.String())
		}
	}
}

// TestStatusFloodCounts floods a fake server that answers every
// getstatus with a fixed reply, and checks the counts.
func TestStatusFloodCounts(t *testing.T) {
	srv, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	reply := oob.Packet(oob.FormatStatusResponse(`\sv_hostname\fake`, nil))
	go func() {
		buf := make([]byte, 2048)
		for {
			n, from, err := srv.ReadFrom(buf)
			if err != nil {
				return
			}
			if text, err := oob.Parse(buf[:n]); err == nil && oob.Command(text) == oob.CmdGetStatus {
				_ = srv.WriteTo(reply, from)
			}
		}
	}()
	var out, errw bytes.Buffer
	args := []string{"statusflood", "-server", srv.LocalAddr().String(), "-ports", "4", "-duration", "200ms", "-rate", "100", "-grace", "200ms"}
	if code := run(args, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	var res statusFloodResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	req := len(oob.Packet(oob.FormatGetStatus("")))
	if res.SentPackets < 10 || res.SentBytes != res.SentPackets*uint64(req) {
		t.Errorf("sent %d packets, %d bytes; want about 20 of %d bytes each", res.SentPackets, res.SentBytes, req)
	}
	if res.RecvPackets != res.SentPackets || res.RecvBytes != res.RecvPackets*uint64(len(reply)) || res.PortsAnswered != 4 {
		t.Errorf("received %d packets, %d bytes on %d ports; want %d of %d bytes on 4", res.RecvPackets, res.RecvBytes, res.PortsAnswered, res.SentPackets, len(reply))
	}
	if res.RecvByKind[oob.CmdStatusResponse] != res.RecvPackets {
		t.Errorf("replies by kind %v", res.RecvByKind)
	}
}

// TestRconNoAnswer checks that rcon reports an empty reply, not an error,
// when nothing answers.
func TestRconNoAnswer(t *testing.T) {
	quiet, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer quiet.Close()
	var out, errw bytes.Buffer
	start := time.Now()
	if code := run([]string{"rcon", "-server", quiet.LocalAddr().String(), "-password", "p", "-timeout", "100ms", "status"}, &out, &errw); code != 0 {
		t.Fatalf("exit %d: %s", code, errw.String())
	}
	var res rconResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Replies != 0 || res.Command != "status" {
		t.Errorf("result %s (%v), want 0 replies to status", out.String(), err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v with a 100 ms timeout", time.Since(start))
	}
}
