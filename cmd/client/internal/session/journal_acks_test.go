package session

import (
	"os"
	"testing"
	"time"

	"tremor/common/console"
	"tremor/common/proto"
	"tremor/net/cmdargs"
)

// TestJournalReplayOnTheAcksCarrier records a session whose client uses
// the acks carrier (cl_reliable acks) under 10 % simulated loss, with
// chat lines from the console, and replays it: the packet acks, the
// resend times and the message blocks depend on nothing the journal does
// not hold, so every frame's hashes replay as recorded.
func TestJournalReplayOnTheAcksCarrier(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a server and a client for 12 s of game time")
	}
	const frames = int(12 * time.Second / journalFrame)
	dir := t.TempDir()
	s, tbl := newJournalSession(t, dir, "1", 11)
	addSay(tbl, s)
	if err := tbl.SetFromCommandLine("cl_reliable", proto.ReliableAcks); err != nil {
		t.Fatal(err)
	}
	if err := s.StartMap("arena1"); err != nil {
		t.Fatal(err)
	}
	path := s.Recording()
	for i := range frames {
		if i > 0 && i%60 == 0 {
			tbl.ExecuteString("say line " + string(rune('a'+i/60%26))) // a console line: journaled
		}
		s.Frame(time.Duration(i)*journalFrame, scriptCmd(i), false)
		time.Sleep(200 * time.Microsecond)
	}
	c := s.Client()
	if c == nil || !c.Acks().On {
		t.Fatal("the client did not end on the acks carrier")
	}
	live := c.Acks()
	if live.Messages.FirstSends == 0 {
		t.Fatal("no client command went as a message")
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}

	r, rt := newJournalSession(t, dir, "2", 99)
	addSay(rt, r)
	if err := r.PlayJournal("live"); err != nil {
		t.Fatal(err)
	}
	n, err := r.ReplayAll()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if n != frames {
		t.Fatalf("replayed %d frames, want %d", n, frames)
	}
	rc := r.Client()
	if rc == nil || !rc.Acks().On {
		t.Fatal("the replayed client is not on the acks carrier")
	}
	// The carrier's own counts replay too: the same commands sent and
	// resent, the same packets acked and lost.
	got := rc.Acks()
	if got.Messages != live.Messages || got.Endpoint.Acked != live.Endpoint.Acked || got.Endpoint.Lost != live.Endpoint.Lost {
		t.Errorf("replayed carrier: messages %+v, acked %d, lost %d; live: %+v, %d, %d",
			got.Messages, got.Endpoint.Acked, got.Endpoint.Lost, live.Messages, live.Endpoint.Acked, live.Endpoint.Lost)
	}
	t.Logf("carrier: %d commands sent, %d resent, %d acked; %d packets acked, %d lost",
		live.Messages.FirstSends, live.Messages.Resends, live.Messages.Acked, live.Endpoint.Acked, live.Endpoint.Lost)
	r.Close()
}

// addSay adds the window's say command to tbl: a chat line to the
// server as a reliable command.
func addSay(tbl *console.Table, s *Session) {
	tbl.AddCommand("say", "", func(a *cmdargs.Args) {
		if c := s.Client(); c != nil {
			_ = c.AddReliableCommand("say " + cmdargs.QuoteText(a.ArgsFrom(1)))
		}
	})
}
