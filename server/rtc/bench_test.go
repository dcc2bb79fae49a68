package rtc_test

import (
	"net/netip"
	"testing"
	"time"

	"tremor/net/netchan"
	"tremor/server/rtc"
)

// BenchmarkWriteToPeer measures one packet of a typical snapshot's size
// (200 bytes) sent by the server to an open WebRTC peer: pion's
// DataChannel send, SCTP chunking, DTLS sealing and the UDP write.
// -benchmem shows pion's allocations per packet.
func BenchmarkWriteToPeer(b *testing.B) {
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	tr, err := rtc.Listen(udp, rtc.Config{SharedPort: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	web, err := tr.ListenHTTP("127.0.0.1:0", "")
	if err != nil {
		b.Fatal(err)
	}
	br, err := dial(browserAPI(), "http://"+web.String()+rtc.Path, udp.LocalAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	go func() { // the page reads what arrives
		var buf [2048]byte
		for {
			if _, _, err := br.ReadFrom(buf[:]); err != nil {
				return
			}
		}
	}()
	peer, ok := waitPeer(tr)
	if !ok {
		b.Fatal("the server did not open the peer")
	}
	benchWrite(b, tr.Conn(), peer)
}

// BenchmarkWriteToUDP is the same packet to a UDP player through the
// same Conn, for comparison.
func BenchmarkWriteToUDP(b *testing.B) {
	udp, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	tr, err := rtc.Listen(udp, rtc.Config{SharedPort: true})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	sink, err := netchan.ListenUDP("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer sink.Close()
	benchWrite(b, tr.Conn(), sink.LocalAddr())
}

func benchWrite(b *testing.B, c netchan.Conn, to netip.AddrPort) {
	pkt := make([]byte, 200)
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt)))
	for b.Loop() {
		if err := c.WriteTo(pkt, to); err != nil {
			b.Fatal(err)
		}
	}
}

// waitPeer waits up to 5 s for the transport's first open peer: the
// page's channel opens a moment before the server's side does.
func waitPeer(tr *rtc.Transport) (netip.AddrPort, bool) {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if a := tr.PeerAddrs(); len(a) > 0 {
			return a[0], true
		}
	}
	return netip.AddrPort{}, false
}
