package browser

import (
	"strings"
	"testing"
	"time"
)

// Fill reads an answer as the browser reads its own: bounded, cleaned,
// the server's hold taken off the round trip.
func TestEntryFill(t *testing.T) {
	e := Entry{Label: "localhost:27960", State: Pending}
	info := `\challenge\x1\hostname\Room ` + strings.Repeat("x", 2*MaxTextLen) + "\x01" +
		`\mapname\arena1\clients\5\g_humanplayers\2\sv_maxclients\8\gametype\0\protocol\4\hold\30`
	e.Fill(info, 45*time.Millisecond)
	if e.State != Answered || e.Map != "arena1" || e.Humans != 2 || e.Bots != 3 || e.Max != 8 || e.Protocol != 4 {
		t.Errorf("Fill gave %+v", e)
	}
	if len(e.HostName) != MaxTextLen || !strings.HasPrefix(e.HostName, "Room x") {
		t.Errorf("host name %q, want the first %d bytes", e.HostName, MaxTextLen)
	}
	if e.Ping != 15 {
		t.Errorf("ping %d ms, want 45 less the 30 ms hold", e.Ping)
	}
	if e.Label != "localhost:27960" {
		t.Errorf("label %q changed", e.Label)
	}
}
