package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// rtcOffersResult is what rtcoffers prints.
type rtcOffersResult struct {
	Mode    string   `json:"mode"`
	URL     string   `json:"url"`
	Sources []string `json:"sources"` // the first and last source address
	Addrs   int      `json:"addrs"`
	Rate    float64  `json:"rate"`
	// Sent counts the offers posted, ByStatus their answers by HTTP
	// status, Errors those that got no answer (the connection refused
	// or reset: the web port's connection limits), ErrorSample one of
	// them.
	Sent        int            `json:"sent"`
	ByStatus    map[string]int `json:"by_status"`
	Errors      int            `json:"errors"`
	ErrorSample string         `json:"error_sample,omitempty"`
	DurationS   float64        `json:"duration_s"`
	AchievedHz  float64        `json:"achieved_rate"`
	// P50Ms and P99Ms are the answers' times, MaxMs the longest.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// rtcOffer returns a browser-like SDP offer for one unordered
// DataChannel, without candidates, with fresh ICE credentials and DTLS
// fingerprint: valid for pion, so an offer the limits let through costs
// the server a PeerConnection, an answer and a pending slot.
func rtcOffer() string {
	var b [64]byte // session id, ICE ufrag and password, fingerprint
	_, _ = rand.Read(b[:])
	hex := func(p []byte, sep string) string {
		parts := make([]string, len(p))
		for i, c := range p {
			parts[i] = fmt.Sprintf("%02X", c)
		}
		return strings.Join(parts, sep)
	}
	alnum := func(p []byte) string {
		const set = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		out := make([]byte, len(p))
		for i, c := range p {
			out[i] = set[int(c)%len(set)]
		}
		return string(out)
	}
	lines := []string{
		"v=0",
		fmt.Sprintf("o=- %d 2 IN IP4 127.0.0.1", binary.BigEndian.Uint64(b[:8])>>1),
		"s=-",
		"t=0 0",
		"a=group:BUNDLE 0",
		"a=extmap-allow-mixed",
		"a=msid-semantic: WMS",
		"m=application 9 UDP/DTLS/SCTP webrtc-datachannel",
		"c=IN IP4 0.0.0.0",
		"a=ice-ufrag:" + alnum(b[8:12]),
		"a=ice-pwd:" + alnum(b[12:32]),
		"a=ice-options:trickle",
		"a=fingerprint:sha-256 " + hex(b[32:64], ":"),
		"a=setup:actpass",
		"a=mid:0",
		"a=sctp-port:5000",
		"a=max-message-size:262144",
	}
	return strings.Join(lines, "\r\n") + "\r\n"
}

// runRTCOffers posts SDP offers to a server's /rtc at -rate a second for
// -duration, from each address of -addrs in turn (each its own
// keep-alive connections, at most -conns), and counts the answers.
func runRTCOffers(args []string, _, stderr io.Writer) (any, error) {
	fs := flag.NewFlagSet("hostile rtcoffers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	web := fs.String("url", "", "the server's web port, http://HOST:PORT/ (offers go to its /rtc)")
	rate := fs.Float64("rate", 1000, "offers a second (0: as fast as the workers go)")
	duration := fs.Duration("duration", 10*time.Second, "how long to post")
	addrs := fs.String("addrs", "127.0.0.2", "source address or range A-B, each its own source (127/8 all reaches lo on Linux)")
	workers := fs.Int("workers", 32, "offers in flight at once")
	conns := fs.Int("conns", 4, "keep-alive connections per source address")
	if err := fs.Parse(args); err != nil {
		return nil, errUsage
	}
	u, err := url.Parse(*web)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fmt.Fprintf(stderr, "hostile rtcoffers: -url %q: want http://HOST:PORT/\n", *web)
		return nil, errUsage
	}
	u.Path = "/rtc"
	srcs, err := parseAddrRange(*addrs, 65536)
	if err != nil || *workers < 1 || *conns < 1 {
		fmt.Fprintf(stderr, "hostile rtcoffers: %v (workers and conns at least 1)\n", err)
		return nil, errUsage
	}
	clients := make([]*http.Client, len(srcs))
	for i, a := range srcs {
		d := &net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(a, 0)), Timeout: 5 * time.Second}
		clients[i] = &http.Client{
			Timeout: 10 * time.Second,
			Transport: &http.Transport{
				DialContext:         d.DialContext,
				MaxConnsPerHost:     *conns,
				MaxIdleConnsPerHost: *conns,
				IdleConnTimeout:     30 * time.Second,
			},
		}
	}
	res := &rtcOffersResult{Mode: "rtcoffers", URL: u.String(), Addrs: len(srcs), Rate: *rate, ByStatus: map[string]int{},
		Sources: []string{srcs[0].String(), srcs[len(srcs)-1].String()}}
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	p := pacer{start: time.Now(), rate: *rate}
	tickets := make(chan int)
	go func() {
		defer close(tickets)
		for i := 0; ; i++ {
			p.wait(i)
			select {
			case tickets <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var (
		mu    sync.Mutex
		times []time.Duration
		wg    sync.WaitGroup
	)
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range tickets {
				c := clients[i%len(clients)]
				start := time.Now()
				status, err := postOffer(c, u.String(), rtcOffer())
				took := time.Since(start)
				mu.Lock()
				res.Sent++
				if err != nil {
					res.Errors++
					if res.ErrorSample == "" && !errors.Is(err, context.DeadlineExceeded) {
						res.ErrorSample = err.Error()
					}
				} else {
					res.ByStatus[fmt.Sprint(status)]++
					times = append(times, took)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.DurationS = time.Since(p.start).Seconds()
	res.AchievedHz = float64(res.Sent) / res.DurationS
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	if n := len(times); n > 0 {
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		res.P50Ms, res.P99Ms, res.MaxMs = ms(times[n/2]), ms(times[n*99/100]), ms(times[n-1])
	}
	for _, c := range clients {
		c.CloseIdleConnections()
	}
	return res, nil
}

// postOffer posts one offer and returns the answer's status, its body
// read and dropped.
func postOffer(c *http.Client, u, offer string) (int, error) {
	resp, err := c.Post(u, "application/sdp", strings.NewReader(offer))
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}
