package inspect

import (
	"testing"

	"tremor/common/proto"
	"tremor/net/msg"
	"tremor/net/netchan"
)

// TestDownloadOps: after the gamestate, a client that lacks the map
// writes the downloading server id and asks for it; the server answers
// with download blocks. The inspector reads both: the header as current
// and downloading, the command as new, the blocks with their fields.
func TestDownloadOps(t *testing.T) {
	s := newSession(false)
	pkts := append([]packet(nil), s.pkts[:5]...) // the handshake and the gamestate
	down, up := &capture{}, &capture{}
	sch := netchan.New(down, clientAddr, netchan.ServerSide, testQport)
	cch := netchan.New(up, serverAddr, netchan.ClientSide, testQport)
	const request = "download courtyard"
	sch.Encode = func(seq uint32, m []byte) { proto.ScrambleServerMessage(m, testChallenge, seq, request) }
	cch.Encode = func(_ uint32, m []byte) { proto.ScrambleClientMessage(m, testChallenge, "print hello") }
	var buf [netchan.MaxMsgLen]byte
	w := msg.NewWriter(buf[:], msg.Huffman)
	sch.Transmit([]byte{0}) // message 1 was the gamestate
	down.take()

	w.Reset(buf[:], msg.Huffman)
	proto.WriteClientHeader(w, proto.ClientHeader{ServerID: proto.DownloadServerID(testServerID), MessageAcknowledge: 1, ReliableAcknowledge: 1})
	proto.WriteClientCommand(w, 1, request)
	w.WriteUint8(proto.ClcEOF)
	cch.Transmit(w.Bytes())
	for _, p := range up.take() {
		pkts = append(pkts, packet{ClientToServer, p})
	}
	w.Reset(buf[:], msg.Huffman)
	proto.WriteReliableAck(w, 1)
	proto.WriteDownload(w, &proto.Download{Name: "courtyard", Size: 717, Checksum: 12345})
	proto.WriteDownload(w, &proto.Download{Block: 1, Data: make([]byte, 717)})
	w.WriteUint8(proto.SvcEOF)
	sch.Transmit(w.Bytes())
	for _, p := range down.take() {
		pkts = append(pkts, packet{ServerToClient, p})
	}

	msgs := feed(New(), pkts)
	up1, down2 := &msgs[5], &msgs[6]
	if up1.Kind != KindMessage || up1.Err != "" {
		t.Fatalf("client message: %s", up1.Summary())
	}
	fields := map[string]string{}
	for _, f := range up1.Ops[0].Fields {
		fields[f.Name] = f.Value
	}
	if fields["current"] != "true" || fields["downloading"] != "true" {
		t.Errorf("client header fields %v: want current and downloading", fields)
	}
	if o := findOp(up1, OpClientCommand); o == nil || o.Command.Text != request || !o.Command.New {
		t.Errorf("download request: %+v", o)
	}
	if down2.Kind != KindMessage || down2.Err != "" {
		t.Fatalf("server message: %s", down2.Summary())
	}
	var blocks []map[string]string
	for _, o := range down2.Ops {
		if o.Name == OpDownload {
			f := map[string]string{}
			for _, x := range o.Fields {
				f[x.Name] = x.Value
			}
			blocks = append(blocks, f)
		}
	}
	if len(blocks) != 2 || blocks[0]["name"] != "courtyard" || blocks[0]["size"] != "717" || blocks[0]["checksum"] != "12345" ||
		blocks[1]["block"] != "1" || blocks[1]["bytes"] != "717" {
		t.Errorf("download ops %v", blocks)
	}
	checkBits(t, down2)
}
