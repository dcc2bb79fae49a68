package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"tremor/net/cmdargs"
	"tremor/net/netchan"
	"tremor/net/oob"
)

// rconText returns the text of an rcon packet.
func rconText(password, command string) string {
	return "rcon " + cmdargs.Quote(password) + " " + command
}

// parseAddrRange reads "A-B" (inclusive) or a single address and returns
// the addresses, at most limit of them.
func parseAddrRange(s string, limit int) ([]netip.Addr, error) {
	lo, hi, isRange := strings.Cut(s, "-")
	a, err := netip.ParseAddr(strings.TrimSpace(lo))
	if err != nil {
		return nil, fmt.Errorf("address range %q: %w", s, err)
	}
	b := a
	if isRange {
		if b, err = netip.ParseAddr(strings.TrimSpace(hi)); err != nil {
			return nil, fmt.Errorf("address range %q: %w", s, err)
		}
	}
	if a.Is4() != b.Is4() || b.Less(a) {
		return nil, fmt.Errorf("address range %q: %v to %v is not a range of one family, low to high", s, a, b)
	}
	var out []netip.Addr
	for x := a; x.IsValid() && !b.Less(x); x = x.Next() {
		if len(out) == limit {
			return nil, fmt.Errorf("address range %q: more than %d addresses", s, limit)
		}
		out = append(out, x)
	}
	return out, nil
}

// rconFloodResult is what rconflood prints.
type rconFloodResult struct {
	Mode   string `json:"mode"`
	Server string `json:"server"`
	// Sources is "addrs" when each flood socket has its own source
	// address, "ports" when binding them failed (BindError says why) and
	// the flood rotates source ports on one address instead.
	Sources   string `json:"sources"`
	BindError string `json:"bind_error,omitempty"`
	Sockets   int    `json:"sockets"`
	// Wrong counts the wrong-password packets sent, WrongReplies the
	// packets the server sent back to the flood sockets.
	Wrong        int               `json:"wrong"`
	WrongBytes   uint64            `json:"wrong_bytes"`
	SendErrors   int               `json:"send_errors"`
	WrongReplies uint64            `json:"wrong_replies"`
	WrongByKind  map[string]uint64 `json:"wrong_by_kind"`
	DurationS    float64           `json:"duration_s"`
	// AdminSent counts the admin's right-password requests (from
	// AdminAddr), AdminAnswered those answered before the next one (or
	// within -grace of the end), AdminPackets the reply packets.
	AdminAddr     string  `json:"admin_addr"`
	AdminSent     int     `json:"admin_sent"`
	AdminAnswered int     `json:"admin_answered"`
	AdminPackets  int     `json:"admin_packets"`
	AdminMaxMs    float64 `json:"admin_max_reply_ms"`
	AdminSample   string  `json:"admin_sample"`
}

func runRconFlood(args []string, _, stderr io.Writer) (any, error) {
	fs, server := newFlags("rconflood", stderr)
	password := fs.String("password", "", "the right rcon password (the admin's)")
	wrong := fs.Int("wrong", 5000, "wrong-password rcon packets")
	addrs := fs.String("addrs", "127.0.0.2-127.0.0.250", "source addresses the flood rotates through (A-B); falls back to rotating ports if binding fails")
	rate := fs.Float64("rate", 2000, "wrong-password packets a second (0: as fast as possible)")
	adminEvery := fs.Duration("admin-every", 250*time.Millisecond, "interval of the admin's right-password requests during the flood")
	adminCmd := fs.String("admin-command", "status", "the admin's command")
	grace := fs.Duration("grace", time.Second, "how long to wait for answers after the flood")
	addr, err := parseFlags(fs, server, args)
	if err != nil {
		return nil, err
	}
	if *password == "" || *wrong < 0 || *rate < 0 || *adminEvery <= 0 {
		fmt.Fprintln(stderr, "hostile rconflood: -password is required; -wrong and -rate at least 0, -admin-every positive")
		return nil, errUsage
	}
	srcs, err := parseAddrRange(*addrs, 65536)
	if err != nil {
		fmt.Fprintf(stderr, "hostile rconflood: -addrs: %v\n", err)
		return nil, errUsage
	}
	res := &rconFloodResult{Mode: "rconflood", Server: addr.String(), Sources: "addrs", WrongByKind: map[string]uint64{}}

	var flood []*netchan.UDPConn
	closeAll := func() {
		for _, c := range flood {
			c.Close()
		}
	}
	defer closeAll()
	for _, a := range srcs {
		c, err := listen(netip.AddrPortFrom(a, 0).String())
		if err != nil {
			closeAll()
			flood = nil
			res.Sources, res.BindError = "ports", err.Error()
			break
		}
		flood = append(flood, c)
	}
	if res.Sources == "ports" {
		for range srcs {
			c, err := listen(localFor(addr))
			if err != nil {
				return nil, err
			}
			flood = append(flood, c)
		}
	}
	res.Sockets = len(flood)
	tallies := make([]tally, len(flood))
	var wg sync.WaitGroup
	for i, c := range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			drain(c, addr, &tallies[i])
		}()
	}

	admin, err := listen(localFor(addr))
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	res.AdminAddr = admin.LocalAddr().String()
	var (
		mu      sync.Mutex
		replies []time.Time
		sample  strings.Builder
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 1<<16)
		for {
			n, from, err := admin.ReadFrom(buf)
			if err != nil {
				if errors.Is(err, net.ErrClosed) {
					return
				}
				continue
			}
			if from != addr || !oob.IsConnectionless(buf[:n]) {
				continue
			}
			text, err := oob.Parse(buf[:n])
			if err != nil || !strings.EqualFold(oob.Command(text), oob.CmdPrint) {
				continue
			}
			m, _ := oob.ParsePrint(text)
			mu.Lock()
			replies = append(replies, time.Now())
			if sample.Len() < 200 {
				sample.WriteString(m)
			}
			mu.Unlock()
		}
	}()

	start := time.Now()
	stop := make(chan struct{})
	var requests []time.Time
	adminDone := make(chan struct{})
	adminPkt := oob.Packet(rconText(*password, *adminCmd))
	go func() {
		defer close(adminDone)
		t := time.NewTicker(*adminEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				// Stamped before sending: on loopback the answer can be
				// read, and stamped, before WriteTo returns.
				sent := time.Now()
				if admin.WriteTo(adminPkt, addr) == nil {
					requests = append(requests, sent)
				}
			}
		}
	}()
	p := pacer{start: start, rate: *rate}
	for i := range *wrong {
		p.wait(i)
		pkt := oob.Packet(rconText("wrong"+strconv.Itoa(i), *adminCmd))
		if err := flood[i%len(flood)].WriteTo(pkt, addr); err != nil {
			res.SendErrors++
			continue
		}
		res.Wrong++
		res.WrongBytes += uint64(len(pkt))
	}
	close(stop)
	<-adminDone
	res.DurationS = time.Since(start).Seconds()
	time.Sleep(*grace)
	closeAll()
	admin.Close()
	wg.Wait()

	for i := range tallies {
		res.WrongReplies += tallies[i].Packets
		for k, v := range tallies[i].ByKind {
			res.WrongByKind[k] += v
		}
	}
	res.AdminSent, res.AdminPackets, res.AdminSample = len(requests), len(replies), sample.String()
	// Each reply belongs to the last request sent before it.
	answered := make([]bool, len(requests))
	sort.Slice(replies, func(i, j int) bool { return replies[i].Before(replies[j]) })
	for _, r := range replies {
		k := sort.Search(len(requests), func(i int) bool { return requests[i].After(r) }) - 1
		if k < 0 {
			continue
		}
		if !answered[k] {
			answered[k] = true
			res.AdminMaxMs = max(res.AdminMaxMs, float64(r.Sub(requests[k]))/float64(time.Millisecond))
		}
	}
	for _, a := range answered {
		if a {
			res.AdminAnswered++
		}
	}
	return res, nil
}

// rconResult is what rcon prints.
type rconResult struct {
	Mode    string `json:"mode"`
	Server  string `json:"server"`
	Command string `json:"command"`
	// Replies counts the print packets that came back, Text joins them.
	Replies int    `json:"replies"`
	Bytes   int    `json:"bytes"`
	Text    string `json:"text"`
}

func runRcon(args []string, _, stderr io.Writer) (any, error) {
	fs, server := newFlags("rcon", stderr)
	password := fs.String("password", "", "rcon password")
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the first answer")
	quiet := fs.Duration("quiet", 300*time.Millisecond, "the answer is over after this long without a packet")
	addr, err := parseFlags(fs, server, args)
	if err != nil {
		return nil, err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "hostile rcon: no command")
		fs.Usage()
		return nil, errUsage
	}
	command := strings.Join(fs.Args(), " ")
	c, err := listen(localFor(addr))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.WriteTo(oob.Packet(rconText(*password, command)), addr); err != nil {
		return nil, fmt.Errorf("sending rcon to %s: %w", addr, err)
	}
	res := &rconResult{Mode: "rcon", Server: addr.String(), Command: command}
	var text strings.Builder
	buf := make([]byte, 1<<16)
	deadline := time.Now().Add(*timeout)
	for {
		_ = c.SetReadDeadline(deadline)
		n, from, err := c.ReadFrom(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the answer from %s: %w", addr, err)
		}
		if from != addr || !oob.IsConnectionless(buf[:n]) {
			continue
		}
		t, err := oob.Parse(buf[:n])
		if err != nil || !strings.EqualFold(oob.Command(t), oob.CmdPrint) {
			continue
		}
		m, _ := oob.ParsePrint(t)
		res.Replies++
		res.Bytes += n
		text.WriteString(m)
		deadline = time.Now().Add(*quiet)
	}
	res.Text = text.String()
	return res, nil
}
