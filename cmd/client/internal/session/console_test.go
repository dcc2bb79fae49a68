package session

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"tremor/bg"
	"tremor/cmd/client/internal/userdata"
	"tremor/common/console"
	"tremor/net/cmdargs"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// settings is the window's console.Store (cmd/client/config.go): the
// archived cvars in the property cvars.cfg of the data directory.
type settings struct{ m *userdata.Data }

func (s settings) Load() (map[string]string, error) {
	b, err := s.m.Load("config", "cvars.cfg")
	if err != nil {
		return nil, err
	}
	return console.DecodeConfig(b)
}

func (s settings) Save(kv map[string]string) error {
	return s.m.Save("config", "cvars.cfg", console.EncodeConfig(kv))
}

// lanSource returns an address of this host that is not a loopback one:
// the embedded server's UDP port refuses loopback sources (only the
// in-memory loopback may claim them).
func lanSource(t *testing.T) netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() && !p.Addr().IsLinkLocalUnicast() {
			return p.Addr()
		}
	}
	t.Skip("no address but loopback to send rcon from")
	return netip.Addr{}
}

// TestOneConsole starts the window's embedded server on a UDP port and
// sets cvars through rcon, the way a LAN admin would, and through the
// host's console: there is one store. What rcon sets is the host
// console's value at once, the server's field, and, for archived cvars,
// what the window saves; what the host sets, rcon reads back; the
// protections hold (sv_configdir, the window's own commands).
func TestOneConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server on a UDP port")
	}
	src := lanSource(t)
	tbl := console.NewTable()
	tbl.SetOutput(io.Discard)
	tbl.Register(Cvars...)
	quit := false
	tbl.AddCommand("quit", "the window's own", func(*cmdargs.Args) { quit = true })
	for _, set := range [][2]string{{"net_ip", src.String()}, {"net_port", "0"}, {"rconPassword", "pw"}} {
		if err := tbl.Set(set[0], set[1]); err != nil {
			t.Fatal(err)
		}
	}
	s := New(tbl, io.Discard, 1)
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	lan, ok := s.LANAddr()
	if !ok {
		t.Fatal("no UDP port")
	}
	admin, err := netchan.ListenUDP(net.JoinHostPort(src.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	buf := make([]byte, 1<<16)
	start := time.Now()
	frame := func() {
		tbl.Execute()
		s.Frame(time.Since(start), bg.UserCmd{}, false)
	}
	rcon := func(cmd string) string {
		t.Helper()
		if err := admin.WriteTo(oob.Packet("rcon pw "+cmd), lan); err != nil {
			t.Fatal(err)
		}
		var reply strings.Builder
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
			frame()
			_ = admin.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			n, _, err := admin.ReadFrom(buf)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				if reply.Len() > 0 {
					return reply.String()
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if pkt, err := oob.Parse(buf[:n]); err == nil {
				if text, err := oob.ParsePrint(pkt); err == nil {
					reply.WriteString(text)
				}
			}
		}
		t.Fatalf("rcon %s: no reply", cmd)
		return ""
	}

	tbl.TakeModifiedFlags(console.Archive)
	rcon("fraglimit 7")
	if v := tbl.Get("fraglimit").Value(); v != "7" {
		t.Fatalf("host console: fraglimit %q after rcon fraglimit 7", v)
	}
	if got := s.Server().Config().Game.FragLimit; got != 7 {
		t.Fatalf("server field: fraglimit %d", got)
	}
	if tbl.TakeModifiedFlags(console.Archive) == 0 {
		t.Fatal("fraglimit changed without marking an archived cvar modified: the window would not save it")
	}
	m, err := userdata.Open("tremor", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.SaveArchived(settings{m}); err != nil {
		t.Fatal(err)
	}
	saved, err := settings{m}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if saved["fraglimit"] != "7" {
		t.Fatalf("saved settings %v: fraglimit not 7", saved)
	}

	tests := []struct {
		name  string
		host  string // typed on the host console first
		rcon  string
		reply string
		check func() bool
	}{
		{"host set, rcon reads", "timelimit 15", "timelimit", `timelimit is "15"`,
			func() bool { return s.Server().Config().Game.TimeLimit == 15 }},
		{"rcon clamps", "", "sv_fps 1000", "above the maximum 250",
			func() bool { return tbl.Get("sv_fps").Int() == 250 && s.Server().Config().FPS == 250 }},
		{"rcon latches", "", "g_gametype 3", "g_gametype will be changed",
			func() bool { return tbl.Get("g_gametype").Int() == 0 }},
		{"string refuses a semicolon", "", `sv_hostname "a;b"`, "cannot carry",
			func() bool { return tbl.Get("sv_hostname").Value() == "Tremor" }},
		{"sv_configdir is local", "", "sv_configdir /", "cannot be set through rcon",
			func() bool { return tbl.Get("sv_configdir").Value() == "." }},
		{"the window's commands are local", "", "quit", "quit cannot be run through rcon",
			func() bool { return !quit }},
		{"the window's cvars are local", "", "name Mallory", "name cannot be set through rcon",
			func() bool { return tbl.Get("name").Value() == "Player" }},
		{"server commands", "", "status", "num score ping", func() bool { return true }},
		{"map_restart applies the latch", "", "map_restart; g_gametype", `g_gametype is "3"`,
			func() bool { return s.Server().Config().Game.GameType == 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.host != "" {
				tbl.Append(tt.host)
				frame()
			}
			if out := rcon(tt.rcon); !strings.Contains(out, tt.reply) {
				t.Errorf("rcon %s: %q lacks %q", tt.rcon, out, tt.reply)
			}
			if !tt.check() {
				t.Errorf("rcon %s: state not as expected", tt.rcon)
			}
		})
	}

	// The server stops; its cvars stay with their values, unbound, and
	// its commands go.
	s.Disconnect()
	if tbl.Get("fraglimit").Value() != "7" || tbl.HasCommand("map_restart") {
		t.Fatalf("after the server: fraglimit %q, map_restart there %v", tbl.Get("fraglimit").Value(), tbl.HasCommand("map_restart"))
	}
	tbl.ExecuteString("fraglimit 8")
	if err := s.StartMap("duel1"); err != nil {
		t.Fatal(err)
	}
	if got := s.Server().Config().Game.FragLimit; got != 8 {
		t.Fatalf("a new server has fraglimit %d, want the table's 8", got)
	}
}
