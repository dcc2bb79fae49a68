package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"tremor/net/netchan"
	"tremor/net/oob"
)

// pacer spaces events at rate a second from start; rate 0 does not wait.
type pacer struct {
	start time.Time
	rate  float64
}

// due returns when event i is due.
func (p pacer) due(i int) time.Time {
	if p.rate <= 0 {
		return p.start
	}
	return p.start.Add(time.Duration(float64(i) / p.rate * float64(time.Second)))
}

// wait sleeps until event i is due.
func (p pacer) wait(i int) {
	if d := time.Until(p.due(i)); d > 0 {
		time.Sleep(d)
	}
}

// tally counts the packets a socket received from the server, by
// connectionless command.
type tally struct {
	Packets uint64            `json:"packets"`
	Bytes   uint64            `json:"bytes"`
	ByKind  map[string]uint64 `json:"by_kind"`
}

func (t *tally) add(o *tally) {
	t.Packets += o.Packets
	t.Bytes += o.Bytes
	for k, v := range o.ByKind {
		if t.ByKind == nil {
			t.ByKind = map[string]uint64{}
		}
		t.ByKind[k] += v
	}
}

// count notes one received packet p.
func (t *tally) count(p []byte) {
	t.Packets++
	t.Bytes += uint64(len(p))
	kind := "netchan"
	if oob.IsConnectionless(p) {
		kind = "malformed"
		if text, err := oob.Parse(p); err == nil {
			kind = oob.Command(text)
		}
	}
	if t.ByKind == nil {
		t.ByKind = map[string]uint64{}
	}
	t.ByKind[kind]++
}

// drain reads conn until it is closed or its deadline passes, counting
// what the server sends.
func drain(conn interface {
	ReadFrom([]byte) (int, netip.AddrPort, error)
}, server netip.AddrPort, t *tally) {
	buf := make([]byte, 1<<16)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
			continue
		}
		if from == server {
			t.count(buf[:n])
		}
	}
}

// statusFloodResult is what statusflood prints. Bytes are UDP payloads.
type statusFloodResult struct {
	Mode        string  `json:"mode"`
	Server      string  `json:"server"`
	Ports       int     `json:"ports"`
	Rate        float64 `json:"rate"`
	DurationS   float64 `json:"duration_s"`
	Request     string  `json:"request"`
	SentPackets uint64  `json:"sent_packets"`
	SentBytes   uint64  `json:"sent_bytes"`
	SendErrors  uint64  `json:"send_errors"`
	RecvPackets uint64  `json:"recv_packets"`
	RecvBytes   uint64  `json:"recv_bytes"`
	// Amplification is RecvBytes / SentBytes: above 1, a spoofed flood
	// gets the victim more bytes than the attacker sends.
	Amplification float64           `json:"amplification"`
	RecvByKind    map[string]uint64 `json:"recv_by_kind"`
	// PortsAnswered is how many of the source ports got any answer.
	PortsAnswered int `json:"ports_answered"`
}

func runStatusFlood(args []string, _, stderr io.Writer) (any, error) {
	fs, server := newFlags("statusflood", stderr)
	ports := fs.Int("ports", 64, "source ports (sockets) the requests rotate through")
	duration := fs.Duration("duration", 5*time.Second, "how long to flood")
	rate := fs.Float64("rate", 1000, "getstatus packets a second, all ports together (0: as fast as possible)")
	challenge := fs.String("challenge", "", "getstatus challenge (empty: none, the smallest request)")
	grace := fs.Duration("grace", 500*time.Millisecond, "how long to wait for late answers after the flood")
	addr, err := parseFlags(fs, server, args)
	if err != nil {
		return nil, err
	}
	if *ports < 1 || *duration <= 0 || *rate < 0 {
		fmt.Fprintln(stderr, "hostile statusflood: -ports and -duration must be positive, -rate at least 0")
		return nil, errUsage
	}
	req := oob.Packet(oob.FormatGetStatus(*challenge))
	res := &statusFloodResult{Mode: "statusflood", Server: addr.String(), Ports: *ports, Rate: *rate, Request: oob.FormatGetStatus(*challenge)}

	tallies := make([]tally, *ports)
	var wg sync.WaitGroup
	var socks []*netchan.UDPConn
	closeAll := func() {
		for _, c := range socks {
			c.Close()
		}
	}
	defer closeAll()
	for i := range *ports {
		c, err := listen(localFor(addr))
		if err != nil {
			return nil, fmt.Errorf("socket %d of %d: %w", i+1, *ports, err)
		}
		socks = append(socks, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			drain(c, addr, &tallies[i])
		}()
	}

	start := time.Now()
	p := pacer{start: start, rate: *rate}
	for i := 0; ; i++ {
		if p.due(i).Sub(start) >= *duration {
			break
		}
		p.wait(i)
		if time.Since(start) >= *duration {
			break
		}
		if err := socks[i%len(socks)].WriteTo(req, addr); err != nil {
			res.SendErrors++
			continue
		}
		res.SentPackets++
		res.SentBytes += uint64(len(req))
	}
	res.DurationS = time.Since(start).Seconds()
	time.Sleep(*grace)
	closeAll()
	wg.Wait()

	var all tally
	for i := range tallies {
		if tallies[i].Packets > 0 {
			res.PortsAnswered++
		}
		all.add(&tallies[i])
	}
	res.RecvPackets, res.RecvBytes, res.RecvByKind = all.Packets, all.Bytes, all.ByKind
	if res.RecvByKind == nil {
		res.RecvByKind = map[string]uint64{}
	}
	if res.SentBytes > 0 {
		res.Amplification = float64(res.RecvBytes) / float64(res.SentBytes)
	}
	return res, nil
}

// challengeFloodResult is what challengeflood prints.
type challengeFloodResult struct {
	Mode       string  `json:"mode"`
	Server     string  `json:"server"`
	Count      int     `json:"count"`
	Rate       float64 `json:"rate"`
	RequestLen int     `json:"request_len"`
	// Sent counts the getchallenge packets sent, each from a new socket;
	// OpenErrors the sockets that could not be opened.
	Sent       int     `json:"sent"`
	SentBytes  uint64  `json:"sent_bytes"`
	OpenErrors int     `json:"open_errors"`
	SendErrors int     `json:"send_errors"`
	DurationS  float64 `json:"duration_s"`
	// Answered counts the flood sockets that got a challengeResponse
	// within -linger.
	Answered    int               `json:"answered"`
	RecvPackets uint64            `json:"recv_packets"`
	RecvBytes   uint64            `json:"recv_bytes"`
	RecvByKind  map[string]uint64 `json:"recv_by_kind"`
	// Join is the outcome of -join: a challenge obtained before the
	// flood, used to connect after it.
	Join *joinResult `json:"join,omitempty"`
}

// joinResult is the outcome of a join around a flood.
type joinResult struct {
	Challenged bool `json:"challenged"`
	// Accepted: the server answered connectResponse; Refused is its
	// print otherwise.
	Accepted bool   `json:"accepted"`
	Refused  string `json:"refused,omitempty"`
	// InGame: after connecting, the gamestate and a snapshot arrived.
	InGame bool   `json:"in_game"`
	Error  string `json:"error,omitempty"`
}

func runChallengeFlood(args []string, _, stderr io.Writer) (any, error) {
	fs, server := newFlags("challengeflood", stderr)
	count := fs.Int("count", 1100, "getchallenge packets, each from a new source port")
	rate := fs.Float64("rate", 0, "packets a second (0: as fast as possible)")
	linger := fs.Duration("linger", 200*time.Millisecond, "how long each socket waits for its answer before closing")
	parallel := fs.Int("parallel", 256, "sockets open at once, at most")
	join := fs.Bool("join", false, "get a challenge before the flood on a socket of its own, connect with it after, and report whether the server took it")
	timeout := fs.Duration("timeout", 5*time.Second, "limit of each step of -join's handshake")
	addr, err := parseFlags(fs, server, args)
	if err != nil {
		return nil, err
	}
	if *count < 1 || *rate < 0 || *parallel < 1 || *linger < 0 {
		fmt.Fprintln(stderr, "hostile challengeflood: -count and -parallel must be positive, -rate and -linger at least 0")
		return nil, errUsage
	}
	res := &challengeFloodResult{Mode: "challengeflood", Server: addr.String(), Count: *count, Rate: *rate,
		RequestLen: len(oob.Packet(oob.FormatGetChallenge(0)))}

	var joiner *gameClient
	if *join {
		joiner, err = newGameClient(addr, "Joiner")
		if err != nil {
			return nil, err
		}
		defer joiner.close()
		res.Join = &joinResult{}
		if err := joiner.getChallenge(*timeout); err != nil {
			res.Join.Error = err.Error()
			joiner = nil
		} else {
			res.Join.Challenged = true
		}
	}

	var (
		mu      sync.Mutex
		all     tally
		wg      sync.WaitGroup
		slots   = make(chan struct{}, *parallel)
		local   = localFor(addr)
		start   = time.Now()
		p       = pacer{start: start, rate: *rate}
		answers int
	)
	for i := range *count {
		p.wait(i)
		slots <- struct{}{}
		c, err := listen(local)
		if err != nil {
			res.OpenErrors++
			<-slots
			continue
		}
		pkt := oob.Packet(oob.FormatGetChallenge(rand.Int32()))
		if err := c.WriteTo(pkt, addr); err != nil {
			res.SendErrors++
			c.Close()
			<-slots
			continue
		}
		res.Sent++
		res.SentBytes += uint64(len(pkt))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			var t tally
			_ = c.SetReadDeadline(time.Now().Add(*linger))
			drain(c, addr, &t)
			c.Close()
			mu.Lock()
			all.add(&t)
			if t.ByKind[oob.CmdChallengeResponse] > 0 {
				answers++
			}
			mu.Unlock()
		}()
	}
	res.DurationS = time.Since(start).Seconds()
	wg.Wait()
	res.Answered = answers
	res.RecvPackets, res.RecvBytes, res.RecvByKind = all.Packets, all.Bytes, all.ByKind
	if res.RecvByKind == nil {
		res.RecvByKind = map[string]uint64{}
	}

	if joiner != nil {
		refusal, err := joiner.connect(*timeout)
		switch {
		case err != nil:
			res.Join.Error = err.Error()
		case refusal != "":
			res.Join.Refused = refusal
		default:
			res.Join.Accepted = true
			ok, err := joiner.pump(*timeout, func() bool { return joiner.haveGamestate && joiner.snaps > 0 })
			res.Join.InGame = ok
			if err != nil {
				res.Join.Error = err.Error()
			} else if !ok {
				res.Join.Error = fmt.Sprintf("no gamestate and snapshot within %v (dropped: %q)", *timeout, joiner.dropReason)
			}
			joiner.disconnect()
		}
	}
	return res, nil
}
