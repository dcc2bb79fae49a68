package inspect

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"tremor/net/netchan"
)

// IdleTimeout is how long a proxied client may stay silent before the
// proxy closes its upstream socket and forgets it.
const IdleTimeout = 60 * time.Second

// Proxy is a UDP proxy between clients and one server that forwards
// every packet unchanged, both ways, and shows each to an Inspector
// first. Clients send to the proxy's listening Conn; for each client
// address the proxy opens an upstream Conn towards the server, so the
// server sees one address per client.
type Proxy struct {
	// Dial opens the upstream Conn of a new client; nil means a UDP
	// socket on an ephemeral port of every address.
	Dial func() (netchan.Conn, error)
	// OnMessage, if set, gets every decoded message, in the order the
	// packets were inspected, one call at a time.
	OnMessage func(m Message)

	listen netchan.Conn
	server netip.AddrPort
	start  time.Time

	mu  sync.Mutex // guards in, ups and OnMessage calls
	in  *Inspector
	ups map[netip.AddrPort]*upstream
	wg  sync.WaitGroup
}

type upstream struct {
	conn     netchan.Conn
	client   netip.AddrPort
	lastSeen time.Time
}

// NewProxy returns a proxy that receives clients' packets on listen and
// forwards them to server.
func NewProxy(listen netchan.Conn, server netip.AddrPort) *Proxy {
	return &Proxy{listen: listen, server: server, in: New(), ups: make(map[netip.AddrPort]*upstream)}
}

// Run forwards packets until ctx is done or the listening Conn fails,
// then closes the upstream Conns (not the listening one) and returns.
func (p *Proxy) Run(ctx context.Context) error {
	p.start = time.Now()
	defer p.closeAll()
	buf := make([]byte, netchan.MaxMsgLen+netchan.MaxHeaderLen)
	for {
		if ctx.Err() != nil {
			return nil
		}
		if err := p.listen.SetReadDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
			return err
		}
		n, from, err := p.listen.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				p.sweep()
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		up := p.upstream(from)
		if up == nil {
			continue
		}
		p.inspect(ClientToServer, from, p.server, buf[:n])
		up.conn.WriteTo(buf[:n], p.server) // lost, as UDP loses packets
	}
}

// inspect feeds one packet to the inspector and hands on the result.
func (p *Proxy) inspect(dir Dir, from, to netip.AddrPort, packet []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.in.Feed(dir, from, to, packet, time.Since(p.start)) {
		if p.OnMessage != nil {
			p.OnMessage(m)
		}
	}
}

// upstream returns the upstream of a client, opening it the first time.
func (p *Proxy) upstream(client netip.AddrPort) *upstream {
	p.mu.Lock()
	defer p.mu.Unlock()
	if u, ok := p.ups[client]; ok {
		u.lastSeen = time.Now()
		return u
	}
	if len(p.ups) >= MaxConnections {
		return nil
	}
	dial := p.Dial
	if dial == nil {
		dial = func() (netchan.Conn, error) { return netchan.ListenUDP(":0") }
	}
	c, err := dial()
	if err != nil {
		return nil
	}
	u := &upstream{conn: c, client: client, lastSeen: time.Now()}
	p.ups[client] = u
	p.wg.Add(1)
	go p.downstream(u)
	return u
}

// downstream forwards the server's packets to one client.
func (p *Proxy) downstream(u *upstream) {
	defer p.wg.Done()
	buf := make([]byte, netchan.MaxMsgLen+netchan.MaxHeaderLen)
	for {
		n, from, err := u.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			return // closed
		}
		if from != p.server {
			continue
		}
		p.inspect(ServerToClient, p.server, u.client, buf[:n])
		p.listen.WriteTo(buf[:n], u.client) // lost, as UDP loses packets
	}
}

// sweep closes the upstreams of clients silent for IdleTimeout.
func (p *Proxy) sweep() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, u := range p.ups {
		if time.Since(u.lastSeen) > IdleTimeout {
			u.conn.Close()
			delete(p.ups, a)
		}
	}
}

func (p *Proxy) closeAll() {
	p.mu.Lock()
	for a, u := range p.ups {
		u.conn.Close()
		delete(p.ups, a)
	}
	p.mu.Unlock()
	p.wg.Wait()
}
