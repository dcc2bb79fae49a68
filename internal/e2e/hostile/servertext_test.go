package hostile

import (
	"bytes"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"tremor/common/proto"
	"tremor/net/cmdargs"
	"tremor/net/infostr"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// serverText is what the hostile server of TestHostileServerText says:
// issue 23's escape sequences (set the terminal's title, clear the
// screen, make the terminal type the cursor position into its own
// input), and a C1 CSI.
const serverText = "A\x1b]0;TITLE\x07B\x1b[2JC\x1b[6nD\u009b6nE"

// serverTextShown is serverText as every output must show it.
const serverTextShown = `A\x1b]0;TITLE\aB\x1b[2JC\x1b[6nD\u009b6nE`

// textServer is a server, written from docs/protocol.md, that answers a
// client's handshake with serverText in connectionless prints, and, when
// it lets the client connect, sends it a reliable print and a disconnect
// carrying serverText.
type textServer struct {
	conn   *netchan.UDPConn
	refuse bool // answer connect with a print, never let the client in
	done   chan struct{}
}

// startTextServer runs a textServer on 127.0.0.1 until the test ends.
func startTextServer(t *testing.T, refuse bool) *textServer {
	t.Helper()
	conn, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &textServer{conn: conn, refuse: refuse, done: make(chan struct{})}
	go s.run()
	t.Cleanup(func() {
		conn.Close()
		<-s.done
	})
	return s
}

func (s *textServer) addr() netip.AddrPort { return s.conn.LocalAddr() }

func (s *textServer) run() {
	defer close(s.done)
	const challenge = 424242
	var ch *netchan.Chan
	buf := make([]byte, netchan.MaxPacketLen+64)
	wbuf := make([]byte, netchan.MaxMsgLen)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return // closed
		}
		p := buf[:n]
		if !oob.IsConnectionless(p) {
			if ch == nil {
				continue
			}
			if _, _, err := ch.Process(p); err != nil {
				continue
			}
			// Every packet of the client gets the commands again, in
			// case one was lost: the client runs each sequence once.
			w := msg.NewWriter(wbuf, msg.Huffman)
			proto.WriteReliableAck(w, 0)
			proto.WriteServerCommand(w, 1, "print "+cmdargs.QuoteText(serverText+"\n"))
			proto.WriteServerCommand(w, 2, "chat "+cmdargs.QuoteText(serverText))
			proto.WriteServerCommand(w, 3, "disconnect "+cmdargs.QuoteText(serverText))
			w.WriteUint8(proto.SvcEOF)
			if ch.Transmit(w.Bytes()) == nil {
				_ = ch.Flush()
			}
			continue
		}
		text, err := oob.Parse(p)
		if err != nil {
			continue
		}
		switch oob.Command(text) {
		case oob.CmdGetChallenge:
			clientCh, err := oob.ParseGetChallenge(text)
			if err != nil {
				continue
			}
			_ = s.conn.WriteTo(oob.Packet(oob.FormatPrint(serverText+"\n")), from)
			_ = s.conn.WriteTo(oob.Packet(oob.FormatChallengeResponse(challenge, clientCh)), from)
		case oob.CmdConnect:
			_ = s.conn.WriteTo(oob.Packet(oob.FormatPrint(serverText+"\n")), from)
			if s.refuse {
				continue
			}
			info, err := oob.ParseConnect(text)
			if err != nil {
				continue
			}
			q, _ := strconv.Atoi(infostr.ValueForKey(info, "qport"))
			ch = netchan.New(s.conn, from, netchan.ServerSide, uint16(q))
			_ = s.conn.WriteTo(oob.Packet(oob.FormatConnectResponse(challenge)), from)
		}
	}
}

// TestHostileServerText runs the real cmd/headless against a server
// whose prints, chat and disconnect reason carry terminal escape
// sequences (issue 23): its standard error, its report and its event log
// hold no control character, and show the text escaped.
func TestHostileServerText(t *testing.T) {
	bins := build(t)
	for _, tc := range []struct {
		name   string
		refuse bool
		want   string // on standard error
	}{
		// A reliable disconnect: the client was told to go.
		{"disconnect", false, "client 0 failed: server disconnected: " + serverTextShown},
		// Connectionless prints only: the client gives up, quoting the
		// server's last print.
		{"print", true, " tries: " + serverTextShown + " (disconnected)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startTextServer(t, tc.refuse)
			dir := t.TempDir()
			logFile := filepath.Join(dir, "events.log")
			p := start(t, dir, bins.headless, "-clients", "1", "-duration", "20s", "-chat-every", "0",
				"-log", logFile, "+set", "cl_connectTries", "1", "+set", "cl_shownet", "2",
				"+connect", srv.addr().String())
			if !p.wait(15 * time.Second) {
				t.Fatalf("headless did not end within 15 s of the server's disconnect\n%s", p.stderr.String())
			}
			stderr, stdout := p.stderr.String(), p.stdout.String()
			events, err := os.ReadFile(logFile)
			if err != nil {
				t.Fatal(err)
			}
			for _, out := range []struct{ name, text string }{
				{"standard error", stderr}, {"report", stdout}, {"event log", string(events)},
			} {
				if i := strings.IndexAny(out.text, "\x1b\x07\u009b"); i >= 0 {
					t.Errorf("%s holds a control character at byte %d:\n%q", out.name, i, out.text)
				}
				if i := bytes.IndexFunc([]byte(out.text), func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' }); i >= 0 {
					t.Errorf("%s holds a C0 control at byte %d:\n%q", out.name, i, out.text)
				}
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("standard error lacks %q:\n%s", tc.want, stderr)
			}
			if !strings.Contains(stdout, strings.ReplaceAll(serverTextShown, `\`, `\\`)) {
				t.Errorf("report does not show the reason escaped:\n%s", stdout)
			}
			if !tc.refuse && !strings.Contains(string(events), `"event":"server_command"`) {
				t.Errorf("no server command logged:\n%s", events)
			}
			if code := p.cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit status %d, want 1 (the client failed)", code)
			}
		})
	}
}
