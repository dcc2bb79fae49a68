package rtc

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/logging"
	"github.com/pion/webrtc/v4"

	"tremor/net/netchan"
	"tremor/net/srclimit"
)

// Label is the DataChannel label a browser opens its channel with.
const Label = "tremor"

// Defaults of Config's zero fields, and fixed limits.
const (
	// DefaultMaxPeers bounds the peers held at once, pending or open.
	DefaultMaxPeers = 64
	// DefaultMaxPending bounds the peers answered whose channel is not
	// open yet.
	DefaultMaxPending = 16
	// DefaultPendingTimeout is how long an answered peer has to open its
	// channel before it is dropped.
	DefaultPendingTimeout = 5 * time.Second
	// DefaultDisconnectedTimeout and DefaultFailedTimeout are ICE's: a
	// peer heard nothing from for the first is disconnected, and after
	// the second more it has failed and is freed. pion's defaults (5 s
	// and 25 s) would keep a vanished browser's slot for half a minute.
	DefaultDisconnectedTimeout = 2 * time.Second
	DefaultFailedTimeout       = 2 * time.Second
	// DefaultKeepAlive is how often ICE checks an idle pair.
	DefaultKeepAlive = 500 * time.Millisecond

	// OfferBurst offers from one source (an IPv4 address or an IPv6 /64,
	// srclimit.Source) pass at once, then one every OfferPeriod
	// milliseconds.
	OfferBurst  = 4
	OfferPeriod = 1000
	// MaxOfferSources bounds the offer limiter's table.
	MaxOfferSources = 4096

	// ringLen is how many received packets wait for the server.
	ringLen = 1024
	// goneTTL is how long writes to a closed peer's address are dropped
	// rather than sent over UDP to the browser's ICE port.
	goneTTL = time.Minute
	// gatherTimeout bounds the wait for the answer's candidates.
	gatherTimeout = 2 * time.Second
)

// Config holds a Transport's settings; zero fields take the defaults.
type Config struct {
	// SharedPort runs the ICE agents over the game socket itself: one
	// UDP port for UDP and browser players, the socket read by the ICE
	// mux and its non-ICE packets handed to the game. Otherwise ICE gets
	// a UDP socket of its own at ICEAddr.
	SharedPort bool
	// ICEAddr is where the ICE socket listens when SharedPort is false,
	// "host:port" as for net.ListenUDP.
	ICEAddr string

	MaxPeers       int
	MaxPending     int
	PendingTimeout time.Duration

	DisconnectedTimeout time.Duration
	FailedTimeout       time.Duration
	KeepAlive           time.Duration

	// Logf, if not nil, is told about peers coming and going and offers
	// refused, one line each (without a newline). It may be called from
	// any goroutine.
	Logf func(format string, args ...any)
}

func (c *Config) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxPeers, DefaultMaxPeers)
	def(&c.MaxPending, DefaultMaxPending)
	c.MaxPending = min(c.MaxPending, c.MaxPeers)
	defd(&c.PendingTimeout, DefaultPendingTimeout)
	defd(&c.DisconnectedTimeout, DefaultDisconnectedTimeout)
	defd(&c.FailedTimeout, DefaultFailedTimeout)
	defd(&c.KeepAlive, DefaultKeepAlive)
}

// Stats are a Transport's counters.
type Stats struct {
	Offers       uint64 // POST /rtc requests
	Answered     uint64 // offers answered with an SDP answer
	RateLimited  uint64 // offers refused by the per-source limit (429)
	Full         uint64 // offers refused: too many peers or pending ones (503)
	BadOffers    uint64 // offers refused as malformed (400, 413, 415)
	Opened       uint64 // peers whose channel opened
	Expired      uint64 // answered peers that never opened in time
	Closed       uint64 // peers freed, for any reason
	PacketsIn    uint64 // DataChannel messages handed to the server
	PacketsOut   uint64 // packets sent over DataChannels
	RingDrops    uint64 // DataChannel messages dropped: the server's queue was full
	SendErrors   uint64 // DataChannel sends that failed
	GoneDrops    uint64 // packets to a closed peer's address, dropped
	UnhandledUDP uint64 // game packets read by the ICE mux (SharedPort)
}

// Transport is the WebRTC transport: the game's UDP socket, an ICE mux,
// the peers and the signalling. It is safe for concurrent use.
type Transport struct {
	cfg   Config
	url   string // the page's address on the LAN, once StartWith served it
	udp   *netchan.UDPConn
	batch netchan.BatchConn // udp, if it is one
	ice   net.PacketConn    // the ICE mux's socket
	mux   *ice.UDPMuxDefault
	api   *webrtc.API
	cert  webrtc.Certificate
	ring  *netchan.PacketRing
	rd    *netchan.ReadDeadline
	start time.Time
	conn  netchan.Conn

	mu      sync.RWMutex
	peers   map[netip.AddrPort]*peer // open peers by remote address
	all     map[*peer]struct{}       // every peer held, pending or open
	pending int
	gone    map[netip.AddrPort]time.Time
	offers  srclimit.Limiter[netip.Addr]
	closed  bool
	stats   Stats // the counters not kept in atomics below

	packetsIn, packetsOut, ringDrops, sendErrors, goneDrops, unhandled atomic.Uint64

	httpMu  sync.Mutex
	servers []*httpServer

	dlMu sync.Mutex
	dl   time.Time // batchConn's read deadline

	readerDone chan struct{} // closed when the UDP reader goroutine ends (non-batch sockets)
}

// Listen makes a transport over udp, the game's UDP socket, which it
// owns from now on (Close closes it). With cfg.SharedPort the ICE mux
// reads that socket; otherwise it opens its own at cfg.ICEAddr.
func Listen(udp *netchan.UDPConn, cfg Config) (*Transport, error) {
	cfg.defaults()
	t := &Transport{
		cfg:    cfg,
		udp:    udp,
		ring:   netchan.NewPacketRing(ringLen),
		rd:     netchan.NewReadDeadline(),
		start:  time.Now(),
		peers:  make(map[netip.AddrPort]*peer),
		all:    make(map[*peer]struct{}),
		gone:   make(map[netip.AddrPort]time.Time),
		offers: srclimit.NewLimiter[netip.Addr](OfferBurst, OfferPeriod, MaxOfferSources),
	}
	if bc, ok := netchan.Conn(udp).(netchan.BatchConn); ok {
		t.batch = bc
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("rtc: certificate key: %w", err)
	}
	cert, err := webrtc.GenerateCertificate(key)
	if err != nil {
		return nil, fmt.Errorf("rtc: certificate: %w", err)
	}
	t.cert = *cert

	local := udp.LocalAddr()
	if cfg.SharedPort {
		t.ice = &gamePacketConn{u: udp}
	} else {
		ua, err := net.ResolveUDPAddr("udp", cfg.ICEAddr)
		if err != nil {
			return nil, fmt.Errorf("rtc: ICE address %q: %w", cfg.ICEAddr, err)
		}
		c, err := net.ListenUDP("udp", ua)
		if err != nil {
			return nil, fmt.Errorf("rtc: ICE socket %q: %w", cfg.ICEAddr, err)
		}
		t.ice = c
		if la, ok := c.LocalAddr().(*net.UDPAddr); ok {
			local = la.AddrPort()
		}
	}
	quiet := logging.NewDefaultLoggerFactory()
	quiet.Writer = io.Discard
	quiet.DefaultLogLevel = logging.LogLevelDisabled
	params := ice.UDPMuxParams{UDPConn: t.ice, Logger: quiet.NewLogger("ice")}
	if cfg.SharedPort {
		params.OnUnhandledPacket = t.onUnhandled
	}
	t.mux = ice.NewUDPMuxDefault(params)

	var se webrtc.SettingEngine
	se.LoggerFactory = quiet
	se.SetICEUDPMux(t.mux)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	if local.Addr().Unmap().IsLoopback() {
		se.SetIncludeLoopbackCandidate(true)
	}
	se.SetICETimeouts(cfg.DisconnectedTimeout, cfg.FailedTimeout, cfg.KeepAlive)
	t.api = webrtc.NewAPI(webrtc.WithSettingEngine(se))

	c := &conn{t: t}
	t.conn = c
	if t.batch != nil {
		t.conn = &batchConn{c}
	}
	if !cfg.SharedPort && t.batch == nil {
		// No batch reads: a goroutine feeds the game socket's packets
		// to the ring the DataChannels feed.
		t.readerDone = make(chan struct{})
		go t.readUDP()
	}
	return t, nil
}

// Conn returns the netchan.Conn the server engine reads and writes
// through: UDP players and WebRTC peers. It is a netchan.BatchConn when
// the game socket is one (Linux), and always a netchan.FragmentSizer.
// Closing it closes the transport.
func (t *Transport) Conn() netchan.Conn { return t.conn }

// ICEAddr returns the address of the ICE socket: the game socket's with
// SharedPort, else the second one's.
func (t *Transport) ICEAddr() netip.AddrPort {
	if ua, ok := t.ice.LocalAddr().(*net.UDPAddr); ok {
		return netip.AddrPortFrom(ua.AddrPort().Addr().Unmap(), ua.AddrPort().Port())
	}
	return netip.AddrPort{}
}

// Stats returns a copy of the transport's counters.
func (t *Transport) Stats() Stats {
	t.mu.RLock()
	s := t.stats
	t.mu.RUnlock()
	s.PacketsIn = t.packetsIn.Load()
	s.PacketsOut = t.packetsOut.Load()
	s.RingDrops = t.ringDrops.Load()
	s.SendErrors = t.sendErrors.Load()
	s.GoneDrops = t.goneDrops.Load()
	s.UnhandledUDP = t.unhandled.Load()
	return s
}

// Peers returns how many peers are open and how many answered but not
// open yet.
func (t *Transport) Peers() (open, pending int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.peers), t.pending
}

// PeerAddrs returns the remote addresses of the open peers.
func (t *Transport) PeerAddrs() []netip.AddrPort {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]netip.AddrPort, 0, len(t.peers))
	for a := range t.peers {
		out = append(out, a)
	}
	return out
}

// Close closes every peer, the HTTP servers ListenHTTP started, the ICE
// mux and the game socket. Closing twice returns net.ErrClosed.
func (t *Transport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return net.ErrClosed
	}
	t.closed = true
	peers := make([]*peer, 0, len(t.all))
	var pcs []*webrtc.PeerConnection
	for p := range t.all {
		peers = append(peers, p)
		if p.pc != nil {
			pcs = append(pcs, p.pc)
		}
	}
	t.mu.Unlock()
	t.closeHTTP()
	for _, p := range peers {
		p.close("server closing")
	}
	for _, pc := range pcs {
		_ = pc.Close()
	}
	_ = t.rd.Close()
	t.ring.Close()
	err := t.mux.Close()
	if !t.cfg.SharedPort {
		_ = t.ice.Close()
	}
	if e := t.udp.Close(); err == nil {
		err = e
	}
	if t.readerDone != nil {
		<-t.readerDone
	}
	return err
}

// now returns the milliseconds since the transport started, the clock
// of its limits.
func (t *Transport) now() int32 { return int32(time.Since(t.start) / time.Millisecond) }

func (t *Transport) logf(format string, args ...any) {
	if t.cfg.Logf != nil {
		t.cfg.Logf(format, args...)
	}
}

// onUnhandled takes a packet of the shared socket that no ICE agent
// wanted: a UDP player's.
func (t *Transport) onUnhandled(p []byte, from netip.AddrPort) {
	t.unhandled.Add(1)
	if !t.ring.Push(p, unmap(from)) {
		t.ringDrops.Add(1)
	}
}

// readUDP feeds the game socket's packets to the ring, for sockets
// without batch reads.
func (t *Transport) readUDP() {
	defer close(t.readerDone)
	var buf [netchan.MaxMsgLen]byte
	for {
		n, from, err := t.udp.ReadFrom(buf[:])
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if !t.ring.Push(buf[:n], from) {
			t.ringDrops.Add(1)
		}
	}
}

// peerFor returns the open peer at addr, or nil, and whether addr is a
// closed peer's.
func (t *Transport) peerFor(addr netip.AddrPort) (p *peer, gone bool) {
	t.mu.RLock()
	p = t.peers[addr]
	if p == nil && len(t.gone) > 0 {
		_, gone = t.gone[addr]
	}
	t.mu.RUnlock()
	return p, gone
}

// writeTo sends p to addr: over its peer's DataChannel, or over UDP.
func (t *Transport) writeTo(p []byte, addr netip.AddrPort) error {
	peer, gone := t.peerFor(addr)
	switch {
	case peer != nil:
		return peer.send(p)
	case gone:
		t.goneDrops.Add(1)
		return nil
	}
	return t.udp.WriteTo(p, addr)
}

// fragmentSize implements netchan.FragmentSizer for the Conn.
func (t *Transport) fragmentSize(to netip.AddrPort) int {
	if p, _ := t.peerFor(to); p != nil {
		return netchan.WebRTCFragmentSize
	}
	return 0
}

// unmap turns an IPv4-mapped IPv6 address into the plain IPv4 address.
func unmap(a netip.AddrPort) netip.AddrPort {
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

// gamePacketConn lets the ICE mux read and write the game's UDP socket.
type gamePacketConn struct{ u *netchan.UDPConn }

func (g *gamePacketConn) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	return g.u.ReadFrom(b)
}

func (g *gamePacketConn) WriteToAddrPort(b []byte, addr netip.AddrPort) (int, error) {
	if err := g.u.WriteTo(b, addr); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (g *gamePacketConn) ReadFrom(b []byte) (int, net.Addr, error) {
	n, from, err := g.u.ReadFrom(b)
	if err != nil {
		return n, nil, err
	}
	return n, net.UDPAddrFromAddrPort(from), nil
}

func (g *gamePacketConn) WriteTo(b []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, fmt.Errorf("rtc: write to %v: not a UDP address", addr)
	}
	return g.WriteToAddrPort(b, ua.AddrPort())
}

func (g *gamePacketConn) Close() error { return nil } // Transport.Close closes the socket
func (g *gamePacketConn) LocalAddr() net.Addr {
	return net.UDPAddrFromAddrPort(g.u.LocalAddr())
}
func (g *gamePacketConn) SetDeadline(t time.Time) error      { return g.u.SetReadDeadline(t) }
func (g *gamePacketConn) SetReadDeadline(t time.Time) error  { return g.u.SetReadDeadline(t) }
func (g *gamePacketConn) SetWriteDeadline(t time.Time) error { return nil }
