package rtc

import (
	"net/netip"
	"time"

	"github.com/pion/webrtc/v4"
)

// peer is one browser: its PeerConnection and, once open, its
// DataChannel and remote address. Its state changes under the
// Transport's lock.
type peer struct {
	t   *Transport
	pc  *webrtc.PeerConnection
	src netip.Addr // the signalling request's address

	// Under t.mu:
	timer  *time.Timer // the pending timeout
	dc     *webrtc.DataChannel
	addr   netip.AddrPort
	open   bool
	closed bool
}

// onDataChannel takes the browser's channel: it must be the one Tremor
// asks for (label, unordered, no retransmissions), and only one.
func (p *peer) onDataChannel(dc *webrtc.DataChannel) {
	mr := dc.MaxRetransmits()
	if dc.Label() != Label || dc.Ordered() || mr == nil || *mr != 0 {
		p.t.logf("rtc: %s: refused a DataChannel %q (ordered %v): want %q, unordered, maxRetransmits 0",
			p.src, dc.Label(), dc.Ordered(), Label)
		p.close("wrong DataChannel")
		return
	}
	p.t.mu.Lock()
	dup := p.dc != nil
	if !dup {
		p.dc = dc
	}
	p.t.mu.Unlock()
	if dup {
		p.close("a second DataChannel")
		return
	}
	dc.OnOpen(func() { p.onOpen(dc) })
	dc.OnClose(func() { p.close("channel closed") })
}

// onOpen makes the peer one of the server's addresses: the remote
// address of its selected candidate pair.
func (p *peer) onOpen(dc *webrtc.DataChannel) {
	addr, ok := p.remoteAddr()
	if !ok {
		p.close("no selected candidate pair")
		return
	}
	t := p.t
	t.mu.Lock()
	if p.closed {
		t.mu.Unlock()
		return
	}
	if other := t.peers[addr]; other != nil {
		t.mu.Unlock()
		t.logf("rtc: %s: refused: a peer at that address is open already", addr)
		p.close("address in use")
		return
	}
	p.addr, p.open = addr, true
	t.pending--
	t.peers[addr] = p
	delete(t.gone, addr)
	t.stats.Opened++
	if p.timer != nil {
		p.timer.Stop()
	}
	t.mu.Unlock()
	dc.OnMessage(func(m webrtc.DataChannelMessage) {
		if m.IsString {
			return // datagrams are binary; a text message is no packet
		}
		if t.ring.Push(m.Data, addr) {
			t.packetsIn.Add(1)
		} else {
			t.ringDrops.Add(1)
		}
	})
	t.logf("rtc: peer %s open (signalled from %s)", addr, p.src)
}

// remoteAddr returns the remote address of the peer's selected ICE
// candidate pair: the address the browser's packets came from.
func (p *peer) remoteAddr() (netip.AddrPort, bool) {
	sctp := p.pc.SCTP()
	if sctp == nil {
		return netip.AddrPort{}, false
	}
	pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair()
	if err != nil || pair == nil || pair.Remote == nil {
		return netip.AddrPort{}, false
	}
	a, err := netip.ParseAddr(pair.Remote.Address)
	if err != nil {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(a.Unmap(), pair.Remote.Port), true
}

// onState frees the peer when ICE gives up on it or it closes.
func (p *peer) onState(s webrtc.PeerConnectionState) {
	switch s {
	case webrtc.PeerConnectionStateFailed, webrtc.PeerConnectionStateClosed:
		p.close("connection " + s.String())
	}
}

// expire drops a peer that did not open its channel in time.
func (p *peer) expire() {
	p.t.mu.Lock()
	pending := !p.open && !p.closed
	if pending {
		p.t.stats.Expired++
	}
	p.t.mu.Unlock()
	if pending {
		p.close("did not open its channel in time")
	}
}

// send writes one datagram to the peer's channel.
func (p *peer) send(b []byte) error {
	if err := p.dc.Send(b); err != nil {
		p.t.sendErrors.Add(1)
		return nil // as UDP: a lost packet, not a broken socket
	}
	p.t.packetsOut.Add(1)
	return nil
}

// close frees the peer once: its slot, its address (writes to which are
// dropped for goneTTL), and its PeerConnection (closed on a goroutine of
// its own: pion's callbacks may call close).
func (p *peer) close(why string) {
	t := p.t
	t.mu.Lock()
	if p.closed {
		t.mu.Unlock()
		return
	}
	p.closed = true
	delete(t.all, p)
	if p.open {
		if t.peers[p.addr] == p {
			delete(t.peers, p.addr)
			t.markGone(p.addr)
		}
	} else {
		t.pending--
	}
	t.stats.Closed++
	closing, pc := t.closed, p.pc
	if p.timer != nil {
		p.timer.Stop()
	}
	t.mu.Unlock()
	if p.open {
		t.logf("rtc: peer %s closed: %s", p.addr, why)
	} else {
		t.logf("rtc: offer from %s dropped: %s", p.src, why)
	}
	if pc != nil && !closing {
		go pc.Close()
	}
}

// markGone remembers a closed peer's address, forgetting expired ones.
// Called with t.mu held.
func (t *Transport) markGone(addr netip.AddrPort) {
	now := time.Now()
	for a, at := range t.gone {
		if now.Sub(at) > goneTTL {
			delete(t.gone, a)
		}
	}
	if len(t.gone) < 4*t.cfg.MaxPeers {
		t.gone[addr] = now
	}
}
