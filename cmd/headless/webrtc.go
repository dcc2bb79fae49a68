package main

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"tremor/net/netchan"
	"tremor/server/rtc"
	"tremor/server/rtc/page"
)

// webrtcListen returns the headless runner's Listen for -webrtc: each
// client a page's DataChannel to the server at game, signalled at the
// web port web (http://HOST:PORT/, its /rtc).
func webrtcListen(ctx context.Context, web string, game netip.AddrPort) (func(int) (netchan.Conn, error), error) {
	u, err := url.Parse(web)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not a web port URL (http://HOST:PORT/)", web)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = rtc.Path
	} else if !strings.HasSuffix(u.Path, rtc.Path) {
		u.Path = strings.TrimSuffix(u.Path, "/") + rtc.Path
	}
	signal := u.String()
	api := page.NewAPI(game.Addr().Unmap().IsLoopback())
	client := &http.Client{Timeout: 10 * time.Second}
	return func(int) (netchan.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		return page.Dial(dctx, api, client, signal, game)
	}, nil
}
