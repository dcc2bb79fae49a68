package protospec

import (
	"fmt"
	"slices"
	"strings"

	"tremor/common/proto"
	"tremor/internal/inspect"
	"tremor/net/msg"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// vectorTitles describes each vector file, by tag.
var vectorTitles = map[string]string{
	"1-handshake": "the handshake: getchallenge, challengeResponse, connect, connectResponse (connectionless packets)",
	"2-gamestate": "the client's first message (server id 0, nothing acknowledged), " +
		"and the gamestate the server answers with, in fragments paced by the client's rate",
	"3-usercmds":       "the client's first message with the gamestate's server id: usercmds (clc_moveNoDelta), which enter it into the game",
	"4-snapshot-full":  "a full snapshot (deltaNum 0)",
	"5-command":        "a client message with the client's first reliable command (sequence 1) and three usercmds",
	"6-snapshot-delta": "a delta snapshot, carrying the server commands the reliable command caused",
	"7-ack":            "the client acknowledges the delta snapshot and the server command (the text its next messages are keyed with)",
	"8-time-runs":      "three moves of four usercmds whose later times go as time runs of width 1, 2 and 3, each after a snapshot",
	"9-key-text": "a reliable command whose chat line comes back with bytes above 127, " +
		"and the message that acknowledges it, its usercmds keyed with HashKey of that text",
}

// acksTitles describes each file of the acks session, by tag.
var acksTitles = map[string]string{
	"1-handshake": "the handshake, the client asking for the acks carrier (reliable\\acks in its userinfo)",
	"2-gamestate": "the client's first message (server id 0, no carrier yet), and the gamestate the server answers with, " +
		"its message starting the acks carrier: SvcAck, then SvcMessageBase",
	"3-usercmds":      "the client's first message with the server id: its first ClcAck (the gamestate's message received), and usercmds",
	"4-snapshot-full": "a full snapshot, the server commands the client's entrance caused in an SvcMessages block by id",
	"5-command":       "a client message whose ClcMessages block carries its first two commands, ids 0 and 1, and three usercmds",
	"6-messages":      "the server acknowledges the client's packet (SvcAck) and sends the chat lines the commands caused by id",
	"7-ack":           "the client acknowledges the server's messages (ClcAck); nothing of its own waits, so no block",
}

// frameSyncTitles describes each file of the frame-sync session, by tag.
var frameSyncTitles = map[string]string{
	"1-handshake": "the handshake (connectionless packets)",
	"2-gamestate": "the client's first message (server id 0, nothing acknowledged), " +
		"and the gamestate, whose serverinfo says sv_netmodel framesync",
	"3-enter": "the client's first message with the server id, without usercmds: it enters the game",
	"4-whole-state": "the server's first message to the client in the game: SvcFrames of the frames " +
		"from the whole state's frame on, coded from nothing, then SvcWholeState, in fragments",
	"5-usercmds": "usercmds for the three frames after the newest received, each stamped with its frame's time, " +
		"and a reliable command (the game gets it as an event)",
	"6-frames": "frames coded from the frame the client acknowledged, until one message carries the command's " +
		"event and a frame with the state hash; the input lead in each",
	"7-frame-request": "ClcFrameRequest for frames again from the frame before the newest, and the frames " +
		"the server answers with, coded from nothing",
	"8-whole-request": "ClcFrameRequest for the whole state of a hash frame, and the server's answer: " +
		"the frames from that frame on, then its whole state",
}

// Vectors plays the vector connection four times, with sv_scramble 0
// and 1, on the acks carrier and in frame sync, and returns the files of
// docs/vectors: plain/*.txt, scrambled/*.txt, acks/*.txt,
// framesync/*.txt and huffman.txt.
func Vectors() ([]File, error) {
	sessions, err := vectorSessions()
	if err != nil {
		return nil, err
	}
	a, err := acksSession()
	if err != nil {
		return nil, err
	}
	fs, err := frameSyncSession()
	if err != nil {
		return nil, err
	}
	sessions = append(sessions, a, fs)
	var files []File
	for _, s := range sessions {
		dir := "plain"
		switch {
		case s.acks != nil:
			dir = "acks"
		case s.fs != nil:
			dir = "framesync"
		case s.scramble:
			dir = "scrambled"
		}
		var tags []string
		for _, r := range s.records {
			if !slices.Contains(tags, r.tag) {
				tags = append(tags, r.tag)
			}
		}
		for _, tag := range tags {
			files = append(files, File{Name: dir + "/" + tag + ".txt", Data: []byte(s.format(tag))})
		}
	}
	files = append(files, File{Name: "huffman.txt", Data: []byte(huffmanTable())})
	return files, nil
}

// vectorSessions plays the vector connection on the rings with
// sv_scramble 0, then 1. Every packet must decode without an error.
func vectorSessions() ([]*session, error) {
	var out []*session
	for _, scramble := range []bool{false, true} {
		s, err := newSession(scramble)
		if err != nil {
			return nil, err
		}
		if err := s.play(fmt.Sprintf("sv_scramble %d", btoi(scramble))); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// acksSession plays the vector connection on the acks carrier. Every
// packet must decode without an error.
func acksSession() (*session, error) {
	s, err := newAcksSession()
	if err != nil {
		return nil, err
	}
	return s, s.play("the acks carrier")
}

// frameSyncSession plays the vector connection in frame sync. Every
// packet must decode without an error.
func frameSyncSession() (*session, error) {
	s, err := newFrameSyncSession()
	if err != nil {
		return nil, err
	}
	return s, s.play("frame sync")
}

// play runs the session and checks that every packet decodes; name
// says which session an error is of.
func (s *session) play(name string) error {
	if err := s.run(); err != nil {
		return err
	}
	for i, r := range s.records {
		for _, m := range r.msgs {
			if m.Err != "" || m.CannotDecode {
				return fmt.Errorf("%w: %s: packet %d does not decode: %s", errVector, name, i+1, m.Err)
			}
		}
	}
	return nil
}

// format writes the vector file of tag.
func (s *session) format(tag string) string {
	var b strings.Builder
	title, carrier := vectorTitles[tag], ""
	switch {
	case s.acks != nil:
		title, carrier = acksTitles[tag], ", cl_reliable acks"
	case s.fs != nil:
		title, carrier = frameSyncTitles[tag], ", sv_netmodel framesync, "+itoa(VectorFrameSyncBots)+" bots"
	}
	fmt.Fprintf(&b, "# Tremor protocol %d test vector: %s.\n", proto.Version, title)
	fmt.Fprintf(&b, "# Generated by `go test ./internal/protospec -update` (make protodoc): the server engine\n")
	fmt.Fprintf(&b, "# (seed %d, map %s, sv_scramble %d%s) at %s and a client written with the codec at %s.\n",
		VectorSeed, VectorMap, btoi(s.scramble), carrier, VectorServerAddr, VectorClientAddr)
	fmt.Fprintf(&b, "# Connection: client challenge %d, challenge %d, qport %d, server id %d, checksum feed %d.\n",
		VectorClientChallenge, s.challenge, VectorQport, s.serverID, s.checksumFeed)
	b.WriteString("# Each packet: its bytes as on the wire (UDP payload), its netchan header, its body\n")
	b.WriteString("# (reassembled when fragmented; unscrambled when scrambled) and its decoding by internal/inspect.\n")
	for i, r := range s.records {
		if r.tag != tag {
			continue
		}
		dir := "client -> server"
		if r.dir == inspect.ServerToClient {
			dir = "server -> client"
		}
		fmt.Fprintf(&b, "\n## packet %d: %s, %d bytes, real time %d ms\n\n", i+1, dir, len(r.data), r.time)
		hexdump(&b, r.data)
		if oob.IsConnectionless(r.data) {
			text, _ := oob.Parse(r.data)
			fmt.Fprintf(&b, "\nconnectionless: ff ff ff ff, then the text %q, then a 00 byte\n", text)
		} else {
			side := netchan.ClientSide
			if r.dir == inspect.ClientToServer {
				side = netchan.ServerSide
			}
			h, err := netchan.PeekHeader(r.data, side)
			if err == nil {
				fmt.Fprintf(&b, "\nnetchan header (%d bytes): sequence %d", h.Len(), h.Sequence)
				if h.HasQport {
					fmt.Fprintf(&b, ", qport %d", h.Qport)
				}
				if h.Fragment {
					fmt.Fprintf(&b, ", fragment: start %d, length %d", h.FragmentStart, h.FragmentLength)
				}
				b.WriteString("\n")
			}
			if r.body == nil {
				b.WriteString("(a fragment: the message is not complete yet)\n")
			}
		}
		if r.body != nil && (r.dir == inspect.ServerToClient && fragmented(s.records, i)) {
			fmt.Fprintf(&b, "\nreassembled message (%d bytes, as sent):\n\n", len(r.body))
			hexdump(&b, r.body)
		}
		if sc := r.scramble; sc != nil {
			fmt.Fprintf(&b, "\nscrambled: from byte %d of the body (the fields the key uses end at bit %d; rounded up to a byte)\n",
				(sc.offsetBit+7)/8, sc.offsetBit)
			fmt.Fprintf(&b, "  key  0x%08x = %s\n", sc.key, sc.keyDesc)
			fmt.Fprintf(&b, "  text %s\n", quoteBytes(sc.text))
			fmt.Fprintf(&b, "\nbody unscrambled (%d bytes):\n\n", len(r.plain))
			hexdump(&b, r.plain)
		} else if r.body != nil && !fragmented(s.records, i) {
			fmt.Fprintf(&b, "\nbody (%d bytes, not scrambled)\n", len(r.body))
		}
		if k := r.key; k != nil {
			fmt.Fprintf(&b, "\nusercmd key 0x%08x = checksumFeed %d ^ messageAcknowledge %d ^ HashKey(text, 32) 0x%08x\n",
				k.key, k.checksumFeed, k.messageAck, proto.HashKey(k.text, 32))
			fmt.Fprintf(&b, "  text %s\n", quoteBytes(k.text))
			if tr, ok := readTimeRun(r.plain); ok && tr.run {
				fmt.Fprintf(&b, "time run: step %d ms, width %d; e_1..e_%d =", tr.step, tr.width, len(tr.e))
				for _, e := range tr.e {
					fmt.Fprintf(&b, " %d", e)
				}
				fmt.Fprintf(&b, " (%d bits right after width, before usercmd 0)\n", tr.width*len(tr.e))
			}
		}
		if s.acks != nil {
			formatAcksOps(&b, &r)
		}
		b.WriteString("\ndecoding:\n")
		for _, m := range r.msgs {
			var t strings.Builder
			_ = m.WriteText(&t, true)
			b.WriteString(indent(t.String()))
		}
	}
	return b.String()
}

// quoteBytes quotes s with every byte outside printable ASCII as \xHH,
// so that a byte above 127 shows as the byte it is.
func quoteBytes(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// fragmented reports whether record i completed a fragmented message.
func fragmented(recs []record, i int) bool {
	r := recs[i]
	side := netchan.ClientSide
	if r.dir == inspect.ClientToServer {
		side = netchan.ServerSide
	}
	h, err := netchan.PeekHeader(r.data, side)
	return err == nil && h.Fragment
}

func itoa(n int) string { return fmt.Sprint(n) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("  "+l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// hexdump writes data 16 bytes a line: offset, hex, printable ASCII.
func hexdump(b *strings.Builder, data []byte) {
	for off := 0; off < len(data); off += 16 {
		line := data[off:min(off+16, len(data))]
		fmt.Fprintf(b, "%04x ", off)
		for i := 0; i < 16; i++ {
			if i == 8 {
				b.WriteByte(' ')
			}
			if i < len(line) {
				fmt.Fprintf(b, " %02x", line[i])
			} else {
				b.WriteString("   ")
			}
		}
		b.WriteString("  |")
		for _, c := range line {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			b.WriteByte(c)
		}
		b.WriteString("|\n")
	}
}

// huffmanTable lists the Huffman code of every byte: its frequency in
// msg.DefaultFrequencies, the length and the bits of its code in the
// order they are sent, as the encoder produces them.
func huffmanTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Tremor protocol %d: the Huffman code (net/msg DefaultCode, built from DefaultFrequencies).\n", proto.Version)
	b.WriteString("# Generated by `go test ./internal/protospec -update` from the encoder: for each byte value its\n")
	b.WriteString("# frequency, its code length, and its code as the bits are sent (first bit first; each bit goes\n")
	b.WriteString("# into the stream least-significant-bit first, so the first bit is bit 0 of the first byte).\n")
	b.WriteString("#\n# byte  frequency  length  code\n")
	for v := 0; v < 256; v++ {
		enc := msg.DefaultCode.Encode(nil, []byte{byte(v)})
		n := msg.DefaultCode.Len(byte(v))
		code := make([]byte, n)
		for i := range n {
			code[i] = '0' + enc[i/8]>>(i%8)&1
		}
		fmt.Fprintf(&b, "0x%02x  %9d  %6d  %s\n", v, msg.DefaultFrequencies[v], n, code)
	}
	return b.String()
}
